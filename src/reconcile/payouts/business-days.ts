/**
 * Calendar days (`YYYY-MM-DD`, the accounting time zone's) counted in business days: Saturdays, Sundays
 * and any listed holidays are not business days. A bank line is the shape the statement readers give.
 */
import { isValidDay } from '../../domain/periods'

/** A line of a bank statement as the import readers produce it (an ImportedRowRecord of source bank is one). */
export interface BankLine {
  importId: string
  line: number
  /** `YYYY-MM-DD` in the accounting time zone. */
  day: string
  /** Signed minor units: deposits positive, withdrawals (a returned payout) negative. */
  amount: number
  currency: string
  description?: string | null
}

const DAY_MS = 86_400_000

function utcDay(day: string): number {
  if (!isValidDay(day)) throw new RangeError(`not a day (YYYY-MM-DD): ${day}`)
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / DAY_MS
}

function isBusiness(n: number, holidays: ReadonlySet<string> | undefined): boolean {
  const weekday = new Date(n * DAY_MS).getUTCDay()
  if (weekday === 0 || weekday === 6) return false
  return !holidays?.has(new Date(n * DAY_MS).toISOString().slice(0, 10))
}

/**
 * Business days from `from` to `to`: 0 on the same day (or `to` the next business day after a weekend
 * `from`), positive when `to` is later, negative when earlier. Counts the business days passed over.
 */
export function businessDaysBetween(from: string, to: string, holidays?: ReadonlySet<string>): number {
  const a = utcDay(from)
  const b = utcDay(to)
  if (a === b) return 0
  const [lo, hi, sign] = a < b ? [a, b, 1] : [b, a, -1]
  let n = 0
  for (let d = lo + 1; d <= hi; d++) if (isBusiness(d, holidays)) n++
  return sign * n
}
