/**
 * How history is stored since schema v15: in parts of up to HISTORY_PART_SIZE lean rows (history-row.ts)
 * per connection × UTC day (`historyParts`), as the charge list is since v10 (charge-days.ts). IndexedDB
 * charges per row far more than per index entry or per byte (docs/data.md), so a sync page
 * rewrites a part or two instead of putting a row and two or more index entries per record.
 *
 * A part's multi-entry indexes find what the per-record indexes found:
 * - `keys`: `[connectionId, key]` of every record (a record by key: one index read);
 * - `refundKeys`: `[connectionId, chargeId]` of each refund (a charge's refunds);
 * - `refundTimes`: `[connectionId, createdAt, chargeId, resourceId]` of each refund (a window's refunds,
 *   answered from the index keys alone);
 * - `facets`: `[connectionId, 'mode', mode]` of each mode and `[connectionId, 'status', status]` of each
 *   status that can still change, once per part (the re-check, the connection's modes).
 *
 * Records written before v15 stay rows of `history` (no upgrade pass: a large cache opens in seconds) and
 * keep answering: every read (history-part-reads.ts) is the union of both, a part's copy winning. The writer deletes a
 * record's old row in the transaction that files it in a part (checked once per connection and write).
 * A record is filed in the part of the day its `createdAt` falls on. The history writer is the only
 * writer.
 */
import type { Table } from 'dexie'
import { isChangeableStatus } from '../domain/statuses'
import type { HistoryRecord, RecordKey } from '../domain/records'
import type { LegacyHistoryRow } from './database'
import type { DayDigestRecord } from './storage-rows'
import { searchDayOf } from './history-record'
import { historyRecordOfRow, storedHistoryRowOf, type StoredHistoryRow } from './history-row'
import { connectionBounds } from './repository-helpers'

/** Records per part: the search index's part size, so a page rewrites a part of similar weight. */
export const HISTORY_PART_SIZE = 512

export type PartKey = [string, number, number]
export type HistoryKey = [string, RecordKey]

/** Storage row (schema v15, `historyParts`): up to HISTORY_PART_SIZE records of one connection × UTC day. */
export interface HistoryPartRecord {
  connectionId: string
  day: number
  part: number
  /** The records as the writer stores them (lean rows), in the order they were filed. */
  rows: StoredHistoryRow[]
  keys: HistoryKey[]
  refundKeys: [string, string][]
  refundTimes: [string, number, string, string][]
  facets: [string, string, string][]
}

/**
 * The history tables of one generation slot: the parts and the rows from before v15; for the live cache,
 * also the rows a schema-6-or-older cache set aside (`legacyHistory`, read as records), which every read
 * unions as it does the rows from before v15. A key is held by one of the three at most.
 */
export interface HistoryTables {
  history: Table<HistoryRecord, HistoryKey, StoredHistoryRow>
  historyParts: Table<HistoryPartRecord, PartKey>
  legacyHistory?: Table<HistoryRecord, HistoryKey, LegacyHistoryRow>
}

/** The row tables read beside the parts: `history`, and the set-aside rows where the tables have them. */
export function olderTables(tables: HistoryTables): Table<HistoryRecord, HistoryKey, unknown>[] {
  return tables.legacyHistory ? [tables.history, tables.legacyHistory] : [tables.history]
}

/**
 * A part with its index entries computed from its rows, or from `records`, the records its rows store (in
 * their order), where the caller has them: a lean row is not read back into a record.
 */
function indexed(
  part: Omit<HistoryPartRecord, 'keys' | 'refundKeys' | 'refundTimes' | 'facets'>,
  records?: readonly HistoryRecord[],
) {
  const c = part.connectionId
  const keys: HistoryKey[] = []
  const refundKeys: [string, string][] = []
  const refundTimes: [string, number, string, string][] = []
  const facets = new Map<string, [string, string, string]>()
  for (const [i, row] of part.rows.entries()) {
    keys.push([c, row.key])
    const r = records?.[i] ?? historyRecordOfRow(row)
    if (r.type === 'refund') {
      refundKeys.push([c, r.chargeId])
      if (Number.isFinite(r.createdAt)) refundTimes.push([c, r.createdAt, r.chargeId, r.resourceId])
    }
    facets.set(`m${r.mode}`, [c, 'mode', r.mode])
    if (isChangeableStatus(r.status)) facets.set(`s${r.status}`, [c, 'status', r.status])
  }
  return { ...part, keys, refundKeys, refundTimes, facets: [...facets.values()] }
}

