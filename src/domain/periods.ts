/**
 * Accounting periods (DESIGN §4): the API speaks UTC, but months and days are those of the connection's
 * accounting time zone. Only Intl is used, so the zone database is the runtime's (full ICU in Electron and
 * Node 20). Periods are `YYYY-MM`, days `YYYY-MM-DD`; ranges are epoch ms, `from` inclusive, `to` exclusive.
 */

export interface EpochRange {
  from: number
  to: number
}

const PERIOD_RE = /^(\d{4})-(0[1-9]|1[0-2])$/
const DAY_RE = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/
const DAY_MS = 86_400_000

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    // Throws RangeError for an unknown zone, which is what callers should see.
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

interface WallClock {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

function wallClock(epochMs: number, timeZone: string): WallClock {
  if (!Number.isFinite(epochMs)) throw new RangeError(`not a time: ${String(epochMs)}`)
  const parts: Record<string, number> = {}
  for (const part of formatterFor(timeZone).formatToParts(epochMs)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  }
  return {
    year: parts['year'] ?? NaN,
    month: parts['month'] ?? NaN,
    day: parts['day'] ?? NaN,
    hour: parts['hour'] ?? NaN,
    minute: parts['minute'] ?? NaN,
    second: parts['second'] ?? NaN,
  }
}

/** Zone offset in ms at an instant (local wall clock minus UTC), at one-second resolution. */
export function offsetAt(epochMs: number, timeZone: string): number {
  const w = wallClock(epochMs, timeZone)
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second)
  return asUtc - Math.floor(epochMs / 1000) * 1000
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0')
}

function dayKey(year: number, month: number, day: number): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`
}

/**
 * First instant of a local calendar day. Usually local midnight; when midnight falls in a DST gap
 * (e.g. America/Santiago) it is the end of the gap; when midnight repeats, the earlier one.
 */
function startOfLocalDay(year: number, month: number, day: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, day)
  const target = dayKey(year, month, day)
  // The zone's offset is one of those in force around the guess; try each and keep the earliest
  // candidate that really lands on the target day.
  const candidates = new Set<number>()
  for (const probe of [guess - DAY_MS, guess, guess + DAY_MS])
    candidates.add(guess - offsetAt(probe, timeZone))
  let best = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    if (dayOf(candidate, timeZone) === target && candidate < best) best = candidate
  }
  // Should no candidate land on the day (exotic transitions), fall back to a search.
  if (best === Number.POSITIVE_INFINITY) best = searchDayStart(target, guess, timeZone)
  // A candidate only proves it is on the day; make sure the instant before it is not also on it.
  if (dayOf(best - 1000, timeZone) === target) best = searchDayStart(target, guess, timeZone)
  return best
}

/** Fallback: binary search (1 s resolution) for the first instant whose local day is >= target. */
function searchDayStart(target: string, guess: number, timeZone: string): number {
  let lo = guess - 2 * DAY_MS // surely before: no zone is more than 26 h ahead of UTC
  let hi = guess + 2 * DAY_MS
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000
    if (dayOf(mid, timeZone) >= target) hi = mid
    else lo = mid
  }
  return hi
}

export function isValidTimeZone(timeZone: string): boolean {
  if (typeof timeZone !== 'string' || timeZone.trim() === '') return false
  try {
    formatterFor(timeZone)
    return true
  } catch {
    return false
  }
}

export function isValidPeriod(period: string): boolean {
  return typeof period === 'string' && PERIOD_RE.test(period)
}

export function isValidDay(day: string): boolean {
  const m = typeof day === 'string' ? DAY_RE.exec(day) : null
  if (!m) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  return d <= daysInMonth(y, mo)
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

function parsePeriod(period: string): [number, number] {
  const m = PERIOD_RE.exec(period)
  if (!m) throw new RangeError(`not a period (YYYY-MM): ${period}`)
  return [Number(m[1]), Number(m[2])]
}

function parseDay(day: string): [number, number, number] {
  if (!isValidDay(day)) throw new RangeError(`not a day (YYYY-MM-DD): ${day}`)
  return [Number(day.slice(0, 4)), Number(day.slice(5, 7)), Number(day.slice(8, 10))]
}

/** Years where the UTC calendar and Intl's agree (no eras, four digits): the fast path stays inside. */
const FAST_FROM = Date.UTC(1900, 0, 1)
const FAST_TO = Date.UTC(2200, 0, 1)
/** Per zone: UTC day → zone offset in force for that whole day, or null when it changes inside it. */
const dayOffsets = new Map<string, Map<number, number | null>>()
const DAY_CACHE_LIMIT = 100_000

/**
 * The local calendar date of an instant, via the zone's offset for its UTC day. formatToParts costs
 * ~30 µs a call and a bulk mark of 10k records asks for 10k periods, while those records share a few
 * hundred days. A day whose offset is the same at its first and last second has no transition inside (no
 * zone changes its offset and back within 24 hours), so every instant in it is UTC + that offset; a day
 * with a transition falls back to the formatter. Undefined outside FAST_FROM..FAST_TO.
 */
function localDate(epochMs: number, timeZone: string): Date | undefined {
  if (!(epochMs >= FAST_FROM && epochMs < FAST_TO)) return undefined
  let zone = dayOffsets.get(timeZone)
  if (!zone || zone.size > DAY_CACHE_LIMIT) {
    zone = new Map()
    dayOffsets.set(timeZone, zone)
  }
  const day = Math.floor(epochMs / DAY_MS)
  let offset = zone.get(day)
  if (offset === undefined) {
    const first = offsetAt(day * DAY_MS, timeZone)
    offset = offsetAt(day * DAY_MS + DAY_MS - 1000, timeZone) === first ? first : null
    zone.set(day, offset)
  }
  // offsetAt is whole seconds and the formatter drops milliseconds: the date is that of UTC + offset.
  return offset === null ? undefined : new Date(epochMs + offset)
}

/** `YYYY-MM` of an instant in the accounting time zone. */
export function periodOf(epochMs: number, timeZone: string): string {
  const d = localDate(epochMs, timeZone)
  if (d) return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}`
  const w = wallClock(epochMs, timeZone)
  return `${pad(w.year, 4)}-${pad(w.month)}`
}

