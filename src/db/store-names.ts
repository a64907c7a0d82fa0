/** The store list's one writer: the history writer calls it with every page it files. */
import type { ClosebookDb } from './database'
import type { HistoryRecord, StoreRecord } from '../domain/records'

/**
 * Names each store of `records` (one connection's) as its newest record does: the list APIs are the
 * only place the app learns store names. A few rows per write, where finding the stores afterwards
 * would read every record or an index entry per record.
 */
export async function rememberStores(
  db: ClosebookDb,
  connectionId: string,
  records: readonly HistoryRecord[],
): Promise<void> {
  const newest = new Map<string, HistoryRecord>()
  for (const r of records) {
    const seen = newest.get(r.storeId)
    if (!seen || r.createdAt >= seen.createdAt) newest.set(r.storeId, r)
  }
  const candidates = [...newest.values()]
  const known = await db.stores.bulkGet(candidates.map((r): [string, string] => [connectionId, r.storeId]))
  const changed: StoreRecord[] = []
  candidates.forEach((r, i) => {
    const row = known[i]
    // A row from before `seenAt` was kept (or a restore) is renamed by the next record it sees.
    if (row?.seenAt !== undefined && row.seenAt > r.createdAt) return
    const storeName = r.raw.store_name ?? ''
    const merchantName = r.raw.merchant_name ?? ''
    if (row?.seenAt === r.createdAt && row.storeName === storeName && row.merchantName === merchantName)
      return
    changed.push({ connectionId, storeId: r.storeId, storeName, merchantName, seenAt: r.createdAt })
  })
  if (changed.length > 0) await db.stores.bulkPut(changed)
}
