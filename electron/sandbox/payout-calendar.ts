/**
 * The sandbox's payout calendar: months closed in Asia/Tokyo (no daylight saving time, so a fixed offset
 * is exact) and the payout day, the 15th of the next month moved past a weekend.
 */
export const PAYOUT_DAY_OF_MONTH = 15
const JST_OFFSET_MS = 9 * 3600_000
export const DAY_MS = 86_400_000

/** First instant (ms, UTC) of the Tokyo month `index` months after 1970-01. */
export function monthStartMs(index: number): number {
  const year = 1970 + Math.floor(index / 12)
  const month = ((index % 12) + 12) % 12
  return Date.UTC(year, month, 1) - JST_OFFSET_MS
}

export function monthIndexOf(ms: number): number {
  const d = new Date(ms + JST_OFFSET_MS)
  return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth()
}

export function tokyoDate(ms: number): string {
  return new Date(ms + JST_OFFSET_MS).toISOString().slice(0, 10)
}

/** The 15th of the month after period `index`, Tokyo, moved past a weekend to Monday; 10:00 JST. */
export function payoutDayMs(index: number): number {
  const start = monthStartMs(index + 1) + (PAYOUT_DAY_OF_MONTH - 1) * DAY_MS
  const weekday = new Date(start + JST_OFFSET_MS).getUTCDay()
  const shift = weekday === 6 ? 2 : weekday === 0 ? 1 : 0
  return start + shift * DAY_MS + 10 * 3600_000
}
