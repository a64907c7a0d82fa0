/** Flattens a charge-list item into the cached ChargeRecord. Pure, for sync and tests. */
import type { ChargeItem } from '../../electron/shared/payment-api'
import type { ChargeRecord } from './records'

export function chargeRecordOf(connectionId: string, raw: ChargeItem, syncedAt: number): ChargeRecord {
  return {
    connectionId,
    id: raw.id,
    storeId: raw.store_id,
    createdAt: Date.parse(raw.created_on),
    chargedAmount: raw.charged_amount,
    chargedCurrency: raw.charged_currency.toUpperCase(),
    feeAmount: raw.fee_amount,
    feeCurrency: raw.fee_currency?.toUpperCase() ?? null,
    status: raw.status,
    mode: raw.mode,
    merchantTransactionId: raw.merchant_transaction_id,
    raw,
    syncedAt,
  }
}
