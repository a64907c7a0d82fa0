import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  BackupValidationError,
  countTables,
  exportBackup,
  restoreBackup,
  summarizeRestore,
  validateBackup,
  type Backup,
} from '../../../../src/db/backup'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { HistoryRepository } from '../../../../src/db/history-repository'
import { CONN, STORE_1, T0, auditEntry, chargeItem, checkpoint, historyItem, mark, openDb } from './fixtures'

let db: ClosebookDb

async function seed(target: ClosebookDb, n = 3): Promise<void> {
  const history = Array.from({ length: n }, (_, i) => historyRecordOf(CONN, historyItem(i + 1), T0))
  await target.connections.put({
    id: CONN,
    label: 'Shop',
    baseUrl: 'http://127.0.0.1:1',
    timeZone: 'Asia/Tokyo',
    storeIds: [STORE_1],
    isDemo: false,
    lastSyncedAt: T0,
    highWater: { transaction_history: T0 },
  })
  await target.stores.put({ connectionId: CONN, storeId: STORE_1, storeName: 'One', merchantName: 'M' })
  await target.history.bulkPut(history)
  await target.charges.put(chargeRecordOf(CONN, chargeItem(1), T0))
  await target.marks.put(mark(history[0]!.key, { note: 'checked', matchRef: 'bank:7' }))
  await target.audit.bulkAdd([
    auditEntry({ key: history[0]!.key }),
    auditEntry({ action: 'close-period', key: null }),
  ])
  await target.checkpoints.put(checkpoint())
  await target.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0, lockedBy: 'alice' })
  await target.settings.put({ key: 'locale', value: { lang: 'ja' } })
  await target.imports.put({
    connectionId: CONN,
    id: 'imp-1',
    source: 'bank',
    fileName: '入金明細.csv',
    hash: 'a'.repeat(64),
    importedAt: T0,
    rowCount: 1,
    profileName: 'Bank',
    encoding: 'shift_jis',
  })
  await target.importedRows.put({
    connectionId: CONN,
    importId: 'imp-1',
    line: 2,
    source: 'bank',
    orderNumber: null,
    at: T0,
    day: '2026-10-01',
    amount: 1200,
    currency: 'JPY',
    customer: null,
    description: 'ﾆｭｳｷﾝ',
    matchedKeys: [history[0]!.key],
  })
}

beforeEach(() => {
  db = openDb()
})
afterEach(() => db.close())

