/**
 * Fingerprint of the fields a reconciliation mark is made on (DESIGN §4): amount, currency, status and
 * the charge's refunds. A later sync that changes any of them makes the record "changed since reconciled".
 */
import type { HistoryRecord, MarkRecord } from './records'
import { normalizeCurrency } from './currency'

/** Bumped when the fingerprint's content changes, so old marks read as changed rather than equal. */
const FINGERPRINT_VERSION = 'fp1'

function scalar(value: unknown): string | number | null {
  if (typeof value === 'string' || typeof value === 'number') return value
  if (typeof value === 'boolean') return String(value)
  return null
}

/** The refund fields that matter, from an element of `user_data.refunds` (its shape is not guaranteed). */
function refundTuple(refund: unknown): (string | number | null)[] {
  const r = refund !== null && typeof refund === 'object' ? (refund as Record<string, unknown>) : {}
  const currency = scalar(r['currency'])
  return [
    // The real service names it `refund_id` (real-service.md); the seed's sandbox shape `id`.
    scalar(r['refund_id'] ?? r['id']),
    scalar(r['amount']),
    typeof currency === 'string' ? normalizeCurrency(currency) : currency,
    scalar(r['status']),
  ]
}

/**
 * A stable string over amount, currency, status and the refunds (id, amount, currency, status), the
 * refunds sorted so their order in the API response does not matter. JSON keeps field boundaries exact.
 */
export function fingerprintOf(record: HistoryRecord): string {
  const refunds: unknown = (record.raw?.user_data as { refunds?: unknown } | undefined)?.refunds
  const tuples = Array.isArray(refunds) ? refunds.map((r) => JSON.stringify(refundTuple(r))) : []
  tuples.sort()
  return JSON.stringify([
    FINGERPRINT_VERSION,
    record.amount,
    normalizeCurrency(record.currency),
    record.status,
    tuples,
  ])
}

/**
 * True when a reconciled mark was made on different data than the record now holds. A reconciled mark
 * without a fingerprint cannot prove it still matches, so it counts as changed (the accountant reconfirms).
 * Unreconciled or absent marks are never "changed since reconciled".
 */
export function hasChangedSinceReconciled(
  mark: MarkRecord | undefined | null,
  record: HistoryRecord,
): boolean {
  if (!mark || mark.state !== 'reconciled') return false
  return mark.fingerprint === null || mark.fingerprint !== fingerprintOf(record)
}
