/** Builders shared by the backup tests: a small cache with one marked record, and a refusal's error. */
import { appendAuditEntries } from '../../../../src/db/audit-repository'
import { BackupError } from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { CONN, HOUR, STORE_1, T0, auditEntry, connectionRow, historyItem, mark, putMarks } from './fixtures'

/** `records` records of one connection and store; the first marked (note "ok") with its audit entry. */
export async function seedMarkedCache(target: ClosebookDb, records: number): Promise<void> {
  const history = Array.from({ length: records }, (_, n) => historyRecordOf(CONN, historyItem(n + 1), T0))
  await target.connections.put(connectionRow())
  await target.stores.put({ connectionId: CONN, storeId: STORE_1, storeName: 'One', merchantName: 'M' })
  await target.history.bulkPut(history)
  await putMarks(target, [mark(history[0]!.key, { note: 'ok' })], () => history[0]!.createdAt)
  await appendAuditEntries(target.audit, [auditEntry({ key: history[0]!.key, at: T0 + HOUR })])
}

/** The BackupError `p` rejects with; fails the test when it resolves or rejects with something else. */
export async function refusal(p: Promise<unknown>): Promise<BackupError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof BackupError)) throw new Error(`expected a BackupError, got ${String(error)}`)
  return error
}

/**
 * Rows a restore left outside what the cache reads: its staging and the slot of the next generation
 * (read from the stored generation row, as a restore reads it).
 */
export async function leftoverRows(target: ClosebookDb): Promise<number> {
  const { generation } = await target.storedGeneration()
  const tables = [...target.stagedTables(), ...target.slotTables(generation + 1)]
  return (await Promise.all(tables.map((t) => t.count()))).reduce((a, b) => a + b, 0)
}
