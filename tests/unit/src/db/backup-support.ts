/** Builders shared by the backup tests: small caches, a refusal's error, what a restore left behind. */
import { appendAuditEntries } from '../../../../src/db/audit-repository'
import { BackupError, streamBackup } from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { historyRecordOf } from '../../../../src/db/history-record'
import { HistoryWriter } from '../../../../src/db/history-writer'
import {
  CONN,
  HOUR,
  STORE_1,
  T0,
  auditEntry,
  chargeItem,
  checkpoint,
  connectionRow,
  historyItem,
  mark,
  putMarks,
} from './fixtures'

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

/**
 * A cache with rows in every table a restore replaces that a sync and the accountant fill: records with
 * their day digests and tokens, charges in their day parts, marks, an audit entry, a closed month, a
 * checkpoint and a setting (`note` tells two caches apart).
 */
export async function fillCache(db: ClosebookDb, first: number, count: number, note: string): Promise<void> {
  const history = Array.from({ length: count }, (_, i) =>
    historyRecordOf(CONN, historyItem(first + i * 5), T0),
  )
  const charges = [first, first + 1].map((n) => chargeRecordOf(CONN, chargeItem(n), T0))
  await db.connections.put(connectionRow())
  await db.stores.put({ connectionId: CONN, storeId: STORE_1, storeName: note, merchantName: 'M' })
  const writer = new HistoryWriter(db)
  await db.transaction('rw', [...writer.historyTables(), ...writer.chargeTables()], async () => {
    await writer.putHistory(history)
    await writer.putCharges(charges)
  })
  await putMarks(
    db,
    history.slice(0, 3).map((h) => mark(h.key, { note, updatedAt: T0 + HOUR })),
    (m) => history.find((h) => h.key === m.key)!.createdAt,
  )
  // September closed (its closing in the audit log, as a check of the file requires), then a mark.
  await appendAuditEntries(db.audit, [
    auditEntry({ action: 'close-period', period: '2026-09', at: T0 - HOUR, actor: note }),
  ])
  await appendAuditEntries(db.audit, [auditEntry({ key: history[0]!.key, at: T0 + HOUR })])
  await db.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0 - HOUR, lockedBy: note })
  await db.checkpoints.put(checkpoint())
  await db.settings.put({ key: 'locale', value: { lang: note } })
}

/** A cache's backup as format 2 writes it, dated T0, two rows a page. */
export async function backupText(db: ClosebookDb): Promise<string> {
  let text = ''
  for await (const chunk of streamBackup(db, { now: new Date(T0), pageRows: 2 })) text += chunk
  return text
}

/** Every table the cache reads (generation tables in their live slot), rows in key order. */
export async function everyTable(db: ClosebookDb): Promise<Record<string, unknown[]>> {
  const tables = await Promise.all(db.allTables().map(async (t) => [t.name, await t.toArray()] as const))
  return Object.fromEntries(tables)
}
