/**
 * A month of generated cache records for the export and match benchmarks: charges and refunds over three
 * stores in JPY and USD, live and test, most of them reconciled. Deterministic, no I/O.
 */
import { chargeRecordOf } from '../../../src/db/charge-record'
import { historyRecordOf } from '../../../src/db/history-record'
import type { ChargeRecord, HistoryRecord, MarkRecord, RecordKey } from '../../../src/domain/records'
import { fingerprintOf } from '../../../src/domain/fingerprint'
import type { MonthWorkbookInput } from '../../../src/export/month-workbook'

const STORES = [
  '11111111-1111-4111-8111-111111111111',
  '22222222-2222-4222-8222-222222222222',
  '33333333-3333-4333-8333-333333333333',
]
const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
const MONTH_START = Date.parse('2026-09-30T15:00:00Z') // October in Asia/Tokyo

export interface MonthData {
  history: HistoryRecord[]
  charges: ChargeRecord[]
  marks: Map<RecordKey, MarkRecord>
}

export function generateMonth(n: number, connectionId = 'bench'): MonthData {
  const history: HistoryRecord[] = []
  const charges: ChargeRecord[] = []
  const marks = new Map<RecordKey, MarkRecord>()
  for (let i = 1; i <= n; i++) {
    const isRefund = i % 10 === 0
    const usd = i % 3 === 0
    const created = new Date(MONTH_START + Math.floor((i / n) * 30 * 86_400_000)).toISOString()
    const store = STORES[i % 3] as string
    const amount = usd ? 1000 + (i % 997) : 500 + (i % 9000)
    const currency = usd ? 'USD' : 'JPY'
    const status = i % 50 === 0 ? 'failed' : 'successful'
    const mode = i % 7 === 0 ? 'test' : 'live'
    const rec = historyRecordOf(
      connectionId,
      {
        store_id: store,
        resource_id: uuid(i),
        charge_id: isRefund ? uuid(i - 1) : null,
        amount,
        currency,
        amount_formatted: usd ? amount / 100 : amount,
        type: isRefund ? 'refund' : 'charge',
        status,
        metadata: { order_number: `ORD-${i}`, note: i % 1000 === 0 ? '=HYPERLINK("x")' : 'ok' },
        created_on: created,
        mode,
        merchant_name: 'Bench K.K.',
        store_name: `Store ${i % 3}`,
        payment_type: 'card',
        user_data: {
          type: isRefund ? 'refund' : 'charge',
          cardholder_name: `山田 ${i}`,
          cardholder_email_address: `h${i}@example.com`,
          brand: 'visa',
          gateway: 'g',
          service_provider: 's',
          refunds: [],
        },
        bank_transfer_payment_status: null,
        bank_transfer_latest_deposit_date: null,
      },
      0,
    )
    history.push(rec)
    if (!isRefund)
      charges.push(
        chargeRecordOf(
          connectionId,
          {
            id: uuid(i),
            store_id: store,
            transaction_token_id: uuid(i + 10_000_000),
            transaction_token_type: 'one_time',
            subscription_id: null,
            merchant_transaction_id: `ORD-${i}`,
            requested_amount: amount,
            requested_currency: currency,
            requested_amount_formatted: 0,
            charged_amount: amount,
            charged_currency: currency,
            charged_amount_formatted: 0,
            fee_amount: Math.round(amount * 0.036),
            fee_currency: currency,
            fee_amount_formatted: 0,
            only_direct_currency: false,
            capture_at: null,
            descriptor: null,
            descriptor_phone_number: null,
            status,
            error: null,
            metadata: {},
            mode,
            created_on: created,
            redirect: {},
            merchant_name: 'Bench K.K.',
            store_name: `Store ${i % 3}`,
          },
          0,
        ),
      )
    if (i % 4 !== 0)
      marks.set(rec.key, {
        connectionId,
        key: rec.key,
        state: 'reconciled',
        note: '',
        fingerprint: fingerprintOf(rec),
        changedSinceReconciled: 0,
        period: '2026-10',
        updatedAt: 0,
        updatedBy: 'bench',
      })
  }
  return { history, charges, marks }
}

/** The month workbook's input for a generated month: October 2026 in Asia/Tokyo, every store, no audit. */
export function monthWorkbookInputOf(
  { history, charges, marks }: MonthData,
  names: { merchant: string; label: string; appVersion: string },
  generatedAt: number,
): MonthWorkbookInput {
  return {
    merchantName: names.merchant,
    connection: { id: 'bench', label: names.label, timeZone: 'Asia/Tokyo' },
    period: '2026-10',
    storeId: null,
    history,
    charges,
    marks,
    audit: [],
    generatedAt,
    appVersion: names.appVersion,
  }
}
