/**
 * Reads of history stored since schema v15 (history-parts.ts): each the union of the day parts, the rows
 * of `history` written before them and the rows a schema-6-or-older cache set aside (olderTables), a
 * part's copy winning, records returned whole (the fields a lean row leaves to `raw` read back, as the
 * table's reading hook does). Each joins the caller's transaction, which must include those tables
 * (ClosebookDb.historyRecordTables).
 */
import Dexie from 'dexie'
import { recordKeyOf, type HistoryRecord, type RecordKey } from '../domain/records'
import { byTimeThenKey, searchDayOf } from './history-record'
import { historyRecordOfRow } from './history-row'
import {
  hasOlderHistory,
  olderTables,
  partsHolding,
  type HistoryKey,
  type HistoryPartRecord,
  type HistoryTables,
} from './history-parts'
import { connectionBounds, readInChunks } from './repository-helpers'

export const recordsOf = (part: HistoryPartRecord): HistoryRecord[] => part.rows.map(historyRecordOfRow)

/**
 * Records by key, in the keys' order (undefined where not cached): from the parts holding them, then the
 * rest from the rows written before v15. Parts are read a few hundred at a time.
 */
export function historyByKeys(
  tables: HistoryTables,
  connectionId: string,
  keys: readonly RecordKey[],
): Promise<(HistoryRecord | undefined)[]> {
  // No keys, no request: a Dexie promise, so a caller's transaction goes on after awaiting it.
  if (keys.length === 0) return Dexie.Promise.resolve([])
  return readByKeys(tables, connectionId, keys)
}

async function readByKeys(
  tables: HistoryTables,
  connectionId: string,
  keys: readonly RecordKey[],
): Promise<(HistoryRecord | undefined)[]> {
  const found = new Map<RecordKey, HistoryRecord>()
  const holding = await partsHolding(tables.historyParts, connectionId, keys)
  const wanted = new Set(keys)
  // Never an await without a request: the transaction would commit before the older rows' read.
  const parts = holding.length > 0 ? await readInChunks(holding, (c) => tables.historyParts.bulkGet(c)) : []
  for (const part of parts)
    if (part)
      for (const row of part.rows) if (wanted.has(row.key)) found.set(row.key, historyRecordOfRow(row))
  for (const table of olderTables(tables)) {
    const missing = keys.filter((k) => !found.has(k))
    if (missing.length === 0) break
    const older = await readInChunks(missing, (chunk) =>
      table.bulkGet(chunk.map((k): HistoryKey => [connectionId, k])),
    )
    for (const r of older) if (r) found.set(r.key, r)
  }
  return keys.map((k) => found.get(k))
}

/**
 * Records of `hits` (keys with their creation times, as the day digests and tokens give them), in order:
 * the parts of the hits' UTC days, a run of consecutive days per request, then by key what those parts do
 * not hold (rows from before v15). Undefined where not cached.
 */
export async function historyOfHits(
  tables: HistoryTables,
  connectionId: string,
  hits: readonly { key: RecordKey; createdAt: number }[],
): Promise<(HistoryRecord | undefined)[]> {
  if (hits.length === 0) return Dexie.Promise.resolve([])
  const days = [...new Set(hits.map((h) => searchDayOf(h.createdAt)))].sort((a, b) => a - b)
  const runs: [number, number][] = []
  for (const d of days) {
    const last = runs[runs.length - 1]
    if (last && d === last[1] + 1) last[1] = d
    else runs.push([d, d])
  }
  const wanted = new Set(hits.map((h) => h.key))
  const found = new Map<RecordKey, HistoryRecord>()
  const read = await Promise.all(
    runs.map(([lo, hi]) =>
      tables.historyParts
        .where('[connectionId+day+part]')
        .between([connectionId, lo], [connectionId, hi + 1])
        .toArray(),
    ),
  )
  for (const part of read.flat())
    for (const row of part.rows) if (wanted.has(row.key)) found.set(row.key, historyRecordOfRow(row))
  const missing = hits.map((h) => h.key).filter((k) => !found.has(k))
  if (missing.length > 0) {
    const older = await historyByKeys(tables, connectionId, missing)
    for (const r of older) if (r) found.set(r.key, r)
  }
  return hits.map((h) => found.get(h.key))
}

/** The days whose parts may hold records created in [from, to) (either end may be infinite). */
function daysOf(from: number, to: number): { lo: number; hi: number } {
  return {
    lo: from === -Infinity ? 0 : searchDayOf(from),
    hi: to === Infinity ? Number.MAX_SAFE_INTEGER - 1 : searchDayOf(to - 1),
  }
}

