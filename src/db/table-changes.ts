/**
 * Committed writes to chosen tables of the cache, from this window or another one on the same cache
 * (Dexie's storage-mutated event): what a result kept in memory listens to, to know when it is stale.
 */
import Dexie from 'dexie'
import type { ClosebookDb } from './database'

/** The cache's tables by name (only names the cache has are accepted). */
export type CacheTableName = {
  [K in keyof ClosebookDb]: ClosebookDb[K] extends Dexie.Table ? K : never
}[keyof ClosebookDb]

/**
 * Calls `onChange` after every committed transaction that wrote to one of `tables` of `db` (a transaction
 * that is rolled back calls nothing). Returns what stops listening.
 */
export function watchTables(
  db: ClosebookDb,
  tables: readonly CacheTableName[],
  onChange: () => void,
): () => void {
  const prefixes = tables.map((t) => `idb://${db.name}/${t}/`)
  const listener = (parts: Record<string, unknown>): void => {
    if (Object.keys(parts).some((part) => prefixes.some((p) => part.startsWith(p)))) onChange()
  }
  Dexie.on('storagemutated', listener)
  return () => Dexie.on('storagemutated').unsubscribe(listener)
}
