import Dexie from 'dexie'
import { describe, expect, it } from 'vitest'
import {
  CURRENT_VERSION,
  ClosebookDb,
  SCHEMA_V1,
  SCHEMA_V3,
  SCHEMA_V4,
  TABLE_NAMES,
  type HistoryRecordV1,
  type HistoryRecordV3,
  type MarkRecordV1,
} from '../../../../src/db/database'
import { historyRecordOf, searchDayOf, tokenPrefix } from '../../../../src/db/history-record'
import { HistoryRepository } from '../../../../src/db/history-repository'
import { MarksRepository } from '../../../../src/db/marks-repository'
import { CONN, T0, auditEntry, freshDeps, historyItem, mark } from './fixtures'

function v1History(n: number): HistoryRecordV1 {
  const { searchText: _s, orderRef: _o, ...rest } = historyRecordOf(CONN, historyItem(n), T0)
  return rest
}

function v3History(n: number, conn = CONN): HistoryRecordV3 {
  const { searchTokens: _t, ...rest } = historyRecordOf(conn, historyItem(n), T0)
  return rest
}

describe('ClosebookDb', () => {
  it('opens a fresh cache at the current version with every table', async () => {
    const db = new ClosebookDb('fresh', freshDeps())
    await db.open()
    expect(db.verno).toBe(CURRENT_VERSION)
    expect(db.tables.map((t) => t.name).sort()).toEqual([...TABLE_NAMES].sort())
    db.close()
  })

  it('migrates a version-1 cache to the current version without losing anything', async () => {
    const deps = freshDeps()
    const v1 = new Dexie('closebook', deps)
    v1.version(1).stores(SCHEMA_V1)
    const h1 = v1History(1)
    const h2 = v1History(2)
    const marks: MarkRecordV1[] = [
      { ...mark(h1.key, { note: 'ok' }), state: 'reconciled', changedSinceReconciled: true },
      { ...mark(h2.key, { note: 'only a note' }), state: null, changedSinceReconciled: false },
    ]
    await v1.table('history').bulkAdd([h1, h2])
    await v1.table('marks').bulkAdd(marks)
    await v1.table('audit').add(auditEntry({ key: h1.key }))
    await v1.table('settings').put({ key: 'locale', value: 'ja' })
    v1.close()

    const db = new ClosebookDb('closebook', deps)
    await db.open()
    expect(db.verno).toBe(CURRENT_VERSION)

    const history = await db.history.toArray()
    expect(history).toHaveLength(2)
    // Old fields intact, new ones filled from `raw`.
    expect(history[0]).toEqual(historyRecordOf(CONN, historyItem(1), T0))
    expect(history[0]?.orderRef).toBe('ORD-1')
    expect(history[1]?.searchText).toContain('holder2@example.com')

    expect(await db.marks.get([CONN, h1.key])).toMatchObject({
      state: 'reconciled',
      changedSinceReconciled: 1,
      note: 'ok',
    })
    expect(await db.marks.get([CONN, h2.key])).toMatchObject({
      state: 'unreconciled',
      changedSinceReconciled: 0,
      note: 'only a note',
    })
    expect(await db.audit.count()).toBe(1)
    expect(await db.settings.get('locale')).toEqual({ key: 'locale', value: 'ja' })

    // The new indexes answer queries over migrated rows.
    const marksRepo = new MarksRepository(db)
    expect((await marksRepo.listChangedSinceReconciled(CONN)).map((m) => m.key)).toEqual([h1.key])
    const repo = new HistoryRepository(db, () => '')
    const base = { connectionId: CONN, from: T0, to: T0 + 1e9, order: 'asc' as const, offset: 0, limit: 10 }
    expect(await repo.count({ ...base, currency: 'JPY', search: 'ord-2' })).toBe(1)
    expect(await repo.count({ ...base, reconciled: 'changed' })).toBe(1)
    // Version 3's tables exist and are empty.
    expect(await db.imports.count()).toBe(0)
    expect(await db.importedRows.count()).toBe(0)
    db.close()
  })

  it('migrates a version-3 cache to version 5: search tokens filled, nothing else touched', async () => {
    const deps = freshDeps()
    const v3 = new Dexie('closebook', deps)
    v3.version(3).stores(SCHEMA_V3)
    const rows = [v3History(1), v3History(2), v3History(3, 'conn-b')]
    await v3.table('history').bulkAdd(rows)
    await v3.table('marks').add(mark(rows[0]!.key, { note: 'kept' }))
    v3.close()

    const db = new ClosebookDb('closebook', deps)
    await db.open()
    expect(db.verno).toBe(CURRENT_VERSION)
    const history = await db.history.toArray()
    expect(history).toHaveLength(3)
    // Every old field as it was, plus tokens scoped to the row's own connection.
    for (const row of rows) {
      const migrated = history.find((h) => h.connectionId === row.connectionId && h.key === row.key)
      expect(migrated).toEqual(historyRecordOf(row.connectionId, row.raw, T0))
    }
    expect(await db.marks.get([CONN, rows[0]!.key])).toMatchObject({ note: 'kept' })
    // The new index answers over migrated rows, per connection.
    const repo = new HistoryRepository(db, () => '')
    const q = { connectionId: CONN, from: 0, to: T0 * 2 }
    expect(await repo.count({ ...q, search: 'holder2' })).toBe(1)
    expect(await repo.count({ ...q, search: 'holder3' })).toBe(0)
    expect(await repo.count({ ...q, connectionId: 'conn-b', search: 'holder3' })).toBe(1)
    const day = tokenPrefix(CONN, searchDayOf(rows[0]!.createdAt))
    expect(await db.history.where('searchTokens').startsWith(`${day}ord-`).count()).toBe(2)
    db.close()
  })

  it('migrates a version-4 cache to version 5: tokens re-filed by day, the old ones gone', async () => {
    const deps = freshDeps()
    const v4 = new Dexie('closebook', deps)
    v4.version(4).stores(SCHEMA_V4)
    // Version 4 filed tokens by connection only.
    const rows = [1, 2].map((n) => {
      const r = historyRecordOf(CONN, historyItem(n), T0)
      const old = r.searchTokens.map(
        (t) => `${CONN}\u0001${t.slice(tokenPrefix(CONN, searchDayOf(r.createdAt)).length)}`,
      )
      return { ...r, searchTokens: old }
    })
    await v4.table('history').bulkAdd(rows)
    expect(await v4.table('history').where('searchTokens').startsWith(`${CONN}\u0001holder`).count()).toBeGreaterThanOrEqual(2)
    v4.close()

    const db = new ClosebookDb('closebook', deps)
    await db.open()
    expect(db.verno).toBe(CURRENT_VERSION)
    for (const row of rows) {
      expect(await db.history.get([CONN, row.key])).toEqual(historyRecordOf(CONN, row.raw, T0))
    }
    expect(await db.history.where('searchTokens').startsWith(`${CONN}\u0001holder`).count()).toBe(0)
    const repo = new HistoryRepository(db, () => '')
    const q = { connectionId: CONN, from: 0, to: T0 * 2 }
    expect(await repo.count({ ...q, search: 'holder2' })).toBe(1)
    expect(await repo.count({ ...q, search: 'holder' })).toBe(2)
    db.close()
  })
})
