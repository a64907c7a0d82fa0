/**
 * Committed writes to chosen tables of the cache, from this window or another one on the same cache
 * (Dexie's storage-mutated event): what a result kept in memory listens to, to know when it is stale.
 */
import Dexie, { rangesOverlap, RangeSet } from 'dexie'
import type { ClosebookDb } from './database'
import { GENERATION_TABLE_NAMES } from './schema'

/** The cache's tables by name (only names the cache has are accepted). */
export type CacheTableName = {
  [K in keyof ClosebookDb]: ClosebookDb[K] extends Dexie.Table ? K : never
}[keyof ClosebookDb]

/**
 * A table, or only the rows of a table whose string key starts with one of `keyPrefixes` (the settings
 * table holds unrelated values side by side: a column width saved must not make a payout result stale).
 */
export type WatchedInput = CacheTableName | { table: CacheTableName; keyPrefixes: readonly string[] }

/** Dexie's mutated parts: per `idb://<db>/<table>/<index>`, the keys written (an interval tree). */
type MutatedParts = Record<string, unknown>

const GENERATION_TABLES: ReadonlySet<string> = new Set(GENERATION_TABLE_NAMES)

/** A generation table is written in either slot (database.ts): a write to either is a write to it. */
function storedNamesOf(table: string): string[] {
  return GENERATION_TABLES.has(table) ? [table, `alt_${table}`] : [table]
}

/**
 * The parts of `parts` that name the rows of the stored table at `prefix`: only the primary key's parts
 * do ('' written, ':dels' deleted); an index part is written with them.
 */
function keyPartsOf(parts: MutatedParts, prefix: string): unknown[] {
  return [parts[prefix], parts[`${prefix}:dels`]].filter((p) => p !== undefined)
}

function touches(parts: MutatedParts, dbName: string, input: WatchedInput): boolean {
  const table = typeof input === 'string' ? input : input.table
  return storedNamesOf(table).some((name) => {
    const prefix = `idb://${dbName}/${name}/`
    if (!Object.keys(parts).some((part) => part.startsWith(prefix))) return false
    if (typeof input === 'string') return true
    const keyParts = keyPartsOf(parts, prefix)
    return input.keyPrefixes.some((keyPrefix) => {
      const wanted = new RangeSet(keyPrefix, `${keyPrefix}\uffff`)
      return keyParts.some((p) => rangesOverlap(p as RangeSet, wanted))
    })
  })
}

/**
 * Calls `onChange` after every committed transaction that wrote to one of `inputs` of `db` (a transaction
 * that is rolled back calls nothing). Returns what stops listening.
 */
export function watchTables(
  db: ClosebookDb,
  inputs: readonly WatchedInput[],
  onChange: () => void,
): () => void {
  const listener = (parts: MutatedParts): void => {
    if (inputs.some((input) => touches(parts, db.name, input))) onChange()
  }
  Dexie.on('storagemutated', listener)
  return () => Dexie.on('storagemutated').unsubscribe(listener)
}

/**
 * Calls `onWrite` after every committed transaction that wrote to `table` of `db` (either slot of a
 * generation table) with the primary-key ranges it wrote or deleted, or 'all' when the event does not
 * name them. Returns what stops listening.
 */
export function watchTableKeys(
  db: ClosebookDb,
  table: CacheTableName,
  onWrite: (written: readonly RangeSet[] | 'all') => void,
): () => void {
  const listener = (parts: MutatedParts): void => {
    const prefixes = storedNamesOf(table).map((name) => `idb://${db.name}/${name}/`)
    if (!Object.keys(parts).some((part) => prefixes.some((prefix) => part.startsWith(prefix)))) return
    const keyParts = prefixes.flatMap((prefix) => keyPartsOf(parts, prefix))
    // From another window the ranges arrive as plain trees: RangeSet() gives them their methods back.
    onWrite(keyParts.length > 0 ? keyParts.map((p) => RangeSet(p as RangeSet)) : 'all')
  }
  Dexie.on('storagemutated', listener)
  return () => Dexie.on('storagemutated').unsubscribe(listener)
}