/** `YYYY-MM-DD` of an instant in the accounting time zone. */
export function dayOf(epochMs: number, timeZone: string): string {
  const d = localDate(epochMs, timeZone)
  if (d) return dayKey(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())
  const w = wallClock(epochMs, timeZone)
  return dayKey(w.year, w.month, w.day)
}

export function nextPeriod(period: string): string {
  const [y, m] = parsePeriod(period)
  return m === 12 ? `${pad(y + 1, 4)}-01` : `${pad(y, 4)}-${pad(m + 1)}`
}

export function previousPeriod(period: string): string {
  const [y, m] = parsePeriod(period)
  return m === 1 ? `${pad(y - 1, 4)}-12` : `${pad(y, 4)}-${pad(m - 1)}`
}

export function nextDay(day: string): string {
  const [y, m, d] = parseDay(day)
  const next = new Date(Date.UTC(y, m - 1, d + 1))
  return dayKey(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate())
}

/** Every day of a period, in order: the x axis of a month chart. */
export function daysOfPeriod(period: string): string[] {
  const [y, m] = parsePeriod(period)
  const days: string[] = []
  for (let d = 1; d <= daysInMonth(y, m); d++) days.push(dayKey(y, m, d))
  return days
}

/** The instants of a period in the accounting zone: [first instant of day 1, first instant of next month). */
export function periodRange(period: string, timeZone: string): EpochRange {
  const [y, m] = parsePeriod(period)
  const [ny, nm] = parsePeriod(nextPeriod(period))
  return { from: startOfLocalDay(y, m, 1, timeZone), to: startOfLocalDay(ny, nm, 1, timeZone) }
}

/** The instants of a day in the accounting zone (23 or 25 hours long across a DST change). */
export function dayRange(day: string, timeZone: string): EpochRange {
  const [y, m, d] = parseDay(day)
  const [ny, nm, nd] = parseDay(nextDay(day))
  return { from: startOfLocalDay(y, m, d, timeZone), to: startOfLocalDay(ny, nm, nd, timeZone) }
}

export function isInPeriod(epochMs: number, period: string, timeZone: string): boolean {
  return periodOf(epochMs, timeZone) === period
}
