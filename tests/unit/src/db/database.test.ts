import Dexie from 'dexie'
import { describe, expect, it } from 'vitest'
import { AuditRepository, auditTag } from '../../../../src/db/audit-repository'
import {
  CURRENT_VERSION,
  ClosebookDb,
  SCHEMA_V1,
  SCHEMA_V3,
  SCHEMA_V4,
  SCHEMA_V5,
  SCHEMA_V6,
  TABLE_NAMES,
  GENERATION_TABLE_NAMES,
  slotTableName,
  SCHEMA_V8,
  SCHEMA_V9,
  SCHEMA_V10,
  STAGED_TABLE_NAMES,
  stagedTableName,
  storedCacheVersion,
} from '../../../../src/db/database'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { ChargesRepository } from '../../../../src/db/charges-repository'
import { dayDigestRowsOf } from '../../../../src/db/day-digests'
import { dayTokenRowsOf, tokenColumnsOf, TOKEN_PART_SIZE } from '../../../../src/db/day-tokens'
import { historyRecordOf, searchDayOf, searchTokensOf, tokenPrefix } from '../../../../src/db/history-record'
import { HistoryRepository } from '../../../../src/db/history-repository'
import { HistoryWriter } from '../../../../src/db/history-writer'
import { MarksRepository, ORPHAN_MARK_DAY } from '../../../../src/db/marks-repository'
import type { AuditEntry, HistoryRecord, MarkRecord } from '../../../../src/domain/records'
import type { AuditRow, MarkDayRecord, StoredDayTokensRow } from '../../../../src/db/storage-rows'
import {
  CONN,
  HOUR,
  T0,
  auditEntry,
  chargeItem,
  checkpoint,
  createV6Cache,
  freshDeps,
  historyItem,
  mark,
  storedAudit,
} from './fixtures'
import { tokenSetOf } from '../../../support/token-layouts'

/** Shapes as older versions stored them. */
type AuditEntryV5 = Omit<AuditEntry, 'part'>
type HistoryRecordV1 = Omit<HistoryRecord, 'orderRef'>
type HistoryRecordV3 = HistoryRecord & { searchText: string }
/** Versions 5 and 6 stored each record's day-scoped tokens. */
type HistoryRecordV5 = HistoryRecordV3 & { searchTokens: string[] }
type MarkRecordV1 = Omit<MarkRecord, 'state' | 'changedSinceReconciled'> & {
  state: 'reconciled' | null
  changedSinceReconciled: boolean
}

function v1History(n: number): HistoryRecordV1 {
  const { orderRef: _o, ...rest } = historyRecordOf(CONN, historyItem(n), T0)
  return rest
}

function v3History(n: number, conn = CONN): HistoryRecordV3 {
  return { ...historyRecordOf(conn, historyItem(n), T0), searchText: `text ${n}` }
}

function v5History(r: HistoryRecord): HistoryRecordV5 {
  return { ...r, searchText: 'text', searchTokens: searchTokensOf(r.connectionId, r.createdAt, r.raw) }
}

/**
 * The older caches below are opened through the steps as released (up to v16): today a cache of v6 or
 * older first sets its history aside (legacy-history.test.ts), and these check the frozen steps themselves.
 */
const AS_RELEASED = 16

/**
 * Every table of the current schema: the cache's, the staging, the generation row, the second slots, and
 * the store an old cache's history is set aside in.
 */
const EVERY_TABLE = [
  ...TABLE_NAMES,
  ...STAGED_TABLE_NAMES.map(stagedTableName),
  'liveGeneration',
  'legacyHistory',
  ...GENERATION_TABLE_NAMES.map((name) => slotTableName(name, 1)),
].sort()

