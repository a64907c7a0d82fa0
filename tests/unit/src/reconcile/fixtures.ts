/** Records for the reconciliation tests, built through the same pure mappers sync uses. */
import type { ChargeItem, HistoryItem } from '../../../../electron/shared/payment-api'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { historyRecordOf } from '../../../../src/db/history-record'
import type { ChargeRecord, HistoryRecord, MarkRecord, RecordKey } from '../../../../src/db/records'

export const CONN = 'conn-a'
export const STORE_1 = '11111111-1111-4111-8111-111111111111'
export const STORE_2 = '22222222-2222-4222-8222-222222222222'

export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
}

export function historyItem(n: number, over: Partial<HistoryItem> = {}): HistoryItem {
  return {
    store_id: STORE_1,
    resource_id: uuid(n),
    charge_id: null,
    amount: 1000,
    currency: 'JPY',
    amount_formatted: 1000,
    type: 'charge',
    status: 'successful',
    metadata: { order_id: `ORD-${n}` },
    created_on: '2026-10-15T03:00:00.000000Z',
    mode: 'live',
    merchant_name: 'Merchant',
    store_name: 'Store',
    payment_type: 'card',
    user_data: {
      type: 'charge',
      cardholder_name: `Holder ${n}`,
      cardholder_email_address: `holder${n}@example.com`,
      brand: 'visa',
      gateway: 'gw',
      service_provider: 'sp',
      refunds: [],
    },
    bank_transfer_payment_status: null,
    bank_transfer_latest_deposit_date: null,
    ...over,
  }
}

export function history(n: number, over: Partial<HistoryItem> = {}): HistoryRecord {
  return historyRecordOf(CONN, historyItem(n, over), 0)
}

/** A refund record of charge `chargeN`. */
export function refund(n: number, chargeN: number, over: Partial<HistoryItem> = {}): HistoryRecord {
  return history(n, { type: 'refund', charge_id: uuid(chargeN), ...over })
}

export function chargeItem(n: number, over: Partial<ChargeItem> = {}): ChargeItem {
  return {
    id: uuid(n),
    store_id: STORE_1,
    transaction_token_id: uuid(10_000 + n),
    transaction_token_type: 'one_time',
    subscription_id: null,
    merchant_transaction_id: `ORD-${n}`,
    requested_amount: 1000,
    requested_currency: 'JPY',
    requested_amount_formatted: 1000,
    charged_amount: 1000,
    charged_currency: 'JPY',
    charged_amount_formatted: 1000,
    fee_amount: 36,
    fee_currency: 'JPY',
    fee_amount_formatted: 36,
    only_direct_currency: false,
    capture_at: null,
    descriptor: null,
    descriptor_phone_number: null,
    status: 'successful',
    error: null,
    metadata: {},
    mode: 'live',
    created_on: '2026-10-15T03:00:00.000000Z',
    redirect: {},
    merchant_name: 'Merchant',
    store_name: 'Store',
    ...over,
  }
}

export function charge(n: number, over: Partial<ChargeItem> = {}): ChargeRecord {
  return chargeRecordOf(CONN, chargeItem(n, over), 0)
}

export function marksOf(...marks: MarkRecord[]): Map<RecordKey, MarkRecord> {
  return new Map(marks.map((m) => [m.key, m]))
}
