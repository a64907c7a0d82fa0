import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AuditRepository, appendAuditEntries, auditTag } from '../../../../src/db/audit-repository'
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
import { dayDigestRowsOf, daySummaryRowOf } from '../../../../src/db/day-digests'
import { dayTokenRowsOf, tokenColumnsOf } from '../../../../src/db/day-tokens'
import { HistoryRepository } from '../../../../src/db/history-repository'
import { MarksRepository, ORPHAN_MARK_DAY } from '../../../../src/db/marks-repository'
import type { AuditEntry, HistoryRecord } from '../../../../src/domain/records'
import {
  CONN,
  HOUR,
  STORE_1,
  T0,
  applyPlan,
  auditEntry,
  chargeItem,
  checkpoint,
  connectionRow,
  historyItem,
  mark,
  openDb,
  putMarks,
  storedAudit,
} from './fixtures'

let db: ClosebookDb

function seedHistory(n: number): HistoryRecord[] {
  return Array.from({ length: n }, (_, i) => historyRecordOf(CONN, historyItem(i + 1), T0))
}

async function seed(target: ClosebookDb, n = 3): Promise<void> {
  const history = seedHistory(n)
  await target.connections.put(connectionRow())
  await target.stores.put({ connectionId: CONN, storeId: STORE_1, storeName: 'One', merchantName: 'M' })
  await target.history.bulkPut(history)
  await target.charges.put(chargeRecordOf(CONN, chargeItem(1), T0))
  await putMarks(
    target,
    [mark(history[0]!.key, { note: 'checked', matchRef: 'bank:7' })],
    () => history[0]!.createdAt,
  )
  // Two actions: two rows, seq 1 and 2.
  await appendAuditEntries(target.audit, [
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
    // Digests are derived, not backed up: rebuilt from the restored records, the old cache's gone.
    expect(await other.dayDigests.toArray()).toEqual(dayDigestRowsOf(await db.history.toArray()))
    expect((await other.dayDigests.toArray()).flatMap((r) => r.records)).toHaveLength(3)
    expect(await other.daySummaries.toArray()).toEqual(
      (await other.dayDigests.toArray()).map(daySummaryRowOf),
    )
    // So is the search index: the restored records are found, the old cache's are not.
    expect(await other.dayTokens.toArray()).toEqual(dayTokenRowsOf(await db.history.toArray()))
    expect((await other.dayTokens.toArray()).flatMap((r) => tokenColumnsOf(r).keys)).toHaveLength(3)
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
      payoutBankAccounts: 0,
      payoutConfig: 0,
      payoutTransfers: 0,
      payoutStatusChanges: 0,
      payoutLedgers: 0,
      ledgerLinks: 0,
    })
    other.close()
  })

  it("restores marks into their records' day rows, keeping a mark whose record the backup lacks", async () => {
    await seed(db)
    const backup = JSON.parse(JSON.stringify(await exportBackup(db, new Date(T0)))) as Backup
    // A record of the next UTC day with its mark, and a mark whose record is not in the backup.
    const later = historyRecordOf(CONN, historyItem(30), T0)
    const laterMark = mark(later.key, { note: 'next day', changedSinceReconciled: 1 })
    const orphan = mark('charge:not-in-backup', { note: 'kept' })
    backup.tables.history.push(later)
    backup.tables.marks.push(laterMark, orphan)
    const [first] = backup.tables.marks

    await restoreBackup(db, validateBackup(backup))
    const day = Math.floor(T0 / (24 * HOUR))
    expect((await db.markDays.toArray()).map((r) => [r.day, r.marks, r.changed])).toEqual([
      [ORPHAN_MARK_DAY, [orphan], 0],
      [day, [first], 0],
      [day + 1, [laterMark], 1],
    ])
    const marks = new MarksRepository(db)
    expect(await marks.getMany(CONN, [seedHistory(1)[0]!, later])).toEqual([first, laterMark])
    expect(await marks.listChangedSinceReconciled(CONN)).toEqual([laterMark])
    expect((await exportBackup(db, new Date(T0))).tables.marks).toEqual([orphan, first, laterMark])
  })

  it('accepts a backup made before imports existed (no imports tables)', async () => {
    await seed(db)
    const backup = await exportBackup(db)
    const { imports: _i, importedRows: _r, ...older } = backup.tables
    const parsed = validateBackup(JSON.parse(JSON.stringify({ ...backup, tables: older })))
    expect(parsed.tables.imports).toEqual([])
    expect(parsed.tables.importedRows).toEqual([])
  })

  it('restores backups with and without the dropped search fields, searchable from the records', async () => {
    await seed(db)
    const backup = JSON.parse(JSON.stringify(await exportBackup(db))) as Backup
    // This version exports neither field.
    for (const row of backup.tables.history) expect(Object.keys(row)).not.toContain('searchText')
    for (const row of backup.tables.history) expect(Object.keys(row)).not.toContain('searchTokens')
    // A file from before: `searchText` and `searchTokens` on its rows, the tokens forged on one.
    const older = backup.tables.history.map((r, i) => ({
      ...r,
      searchText: `text ${i}`,
      searchTokens: i === 1 ? [`${CONN}\u0001forged`] : [],
    }))
    for (const history of [backup.tables.history, older]) {
      const parsed = validateBackup({ ...backup, tables: { ...backup.tables, history } })
      // Exactly today's records: the old fields are left out, whatever they said.
      expect(parsed.tables.history).toEqual([1, 2, 3].map((n) => historyRecordOf(CONN, historyItem(n), T0)))
      await restoreBackup(db, parsed)
      const repo = new HistoryRepository(db, () => '')
      const q = { connectionId: CONN, from: 0, to: T0 * 2 }
      expect(await repo.count({ ...q, search: 'holder2@' })).toBe(1)
      expect(await repo.count({ ...q, search: 'forged' })).toBe(0)
      expect(await db.history.filter((r) => 'searchText' in r || 'searchTokens' in r).count()).toBe(0)
    }
  })

  it('appends a restore entry to the audit log when told who restored', async () => {
    await seed(db)
    const backup = await exportBackup(db)
    await restoreBackup(db, backup, { actor: 'bob', at: T0 + 1 })
    const audit = await storedAudit(db)
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

  it('round-trips an action of several changes: entries sharing its seq, restored as one row', async () => {
    await seed(db)
    const history = seedHistory(3)
    // One bulk mark of the three records: one audit row (seq 3) of three changes.
    const bulk = history.map((h) => mark(h.key, { note: 'bulk', updatedAt: T0 + 5 }))
    const { auditSeqs } = await applyPlan(
      db,
      {
        connectionId: CONN,
        puts: bulk,
        deletes: [],
        audit: bulk.map((m) => auditEntry({ at: T0 + 5, key: m.key, after: m, reason: 'month-end' })),
      },
      history,
    )
    expect(auditSeqs).toEqual([3])
    expect(await db.audit.count()).toBe(3)

    const backup = await exportBackup(db, new Date(T0))
    expect(backup.tables.audit.map((e) => [e.seq, e.part, e.action, e.key])).toEqual([
      [1, 0, 'mark', history[0]!.key],
      [2, 0, 'close-period', null],
      [3, 0, 'mark', history[0]!.key],
      [3, 1, 'mark', history[1]!.key],
      [3, 2, 'mark', history[2]!.key],
    ])
    expect(backup.tables.audit.slice(2).every((e) => e.reason === 'month-end' && e.at === T0 + 5)).toBe(true)

    // The entries of the action need not come in order: `part` puts them back.
    const parsed = validateBackup(JSON.parse(JSON.stringify(backup)))
    parsed.tables.audit.reverse()
    const other = openDb('other')
    await seed(other, 5)
    await restoreBackup(other, parsed)

    const rows = await other.audit.toArray()
    expect(rows.map((r) => [r.seq, r.changes.length])).toEqual([
      [1, 1],
      [2, 1],
      [3, 3],
    ])
    const action = rows[2]!
    expect(action).toMatchObject({
      connectionId: CONN,
      at: T0 + 5,
      actor: 'alice',
      action: 'mark',
      reason: 'month-end',
    })
    expect(action.changes.map((c) => c.key)).toEqual(history.map((h) => h.key))
    expect(action.changes[1]).toEqual({
      key: history[1]!.key,
      period: '2026-10',
      before: null,
      after: bulk[1],
    })
    expect(action.keyTags).toEqual(history.map((h) => auditTag(CONN, h.key)))
    expect(action.periodTags).toEqual([auditTag(CONN, '2026-10')])
    // The trail of a record finds its change through the restored tags.
    expect(
      (await new AuditRepository(other).listByKey(CONN, history[1]!)).map((e) => [e.seq, e.part]),
    ).toEqual([[3, 1]])
    expect((await countTables(other)).audit).toBe(5)
    expect(await exportBackup(other, new Date(T0))).toEqual(backup)
    other.close()
  })

  it('restores an old backup whose audit entries have no part, keeping their sequence numbers', async () => {
    await seed(db)
    const current = await exportBackup(db, new Date(T0))
    // As a version-5 cache exported it: one entry per row, no `part`, sequence numbers with gaps.
    const old = JSON.parse(JSON.stringify(current)) as Backup
    old.tables.audit = old.tables.audit.map(({ part: _p, ...e }, i): AuditEntry => ({ ...e, seq: 5 + 4 * i }))
    expect(old.tables.audit.map((e) => [e.seq, 'part' in e])).toEqual([
      [5, false],
      [9, false],
    ])

    const other = openDb('other')
    await restoreBackup(other, validateBackup(old), { actor: 'bob', at: T0 + 1 })
    const rows = await other.audit.toArray()
    expect(rows.map((r) => [r.seq, r.action, r.changes.length])).toEqual([
      [5, 'mark', 1],
      [9, 'close-period', 1],
      [10, 'restore', 1],
    ])
    const [first] = current.tables.audit
    expect(rows[0]).toEqual({
      seq: 5,
      connectionId: CONN,
      at: T0,
      actor: 'alice',
      action: 'mark',
      changes: [{ key: first!.key, period: '2026-10', before: null, after: null }],
      keyTags: [auditTag(CONN, first!.key!)],
      periodTags: [auditTag(CONN, '2026-10')],
    })
    expect(
      (await new AuditRepository(other).listByKey(CONN, { key: first!.key!, createdAt: T0 })).map((e) => [
        e.seq,
        e.part,
      ]),
    ).toEqual([[5, 0]])
    const again = await exportBackup(other, new Date(T0))
    expect(again.tables.audit.slice(0, 2)).toEqual(old.tables.audit.map((e) => ({ ...e, part: 0 })))
    other.close()
  })

  it('rejects entries sharing a seq that are not one action, naming the entry', async () => {
    await seed(db)
    const backup = JSON.parse(JSON.stringify(await exportBackup(db))) as Backup
    const [first] = backup.tables.audit
    const sameSeq = (over: Partial<AuditEntry>): AuditEntry => ({ ...first!, part: 1, key: null, ...over })
    // One action of two changes is fine…
    expect(
      validateBackup({ ...backup, tables: { ...backup.tables, audit: [first!, sameSeq({})] } }).tables.audit,
    ).toHaveLength(2)

    // …but entries that differ in who, when, what or why are not.
    const differing: Partial<AuditEntry>[] = [
      { action: 'note' },
      { actor: 'bob' },
      { at: T0 + 1 },
      { connectionId: 'conn-b' },
      { reason: 'undo' },
    ]
    for (const over of differing) {
      const audit = [backup.tables.audit[1]!, first!, sameSeq(over)]
      try {
        validateBackup({ ...backup, tables: { ...backup.tables, audit } })
        expect.unreachable(JSON.stringify(over))
      } catch (e) {
        expect(e, JSON.stringify(over)).toBeInstanceOf(BackupValidationError)
        expect((e as BackupValidationError).issues).toEqual([
          `backup.tables.audit[2]: seq ${first!.seq} is shared by entries of different actions`,
        ])
        expect((e as Error).message).toContain('backup.tables.audit[2]')
      }
    }
    // The same change twice (same seq and part) collides.
    expect(() =>
      validateBackup({ ...backup, tables: { ...backup.tables, audit: [first!, { ...first! }] } }),
    ).toThrow(/backup\.tables\.audit\[1\]: duplicate key 1\.0/)
  })
})
