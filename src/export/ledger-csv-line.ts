/**
 * The ledger CSV's lines built straight from records: each line is the text `csvLine(transactionRow(…))`
 * gives (the Transactions sheet's row, guarded and quoted field by field as csvField does), without
 * building the row's cells. Values that repeat from line to line (types, statuses, modes, currencies,
 * stores, brands) are guarded once; a date's text is its wall-clock day's text, built once per day, and
 * the time of day; the zone's offset is looked up once per UTC day (wallClockDayOffset).
 */
import { normalizeCurrency, currencyExponent, toMajorUnits } from '../domain/currency'
import { hasChangedSinceReconciled } from '../domain/fingerprint'
import type { HistoryRecord, MarkRecord } from '../domain/records'
import { isSuccessful } from '../reconcile/cross-check'
import { csvField } from './csv'
import { clipText, formatWallClock, jsonText, wallClockDayOffset, wallClockMs } from './sheet-values'

const DAY_MS = 86_400_000
/** The instants whose wall clock toISOString writes with a four-digit year (0000–9999). */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_800_000
/** Distinct repeated values kept guarded: a long export of many stores stays bounded. */
const MAX_KEPT = 10_000

const two = (n: number): string => (n < 10 ? `0${n}` : String(n))

/** Whether `value` has an own enumerable key (as `Object.keys(value).length > 0`, without the array). */
function hasKeys(value: object): boolean {
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return true
  return false
}

/** Builds the lines of one export, in one accounting time zone. */
export class LedgerCsvLines {
  private readonly guarded = new Map<unknown, string>()
  private readonly offsets = new Map<number, number | null>()
  private readonly exponents = new Map<string, number>()
  private wallDay = Number.NaN
  private wallDayText = ''

  constructor(private readonly timeZone: string) {}

  /** The line of `r` (with its mark and store name), CRLF included. */
  line(r: HistoryRecord, mark: MarkRecord | undefined, storeName: string | null): string {
    const currency = normalizeCurrency(r.currency)
    const decimals = this.exponentOf(currency)
    const signed = r.type === 'refund' ? -r.amount : r.amount
    const id = csvField(r.resourceId)
    const metadata = r.raw.metadata
    return (
      this.dateText(r.createdAt) +
      ',' +
      this.repeated(r.type) +
      ',' +
      id +
      ',' +
      (r.chargeId === r.resourceId ? id : csvField(r.chargeId)) +
      ',' +
      this.repeated(r.storeId) +
      ',' +
      this.repeated(storeName) +
      ',' +
      this.repeated(r.mode) +
      ',' +
      this.repeated(r.status) +
      ',' +
      (isSuccessful(r.status) ? 'Yes' : 'No') +
      ',' +
      this.repeated(currency) +
      ',' +
      toMajorUnits(r.amount, currency).toFixed(decimals) +
      ',' +
      toMajorUnits(signed, currency).toFixed(decimals) +
      ',' +
      (mark?.state === 'reconciled' ? 'reconciled' : 'unreconciled') +
      ',' +
      (hasChangedSinceReconciled(mark, r) ? 'Yes' : 'No') +
      ',' +
      (mark?.note ? csvField(clipText(mark.note)) : '') +
      ',' +
      this.repeated(r.brand || null) +
      ',' +
      csvField(r.cardholderName || null) +
      ',' +
      csvField(r.cardholderEmail || null) +
      ',' +
      csvField(r.orderRef ?? null) +
      ',' +
      (metadata && hasKeys(metadata) ? csvField(jsonText(metadata)) : '') +
      '\r\n'
    )
  }

  /** A value that repeats across lines, guarded and quoted once. */
  private repeated(value: string | null | undefined): string {
    if (value === null || value === undefined) return ''
    let text = this.guarded.get(value)
    if (text === undefined) {
      text = csvField(value)
      if (this.guarded.size >= MAX_KEPT) this.guarded.clear()
      this.guarded.set(value, text)
    }
    return text
  }

  private exponentOf(currency: string): number {
    let e = this.exponents.get(currency)
    if (e === undefined) this.exponents.set(currency, (e = currencyExponent(currency)))
    return e
  }

  /** `2026-10-15 12:00:00`: formatWallClock(wallClockMs(at)), the day's part built once per day. */
  private dateText(at: number): string {
    if (!Number.isFinite(at)) return formatWallClock(wallClockMs(at, this.timeZone)) // throws as it does
    const utcDay = Math.floor(at / DAY_MS)
    let offset = this.offsets.get(utcDay)
    if (offset === undefined) {
      offset = wallClockDayOffset(utcDay, this.timeZone)
      if (this.offsets.size >= MAX_KEPT) this.offsets.clear()
      this.offsets.set(utcDay, offset)
    }
    const wall = offset === null ? wallClockMs(at, this.timeZone) : at + offset
    if (!(wall >= 0 && wall < LAST_FOUR_DIGIT_YEAR_MS)) return formatWallClock(wall)
    const day = Math.floor(wall / DAY_MS)
    if (day !== this.wallDay) {
      this.wallDay = day
      this.wallDayText = formatWallClock(day * DAY_MS).slice(0, 11)
    }
    const s = Math.floor((wall - day * DAY_MS) / 1000)
    return `${this.wallDayText}${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`
  }
}