describe('ClosebookDb', () => {
  it('opens a fresh cache at the current version with every table', async () => {
    const db = new ClosebookDb('fresh', freshDeps())
    await db.open()
    expect(db.verno).toBe(CURRENT_VERSION)
    expect(db.tables.map((t) => t.name).sort()).toEqual(EVERY_TABLE)
    db.close()
  })

  it('v9 (restore staging) adds empty staging tables and converts nothing', async () => {
    const deps = freshDeps()
    const v8 = new Dexie('closebook', deps)
    v8.version(8).stores(SCHEMA_V8)
    await v8.table('settings').put({ key: 'k', value: 1 })
    v8.close()
    const db = new ClosebookDb('closebook', deps, { upToVersion: 9 })
    await db.open()
    expect(db.verno).toBe(9)
    expect(await db.settings.get('k')).toEqual({ key: 'k', value: 1 })
    // The staging copies version 9 made (later versions added their own).
    const v9Staged = new Set(Object.keys(SCHEMA_V9))
    for (const name of STAGED_TABLE_NAMES.filter((n) => v9Staged.has(stagedTableName(n))))
      expect(await db.staged(name).count()).toBe(0)
    db.close()
  })

  it('v11 (payouts) and v12 (team workspace) add empty tables and convert nothing', async () => {
    const deps = freshDeps()
    const v10 = new Dexie('closebook', deps)
    v10.version(10).stores(SCHEMA_V10)
    await v10.table('settings').put({ key: 'k', value: 1 })
    v10.close()
    const db = new ClosebookDb('closebook', deps)
    await db.open()
    expect(db.verno).toBe(CURRENT_VERSION)
    expect(await db.settings.get('k')).toEqual({ key: 'k', value: 1 })
    for (const table of [db.payoutTransfers, db.payoutLedgers, db.payoutSync, db.ledgerLinks, db.teamOutbox])
      expect(await table.count()).toBe(0)
    db.close()
  })

  it('v10 (charge days) converts nothing: charges written before are found by time, and move when rewritten', async () => {
    const deps = freshDeps()
    const v9 = new Dexie('closebook', deps)
    v9.version(9).stores(SCHEMA_V9)
    const before = [1, 2, 3].map((n) => chargeRecordOf(CONN, chargeItem(n), T0))
    await v9.table('charges').bulkPut(before)
    v9.close()
    const db = new ClosebookDb('closebook', deps)
    await db.open()
    expect(db.verno).toBe(CURRENT_VERSION)
    expect(await db.chargeDays.count()).toBe(0)
    const repo = new ChargesRepository(db)
    expect(await repo.inRange(CONN, -Infinity, Infinity)).toEqual(before)
    // Sync rewrites one of them: it leaves the time index for the day rows, and is found once.
    const changed = chargeRecordOf(CONN, chargeItem(2, { fee_amount: 7 }), T0 + 1)
    await new HistoryWriter(db).putChargesPage(CONN, [changed], checkpoint({ resource: 'charges' }))
    expect(
      await db.charges.where('[connectionId+createdAt]').between([CONN, -Infinity], [CONN, Infinity]).count(),
    ).toBe(2)
    expect(await repo.inRange(CONN, -Infinity, Infinity)).toEqual([before[0], changed, before[2]])
    expect(await repo.inRange(CONN, changed.createdAt, changed.createdAt + 1)).toEqual([changed])
    db.close()
  })

  it('tells the stored schema version before opening, so the shell can announce a migration', async () => {
    const deps = freshDeps()
    expect(await storedCacheVersion(deps.indexedDB, 'closebook')).toBeNull()
    await createV6Cache(deps)
    expect(await storedCacheVersion(deps.indexedDB, 'closebook')).toBe(6)
    expect(await storedCacheVersion(deps.indexedDB, 'other')).toBeNull()
    const db = new ClosebookDb('closebook', deps)
    // The app asks the cache itself before opening it.
    expect(await db.storedVersion()).toBe(6)
    await db.open()
    db.close()
    expect(await storedCacheVersion(deps.indexedDB, 'closebook')).toBe(CURRENT_VERSION)
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

    const db = new ClosebookDb('closebook', deps, { upToVersion: AS_RELEASED })
    await db.open()
    expect(db.verno).toBe(AS_RELEASED)

    const history = await db.history.toArray()
    expect(history).toHaveLength(2)
    // Old fields intact, new ones filled from `raw` (and the fields of those versions nothing reads now).
    expect(history[0]).toMatchObject(historyRecordOf(CONN, historyItem(1), T0))
    expect(history[0]?.orderRef).toBe('ORD-1')
    expect((history[1] as HistoryRecordV5).searchText).toContain('holder2@example.com')

    const marksRepo = new MarksRepository(db)
    expect(await marksRepo.get(CONN, h1)).toMatchObject({
      state: 'reconciled',
      changedSinceReconciled: 1,
      note: 'ok',
    })
    expect(await marksRepo.get(CONN, h2)).toMatchObject({
      state: 'unreconciled',
      changedSinceReconciled: 0,
      note: 'only a note',
    })
    // Both records are of one UTC day: one day row, flagged by h1's changed mark.
    expect((await db.markDays.toArray()).map((r) => [r.day, r.marks.length, r.changed])).toEqual([
      [searchDayOf(h1.createdAt), 2, 1],
    ])
    expect(await storedAudit(db)).toEqual([{ ...auditEntry({ key: h1.key }), seq: 1, part: 0 }])
    expect(await db.settings.get('locale')).toEqual({ key: 'locale', value: 'ja' })

    // The new indexes answer queries over migrated rows.
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

    const db = new ClosebookDb('closebook', deps, { upToVersion: AS_RELEASED })
    await db.open()
    expect(db.verno).toBe(AS_RELEASED)
    const history = await db.history.toArray()
    expect(history).toHaveLength(3)
    // Every old field as it was, plus tokens scoped to the row's own connection.
    for (const row of rows) {
      const migrated = history.find((h) => h.connectionId === row.connectionId && h.key === row.key)
      expect(migrated).toMatchObject(historyRecordOf(row.connectionId, row.raw, T0))
    }
    expect(await new MarksRepository(db).get(CONN, rows[0]!)).toMatchObject({ note: 'kept' })
    // The new index answers over migrated rows, per connection.
    const repo = new HistoryRepository(db, () => '')
    const q = { connectionId: CONN, from: 0, to: T0 * 2 }
    expect(await repo.count({ ...q, search: 'holder2' })).toBe(1)
    expect(await repo.count({ ...q, search: 'holder3' })).toBe(0)
    expect(await repo.count({ ...q, connectionId: 'conn-b', search: 'holder3' })).toBe(1)
    expect(await repo.count({ ...q, search: 'ord-' })).toBe(2)
    db.close()
  })

  it('migrates a version-4 cache to version 5: tokens re-filed by day, the old ones gone', async () => {
    const deps = freshDeps()
    const v4 = new Dexie('closebook', deps)
    v4.version(4).stores(SCHEMA_V4)
    // Version 4 filed tokens by connection only.
    const rows = [1, 2].map((n) => {
      const r = historyRecordOf(CONN, historyItem(n), T0)
      const old = searchTokensOf(CONN, r.createdAt, r.raw).map(
        (t) => `${CONN}\u0001${t.slice(tokenPrefix(CONN, searchDayOf(r.createdAt)).length)}`,
      )
      return { ...r, searchTokens: old }
    })
    await v4.table('history').bulkAdd(rows)
    expect(
      await v4.table('history').where('searchTokens').startsWith(`${CONN}\u0001holder`).count(),
    ).toBeGreaterThanOrEqual(2)
    v4.close()

    const db = new ClosebookDb('closebook', deps, { upToVersion: AS_RELEASED })
    await db.open()
    expect(db.verno).toBe(AS_RELEASED)
    for (const row of rows) {
      expect(await db.history.get([CONN, row.key])).toMatchObject(historyRecordOf(CONN, row.raw, T0))
    }
    const repo = new HistoryRepository(db, () => '')
    const q = { connectionId: CONN, from: 0, to: T0 * 2 }
    expect(await repo.count({ ...q, search: 'holder2' })).toBe(1)
    expect(await repo.count({ ...q, search: 'holder' })).toBe(2)
    db.close()
  })

  it('migrates a version-5 cache to version 6: marks by record day, one audit row per old entry', async () => {
    const deps = freshDeps()
    const v5 = new Dexie('closebook', deps)
    v5.version(5).stores(SCHEMA_V5)
    const DAY = 24 * HOUR
    const dayOf = (t: number): number => Math.floor(t / DAY)
    // Records on three UTC days (1 h, 2 h, 30 h and 50 h after T0), and one of another connection
    // whose key is h1's.
    const record = (n: number) => historyRecordOf(CONN, historyItem(n), T0)
    const [h1, h2, h30, h50] = [record(1), record(2), record(30), record(50)]
    const hb = historyRecordOf('conn-b', historyItem(1), T0)
    expect([h1, h2, h30, h50].map((h) => dayOf(h.createdAt) - dayOf(T0))).toEqual([0, 0, 1, 2])
    await v5.table('history').bulkAdd([h1, h2, h30, h50, hb].map(v5History))

    const m1 = mark(h1.key, { note: 'ok' })
    const m2 = mark(h2.key, { changedSinceReconciled: 1 })
    // Only a reconciled mark's flag flags its day: this note-only mark's does not.
    const m30 = mark(h30.key, { state: 'unreconciled', note: 'ask client', changedSinceReconciled: 1 })
    const m50 = mark(h50.key, { period: '2026-10', matchRef: 'bank:3' })
    const orphan = mark('charge:not-cached', { note: 'record gone' })
    const mb = mark(hb.key, { connectionId: 'conn-b', note: 'other shop' })
    await v5.table('marks').bulkAdd([m1, m2, m30, m50, orphan, mb])

    // Audit rows as version 5 stored them: one per change, with gaps in their sequence numbers. 3 and 4
    // are consecutive changes of one action: they stay two rows.
    const old: AuditEntryV5[] = [
      { ...auditEntry({ key: h1.key, after: m1 }), seq: 3 },
      { ...auditEntry({ key: h2.key, after: m2 }), seq: 4 },
      { ...auditEntry({ at: T0 + 1, action: 'note', key: h30.key, after: m30, reason: 'phoned' }), seq: 7 },
      { ...auditEntry({ at: T0 + 2, action: 'close-period', key: null, period: '2026-09' }), seq: 8 },
      { ...auditEntry({ connectionId: 'conn-b', key: hb.key, after: mb }), seq: 12 },
    ]
    await v5.table('audit').bulkAdd(old)
    v5.close()

    const db = new ClosebookDb('closebook', deps, { upToVersion: AS_RELEASED })
    await db.open()
    expect(db.verno).toBe(AS_RELEASED)
    // The old table is gone from the database itself, not only from Dexie's view of it.
    expect([...db.backendDB().objectStoreNames]).not.toContain('marks')
    expect([...db.backendDB().objectStoreNames].sort()).toEqual(
      EVERY_TABLE.filter((n) => n !== 'legacyHistory'),
    )
    expect(await db.history.count()).toBe(5)
    // Every record's digest, filed by day: the rows a restore of these records would build, without the
    // amount (added to digests later; Month-end reads the records of a month whose digests lack it).
    const withoutAmount = dayDigestRowsOf([h1, h2, h30, h50, hb]).map((row) => ({
      ...row,
      records: row.records.map(({ amount: _amount, ...d }) => d),
    }))
    expect(await db.dayDigests.toArray()).toEqual(withoutAmount)
    expect(
      (await db.dayDigests.toArray()).map((r) => [r.connectionId, r.day - dayOf(T0), r.records.length]),
    ).toEqual([
      [CONN, 0, 2],
      [CONN, 1, 1],
      [CONN, 2, 1],
      ['conn-b', 0, 1],
    ])

    const byKey = (a: MarkRecord, b: MarkRecord): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
    const days = (await db.markDays.toArray()).map((r) => ({ ...r, marks: [...r.marks].sort(byKey) }))
    const expected: MarkDayRecord[] = [
      { connectionId: CONN, day: ORPHAN_MARK_DAY, marks: [orphan], changed: 0 },
      { connectionId: CONN, day: dayOf(T0), marks: [m1, m2].sort(byKey), changed: 1 },
      { connectionId: CONN, day: dayOf(T0) + 1, marks: [m30], changed: 0 },
      { connectionId: CONN, day: dayOf(T0) + 2, marks: [m50], changed: 0 },
      { connectionId: 'conn-b', day: dayOf(T0), marks: [mb], changed: 0 },
    ]
    expect(days).toEqual(expected)

    // The app finds every mark through its record, and the flag index answers.
    const marks = new MarksRepository(db)
    expect(await marks.getMany(CONN, [h1, h2, h30, h50])).toEqual([m1, m2, m30, m50])
    expect(await marks.get('conn-b', hb)).toEqual(mb)
    expect(await marks.listChangedSinceReconciled(CONN)).toEqual([m2])
    expect((await marks.all(CONN)).sort(byKey)).toEqual([m1, m2, m30, m50, orphan].sort(byKey))
    const repo = new HistoryRepository(db, () => '')
    const q = { connectionId: CONN, from: T0, to: T0 + 3 * DAY }
    expect(await repo.count({ ...q, reconciled: 'reconciled' })).toBe(3)
    expect(await repo.count({ ...q, reconciled: 'changed' })).toBe(1)

    // Each old row is now a row of one change, under its own sequence number, with its tags.
    const row = (e: AuditEntryV5): AuditRow => {
      const r: AuditRow = {
        seq: e.seq,
        connectionId: e.connectionId,
        at: e.at,
        actor: e.actor,
        action: e.action,
        changes: [{ key: e.key, period: e.period, before: e.before, after: e.after }],
        keyTags: e.key === null ? [] : [auditTag(e.connectionId, e.key)],
        periodTags: e.period === null ? [] : [auditTag(e.connectionId, e.period)],
      }
      if (e.reason !== undefined) r.reason = e.reason
      return r
    }
    expect(await db.audit.toArray()).toEqual(old.map(row))
    const [r7] = await db.audit.where('seq').equals(7).toArray()
    expect(r7).toMatchObject({
      seq: 7,
      action: 'note',
      reason: 'phoned',
      keyTags: [`${CONN}\u0001${h30.key}`],
      periodTags: [`${CONN}\u00012026-10`],
    })
    expect((await db.audit.get(8))?.keyTags).toEqual([])

    // The log's readers find them through the new tag indexes, per connection.
    const audit = new AuditRepository(db)
    const trail = (entries: { seq?: number; part?: number }[]) => entries.map((e) => [e.seq, e.part])
    expect(trail(await audit.listByKey(CONN, h1))).toEqual([[3, 0]])
    expect(trail(await audit.listByKey(CONN, h2))).toEqual([[4, 0]])
    expect(await audit.listByKey(CONN, h30)).toEqual([{ ...old[2], part: 0 }])
    expect(trail(await audit.listByKey('conn-b', hb))).toEqual([[12, 0]])
    expect(trail(await audit.listByPeriod(CONN, '2026-09'))).toEqual([[8, 0]])
    expect(trail(await audit.listByPeriod(CONN, '2026-10'))).toEqual([
      [3, 0],
      [4, 0],
      [7, 0],
    ])
    expect(await audit.count(CONN)).toBe(4)
    // New rows continue after the highest migrated sequence number.
    expect(await audit.add(auditEntry({ at: T0 + 3, key: h50.key }))).toBe(13)
    db.close()
  })

  it('migrates a version-6 cache to version 7: search tokens filed by day part, the token index dropped', async () => {
    const deps = freshDeps()
    const v6 = new Dexie('closebook', deps)
    v6.version(6).stores(SCHEMA_V6)
    const DAY = 24 * HOUR
    // A busy day (more records than a part holds), two other days, and another connection.
    const busy = Array.from({ length: TOKEN_PART_SIZE + 3 }, (_, i) =>
      historyRecordOf(CONN, historyItem(i + 1, { created_on: new Date(T0 + i * 1000).toISOString() }), T0),
    )
    const later = [DAY, 2 * DAY].map((dt, i) =>
      historyRecordOf(CONN, historyItem(9000 + i, { created_on: new Date(T0 + dt).toISOString() }), T0),
    )
    const other = historyRecordOf('conn-b', historyItem(1), T0)
    const records = [...busy, ...later, other]
    await v6.table('history').bulkAdd(records.map(v5History))
    await v6.table('dayDigests').bulkAdd(dayDigestRowsOf(records))
    expect(v6.table('history').schema.idxByName['searchTokens']).toBeDefined()
    v6.close()

    const db = new ClosebookDb('closebook', deps, { upToVersion: AS_RELEASED })
    await db.open()
    expect(db.verno).toBe(AS_RELEASED)
    // The multi-entry index is gone from the store itself; the records are untouched.
    const store = db.backendDB().transaction('history').objectStore('history')
    expect([...store.indexNames]).not.toContain('searchTokens')
    expect(await db.history.count()).toBe(records.length)
    expect(await db.history.get([CONN, later[0]!.key])).toEqual(v5History(later[0]!))
    // Every record filed once, the busy day in two parts: the rows a restore would build.
    // Written by the frozen step as plain columns; the writer packs the same columns today.
    // Compared by what each record's tokens answer: the marked layout keeps that, not their order.
    const tokenSets = (row: StoredDayTokensRow) => {
      const columns = tokenColumnsOf(row)
      return { ...columns, texts: columns.texts.map(tokenSetOf) }
    }
    const rows = (await db.dayTokens.toArray()).map((row) => tokenColumnsOf(row))
    expect((await db.dayTokens.toArray()).map(tokenSets)).toEqual(dayTokenRowsOf(records).map(tokenSets))
    expect(rows.map((r) => [r.connectionId, r.day - searchDayOf(T0), r.part, r.keys.length])).toEqual([
      [CONN, 0, 0, TOKEN_PART_SIZE],
      [CONN, 0, 1, 3],
      [CONN, 1, 0, 1],
      [CONN, 2, 0, 1],
      ['conn-b', 0, 0, 1],
    ])
    // Tokens are stored without their connection and day scope.
    expect(rows[0]!.texts[0]).toContain('\nholder')
    expect(rows[0]!.texts[0]).not.toContain(tokenPrefix(CONN, searchDayOf(T0)))
    // The search answers from them, per connection and period.
    const repo = new HistoryRepository(db, () => '')
    const q = { connectionId: CONN, from: 0, to: T0 * 2 }
    expect(await repo.count({ ...q, search: 'holder' })).toBe(busy.length + later.length)
    expect(await repo.count({ ...q, search: 'holder 9001' })).toBe(1)
    expect(await repo.count({ ...q, from: T0 + DAY, search: 'holder' })).toBe(2)
    expect(await repo.count({ ...q, connectionId: 'conn-b', search: 'holder' })).toBe(1)
    const page = await repo.queryPage({ ...q, search: 'holder', order: 'desc', offset: 1, limit: 2 })
    expect(page.map((r) => r.key)).toEqual([later[0]!.key, busy[busy.length - 1]!.key])
    db.close()
  })
})
