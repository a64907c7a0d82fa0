/**
 * Bulk writes into tables nothing reads or observes until a restore's switch (the next generation's slot,
 * built from scratch by its one owner, the restore): IndexedDB's own requests, issued in the caller's
 * Dexie transaction. Dexie's bulk writes note every key, and every multi-entry index key, of a write of
 * fewer than 50 rows so that live queries and other tabs can tell what changed; a day's parts are a few
 * rows holding hundreds of index keys each, so that bookkeeping cost a restore more than the rows it
 * described, for tables no query watches. The switch that makes the slot live tells every reader
 * (table-changes.ts), and the slot is emptied through Dexie before a restore writes it.
 *
 * All or nothing: the requests belong to the caller's transaction, so a failed request (a key already
 * there, for `add`) fails the returned promise and aborts that transaction with everything it wrote.
 */
import Dexie, { type Table } from 'dexie'

/** How the rows are written: `add` refuses a key already there, `put` replaces it. */
export type UntrackedWrite = 'add' | 'put'

/**
 * Writes `rows` into `table` in the current Dexie transaction, which must include the table (throws
 * otherwise, writing nothing). Resolves once IndexedDB has written the last row.
 */
export function writeUntracked<T>(table: Table<T>, rows: readonly T[], how: UntrackedWrite): Promise<void> {
  const tx = Dexie.currentTransaction
  if (!tx || !tx.storeNames.includes(table.name))
    return Dexie.Promise.reject(new Error(`${table.name}: an untracked write needs a transaction over it`))
  if (rows.length === 0) return Dexie.Promise.resolve()
  return new Dexie.Promise<void>((resolve, reject) => {
    const store = tx.idbtrans.objectStore(table.name)
    let failed = false
    const onError = (event: Event): void => {
      // The first failure is the one to report: the transaction then aborts, failing the rest.
      if (!failed) reject((event.target as IDBRequest).error ?? new Error(`${table.name}: write failed`))
      failed = true
    }
    let last: IDBRequest | null = null
    for (const row of rows) {
      last = how === 'add' ? store.add(row) : store.put(row)
      last.onerror = onError
    }
    if (last) last.onsuccess = () => resolve()
  })
}