describe('backup', () => {
  it('round-trips every table through JSON into another cache', async () => {
    await seed(db)
    const backup = await exportBackup(db, new Date(T0))
    expect(backup.format).toBe('closebook-backup')
    expect(backup.version).toBe(1)
    expect(backup.exportedAt).toBe('2026-10-01T00:00:00.000Z')

    const text = JSON.stringify(backup)
    const parsed = validateBackup(JSON.parse(text))

    const other = openDb('other')
    await seed(other, 5)
    await other.history.put(historyRecordOf('gone', historyItem(99), T0))
    await restoreBackup(other, parsed)

    expect(await exportBackup(other, new Date(T0))).toEqual(backup)
    expect(await countTables(other)).toEqual({
      connections: 1,
      stores: 1,
      history: 3,
      charges: 1,
      marks: 1,
      audit: 2,
      checkpoints: 1,
      locks: 1,
      settings: 1,
      imports: 1,
      importedRows: 1,
    })
    other.close()
  })

  it('accepts a backup made before imports existed (no imports tables)', async () => {
    await seed(db)
    const backup = await exportBackup(db)
    const { imports: _i, importedRows: _r, ...older } = backup.tables
    const parsed = validateBackup(JSON.parse(JSON.stringify({ ...backup, tables: older })))
    expect(parsed.tables.imports).toEqual([])
    expect(parsed.tables.importedRows).toEqual([])
  })

  it('restores search tokens from the records, also for a backup made before they existed', async () => {
    await seed(db)
    const backup = JSON.parse(JSON.stringify(await exportBackup(db))) as Backup
    const older = backup.tables.history.map(({ searchTokens: _t, ...rest }) => rest)
    // A file whose tokens disagree with its records gets the records' tokens.
    const tampered = { ...backup.tables.history[1]!, searchTokens: [`${CONN}\u0001forged`] }
    const parsed = validateBackup({
      ...backup,
      tables: { ...backup.tables, history: [older[0], tampered, older[2]] },
    })
    expect(parsed.tables.history.map((r) => r.searchTokens)).toEqual(
      [1, 2, 3].map((n) => historyRecordOf(CONN, historyItem(n), T0).searchTokens),
    )
    await restoreBackup(db, parsed)
    const repo = new HistoryRepository(db, () => '')
    const q = { connectionId: CONN, from: 0, to: T0 * 2 }
    expect(await repo.count({ ...q, search: 'holder2@' })).toBe(1)
    expect(await repo.count({ ...q, search: 'forged' })).toBe(0)
  })

  it('appends a restore entry to the audit log when told who restored', async () => {
    await seed(db)
    const backup = await exportBackup(db)
    await restoreBackup(db, backup, { actor: 'bob', at: T0 + 1 })
    const audit = await db.audit.toArray()
    expect(audit).toHaveLength(3)
    expect(audit[2]).toMatchObject({ action: 'restore', actor: 'bob', connectionId: CONN, at: T0 + 1 })
    expect(audit[2]!.seq).toBeGreaterThan(audit[1]!.seq!)
  })

  it('summarizes what a restore replaces', async () => {
    await seed(db, 4)
    const backup = await exportBackup(db)
    backup.tables.history.pop()
    const summary = summarizeRestore(await countTables(db), backup)
    expect(summary.exportedAt).toBe(backup.exportedAt)
    expect(summary.tables.history).toEqual({ current: 4, incoming: 3 })
    expect(summary.tables.audit).toEqual({ current: 2, incoming: 2 })
  })

  it('rejects malformed input with the path of the problem', () => {
    expect(() => validateBackup('nope')).toThrow(BackupValidationError)
    expect(() => validateBackup({ format: 'other', version: 1 })).toThrow(/backup\.format/)
  })

  it('names the exact row and field that is wrong', async () => {
    await seed(db)
    const backup = JSON.parse(JSON.stringify(await exportBackup(db))) as Backup
    ;(backup.tables.history[1] as unknown as Record<string, unknown>)['amount'] = 'ten'
    ;(backup.tables.marks[0] as unknown as Record<string, unknown>)['changedSinceReconciled'] = true
    try {
      validateBackup(backup)
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(BackupValidationError)
      const issues = (e as BackupValidationError).issues
      expect(issues.some((i) => i.startsWith('backup.tables.history[1].amount:'))).toBe(true)
      expect(issues.some((i) => i.startsWith('backup.tables.marks[0].changedSinceReconciled:'))).toBe(true)
    }
  })

  it('rejects a backup whose rows collide on their key', async () => {
    await seed(db)
    const backup = await exportBackup(db)
    backup.tables.marks.push({ ...backup.tables.marks[0]! })
    expect(() => validateBackup(backup)).toThrow(/backup\.tables\.marks\[1\]: duplicate key/)
  })

  it('leaves the old cache intact when restore fails midway', async () => {
    await seed(db, 3)
    const before = await exportBackup(db, new Date(T0))

    const source = openDb('source')
    await seed(source, 6)
    const incoming = await exportBackup(source)
    source.close()
    // Skip validation to force a failure in the last table, after every clear and most adds ran.
    incoming.tables.settings.push({ ...incoming.tables.settings[0]! })
    await expect(restoreBackup(db, incoming)).rejects.toThrow()

    expect(await exportBackup(db, new Date(T0))).toEqual(before)
  })
})
