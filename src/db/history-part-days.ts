/**
 * History a UTC day at a time, for a backup's pass over it in time order (backup-write.ts): which
 * connections hold history, the next day holding any of a connection's records, and a run of days' records,
 * each the union of the day parts and the rows of `history` from before them (history-parts.ts).
 */
import Dexie from 'dexie'
import { searchDayOf, searchDayStart } from './history-record'
import type { HistoryTables } from './history-parts'
import { merged } from './history-part-reads'
import type { StoredHistoryRow } from './history-row'

const DAY_MS = 86_400_000

/** Every connection holding history (parts or older rows), in id order: one key read per connection. */
export async function historyConnections(tables: HistoryTables): Promise<string[]> {
  const ids = new Set<string>()
  for (const table of [tables.historyParts, tables.history] as const) {
    let after: string | null = null
    for (;;) {
      const [key] = (await (
        after === null ? table.orderBy(':id') : table.where(':id').above([after, Dexie.maxKey])
      )
        .limit(1)
        .primaryKeys()) as unknown as [string][]
      if (!key) break
      ids.add(key[0])
      after = key[0]
    }
  }
  return [...ids].sort()
}

/** The first UTC day from `from` on holding any of a connection's records; null when none. */
export async function nextHistoryDay(
  tables: HistoryTables,
  connectionId: string,
  from: number,
  older: boolean,
): Promise<number | null> {
  const [part] = await tables.historyParts
    .where('[connectionId+day+part]')
    .between([connectionId, from], [connectionId, Dexie.maxKey])
    .limit(1)
    .primaryKeys()
  let day = part ? part[1] : null
  if (older) {
    const row = await tables.history
      .where('[connectionId+createdAt]')
      .between([connectionId, searchDayStart(from)], [connectionId, Infinity], true, false)
      .first()
    if (row) {
      const rowDay = Math.max(from, searchDayOf(row.createdAt))
      if (day === null || rowDay < day) day = rowDay
    }
  }
  return day
}

/**
 * A connection's records of UTC days [lo, hi), by time then key: parts and (`older`) older rows. A part's
 * rows come as stored (history-row.ts: the fields `raw` gives back may be left out), older rows whole;
 * each holds its connection, key, time, `syncedAt` and `raw`, which is all a backup line is made of.
 */
export async function historyRowsOfDays(
  tables: HistoryTables,
  connectionId: string,
  lo: number,
  hi: number,
  older: boolean,
): Promise<StoredHistoryRow[]> {
  const [parts, rows] = await Promise.all([
    tables.historyParts
      .where('[connectionId+day+part]')
      .between([connectionId, lo], [connectionId, hi])
      .toArray(),
    older
      ? tables.history
          .where('[connectionId+createdAt]')
          .between([connectionId, searchDayStart(lo)], [connectionId, hi * DAY_MS], true, false)
          .toArray()
      : [],
  ])
  return merged<StoredHistoryRow>(
    parts.flatMap((p) => p.rows),
    rows,
  )
}
