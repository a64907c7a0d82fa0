/**
 * Files the history rows a schema-6-or-older cache set aside (`legacyHistory`, migrations/legacy-history.ts)
 * in day parts, in the background, a bounded batch per transaction. Each batch, in one transaction: the
 * oldest rows by connection and time, converted as the frozen steps converted a row (v2's order number for
 * a v1 row; the search fields v2 and v5 added, which nothing reads, left out), filed through the history
 * writer (parts, digests, summaries, tokens, store names), their marks moved from the orphan row to their
 * day's row, and the rows deleted from the legacy store. A crash or quit mid-batch rolls the batch back
 * whole, so a record is never lost or held twice, and the next start goes on from the rows still there.
 * A record sync filed again since the rename keeps sync's copy: its old row is only deleted.
 */
import type { ClosebookDb, LegacyHistoryRow } from './database'
import { searchDayOf } from './history-record'
import type { HistoryWriter } from './history-writer'
import { DayRows, putMarkDays } from './marks-repository'
import { orderRefOf as orderRefV2 } from './migrations/v2'
import type { HistoryRecord, RecordKey } from '../domain/records'

/** Rows per batch: a few MB of records, one transaction of a fraction of a second. */
export const LEGACY_MOVE_BATCH = 2000

/** How far the move is: `moved` rows filed this run, `left` still waiting. */
export interface LegacyMoveProgress {
  moved: number
  left: number
}

/**
 * The record a set-aside row holds, as the frozen steps would have left it: the row itself, with v2's
 * order number where a v1 row has none, less the search fields no reader uses (backups leave them out).
 */
export function recordOfLegacyRow(row: LegacyHistoryRow): HistoryRecord {
  const { searchText: _text, searchTokens: _tokens, ...record } = row
  // A v1 row has no order number: v2 set it from the item, as here.
  if ((record as Partial<HistoryRecord>).orderRef === undefined) record.orderRef = orderRefV2(record.raw)
  return record
}

/** How many rows wait in the legacy store. */
export function legacyHistoryLeft(db: ClosebookDb): Promise<number> {
  return db.legacyHistory.count()
}

/**
 * Moves the next `size` rows (by connection, then time) in one transaction; returns how many it took
 * (0: the store is empty).
 */
export function moveLegacyBatch(
  db: ClosebookDb,
  writer: HistoryWriter,
  size = LEGACY_MOVE_BATCH,
): Promise<number> {
  const tables = [db.legacyHistory, ...writer.historyTables(), db.markDays]
  return db.transaction('rw', tables, async () => {
    const rows = await db.legacyHistory.orderBy('[connectionId+createdAt]').limit(size).toArray()
    if (rows.length === 0) return 0
    const byConnection = new Map<string, HistoryRecord[]>()
    for (const row of rows) {
      const record = recordOfLegacyRow(row)
      const mine = byConnection.get(record.connectionId)
      if (mine) mine.push(record)
      else byConnection.set(record.connectionId, [record])
    }
    for (const [connectionId, records] of byConnection) {
      const held = await keysInParts(db, connectionId, records)
      const filed = records.filter((r) => !held.has(r.key))
      if (filed.length === 0) continue
      await writer.putHistory(filed)
      await adoptOrphanMarks(db, connectionId, filed)
    }
    await db.legacyHistory.bulkDelete(rows.map((r): [string, RecordKey] => [r.connectionId, r.key]))
    return rows.length
  })
}

/**
 * The keys among `records` (one connection's, oldest first) that day parts hold already: sync filed them
 * again since the rename. One range read of the parts of the records' days (the batch's few days), where
 * a lookup per key would cost a request per record.
 */
async function keysInParts(
  db: ClosebookDb,
  connectionId: string,
  records: readonly HistoryRecord[],
): Promise<Set<RecordKey>> {
  const days = records.map((r) => searchDayOf(r.createdAt))
  const parts = await db.historyParts
    .where('[connectionId+day+part]')
    .between([connectionId, Math.min(...days)], [connectionId, Math.max(...days) + 1])
    .toArray()
  const wanted = new Set(records.map((r) => r.key))
  const held = new Set<RecordKey>()
  for (const part of parts) for (const row of part.rows) if (wanted.has(row.key)) held.add(row.key)
  return held
}

/** Marks filed in the orphan row (v6 found no record for them) join their records' day rows. */
async function adoptOrphanMarks(
  db: ClosebookDb,
  connectionId: string,
  records: readonly HistoryRecord[],
): Promise<void> {
  const rows = new DayRows(connectionId, records)
  await rows.read(db.markDays)
  const adopted = rows.orphans()
  if (adopted.length > 0) await putMarkDays(db.markDays, rows.change(adopted, []))
}

const running = new WeakMap<ClosebookDb, Promise<void>>()

/**
 * Moves every set-aside row, batch after batch, telling `onProgress` after each; resolves when the store
 * is empty. One run per cache at a time: a second call joins the first. Other writes (sync, marking) take
 * their turn between batches.
 */
export function moveLegacyHistory(
  db: ClosebookDb,
  writer: HistoryWriter,
  onProgress: (progress: LegacyMoveProgress) => void = () => undefined,
  size = LEGACY_MOVE_BATCH,
): Promise<void> {
  const joined = running.get(db)
  if (joined) return joined
  const run = (async () => {
    let left = await legacyHistoryLeft(db)
    let moved = 0
    if (left === 0) return
    onProgress({ moved, left })
    for (;;) {
      const n = await moveLegacyBatch(db, writer, size)
      if (n === 0) break
      moved += n
      left = Math.max(0, left - n)
      onProgress({ moved, left })
    }
    onProgress({ moved, left: 0 })
  })().finally(() => running.delete(db))
  running.set(db, run)
  return run
}
