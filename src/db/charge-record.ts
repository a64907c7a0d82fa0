/** Flattens a charge-list item into the cached ChargeRecord. Pure, for sync and tests. */
import type { ChargeItem } from '../../electron/shared/payment-api'
import type { ChargeRecord } from '../domain/records'

export function chargeRecordOf(connectionId: string, raw: ChargeItem, syncedAt: number): ChargeRecord {
  return {
    connectionId,
    id: raw.id,
    storeId: raw.store_id,
    createdAt: Date.parse(raw.created_on),
    // Null while pending or awaiting (nothing charged yet): the requested amount stands in, as the amount
    // the charge is for; summaries count only successful charges, which always carry charged_*.
    chargedAmount: raw.charged_amount ?? raw.requested_amount,
    chargedCurrency: (raw.charged_currency ?? raw.requested_currency).toUpperCase(),
    feeAmount: raw.fee_amount ?? null,
    feeCurrency: raw.fee_currency?.toUpperCase() ?? null,
    status: raw.status,
    mode: raw.mode,
    merchantTransactionId: raw.merchant_transaction_id ?? null,
    raw,
    syncedAt,
  }
}
