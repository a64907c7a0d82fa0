import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { MarksRepository, PeriodLockedError } from '../../../../src/db/marks-repository'
import type { RecordKey } from '../../../../src/db/records'
import { CONN, T0, auditEntry, mark, openDb, uuid } from './fixtures'

const k = (n: number): RecordKey => `charge:${uuid(n)}`

let db: ClosebookDb
let repo: MarksRepository

beforeEach(() => {
  db = openDb()
  repo = new MarksRepository(db)
})
afterEach(() => db.close())

describe('MarksRepository', () => {
  it('applies puts, deletes and audit rows together', async () => {
    await db.marks.put(mark(k(9)))
    const res = await repo.apply({
      connectionId: CONN,
      puts: [mark(k(1)), mark(k(2), { state: 'unreconciled', note: 'n' })],
      deletes: [k(9)],
      audit: [
        auditEntry({ key: k(1) }),
        auditEntry({ key: k(2), action: 'note' }),
        auditEntry({ key: k(9), action: 'unmark' }),
      ],
    })
    expect(res.put).toBe(2)
    expect(res.deleted).toBe(1)
    expect(res.auditSeqs).toHaveLength(3)
    expect((await repo.getMany(CONN, [k(1), k(2), k(9)])).map((m) => m?.state)).toEqual([
      'reconciled',
      'unreconciled',
      undefined,
    ])
    expect((await db.audit.toArray()).map((a) => a.action)).toEqual(['mark', 'note', 'unmark'])
  })

  it('writes nothing when any audit row fails', async () => {
    // A function cannot be cloned into IndexedDB: the audit add fails after the marks were put.
    const broken = auditEntry({ key: k(1), after: () => 1 })
    await expect(
      repo.apply({ connectionId: CONN, puts: [mark(k(1))], deletes: [], audit: [auditEntry(), broken] }),
    ).rejects.toThrow()
    expect(await db.marks.count()).toBe(0)
    expect(await db.audit.count()).toBe(0)
  })

  it('refuses to change marks in a closed period, atomically', async () => {
    await db.marks.put(mark(k(5), { period: '2026-09' }))
    await db.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0, lockedBy: 'alice' })

    await expect(
      repo.apply({ connectionId: CONN, puts: [mark(k(1))], deletes: [k(5)], audit: [auditEntry()] }),
    ).rejects.toBeInstanceOf(PeriodLockedError)
    await expect(
      repo.apply({ connectionId: CONN, puts: [mark(k(2), { period: '2026-09' })], deletes: [], audit: [] }),
    ).rejects.toThrow(/2026-09 is closed/)

    expect(await repo.get(CONN, k(5))).toBeDefined()
    expect(await repo.get(CONN, k(1))).toBeUndefined()
    expect(await db.audit.count()).toBe(0)
  })

  it('lists changed-since-reconciled marks and marks by period', async () => {
    await db.marks.bulkPut([
      mark(k(1), { changedSinceReconciled: 1 }),
      mark(k(2)),
      mark(k(3), { period: '2026-11', changedSinceReconciled: 1 }),
      mark(k(4), { connectionId: 'other', changedSinceReconciled: 1 }),
    ])
    expect((await repo.listChangedSinceReconciled(CONN)).map((m) => m.key).sort()).toEqual(
      [k(1), k(3)].sort(),
    )
    expect((await repo.listByPeriod(CONN, '2026-10')).map((m) => m.key).sort()).toEqual([k(1), k(2)].sort())
    expect(await repo.countByState(CONN, 'reconciled')).toBe(3)
  })

  it('rejects a plan whose rows belong to another connection', async () => {
    await expect(
      repo.apply({
        connectionId: CONN,
        puts: [mark(k(1), { connectionId: 'other' })],
        deletes: [],
        audit: [],
      }),
    ).rejects.toThrow(/connection/)
  })
})