/** Parts and older rows merged: a key in both keeps the part's copy; by time, then key. */
export function merged<T extends Pick<HistoryRecord, 'key' | 'createdAt'>>(
  inParts: readonly T[],
  older: readonly T[],
): T[] {
  if (older.length === 0) return [...inParts].sort(byTimeThenKey)
  const byKey = new Map(older.map((r) => [r.key, r]))
  for (const r of inParts) byKey.set(r.key, r)
  return [...byKey.values()].sort(byTimeThenKey)
}

/** Every record of a connection created in [from, to), by time then key: its days' parts and older rows. */
export async function historyInRange(
  tables: HistoryTables,
  connectionId: string,
  from: number,
  to: number,
): Promise<HistoryRecord[]> {
  if (!(to > from)) return []
  const { lo, hi } = daysOf(from, to)
  const [parts, ...older] = await Promise.all([
    tables.historyParts
      .where('[connectionId+day+part]')
      .between([connectionId, lo], [connectionId, hi + 1])
      .toArray(),
    ...olderTables(tables).map((table) =>
      table
        .where('[connectionId+createdAt]')
        .between([connectionId, from], [connectionId, to], true, false)
        .toArray(),
    ),
  ])
  const inParts = parts.flatMap(recordsOf).filter((r) => r.createdAt >= from && r.createdAt < to)
  return merged(inParts, older.flat())
}

/** The refunds of some charges, whenever made, by time then key. */
export async function refundsOfCharges(
  tables: HistoryTables,
  connectionId: string,
  chargeIds: readonly string[],
): Promise<HistoryRecord[]> {
  if (chargeIds.length === 0) return []
  const wanted = new Set(chargeIds)
  const pairs = chargeIds.map((id): [string, string] => [connectionId, id])
  const [parts, ...older] = await Promise.all([
    tables.historyParts.where('refundKeys').anyOf(pairs).distinct().toArray(),
    ...olderTables(tables).map((table) => table.where('[connectionId+chargeId]').anyOf(pairs).toArray()),
  ])
  const isRefund = (r: HistoryRecord) => r.type === 'refund' && wanted.has(r.chargeId)
  return merged(parts.flatMap(recordsOf).filter(isRefund), older.flat().filter(isRefund))
}

/** A charge and its refunds, by time then key. */
export async function chargeWithRefunds(
  tables: HistoryTables,
  connectionId: string,
  chargeId: string,
): Promise<HistoryRecord[]> {
  const [[charge], refunds] = await Promise.all([
    historyByKeys(tables, connectionId, [recordKeyOf('charge', chargeId)]),
    refundsOfCharges(tables, connectionId, [chargeId]),
  ])
  return charge ? merged(refunds, [charge]) : refunds
}

/** A refund as the window's stale-charge check needs it. */
export interface RefundRef {
  chargeId: string
  resourceId: string
}

/** The refunds created in [from, to): the parts' refund index keys alone, and older rows by type and time. */
export async function refundsInWindow(
  tables: HistoryTables,
  connectionId: string,
  from: number,
  to: number,
): Promise<RefundRef[]> {
  if (!(to > from)) return []
  const entries = (await tables.historyParts
    .where('refundTimes')
    .between([connectionId, from], [connectionId, to], true, false)
    .keys()) as unknown as [string, number, string, string][]
  const refs = new Map<string, RefundRef>()
  for (const [, , chargeId, resourceId] of entries) refs.set(resourceId, { chargeId, resourceId })
  for (const table of olderTables(tables)) {
    const olderKeys = await table
      .where('[connectionId+type+createdAt]')
      .between([connectionId, 'refund', from], [connectionId, 'refund', to], true, false)
      .primaryKeys()
    const older = await readInChunks(olderKeys, (keys) => table.bulkGet(keys))
    for (const r of older)
      if (r && !refs.has(r.resourceId))
        refs.set(r.resourceId, { chargeId: r.chargeId, resourceId: r.resourceId })
  }
  return [...refs.values()]
}

/**
 * The distinct values of a facet (`'status'`: those that can still change; `'mode'`) that a connection's
 * parts hold, found by hopping from one index key to the next (one read each).
 */
async function facetValues(
  parts: HistoryTables['historyParts'],
  connectionId: string,
  facet: 'status' | 'mode',
): Promise<string[]> {
  const values: string[] = []
  let from = ''
  for (;;) {
    const [next] = (await parts
      .where('facets')
      .between([connectionId, facet, from], [connectionId, facet, Dexie.maxKey])
      .limit(1)
      .keys()) as unknown as [string, string, string][]
    if (!next) return values
    values.push(next[2])
    from = `${next[2]}\u0000`
  }
}

/**
 * The records whose status passes `wanted` among those that can still change: parts through their status
 * facets, older rows through the status index (which they fill, for rows written since lean rows, only for
 * such statuses), one status at a time. A status never seen before is still offered to `wanted`.
 */
