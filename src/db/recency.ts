/**
 * What sync asks the cache about recency and changeable records (src/sync/recheck.ts): the newest
 * `created_on` per partition of the data, where incremental windows start (never the local clock), and the
 * records in given statuses, through the existing status index (no schema change).
 */
import Dexie from 'dexie'
import type { ClosebookDb } from './database'
import type { HistoryRecord, SyncResource } from './records'
import { connectionBounds } from './repository-helpers'

/** The newest cached `created_on` of a resource (of one store, or any when null); null when none. */
export async function newestCreatedAt(
  db: ClosebookDb,
  connectionId: string,
  resource: SyncResource,
  storeId: string | null,
): Promise<number | null> {
  if (resource === 'transaction_history') {
    const newest =
      storeId === null
        ? await db.history
            .where('[connectionId+createdAt]')
            .between(...connectionBounds(connectionId))
            .last()
        : await db.history
            .where('[connectionId+storeId+createdAt]')
            .between([connectionId, storeId, Dexie.minKey], [connectionId, storeId, Dexie.maxKey])
            .last()
    return newest?.createdAt ?? null
  }
  // The charge list has no store index: newest first until one of the store's (stores interleave, so this
  // stops early; a store with no recent charge reads further back, once per sync).
  const newest = await db.charges
    .where('[connectionId+createdAt]')
    .between(...connectionBounds(connectionId))
    .reverse()
    .filter((c) => storeId === null || c.storeId === storeId)
    .first()
  return newest?.createdAt ?? null
}

/**
 * History records whose status passes `wanted`, read through the status index one status at a time. The
 * distinct statuses are found by hopping from one to the next (one read each), so a status never seen
 * before is still offered to `wanted`, and the history is never scanned.
 */
export async function historyWithStatus(
  db: ClosebookDb,
  connectionId: string,
  wanted: (status: string) => boolean,
): Promise<HistoryRecord[]> {
  const index = () => db.history.where('[connectionId+status+createdAt]')
  const out: HistoryRecord[] = []
  let from = ''
  for (;;) {
    const next = await index()
      .between([connectionId, from, Dexie.minKey], [connectionId, Dexie.maxKey, Dexie.maxKey])
      .first()
    if (!next) break
    const { status } = next
    if (wanted(status))
      out.push(
        ...(await index()
          .between([connectionId, status, Dexie.minKey], [connectionId, status, Dexie.maxKey])
          .toArray()),
      )
    // The smallest string after `status`: the next status, whatever it is.
    from = `${status}\u0000`
  }
  return out
}
