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

/**
 * A cache whose history and charges sit in every layout the writer reads: two connections; records in
 * day parts, in rows of `history` from before them, and some in both (the part's copy is the record);
 * several records at one time; charges in their day parts and in the table from before them; text the
 * JSON escapes (quotes, line breaks, Japanese, emoji); payloads with nested metadata and without
 * `user_data`'s fields; marks and audit entries. Deterministic: the same cache every time.
 */
export async function fillVariedCache(db: ClosebookDb): Promise<void> {
  const OTHER = 'conn-b'
  await db.connections.bulkPut([connectionRow(), connectionRow({ id: OTHER, label: 'Other "two"' })])
  await db.stores.put({ connectionId: CONN, storeId: STORE_1, storeName: '店舗 "一"', merchantName: 'M' })
  const texts = ['plain', 'say "hi"\nthen\r\nbye', '山田 太郎 🍣', '\u2028sep\u2029', 'back\\slash\ttab']
  const item = (n: number) =>
    historyItem(n, {
      created_on: new Date(T0 + Math.floor(n / 3) * 5 * HOUR + (n % 7) * 1000).toISOString(),
      ...(n % 5 === 4 ? { type: 'refund' as const, charge_id: `charge-${n - 1}` } : {}),
      ...(n % 6 === 1 ? { status: 'pending', currency: 'usd', amount: -n } : {}),
      metadata: n % 4 === 0 ? {} : { order_id: texts[n % texts.length], nested: { list: [n, null, true] } },
      store_name: texts[(n + 2) % texts.length],
      ...(n % 9 === 0 ? { user_data: {} } : {}),
    })
  const records = (connectionId: string, from: number, count: number, syncedAt: number) =>
    Array.from({ length: count }, (_, i) => historyRecordOf(connectionId, item(from + i), syncedAt + i))
  // Older rows first (as a cache from before day parts holds them), then parts over some of the same keys.
  await db.history.bulkPut([...records(CONN, 0, 24, T0), ...records(OTHER, 100, 6, 0)])
  const writer = new HistoryWriter(db)
  const inParts = [...records(CONN, 16, 30, T0 + HOUR), ...records(OTHER, 103, 9, 0.5)]
  await db.transaction('rw', [...writer.historyTables(), ...writer.chargeTables()], async () => {
    await writer.putHistory(inParts)
    await writer.putCharges(Array.from({ length: 5 }, (_, n) => chargeRecordOf(CONN, chargeItem(n), T0)))
  })
  await db.charges.bulkPut(Array.from({ length: 3 }, (_, n) => chargeRecordOf(OTHER, chargeItem(50 + n), T0)))
  const marked = inParts.filter((_, i) => i % 4 === 0)
  await putMarks(
    db,
    marked.map((r, i) => mark(r.key, { connectionId: r.connectionId, note: texts[i % texts.length] })),
    (m) => marked.find((r) => r.key === m.key)!.createdAt,
  )
  await appendAuditEntries(db.audit, [
    auditEntry({ key: marked[0]!.key, at: T0 + HOUR, actor: texts[2] }),
    auditEntry({ action: 'close-period', period: '2026-09', at: T0 - HOUR }),
  ])
  await db.checkpoints.put(checkpoint())
}
