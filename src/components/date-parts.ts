/**
 * The logic of the year / month / day control that replaces the browser's <input type="month|date">:
 * those follow the browser's language (an English "October" inside the Japanese UI), this one words
 * every option in the app's language through Intl ("2026年", "10月", "5日"; "2026", "October", "5").
 * Values are the same strings the native inputs gave: `YYYY-MM` for a month, `YYYY-MM-DD` for a day.
 */
export type DateKind = 'month' | 'day'

export interface DateParts {
  year: number | null
  month: number | null
  day: number | null
}

const VALUE_RE = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/

/** The parts of a `YYYY-MM` or `YYYY-MM-DD` value; all null for null or anything else. */
export function splitValue(value: string | null | undefined, kind: DateKind): DateParts {
  const m = VALUE_RE.exec(value ?? '')
  if (!m || (kind === 'day' && m[3] === undefined)) return { year: null, month: null, day: null }
  const month = Number(m[2])
  if (month < 1 || month > 12) return { year: null, month: null, day: null }
  return { year: Number(m[1]), month, day: kind === 'day' ? Number(m[3]) : null }
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

const pad = (n: number): string => String(n).padStart(2, '0')

/**
 * The value of complete parts, or null while one is missing. A day past the month's end (31 after
 * choosing February) becomes the month's last day rather than an invalid date.
 */
export function joinParts(parts: DateParts, kind: DateKind): string | null {
  const { year, month, day } = parts
  if (year === null || month === null) return null
  if (kind === 'month') return `${year}-${pad(month)}`
  if (day === null) return null
  return `${year}-${pad(month)}-${pad(Math.min(day, daysInMonth(year, month)))}`
}

/**
 * Whether a span of days [from, to] (ISO `YYYY-MM-DD`) meets the bounds; bounds may be months or days
 * (`YYYY-MM` compares as the month's first and last day).
 */
export function meetsBounds(
  from: string,
  to: string,
  min: string | null | undefined,
  max: string | null | undefined,
): boolean {
  const low = min ? (min.length === 7 ? `${min}-01` : min) : null
  const high = max ? (max.length === 7 ? `${max}-31` : max) : null
  return (low === null || to >= low) && (high === null || from <= high)
}

export function monthSpan(year: number, month: number): [string, string] {
  return [`${year}-${pad(month)}-01`, `${year}-${pad(month)}-${pad(daysInMonth(year, month))}`]
}

/**
 * Years offered: `back` years before this one to next year, widened to the chosen value and the bounds
 * so a value is always shown as what it is.
 */
export function yearOptions(
  value: number | null,
  now: Date,
  bounds: readonly (string | null | undefined)[] = [],
  back = 10,
): number[] {
  const current = now.getFullYear()
  let low = current - back
  let high = current + 1
  for (const y of [value, ...bounds.map((b) => (b ? Number(b.slice(0, 4)) : null))]) {
    if (y === null || !Number.isFinite(y)) continue
    low = Math.min(low, y)
    high = Math.max(high, y)
  }
  const out: number[] = []
  for (let y = high; y >= low; y--) out.push(y)
  return out
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function format(locale: string, options: Intl.DateTimeFormatOptions, ms: number): string {
  const key = `${locale}|${JSON.stringify(options)}`
  let f = formatters.get(key)
  if (!f) formatters.set(key, (f = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' })))
  return f.format(ms)
}

/** "2026年" / "2026". */
export function yearText(year: number, locale: string): string {
  return format(locale, { year: 'numeric' }, Date.UTC(year, 0, 1))
}

/** "10月" / "October". */
export function monthText(month: number, locale: string): string {
  return format(locale, { month: 'long' }, Date.UTC(2000, month - 1, 1))
}

/** "5日" / "5". */
export function dayText(day: number, locale: string): string {
  return format(locale, { day: 'numeric' }, Date.UTC(2000, 0, day))
}

/** The whole value in words: "2026年10月", "October 2026", "2026年10月5日". */
export function valueText(value: string | null, kind: DateKind, locale: string): string {
  const { year, month, day } = splitValue(value, kind)
  if (year === null || month === null) return ''
  const options: Intl.DateTimeFormatOptions =
    kind === 'month' ? { year: 'numeric', month: 'long' } : { year: 'numeric', month: 'long', day: 'numeric' }
  return format(locale, options, Date.UTC(year, month - 1, day ?? 1))
}
