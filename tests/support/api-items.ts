/**
 * The one set of payment-API item builders for unit, integration and bench code: valid items (per the
 * shared schemas) with every field set, numbered so that ids and times differ, any field overridden.
 * Pure data: no Node or browser API, so every test project can import it.
 */
import type { QuarantinedItem } from '../../electron/shared/contract/api'
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'

export const CONN = 'conn-a'
export const STORE_1 = '11111111-1111-4111-8111-111111111111'
export const STORE_2 = '22222222-2222-4222-8222-222222222222'
export const T0 = Date.parse('2026-10-01T00:00:00Z')
export const HOUR = 3_600_000

export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
}

/** Item `n`: id `uuid(n)`, amount 1000 + n JPY, created `n` hours after T0, live, successful. */
export function historyItem(n: number, over: Partial<HistoryItem> = {}): HistoryItem {
  return {
    store_id: STORE_1,
    resource_id: uuid(n),
    charge_id: null,
    amount: 1000 + n,
    currency: 'JPY',
    amount_formatted: 1000 + n,
    type: 'charge',
    status: 'successful',
    metadata: { order_id: `ORD-${n}` },
    created_on: new Date(T0 + n * HOUR).toISOString(),
    mode: 'live',
    merchant_name: 'Merchant',
    store_name: 'Store',
    payment_type: 'card',
    user_data: cardUserData(n),
    bank_transfer_payment_status: null,
    bank_transfer_latest_deposit_date: null,
    ...over,
  }
}

/** A card payment's `user_data` for holder `n`. */
export function cardUserData(n: number, type = 'card'): HistoryItem['user_data'] {
  return {
    type,
    cardholder_name: `Holder ${n}`,
    cardholder_email_address: `holder${n}@example.com`,
    brand: 'visa',
    gateway: 'gw',
    service_provider: 'sp',
    refunds: [],
  }
}

/** Charge `n`: id `uuid(n)`, 1,000 JPY charged with a 36 JPY fee, created `n` hours after T0. */
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
    created_on: new Date(T0 + n * HOUR).toISOString(),
    redirect: {},
    merchant_name: 'Merchant',
    store_name: 'Store',
    ...over,
  }
}

/** History item `n` as main quarantines it: an amount that is not a number, placed nowhere in time. */
export function quarantinedItem(n: number, over: Partial<QuarantinedItem> = {}): QuarantinedItem {
  return {
    resource: 'transaction_history',
    itemId: uuid(n),
    itemType: 'charge',
    storeId: null,
    createdOn: null,
    kind: 'invalid',
    reason: 'amount: expected number, received string',
    issues: [{ path: 'amount', message: 'expected number, received string' }],
    request: 'GET /transaction_history?cursor_direction=asc&limit=100',
    requestedFrom: null,
    requestedTo: null,
    raw: { resource_id: uuid(n), amount: 'lots' },
    ...over,
  }
}
