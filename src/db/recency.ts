/**
 * What sync asks the cache about recency and changeable records (src/sync/recheck.ts): the newest
 * `created_on` per partition of the data, where incremental windows start (never the local clock), and the
 * records in given statuses that can still change (history-parts.ts).
 */
import type { Table } from 'dexie'
import type { ClosebookDb } from './database'
import { dayRowBatches } from './day-digests'
import { searchDayOf } from './history-record'
import { historyWithStatus as partsWithStatus, newestHistoryTime } from './history-part-reads'
import type { HistoryRecord, SyncResource } from '../domain/records'
import { connectionBounds } from './repository-helpers'

/** Day rows read per request when looking for a store's newest record, newest day first. */
const NEWEST_BATCH_DAYS = 8

/**
 * The newest cached `created_on` of a resource (of one store, or any when null); null when none.
 * History: the date index for any store; for one store, the day digests newest day first (stores
 * interleave, so this stops within a day or two; a store with no recent record reads further back, once
 * per sync). The charge list: its day rows, newest first (newestCharge).
 */
export async function newestCreatedAt(
  db: ClosebookDb,
  connectionId: string,
  resource: SyncResource,
  storeId: string | null,
): Promise<number | null> {
  if (resource === 'transaction_history') {
    if (storeId === null)
      return db.transaction('r', db.historyRecordTables(), () => newestHistoryTime(db, connectionId))
    return newestInDigests(db, connectionId, storeId)
  }
  return newestCharge(db, connectionId, storeId)
}

/**
 * The newest charge's createdAt (of one store, or any when null): from the charges' day rows, and from
 * charges cached before schema v10 through their time index, newest first until one of the store's.
 */
async function newestCharge(db: ClosebookDb, connectionId: string, storeId: string | null) {
  const newest = await newestInDayRows(db.chargeDays, connectionId, (row) =>
    newestOf(row.times.length, (i) =>
      storeId === null || row.storeIds[i] === storeId ? (row.times[i] ?? null) : null,
    ),
  )
  const older = await db.charges
    .where('[connectionId+createdAt]')
    .between(...connectionBounds(connectionId))
    .reverse()
    .filter((c) => storeId === null || c.storeId === storeId)
    .first()
  return older && (newest === null || older.createdAt > newest) ? older.createdAt : newest
}

/** The newest createdAt among one store's records, from the day digests. */
function newestInDigests(db: ClosebookDb, connectionId: string, storeId: string): Promise<number | null> {
  return newestInDayRows(db.dayDigests, connectionId, (row) =>
    newestOf(row.records.length, (i) => {
      const d = row.records[i]
      return d?.storeId === storeId ? d.createdAt : null
    }),
  )
}

/**
 * A connection's day rows newest day first, a few at a time, until `newestInRow` finds a time in one:
 * stores interleave, so this stops within a day or two; a store with no recent record reads further back.
 */
async function newestInDayRows<R extends { day: number }>(
  table: Table<R, [string, number]>,
  connectionId: string,
  newestInRow: (row: R) => number | null,
): Promise<number | null> {
  const days = { lo: 0, hi: Number.MAX_SAFE_INTEGER, desc: true }
  for await (const rows of dayRowBatches(table, connectionId, days, () => NEWEST_BATCH_DAYS))
    for (const row of rows) {
      const newest = newestInRow(row)
      if (newest !== null) return newest
    }
  return null
}

/** The largest of `timeAt(0 .. count - 1)`, skipping nulls (entries not wanted); null when none. */
function newestOf(count: number, timeAt: (i: number) => number | null): number | null {
  let newest: number | null = null
  for (let i = 0; i < count; i++) {
    const at = timeAt(i)
    if (at !== null && (newest === null || at > newest)) newest = at
  }
  return newest
}

/**
 * History records whose status passes `wanted`, among statuses that can still change: day parts through
 * their status facets, rows from before them through the status index (history-parts.ts). A status never
 * seen before is still offered to `wanted`, and the history is never scanned; a final status is never
 * offered: the re-check asks for the others only.
 */
export async function historyWithStatus(
  db: ClosebookDb,
  connectionId: string,
  wanted: (status: string) => boolean,
): Promise<HistoryRecord[]> {
  return db.transaction('r', db.historyRecordTables(), () => partsWithStatus(db, connectionId, wanted))
}

/**
 * A digest of what the cache holds for [from, to): every record's key and fingerprint (amount, currency,
 * status, refunds), from the day digests (a row per UTC day: ~31 reads for a month). Equal digests mean
 * nothing that a mark depends on changed; "Verify month" stores it to tell later whether anything did.
 */
export async function monthDigest(
  db: ClosebookDb,
  connectionId: string,
  from: number,
  to: number,
): Promise<{ records: number; digest: string }> {
  const rows = await db.dayDigests
    .where('[connectionId+day]')
    .between([connectionId, searchDayOf(from)], [connectionId, searchDayOf(to - 1)], true, true)
    .toArray()
  const parts: string[] = []
  for (const row of rows)
    for (const r of row.records)
      if (r.createdAt >= from && r.createdAt < to) parts.push(`${r.key}\u0001${r.fingerprint}`)
  parts.sort()
  // FNV-1a, 2 × 32 bits: a change detector, not a security property.
  let a = 0x811c9dc5
  let b = 0x01000193
  for (const p of parts)
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i)
      a = Math.imul(a ^ c, 0x01000193) >>> 0
      b = Math.imul(b ^ c, 0x811c9dc5) >>> 0
    }
  return { records: parts.length, digest: `${parts.length}:${a.toString(16)}${b.toString(16)}` }
}

/** What "Verify month" remembers of its last run for a connection's month (settings table, no schema change). */
export interface MonthVerification {
  at: number
  /** Records whose stored copy changed in that run (history keys and `charge-list:<id>`), first 200. */
  changedKeys: string[]
  changedCount: number
  /** monthDigest() right after the run. */
  digest: string
}

export const monthVerificationKey = (connectionId: string, period: string): string =>
  `verifiedMonth\u0001${connectionId}\u0001${period}`