/**
 * `records` grouped by connection, then UTC day, then key: a key given twice keeps its later copy, on that
 * copy's day only.
 */
function byConnectionDay(
  records: Iterable<HistoryRecord>,
): Map<string, Map<number, Map<RecordKey, HistoryRecord>>> {
  const latest = new Map<string, Map<RecordKey, HistoryRecord>>()
  for (const r of records) {
    let keyed = latest.get(r.connectionId)
    if (!keyed) latest.set(r.connectionId, (keyed = new Map<RecordKey, HistoryRecord>()))
    keyed.set(r.key, r)
  }
  const out = new Map<string, Map<number, Map<RecordKey, HistoryRecord>>>()
  for (const [connectionId, keyed] of latest) {
    const days = new Map<number, Map<RecordKey, HistoryRecord>>()
    for (const [key, r] of keyed) {
      const day = searchDayOf(r.createdAt)
      let ofDay = days.get(day)
      if (!ofDay) days.set(day, (ofDay = new Map<RecordKey, HistoryRecord>()))
      ofDay.set(key, r)
    }
    out.set(connectionId, days)
  }
  return out
}

/** The parts of `records` built from scratch (a restore, an empty cache): whole days, parts from 0. */
export function historyPartRowsOf(
  records: Iterable<HistoryRecord>,
  partSize = HISTORY_PART_SIZE,
): HistoryPartRecord[] {
  const parts: HistoryPartRecord[] = []
  for (const [connectionId, days] of byConnectionDay(records))
    for (const [day, keyed] of days)
      parts.push(...dayPartRowsOf(connectionId, day, [...keyed.values()], partSize))
  return parts
}

/**
 * The parts of one whole day of a connection built from scratch, its records (each key once, all created
 * on UTC `day`) in the order given: what historyPartRowsOf gives for them, without grouping them again.
 */
export function dayPartRowsOf(
  connectionId: string,
  day: number,
  records: readonly HistoryRecord[],
  partSize = HISTORY_PART_SIZE,
): HistoryPartRecord[] {
  const parts: HistoryPartRecord[] = []
  for (let i = 0; i < records.length; i += partSize) {
    const slice = records.slice(i, i + partSize)
    const rows = slice.map(storedHistoryRowOf)
    parts.push(indexed({ connectionId, day, part: i / partSize, rows }, slice))
  }
  return parts
}

/** Whether a connection still has rows in `history`, the table from before schema v15 (one key read). */
export async function hasOlderHistory(
  history: Table<HistoryRecord, HistoryKey, unknown>,
  connectionId: string,
): Promise<boolean> {
  const first = await history
    .where('[connectionId+key]')
    .between(...connectionBounds(connectionId))
    .limit(1)
    .primaryKeys()
  return first.length > 0
}

const partId = (p: { day: number; part: number }): string => `${p.day}:${p.part}`

/**
 * The distinct primary keys of the parts holding any of `keys`: one exact index read per key, side by
 * side. (Dexie's `anyOf` over the multi-entry index walked a cursor across every entry between the
 * smallest and largest key, which cost a sync page more than the row per record the parts replace;
 * docs/data.md has the figures.)
 */
export async function partsHolding(
  parts: HistoryTables['historyParts'],
  connectionId: string,
  keys: readonly RecordKey[],
): Promise<PartKey[]> {
  if (keys.length === 0) return []
  const found = await Promise.all(
    keys.map((k) => parts.where('keys').equals([connectionId, k]).primaryKeys()),
  )
  const unique = new Map<string, PartKey>()
  for (const k of found.flat()) unique.set(`${k[1]}:${k[2]}`, k)
  return [...unique.values()]
}

/** The key of each day's last part, where the day has parts. */
async function lastParts(
  parts: HistoryTables['historyParts'],
  connectionId: string,
  days: readonly number[],
): Promise<PartKey[]> {
  const found = await Promise.all(
    days.map((day) =>
      parts
        .where('[connectionId+day+part]')
        .between([connectionId, day], [connectionId, day + 1])
        .reverse()
        .limit(1)
        .primaryKeys(),
    ),
  )
  return found.flat()
}

/**
 * Files `records` (one connection's) in their days' parts: a record already in a part of its day is
 * replaced where it stands, and the rest are appended to the day's last part (new parts when it is full).
 * Which records may be held already is read from their days' digest rows (written by the same writer
 * right after, in the same transaction), so only those are looked up by key: a lookup is a request per
 * key, as dear as the row per record the parts replace. A record is filed on the UTC day of its creation
 * time, which the service never changes (the day digests and tokens assume the same). Reads the parts
 * holding the records and each day's last part; writes only the parts that change. A record's row from
 * before v15 is deleted. In a transaction over both tables and the day digests.
 *
 * `newParts` (a first sync, whose commits each bring a run of records of a day): the rest go to new parts
 * after the day's last one instead, so a part written by an earlier commit is never read and written
 * again; a record already held is still replaced where it stands.
 */