export async function historyWithStatus(
  tables: HistoryTables,
  connectionId: string,
  wanted: (status: string) => boolean,
): Promise<HistoryRecord[]> {
  const inParts: HistoryRecord[] = []
  for (const status of await facetValues(tables.historyParts, connectionId, 'status')) {
    if (!wanted(status)) continue
    const keys = await tables.historyParts
      .where('facets')
      .equals([connectionId, 'status', status])
      .primaryKeys()
    for (const part of await readInChunks(keys, (chunk) => tables.historyParts.bulkGet(chunk)))
      if (part) for (const r of recordsOf(part)) if (r.status === status) inParts.push(r)
  }
  const older: HistoryRecord[] = []
  for (const table of olderTables(tables)) {
    const index = () => table.where('[connectionId+status+createdAt]')
    let from = ''
    for (;;) {
      const next = await index()
        .between([connectionId, from, Dexie.minKey], [connectionId, Dexie.maxKey, Dexie.maxKey])
        .first()
      if (!next) break
      const { status } = next
      if (wanted(status)) {
        // Keys first, then the records a few hundred per request (one request's records clone in one task).
        const keys = await index()
          .between([connectionId, status, Dexie.minKey], [connectionId, status, Dexie.maxKey])
          .primaryKeys()
        for (const r of await readInChunks(keys, (chunk) => table.bulkGet(chunk))) if (r) older.push(r)
      }
      from = `${status}\u0000`
    }
  }
  const byKey = new Map(older.map((r) => [r.key, r]))
  for (const r of inParts) byKey.set(r.key, r)
  return [...byKey.values()]
}

/** Whether a connection has a record in `mode` (parts' mode facets, older rows' mode index). */
export async function hasMode(tables: HistoryTables, connectionId: string, mode: string): Promise<boolean> {
  const inParts = await tables.historyParts
    .where('facets')
    .equals([connectionId, 'mode', mode])
    .limit(1)
    .primaryKeys()
  if (inParts.length > 0) return true
  for (const table of olderTables(tables)) {
    const older = await table
      .where('[connectionId+mode+createdAt]')
      .between([connectionId, mode, -Infinity], [connectionId, mode, Infinity])
      .limit(1)
      .count()
    if (older > 0) return true
  }
  return false
}

/** Whether a connection has any history record (a part, or a row from before v15). */
export async function hasHistory(tables: HistoryTables, connectionId: string): Promise<boolean> {
  const part = await tables.historyParts
    .where('[connectionId+day+part]')
    .between(...connectionBounds(connectionId))
    .limit(1)
    .primaryKeys()
  if (part.length > 0) return true
  for (const table of olderTables(tables)) if (await hasOlderHistory(table, connectionId)) return true
  return false
}

/** The newest createdAt among a connection's records; null when none. */
export async function newestHistoryTime(tables: HistoryTables, connectionId: string): Promise<number | null> {
  const [lastKey] = await tables.historyParts
    .where('[connectionId+day+part]')
    .between(...connectionBounds(connectionId))
    .reverse()
    .limit(1)
    .primaryKeys()
  let newest: number | null = null
  if (lastKey) {
    const day = lastKey[1]
    const parts = await tables.historyParts
      .where('[connectionId+day+part]')
      .between([connectionId, day], [connectionId, day + 1])
      .toArray()
    for (const p of parts)
      for (const row of p.rows) if (newest === null || row.createdAt > newest) newest = row.createdAt
  }
  for (const table of olderTables(tables)) {
    const older = await table
      .where('[connectionId+createdAt]')
      .between(...connectionBounds(connectionId))
      .last()
    if (older && (newest === null || older.createdAt > newest)) newest = older.createdAt
  }
  return newest
}

/** How many history records the tables hold: the parts' key entries, and the older rows (olderTables). */
export async function countHistory(tables: HistoryTables): Promise<number> {
  const [inParts, ...older] = await Promise.all([
    tables.historyParts.orderBy('keys').count(),
    ...olderTables(tables).map((table) => table.count()),
  ])
  return older.reduce((sum, n) => sum + n, inParts)
}

/** Every history record the tables hold, by connection then key (whole-cache reads: backup, tests). */
export async function allHistory(tables: HistoryTables): Promise<HistoryRecord[]> {
  const [parts, ...older] = await Promise.all([
    tables.historyParts.toArray(),
    ...olderTables(tables).map((table) => table.toArray()),
  ])
  const byKey = new Map(older.flat().map((r) => [`${r.connectionId}\u0001${r.key}`, r]))
  for (const p of parts) for (const r of recordsOf(p)) byKey.set(`${r.connectionId}\u0001${r.key}`, r)
  return [...byKey.values()].sort((a, b) =>
    a.connectionId < b.connectionId
      ? -1
      : a.connectionId > b.connectionId
        ? 1
        : a.key < b.key
          ? -1
          : a.key > b.key
            ? 1
            : 0,
  )
}
