/**
 * The count of a filter without search or reconciled state (range, equality fields, brand), per day,
 * from the day summaries (day-summaries.ts): a day the range covers whole is counted from its summary,
 * held in memory or else read from its stored row (a small row per day); a day it cuts, or one without
 * a stored summary (written before schema v16), is read from its digests (and summarised in memory for
 * the next count). The same numbers a walk of every digest gives, without decoding a month of digests
 * on every filter change, or on the first one.
 */
import type { DayCounts } from './day-counts'
import type { DigestTables } from './day-digests'
import { combosOfRow, summaryOf, type DaySummaries, type FieldCombo } from './day-summaries'
import { fieldTests, type HistoryFilter } from './history-filter'
import { searchDayOf } from './history-record'

type DayKey = [string, number]

const DAY_MS = 86_400_000
/** Day rows read per request when summarising (a month's worth: bounded memory over all periods). */
const READ_DAYS = 31

/**
 * Whether the range holds every instant of `day`. Day 0 also holds records dated before 1970
 * (searchDayOf), so it is never taken whole.
 */
const wholeDay = (day: number, from: number, to: number): boolean =>
  day > 0 && day * DAY_MS >= from && (day + 1) * DAY_MS <= to

/**
 * Per day, how many records the filter matches (its reconciled state and search are not tested: callers
 * send only filters without them). In a transaction that includes both tables.
 */
export async function countFromSummaries(
  tables: DigestTables,
  summaries: DaySummaries,
  filter: HistoryFilter,
): Promise<DayCounts> {
  const { connectionId, from, to } = filter
  if (!(to > from)) return { days: [], total: 0 }
  const version = summaries.begin()
  const tests = fieldTests(filter)
  const countCombos = (combos: readonly FieldCombo[]): number =>
    combos.reduce((n, c) => (tests.every((t) => t(c)) ? n + c.n : n), 0)
  // The days that hold records: keys only, no digest decoded.
  const table = tables.dayDigests
  const keys = await table
    .where('[connectionId+day]')
    .between([connectionId, searchDayOf(from)], [connectionId, searchDayOf(to - 1)], true, true)
    .primaryKeys()
  const present = keys.map((k) => k[1])
  const counted = new Map<number, number>()
  const notHeld: number[] = []
  for (const day of present) {
    const combos = wholeDay(day, from, to) ? summaries.get(connectionId, day) : undefined
    if (combos) counted.set(day, countCombos(combos))
    else notHeld.push(day)
  }
  // The stored summaries of the whole days not held in memory: one range read of small rows.
  const wanted = notHeld.filter((day) => wholeDay(day, from, to))
  const first = wanted[0]
  const last = wanted[wanted.length - 1]
  if (first !== undefined && last !== undefined) {
    const stored = await tables.daySummaries
      .where('[connectionId+day]')
      .between([connectionId, first], [connectionId, last], true, true)
      .toArray()
    for (const row of stored) {
      if (!wholeDay(row.day, from, to)) continue
      const combos = combosOfRow(row)
      summaries.put(version, connectionId, row.day, combos)
      counted.set(row.day, countCombos(combos))
    }
  }
  const unread = notHeld.filter((day) => !counted.has(day))
  for (let i = 0; i < unread.length; i += READ_DAYS) {
    const batch = unread.slice(i, i + READ_DAYS)
    const rows = await table.bulkGet(batch.map((day): DayKey => [connectionId, day]))
    batch.forEach((day, j) => {
      const records = rows[j]?.records ?? []
      const combos = summaryOf(records)
      summaries.put(version, connectionId, day, combos)
      counted.set(
        day,
        wholeDay(day, from, to)
          ? countCombos(combos)
          : records.filter((d) => d.createdAt >= from && d.createdAt < to && tests.every((t) => t(d))).length,
      )
    })
  }
  const days: { day: number; n: number }[] = []
  let total = 0
  for (const day of present) {
    const n = counted.get(day) ?? 0
    if (n > 0) days.push({ day, n })
    total += n
  }
  return { days, total }
}
