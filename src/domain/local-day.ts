/**
 * Fast `dayOf` for many instants in one zone. `dayOf` costs an Intl call (~10 µs); 50k imported rows or
 * records span only a few dozen days, so each UTC day is resolved once: the local midnight falling inside
 * it (if any) is found, and instants are compared with it.
 */
import { dayOf, dayRange } from './periods'

const DAY_MS = 86_400_000

interface UtcDay {
  /** First instant of `after`; Infinity when the whole UTC day is one local day. */
  boundary: number
  before: string
  after: string
}

export type DayResolver = (epochMs: number) => string

export function createDayResolver(timeZone: string): DayResolver {
  const cache = new Map<number, UtcDay | null>()
  return (epochMs) => {
    const utcDay = Math.floor(epochMs / DAY_MS)
    let entry = cache.get(utcDay)
    if (entry === undefined) {
      entry = resolveUtcDay(utcDay * DAY_MS, timeZone)
      cache.set(utcDay, entry)
    }
    // null: an unusual day (zone jumps over a whole day); ask Intl directly.
    if (entry === null) return dayOf(epochMs, timeZone)
    return epochMs < entry.boundary ? entry.before : entry.after
  }
}

function resolveUtcDay(start: number, timeZone: string): UtcDay | null {
  const before = dayOf(start, timeZone)
  const after = dayOf(start + DAY_MS - 1, timeZone)
  if (before === after) return { boundary: Infinity, before, after }
  const boundary = dayRange(after, timeZone).from
  // Exactly one local midnight inside this UTC day, and the day before it is `before`: the usual case.
  if (boundary > start && boundary < start + DAY_MS && dayOf(boundary - 1, timeZone) === before) {
    return { boundary, before, after }
  }
  return null
}