export async function putHistoryParts(
  tables: HistoryTables & { dayDigests: Table<DayDigestRecord, [string, number]> },
  connectionId: string,
  records: readonly HistoryRecord[],
  partSize = HISTORY_PART_SIZE,
  newParts = false,
  /**
   * Which keys may be held already: the records' days' digest rows as stored, when the caller has read
   * them (storedDigestRows), or a test never false for a key held (a first sync's sieve, deferred-days.ts).
   */
  held?: ReadonlyMap<number, DayDigestRecord | undefined> | ((key: RecordKey) => boolean),
): Promise<void> {
  const days = byConnectionDay(records).get(connectionId)
  if (!days) return
  const fresh = new Map<RecordKey, HistoryRecord>()
  for (const keyed of days.values()) for (const [k, r] of keyed) fresh.set(k, r)
  for (const older of olderTables(tables))
    if (await hasOlderHistory(older, connectionId))
      await older.bulkDelete([...fresh.keys()].map((k): HistoryKey => [connectionId, k]))
  // Only a key its day's digests list can be held already (the digests list every record of a day,
  // whichever layout holds it): a first sync's pages look none up.
  const listed = new Set<RecordKey>()
  if (typeof held === 'function') {
    for (const k of fresh.keys()) if (held(k)) listed.add(k)
  } else {
    const digests = held
      ? [...days.keys()].map((d) => held.get(d))
      : await tables.dayDigests.bulkGet([...days.keys()].map((d): [string, number] => [connectionId, d]))
    for (const row of digests) for (const d of row?.records ?? []) if (fresh.has(d.key)) listed.add(d.key)
  }
  const [holding, last] = await Promise.all([
    partsHolding(tables.historyParts, connectionId, [...listed]),
    lastParts(tables.historyParts, connectionId, [...days.keys()]),
  ])
  const wanted = new Map<string, PartKey>()
  for (const k of newParts ? holding : [...holding, ...last]) wanted.set(`${k[1]}:${k[2]}`, k)
  const read = (await tables.historyParts.bulkGet([...wanted.values()])).filter(
    (p): p is HistoryPartRecord => p !== undefined,
  )
  const byId = new Map(read.map((p) => [partId(p), p]))
  const changed = new Set<HistoryPartRecord>()
  // Replaced in place on their day; taken out of a part of another day.
  for (const part of read) {
    const kept: StoredHistoryRow[] = []
    for (const row of part.rows) {
      const r = fresh.get(row.key)
      if (!r) kept.push(row)
      else if (searchDayOf(r.createdAt) === part.day) {
        kept.push(storedHistoryRowOf(r))
        days.get(part.day)?.delete(r.key)
        changed.add(part)
      } else changed.add(part)
    }
    part.rows = kept
  }
  const lastOf = new Map(last.map((k) => [k[1], byId.get(`${k[1]}:${k[2]}`)]))
  const lastNumber = new Map(last.map((k) => [k[1], k[2]]))
  for (const [day, keyed] of days) {
    let part = newParts ? undefined : lastOf.get(day)
    let next = (lastNumber.get(day) ?? -1) + 1
    for (const r of keyed.values()) {
      if (!part || part.rows.length >= partSize) {
        if (part) next = part.part + 1
        part = { ...indexed({ connectionId, day, part: next, rows: [] }) }
        byId.set(partId(part), part)
      }
      part.rows.push(storedHistoryRowOf(r))
      changed.add(part)
    }
  }
  const emptied = [...changed].filter((p) => p.rows.length === 0)
  if (emptied.length > 0)
    await tables.historyParts.bulkDelete(emptied.map((p): PartKey => [p.connectionId, p.day, p.part]))
  await tables.historyParts.bulkPut([...changed].filter((p) => p.rows.length > 0).map((p) => indexed(p)))
}

/** Drops a connection's parts and older rows (olderTables). In a transaction over the tables. */
export async function clearHistory(tables: HistoryTables, connectionId: string): Promise<void> {
  const [lo, hi] = connectionBounds(connectionId)
  for (const older of olderTables(tables)) await older.where('[connectionId+key]').between(lo, hi).delete()
  await tables.historyParts.where('[connectionId+day+part]').between(lo, hi).delete()
}
