/**
 * The index pass of a restore whose file was not in time order (backup-days.ts): the days the read could
 * not file, filed a day at a time once the read ended, before the switch.
 */
import type { Table } from 'dexie'
import type { ChargeTable } from './backup-stage'
import type { RestoreOptions } from './backup-stream'
import type { ClosebookDb, GenerationTables } from './database'
import { HISTORY_PART_SIZE } from './history-parts'
import { searchDayBounds, searchDayOf } from './history-record'
import { HistoryWriter } from './history-writer'
import { packRestoredDay, restoredDays } from './restore-history'

/**
 * Files what the read could not (a file not in time order), a day at a time: each restored history day
 * packed again in parts from 0 (restore-history.ts) with its day rows (digests, search tokens) filed
 * anew, and the staged charges' day rows and parts in the next generation, read through their time
 * index. Memory holds one day's records, whatever the file's order. Writing them a page at a time
 * instead, as a file in another order comes (every page touches every day), rewrote every day row once
 * per page: the whole index in memory, and quadratic time.
 */
export async function stageDayRows(
  db: ClosebookDb,
  next: GenerationTables,
  connectionIds: { history: Iterable<string>; charges: Iterable<string> },
  options: RestoreOptions,
  onRecords: (done: number) => void,
): Promise<void> {
  const { signal, faults } = options
  let done = 0
  const filed = (table: Table, records: number): void => {
    faults?.afterIndexDay?.(table.name)
    onRecords((done += records))
  }
  // The history writer owns the day rows, the next generation's included.
  const writer = new HistoryWriter(db)
  const history = { dayDigests: next.dayDigests, daySummaries: next.daySummaries, dayTokens: next.dayTokens }
  const packing = [next.historyParts, ...Object.values(history)]
  // What the read filed before the file left time order is filed again, whole days at a time.
  const ids = [...connectionIds.history]
  if (ids.length > 0) await db.transaction('rw', Object.values(history), () => writer.clearFreshDays(history))
  const partSize = options.historyPartSize ?? HISTORY_PART_SIZE
  for (const connectionId of ids)
    for await (const day of restoredDays(next.historyParts, connectionId, signal)) {
      const records = await db.transaction('rw', packing, async () => {
        const mine = await packRestoredDay(next.historyParts, connectionId, day, partSize)
        await writer.fileFreshDays(mine, history)
        return mine
      })
      filed(next.historyParts, records.length)
    }
  // The staged charges are filed in their day parts, which is how the cache holds them (charge-days.ts).
  const charges = { chargeDays: next.chargeDays, chargeParts: next.chargeParts }
  for (const connectionId of connectionIds.charges)
    for await (const records of stagedDays(db.staged('charges') as ChargeTable, connectionId, signal)) {
      await db.transaction('rw', Object.values(charges), () => writer.fileFreshCharges(records, charges))
      filed(next.chargeDays, records.length)
    }
}

/** A staged table's records of one connection a UTC day at a time, oldest first, through its time index. */
async function* stagedDays<R extends { createdAt: number }, K>(
  table: Table<R, K>,
  connectionId: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<R[]> {
  const byTime = (from: number, to: number) =>
    table.where('[connectionId+createdAt]').between([connectionId, from], [connectionId, to], true, false)
  for (let from = -Infinity; ;) {
    signal?.throwIfAborted()
    const next = await byTime(from, Infinity).first()
    if (!next) return
    const to = searchDayBounds(searchDayOf(next.createdAt))[1]
    yield await byTime(from, to).toArray()
    from = to
  }
}
