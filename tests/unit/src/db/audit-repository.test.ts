import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AuditRepository, appendAuditEntries, auditTag } from '../../../../src/db/audit-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import type { AuditEntry, RecordKey } from '../../../../src/domain/records'
import { CONN, T0, auditEntry, openDb, storedAudit, uuid } from './fixtures'

const k = (n: number): RecordKey => `charge:${uuid(n)}`
const key: RecordKey = k(1)

let db: ClosebookDb
let repo: AuditRepository

beforeEach(() => {
  db = openDb()
  repo = new AuditRepository(db)
})
afterEach(() => db.close())

describe('AuditRepository', () => {
  it('offers only add, list and count: no way to change or remove a row', () => {
    const methods = Object.getOwnPropertyNames(AuditRepository.prototype).filter((m) => m !== 'constructor')
    expect(methods.sort()).toEqual(['add', 'count', 'listByConnection', 'listByKey', 'listByPeriod'])
    // The database sits in a true private field: not reachable as a property.
    expect(Object.keys(repo)).toEqual([])
    expect((repo as unknown as Record<string, unknown>)['db']).toBeUndefined()
  })

  it('never overwrites an existing row, even when given its seq', async () => {
    const first = await repo.add(auditEntry({ key, action: 'mark' }))
    const second = await repo.add({ ...auditEntry({ key, action: 'unmark' }), seq: first })
    expect(second).toBeGreaterThan(first)
    expect((await repo.listByKey(CONN, { key, createdAt: T0 })).map((a) => [a.seq, a.action])).toEqual([
      [first, 'mark'],
      [second, 'unmark'],
    ])
  })

  it('lists by connection in time order, by period and by key', async () => {
    await repo.add(auditEntry({ at: T0 + 2, key, action: 'note' }))
    await repo.add(auditEntry({ at: T0 + 1, key, action: 'mark' }))
    await repo.add(auditEntry({ at: T0 + 3, key: null, action: 'close-period', period: '2026-10' }))
    await repo.add(auditEntry({ at: T0 + 4, key: null, action: 'close-period', period: '2026-11' }))
    await repo.add(auditEntry({ connectionId: 'other', at: T0, key }))

    expect((await repo.listByConnection(CONN)).map((a) => a.at - T0)).toEqual([1, 2, 3, 4])
    expect((await repo.listByKey(CONN, { key, createdAt: T0 })).map((a) => a.action)).toEqual([
      'mark',
      'note',
    ])
    expect((await repo.listByPeriod(CONN, '2026-11')).map((a) => a.action)).toEqual(['close-period'])
    expect(await repo.count(CONN)).toBe(4)
    expect(await repo.count('other')).toBe(1)
  })

  it('stores consecutive entries of one action as one row, one sequence number per row', async () => {
    const entries: AuditEntry[] = [
      auditEntry({ key: k(1) }),
      auditEntry({ key: k(2) }),
      // Each of these differs from the entry before it in one field: a new row each.
      auditEntry({ key: k(3), reason: 'undo' }),
      auditEntry({ key: k(4), reason: 'undo' }),
      auditEntry({ key: k(5), action: 'note' }),
      auditEntry({ key: k(6), at: T0 + 1 }),
      auditEntry({ key: k(7), actor: 'bob' }),
      auditEntry({ key: k(8), connectionId: 'other' }),
      // The same action as the first, but not next to it: a row of its own.
      auditEntry({ key: k(9) }),
      // A given seq is dropped.
      { ...auditEntry({ key: k(10) }), seq: 1 },
    ]
    const seqs = await db.transaction('rw', db.audit, () => appendAuditEntries(db.audit, entries))
    expect(seqs).toHaveLength(7)
    expect(new Set(seqs).size).toBe(7)
    const rows = await db.audit.toArray()
    expect(rows.map((r) => [r.seq, r.changes.map((c) => c.key)])).toEqual([
      [seqs[0], [k(1), k(2)]],
      [seqs[1], [k(3), k(4)]],
      [seqs[2], [k(5)]],
      [seqs[3], [k(6)]],
      [seqs[4], [k(7)]],
      [seqs[5], [k(8)]],
      [seqs[6], [k(9), k(10)]],
    ])
    expect(rows.map((r) => r.reason)).toEqual([
      undefined,
      'undo',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ])
    expect(rows[5]?.keyTags).toEqual([auditTag('other', k(8))])
    expect(rows[5]?.periodTags).toEqual([auditTag('other', '2026-10')])
    // Read back, each entry is what was written, with its row's seq and its place in the row.
    const read = await storedAudit(db)
    expect(read.map(({ seq: _seq, part: _part, ...e }) => e)).toEqual(entries.map(({ seq: _seq, ...e }) => e))
    expect(read.map((e) => [e.seq, e.part])).toEqual([
      [seqs[0], 0],
      [seqs[0], 1],
      [seqs[1], 0],
      [seqs[1], 1],
      [seqs[2], 0],
      [seqs[3], 0],
      [seqs[4], 0],
      [seqs[5], 0],
      [seqs[6], 0],
      [seqs[6], 1],
    ])
    expect(await repo.count(CONN)).toBe(9)
    expect(await repo.count('other')).toBe(1)
    expect((await repo.listByConnection(CONN)).map((e) => e.key)).toEqual([
      k(1),
      k(2),
      k(3),
      k(4),
      k(5),
      k(7),
      k(9),
      k(10),
      k(6),
    ])
  })

  it('finds each change of a record inside a row that holds it more than once', async () => {
    const [seq] = await db.transaction('rw', db.audit, () =>
      appendAuditEntries(db.audit, [
        auditEntry({ key: k(1), action: 'note', after: 'first' }),
        auditEntry({ key: k(2), action: 'note', after: 'other', period: '2026-11' }),
        auditEntry({ key: k(1), action: 'note', after: 'second' }),
      ]),
    )
    const row = await db.audit.get(seq as number)
    expect(row?.keyTags).toEqual([auditTag(CONN, k(1)), auditTag(CONN, k(2))])
    expect(row?.periodTags).toEqual([auditTag(CONN, '2026-10'), auditTag(CONN, '2026-11')])
    expect(
      (await repo.listByKey(CONN, { key: k(1), createdAt: T0 })).map((e) => [e.seq, e.part, e.after]),
    ).toEqual([
      [seq, 0, 'first'],
      [seq, 2, 'second'],
    ])
    expect((await repo.listByPeriod(CONN, '2026-11')).map((e) => [e.part, e.key])).toEqual([[1, k(2)]])
    expect(await repo.listByKey('other', { key: k(1), createdAt: T0 })).toEqual([])
  })
})
