/**
 * The workbook's Audit sheet in words: a mark is "Reconciled (note: "…")" or "Not reconciled",
 * a close is "Closed by … at …", a record is named by its type, amount, time and customer with its key
 * kept for tracing. Values the app does not know the shape of stay JSON, so nothing is ever lost.
 */
import type { HistoryRecord, RecordKey } from '../domain/records'
import { currencyExponent, normalizeCurrency, toMajorUnits } from '../domain/currency'
import { clipText, formatWallClock, jsonText, wallClockMs } from './sheet-values'

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * One audit before/after value as a sentence; null when there was none. `linkText` words a mark's match
 * links (e.g. "matched to Order ORD-12 (orders.csv, line 2)").
 */
export function auditValueText(
  value: unknown,
  timeZone: string,
  linkText?: (matchRef: string) => string,
): string | null {
  if (value === undefined || value === null || value === '') return null
  if (typeof value === 'string') return clipText(value)
  if (!isObject(value)) return jsonText(value)
  const note = typeof value['note'] === 'string' && value['note'] !== '' ? ` (note: "${value['note']}")` : ''
  if (value['state'] === 'reconciled' || value['state'] === 'unreconciled') {
    const state = value['state'] === 'reconciled' ? 'Reconciled' : 'Not reconciled'
    const changed = value['changedSinceReconciled'] === true ? '; changed since reconciled' : ''
    const ref = value['matchRef']
    const links =
      typeof ref === 'string' && ref !== '' ? `; matched to ${linkText ? linkText(ref) : ref}` : ''
    return clipText(`${state}${note}${changed}${links}`)
  }
  if (typeof value['lockedBy'] === 'string' && typeof value['lockedAt'] === 'number') {
    const at = formatWallClock(wallClockMs(value['lockedAt'], timeZone))
    const records = typeof value['records'] === 'number' ? `; ${value['records']} records kept` : ''
    return clipText(`Closed by ${value['lockedBy']} at ${at}${note}${records}`)
  }
  return jsonText(value)
}

/** "charge 1,200 JPY · 2026-10-15 12:00:00 · Hanako Sato (charge:…)": what a record is, and its key. */
export function auditRecordText(
  key: RecordKey | null,
  records: ReadonlyMap<RecordKey, HistoryRecord>,
  timeZone: string,
): string | null {
  if (key === null) return null
  const r = records.get(key)
  if (!r) return key
  const currency = normalizeCurrency(r.currency)
  const amount = toMajorUnits(r.amount, currency).toLocaleString('en-US', {
    minimumFractionDigits: currencyExponent(currency),
    maximumFractionDigits: currencyExponent(currency),
  })
  const parts = [`${r.type} ${amount} ${currency}`, formatWallClock(wallClockMs(r.createdAt, timeZone))]
  if (r.cardholderName) parts.push(r.cardholderName)
  return clipText(`${parts.join(' · ')} (${key})`)
}
