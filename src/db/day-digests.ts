/**
 * Day digests (schema v6, `dayDigests`): per connection × UTC day, the filter fields, time and
 * fingerprint of every record of that day (RecordDigest). Every write of history keeps them in step —
 * sync's putPage, restore, the v6 migration, clearing a connection's synced data — so whole-filter work
 * reads a few day rows instead of thousands of records. Since schema v16 each digest row is written
 * with its summary (`daySummaries`, putDigestRows), the one way this module writes them.
 */
import type { Table } from 'dexie'
import { recordDigestOf } from '../domain/digests'
import { fingerprintOf } from '../domain/fingerprint'
import { packedSummaryRowOf, summaryOf } from './day-summaries'
import { byDayAndKey, byTimeThenKey, searchDayOf } from './history-record'
import type { HistoryRecord, MarkTarget, RecordDigest, RecordKey } from '../domain/records'
import type { DayDigestRecord, StoredDaySummaryRow } from './storage-rows'
import { writeUntracked } from './untracked-writes'

type DayKey = [string, number]

/** The tables a write of day digests keeps in step: the digest rows and their summaries. */
export interface DigestTables {
  dayDigests: Table<DayDigestRecord, DayKey>
  daySummaries: Table<StoredDaySummaryRow, DayKey>
}

/**
 * The stored summary row of a digest row (from its records as stored, so the same row always gives the
 * same summary).
 */
export function daySummaryRowOf(row: DayDigestRecord): StoredDaySummaryRow {
  return packedSummaryRowOf({ connectionId: row.connectionId, day: row.day, combos: summaryOf(row.records) })
}

/**
 * Writes whole digest rows and their summaries (`add`: into tables built from scratch, failing on a key
 * already there; `untracked`: replacing, into a restore's next generation, which nothing reads until its
 * switch: untracked-writes.ts). In a transaction that includes both tables, so a summary never outlives
 * its row's version. Both requests go out together, with no await between them.
 */
export function putDigestRows(
  tables: DigestTables,
  rows: readonly DayDigestRecord[],
  how: 'put' | 'add' | 'untracked' = 'put',
): Promise<unknown> {
  const summaries = rows.map(daySummaryRowOf)
  if (how === 'untracked')
    return Promise.all([
      writeUntracked(tables.dayDigests, rows, 'put'),
      writeUntracked(tables.daySummaries, summaries, 'put'),
    ])
  return how === 'add'
    ? Promise.all([tables.dayDigests.bulkAdd(rows), tables.daySummaries.bulkAdd(summaries)])
    : Promise.all([tables.dayDigests.bulkPut(rows), tables.daySummaries.bulkPut(summaries)])
}

export { recordDigestOf }

/** A record as a mark is made on it (the fingerprint planMarks would compute). */
export function markTargetOf(r: HistoryRecord): MarkTarget {
  return { connectionId: r.connectionId, key: r.key, createdAt: r.createdAt, fingerprint: fingerprintOf(r) }
}

/** Collects records' digests into day rows, one record at a time (a migration's cursor, a restore). */
export class DayDigestCollector {
  readonly #rows = new Map<string, DayDigestRecord>()

  add(r: HistoryRecord): void {
    const day = searchDayOf(r.createdAt)
    const id = `${r.connectionId}\u0001${day}`
    let row = this.#rows.get(id)
    if (!row) this.#rows.set(id, (row = { connectionId: r.connectionId, day, records: [] }))
    row.records.push(recordDigestOf(r))
  }

  rows(): DayDigestRecord[] {
    for (const row of this.#rows.values()) row.records.sort(byTimeThenKey)
    return [...this.#rows.values()]
  }
}

/** Builds the day rows of `records` from scratch (restore). */
export function dayDigestRowsOf(records: Iterable<HistoryRecord>): DayDigestRecord[] {
  const collector = new DayDigestCollector()
  for (const r of records) collector.add(r)
  return collector.rows()
}

/**
 * The stored digest rows of the UTC days of `records` (one connection's), by day: read once by the
 * history writer for both the parts (which keys may be held) and putDigests. In a transaction that
 * includes the table.
 */
export async function storedDigestRows(
  table: DigestTables['dayDigests'],
  connectionId: string,
  records: readonly HistoryRecord[],
): Promise<Map<number, DayDigestRecord | undefined>> {
  const days = [...new Set(records.map((r) => searchDayOf(r.createdAt)))]
  const rows = await table.bulkGet(days.map((d): DayKey => [connectionId, d]))
  return new Map(days.map((d, i) => [d, rows[i]]))
}

/**
 * Replaces the digests of `records` (one connection's page) in their day rows: read the days touched
 * (unless `storedRows` has them: storedDigestRows, not written since), merge by key, write them back with
 * their summaries. In a transaction that includes both tables and writes the records.
 */
export async function putDigests(
  tables: DigestTables,
  connectionId: string,
  records: readonly HistoryRecord[],
  storedRows?: ReadonlyMap<number, DayDigestRecord | undefined>,
): Promise<void> {
  if (records.length === 0) return
  const byDay = byDayAndKey(records, recordDigestOf)
  const days = [...byDay.keys()]
  const stored = storedRows
    ? days.map((d) => storedRows.get(d))
    : await tables.dayDigests.bulkGet(days.map((d): DayKey => [connectionId, d]))
  const rows = days.map((day, i): DayDigestRecord => {
    const fresh = byDay.get(day) as Map<RecordKey, RecordDigest>
    const kept = (stored[i]?.records ?? []).filter((d) => !fresh.has(d.key))
    return { connectionId, day, records: [...kept, ...fresh.values()].sort(byTimeThenKey) }
  })
  await putDigestRows(tables, rows)
}

/**
 * The digests of a connection's records created in [from, to), oldest first (time, then key): the day
 * rows of the UTC days the range touches, a row per day. In a transaction that includes `table`, or none.
 */
export async function digestsInRange(
  table: Table<DayDigestRecord, DayKey>,
  connectionId: string,
  from: number,
  to: number,
): Promise<RecordDigest[]> {
  if (!(to > from)) return []
  const rows = await table
    .where('[connectionId+day]')
    .between([connectionId, searchDayOf(from)], [connectionId, searchDayOf(to - 1)], true, true)
    .toArray()
  return rows.flatMap((row) => row.records.filter((d) => d.createdAt >= from && d.createdAt < to))
}

/**
 * A connection's day digest rows of days [lo, hi], oldest or newest day first, a request at a time:
 * `limit()` says how many rows the next request reads (a walk may learn it from what it found so far).
 * Ends after the last day or a short request. In a transaction that includes `table`, or none.
 */
export async function* dayRowBatches<R extends { day: number } = DayDigestRecord>(
  table: Table<R, DayKey>,
  connectionId: string,
  days: { lo: number; hi: number; desc: boolean },
  limit: () => number,
): AsyncGenerator<R[]> {
  let { lo, hi } = days
  while (lo <= hi) {
    const wanted = limit()
    let range = table.where('[connectionId+day]').between([connectionId, lo], [connectionId, hi], true, true)
    if (days.desc) range = range.reverse()
    const rows = await range.limit(wanted).toArray()
    const edge = rows[rows.length - 1]
    if (!edge) return
    yield rows
    if (rows.length < wanted) return
    if (days.desc) hi = edge.day - 1
    else lo = edge.day + 1
  }
}
