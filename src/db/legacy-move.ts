/**
 * The history rows a schema-6-or-older cache set aside (`legacyHistory`, migrations/legacy-history.ts),
 * made whole in the background, in two stages of bounded batches, each batch one transaction.
 *
 * 1. Filing: the rows' days get their digest rows, summaries and search tokens, built from scratch from
 *    every record of the day (parts, older rows and set-aside rows: history-part-reads.ts reads all three),
 *    their marks leave the orphan row for their days' rows, and their stores are named. A settings row
 *    (`LEGACY_FILED_KEY`) holds how far, by connection and time, in the same transaction. Until filing
 *    ends, the figures that come from day rows (counts, filters, search, Month-end) leave out the rows not
 *    yet filed: `legacyHistoryUnfiled` says so, and the app says it and refuses Month-end meanwhile.
 * 2. Moving: the filed rows go to day parts, oldest first, and leave the set-aside store. Their days' rows
 *    already list them, so nothing but the parts is written. Every read answers the same before, during
 *    and after this stage: a record is read from whichever store holds it.
 *
 * A crash or quit mid-batch rolls the batch back whole (the cursor with it), so a record is never lost or
 * held twice, and the next start goes on from where it stopped. Sync filing a record again takes it out of
 * the set-aside store in its own transaction (history-parts.ts): a key is held once, in one store.
 */
import Dexie from 'dexie'
import type { ClosebookDb } from './database'
import { fileDayRows } from './deferred-history'
import { searchDayOf, searchDayStart } from './history-record'
import { historyInRange, merged } from './history-part-reads'
import type { HistoryWriter } from './history-writer'
import { DayRows, putMarkDays } from './marks-repository'
import { groupBy } from './repository-helpers'
import { rememberStores } from './store-names'
import type { HistoryRecord } from '../domain/records'

/** Rows per batch: a few MB of records, one transaction of a fraction of a second. */
export const LEGACY_MOVE_BATCH = 2000

/** The settings row saying how far filing went: every set-aside row below this [connection, time] is filed. */
export const LEGACY_FILED_KEY = 'legacyHistoryFiledTo'

/** How far the work is: `moved` rows taken this run (filed, then moved), `left` still waiting. */
export interface LegacyMoveProgress {
  stage: 'filing' | 'moving'
  moved: number
  left: number
}

/** How many rows wait in the legacy store. */
export function legacyHistoryLeft(db: ClosebookDb): Promise<number> {
  return db.legacyHistory.count()
}

type Cursor = [string, number]

async function filedTo(db: ClosebookDb): Promise<Cursor | null> {
  const value = (await db.settings.get(LEGACY_FILED_KEY))?.value
  return Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'number'
    ? [value[0], value[1]]
    : null
}

/** The index range of rows not yet filed. */
const unfiledRange = (db: ClosebookDb, cursor: Cursor | null) =>
  db.legacyHistory
    .where('[connectionId+createdAt]')
    .between(cursor ?? [Dexie.minKey, Dexie.minKey], [Dexie.maxKey, Dexie.maxKey], true, true)

/**
 * Whether some set-aside rows are not yet in their days' rows: the ledger's counts, filters and search and
 * Month-end's figures would leave them out. Two key reads.
 */
export function legacyHistoryUnfiled(db: ClosebookDb): Promise<boolean> {
  return db.transaction('r', [db.legacyHistory, db.settings], async () => {
    const [first] = await unfiledRange(db, await filedTo(db))
      .limit(1)
      .primaryKeys()
    return first !== undefined
  })
}

/**
 * Files the days of the next unfiled rows (about `size`, whole days, one connection) from every record
 * stored on them; returns how many set-aside rows those days held (0: filing is done).
 */
export function fileLegacyBatch(
  db: ClosebookDb,
  writer: HistoryWriter,
  size = LEGACY_MOVE_BATCH,
): Promise<number> {
  return db.transaction('rw', [...writer.historyTables(), db.markDays], async () => {
    const keys = (await unfiledRange(db, await filedTo(db))
      .limit(size)
      .keys()) as unknown as Cursor[]
    const [first] = keys
    if (!first) return 0
    const connectionId = first[0]
    const days = new Set<number>()
    for (const [c, createdAt] of keys) if (c === connectionId) days.add(searchDayOf(createdAt))
    const lo = Math.min(...days)
    const hi = Math.max(...days) + 1
    const from = searchDayStart(lo)
    const to = searchDayStart(hi)
    const [rows, others] = await Promise.all([
      db.legacyHistory
        .where('[connectionId+createdAt]')
        .between([connectionId, from], [connectionId, to], true, false)
        .toArray(),
      historyInRange({ history: db.history, historyParts: db.historyParts }, connectionId, from, to),
    ])
    const byDay = groupBy(merged(others, rows), (r) => searchDayOf(r.createdAt))
    for (const [day, records] of byDay) if (days.has(day)) await fileDayRows(db, connectionId, day, records)
    await adoptOrphanMarks(db, connectionId, rows)
    await rememberStores(db, connectionId, rows)
    await db.settings.put({ key: LEGACY_FILED_KEY, value: [connectionId, to] })
    return rows.length
  })
}

/**
 * Moves the next `size` filed rows (by connection, then time) to their day parts; returns how many it took
 * (0: none filed is left).
 */
export function moveLegacyBatch(
  db: ClosebookDb,
  writer: HistoryWriter,
  size = LEGACY_MOVE_BATCH,
): Promise<number> {
  return db.transaction('rw', writer.historyTables(), async () => {
    const cursor = await filedTo(db)
    if (!cursor) return 0
    const rows = await db.legacyHistory.where('[connectionId+createdAt]').below(cursor).limit(size).toArray()
    for (const [connectionId, records] of groupBy(rows, (r) => r.connectionId))
      await writer.putFiledParts(connectionId, records)
    return rows.length
  })
}

/** Marks filed in the orphan row (v6 found no record for them) join their records' day rows. */
async function adoptOrphanMarks(
  db: ClosebookDb,
  connectionId: string,
  records: readonly HistoryRecord[],
): Promise<void> {
  if (records.length === 0) return
  const rows = new DayRows(connectionId, records)
  await rows.read(db.markDays)
  const adopted = rows.orphans()
  if (adopted.length > 0) await putMarkDays(db.markDays, rows.change(adopted, []))
}

const running = new WeakMap<ClosebookDb, Promise<void>>()

/**
 * Files, then moves, every set-aside row, batch after batch, telling `onProgress` after each; resolves
 * when the store is empty. One run per cache at a time: a second call joins the first. Other writes (sync,
 * marking) take their turn between batches.
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
    const total = await legacyHistoryLeft(db)
    if (total === 0) return
    for (const [stage, batch] of [
      ['filing', fileLegacyBatch],
      ['moving', moveLegacyBatch],
    ] as const) {
      let moved = 0
      onProgress({ stage, moved, left: total })
      for (;;) {
        const n = await batch(db, writer, size)
        if (n === 0) break
        moved += n
        onProgress({ stage, moved, left: Math.max(0, total - moved) })
      }
    }
    await db.transaction('rw', [db.legacyHistory, db.settings], async () => {
      if ((await db.legacyHistory.count()) === 0) await db.settings.delete(LEGACY_FILED_KEY)
    })
  })().finally(() => running.delete(db))
  running.set(db, run)
  return run
}
