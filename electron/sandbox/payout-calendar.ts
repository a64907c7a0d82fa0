/**
 * The sandbox's payout calendars, in Asia/Tokyo (no daylight saving time, so a fixed offset is exact):
 * monthly periods paid on the 15th of the next month moved past a weekend, or weekly periods (Monday to
 * Sunday) whose transfer is created the next Monday and paid that Friday.
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

export const TRANSFER_SCHEDULES = ['monthly', 'weekly'] as const
export type TransferSchedule = (typeof TRANSFER_SCHEDULES)[number]

/**
 * A transfer schedule's periods, numbered by `index`: period `index` runs from `periodStartMs(index)`
 * (inclusive) to `periodStartMs(index + 1)` (exclusive), its transfer is created an hour after it ends
 * and paid at `payoutDayMs(index)`.
 */
export interface PayoutCalendar {
  schedule: TransferSchedule
  periodIndexOf(ms: number): number
  periodStartMs(index: number): number
  payoutDayMs(index: number): number
  /** What ids built for period `index` are hashed from: distinct between schedules. */
  key(index: number): string
  /** When, after its period starts, the manual adjustment is booked (inside the period). */
  adjustmentOffsetMs: number
}

/** Monday 1970-01-05 00:00 in Tokyo: week 0 of the weekly schedule. */
const FIRST_MONDAY_MS = Date.UTC(1970, 0, 5) - JST_OFFSET_MS
const WEEK_MS = 7 * DAY_MS
/** Weekly transfers are paid on the Friday after the week closes (Monday–Sunday, Tokyo). */
export const WEEKLY_PAYOUT_DAYS_AFTER_CLOSE = 4

const MONTHLY: PayoutCalendar = {
  schedule: 'monthly',
  periodIndexOf: monthIndexOf,
  periodStartMs: monthStartMs,
  payoutDayMs,
  key: (index) => String(index),
  adjustmentOffsetMs: 10 * DAY_MS,
}

const WEEKLY: PayoutCalendar = {
  schedule: 'weekly',
  periodIndexOf: (ms) => Math.floor((ms - FIRST_MONDAY_MS) / WEEK_MS),
  periodStartMs: (index) => FIRST_MONDAY_MS + index * WEEK_MS,
  payoutDayMs: (index) =>
    FIRST_MONDAY_MS + (index + 1) * WEEK_MS + WEEKLY_PAYOUT_DAYS_AFTER_CLOSE * DAY_MS + 10 * 3600_000,
  key: (index) => `week-${index}`,
  adjustmentOffsetMs: 2 * DAY_MS,
}

export function calendarOf(schedule: TransferSchedule): PayoutCalendar {
  return schedule === 'weekly' ? WEEKLY : MONTHLY
}
