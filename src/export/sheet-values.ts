/**
 * Values as the workbook and CSV want them: wall-clock dates in the accounting time zone, amounts in
 * major units with the currency's decimals, text clipped to what a cell can hold.
 */
import { MAX_CELL_TEXT, type ExportCell } from '../../electron/shared/contract/export'
import { currencyExponent, toMajorUnits } from '../domain/currency'
import { offsetAt } from '../domain/periods'

// Zone offsets change only at instants on a quarter hour, so one Intl call per quarter hour and zone
// serves every record in it: 200k rows cost a few thousand formatToParts calls instead of 200k.
const QUARTER_HOUR = 900_000
const offsets = new Map<string, Map<number, number>>()

/**
 * The wall-clock time of an instant in `timeZone`, encoded as if it were UTC: Excel dates carry no zone,
 * so this is what makes a cell show the accounting zone's time. Milliseconds are kept.
 */
export function wallClockMs(epochMs: number, timeZone: string): number {
  if (!Number.isFinite(epochMs)) throw new RangeError(`not a time: ${String(epochMs)}`)
  let zone = offsets.get(timeZone)
  if (!zone) {
    zone = new Map()
    offsets.set(timeZone, zone)
  }
  const bucket = Math.floor(epochMs / QUARTER_HOUR)
  let offset = zone.get(bucket)
  if (offset === undefined) {
    const start = bucket * QUARTER_HOUR
    offset = offsetAt(start, timeZone)
    if (zone.size > 100_000) zone.clear() // bounded: a long-running app exports many months
    zone.set(bucket, offset)
  }
  return epochMs + offset
}

const PROBE_MS = 3 * 3_600_000

/**
 * The offset `timeZone` has through the whole UTC day `utcDay` (days since the epoch), or null when it
 * changes within that day: then wallClockMs answers per quarter hour. Probed every three hours and at the
 * next day's start (no zone changes its offset and back within three hours), so a day costs 9 Intl calls
 * instead of 96.
 */
export function wallClockDayOffset(utcDay: number, timeZone: string): number | null {
  const start = utcDay * 86_400_000
  const offset = offsetAt(start, timeZone)
  for (let at = start + PROBE_MS; at <= start + 86_400_000; at += PROBE_MS)
    if (offsetAt(at, timeZone) !== offset) return null
  return offset
}

/** A date cell showing the instant's time in the accounting time zone. */
export function dateCell(epochMs: number, timeZone: string): ExportCell {
  return { date: wallClockMs(epochMs, timeZone) }
}

/** `2026-10-15 12:00:00`: the text of a date cell, for CSV and reasons. */
export function formatWallClock(wallMs: number): string {
  return new Date(wallMs).toISOString().slice(0, 19).replace('T', ' ')
}

export function amountCell(minor: number, currency: string): ExportCell {
  return { amount: toMajorUnits(minor, currency), decimals: currencyExponent(currency) }
}

/** `1,050 JPY`-free plain text for reasons: `1050 JPY`, `12.30 USD`. */
export function amountText(minor: number, currency: string): string {
  return `${toMajorUnits(minor, currency).toFixed(currencyExponent(currency))} ${currency}`
}

/** Cells hold at most 32,767 characters; longer text is cut with a visible mark rather than refused. */
export function clipText(text: string): string {
  return text.length <= MAX_CELL_TEXT ? text : `${text.slice(0, MAX_CELL_TEXT - 1)}…`
}

/** JSON of an audit before/after value or metadata, clipped; null for nothing. */
export function jsonText(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null
  return clipText(typeof value === 'string' ? value : JSON.stringify(value))
}
