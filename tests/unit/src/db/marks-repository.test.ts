import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { MarksRepository, PeriodLockedError, type MarkSnapshot } from '../../../../src/db/marks-repository'
import { historyRecordOf } from '../../../../src/db/history-record'
import type { AuditEntry, HistoryRecord, RecordKey } from '../../../../src/db/records'
import { planMarks, planUndo } from '../../../../src/reconcile/marking'
import { CONN, HOUR, T0, auditEntry, historyItem, mark, openDb, uuid } from './fixtures'

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

  describe('planAndApply', () => {
    const record = (n: number, atMs = T0 + n * 60_000): HistoryRecord =>
      historyRecordOf(CONN, historyItem(n, { created_on: new Date(atMs).toISOString() }), 0)
    const markAll = (records: HistoryRecord[], note?: string) => (current: MarkSnapshot) =>
      planMarks({
        action: 'mark',
        records,
        marks: current.marks,
        locks: current.locks,
        ...(note !== undefined ? { note } : {}),
        actor: 'alice',
        now: T0 + 99 * HOUR,
        timeZone: 'UTC',
      })

    it('plans on the marks and locks read inside the transaction, and writes the plan', async () => {
      await db.marks.put(mark(record(1).key, { state: 'unreconciled', note: 'keep me', fingerprint: null }))
      await db.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0, lockedBy: 'bob' })
      const records = [record(1), record(2), record(3, Date.parse('2026-09-30T12:00:00Z'))]
      const { plan, result } = await repo.planAndApply(
        CONN,
        records.map((r) => r.key),
        markAll(records),
      )
      // The September record is refused (locked), not a reason to refuse the whole batch.
      expect(plan.refused).toEqual([{ key: records[2]?.key, reason: 'period_locked' }])
      expect(result.put).toBe(2)
      expect(result.auditSeqs).toHaveLength(2)
      const stored = await repo.getMany(
        CONN,
        records.map((r) => r.key),
      )
      expect(stored.map((m) => m?.state)).toEqual(['reconciled', 'reconciled', undefined])
      // The existing note was seen by the planner and kept.
      expect(stored[0]?.note).toBe('keep me')
      const audit = await db.audit.toArray()
      expect(audit.map((a) => [a.key, (a.before as { note?: string } | null)?.note ?? null])).toEqual([
        [records[0]?.key, 'keep me'],
        [records[1]?.key, null],
      ])
    })

    it('writes nothing when a write fails halfway through a bulk apply', async () => {
      const records = Array.from({ length: 500 }, (_, i) => record(i))
      await db.marks.put(
        mark(records[7]?.key as RecordKey, { state: 'unreconciled', note: 'n', fingerprint: null }),
      )
      await expect(
        repo.planAndApply(
          CONN,
          records.map((r) => r.key),
          (current) => {
            const plan = markAll(records)(current)
            // An audit row IndexedDB cannot clone, after 250 good ones: the marks were already put.
            const audit: AuditEntry[] = [...plan.audit]
            audit.splice(250, 0, auditEntry({ key: records[0]?.key ?? null, after: () => 1 }))
            return { ...plan, audit }
          },
        ),
      ).rejects.toThrow()
      expect(await db.marks.count()).toBe(1)
      expect((await repo.get(CONN, records[7]?.key as RecordKey))?.state).toBe('unreconciled')
      expect(await db.audit.count()).toBe(0)
    })

    it('refuses, atomically, a plan that touches a locked mark it was not given', async () => {
      await db.marks.put(mark(k(5), { period: '2026-09' }))
      await db.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0, lockedBy: 'alice' })
      const records = [record(1)]
      await expect(
        repo.planAndApply(CONN, [records[0]?.key as RecordKey], (current) => {
          const plan = markAll(records)(current)
          return { ...plan, deletes: [k(5)] }
        }),
      ).rejects.toBeInstanceOf(PeriodLockedError)
      expect(await repo.get(CONN, k(5))).toBeDefined()
      expect(await db.marks.count()).toBe(1)
      expect(await db.audit.count()).toBe(0)
    })

    it('sees the same current marks whether it reads them by key or by range', async () => {
      const records = Array.from({ length: 1200 }, (_, i) => record(i, T0 + i * 1000))
      const noted = (r: HistoryRecord) =>
        mark(r.key, { state: 'unreconciled', note: `note ${r.key}`, fingerprint: null })
      for (const extra of [0, 2000]) {
        await db.marks.clear()
        // Another connection's mark under the same key must never be taken for this one's.
        await db.marks.put(mark(records[1]?.key as RecordKey, { connectionId: 'other', note: 'not mine' }))
        await db.marks.bulkPut(records.filter((_, i) => i % 2 === 0).map(noted))
        // Unrelated marks: with 2000 of them the connection has more marks than keys (read by key).
        await db.marks.bulkPut(Array.from({ length: extra }, (_, i) => mark(k(50_000 + i))))
        await db.audit.clear()
        const { plan } = await repo.planAndApply(
          CONN,
          records.map((r) => r.key),
          markAll(records),
        )
        expect(plan.puts).toHaveLength(1200)
        expect(plan.puts.filter((m) => m.note.startsWith('note ')).length).toBe(600)
        expect(plan.puts.some((m) => m.note === 'not mine')).toBe(false)
        const befores = (await db.audit.toArray()).filter((a) => a.before !== null)
        expect(befores).toHaveLength(600)
      }
    })

    it('cancelled while it writes, rolls back: no mark and no audit row lands', async () => {
      const records = Array.from({ length: 2000 }, (_, i) => record(i, T0 + i * 1000))
      const controller = new AbortController()
      await expect(
        repo.planAndApply(
          CONN,
          records.map((r) => r.key),
          (current) => {
            // Cancel once the writes have been issued.
            setTimeout(() => controller.abort(), 0)
            return markAll(records)(current)
          },
          { signal: controller.signal },
        ),
      ).rejects.toThrow()
      expect(await db.marks.count()).toBe(0)
      expect(await db.audit.count()).toBe(0)
      // A signal already aborted never opens the transaction.
      await expect(
        repo.planAndApply(CONN, [records[0]?.key as RecordKey], markAll(records), {
          signal: controller.signal,
        }),
      ).rejects.toThrow()
      expect(await db.marks.count()).toBe(0)
    })

    it('marks 10k records with one audit row each, and undo restores every one', async () => {
      const records = Array.from({ length: 10_000 }, (_, i) => record(i, T0 + i * 1000))
      // Some records already carry a note: undo must bring those rows back, not delete them.
      const noted = records
        .slice(0, 100)
        .map((r) => mark(r.key, { state: 'unreconciled', note: `n${r.key}`, fingerprint: null }))
      await db.marks.bulkPut(noted)
      const keys = records.map((r) => r.key)
      const { plan } = await repo.planAndApply(CONN, keys, markAll(records))
      expect(plan.puts).toHaveLength(10_000)
      expect(await db.audit.count()).toBe(10_000)
      expect(await repo.countByState(CONN, 'reconciled')).toBe(10_000)
      const entries = await db.audit.toArray()
      expect(new Set(entries.map((e) => e.key)).size).toBe(10_000)
      expect(
        entries.every((e) => e.action === 'mark' && e.actor === 'alice' && e.at === T0 + 99 * HOUR),
      ).toBe(true)

      const undone = await repo.planAndApply(CONN, keys, (current) =>
        planUndo({
          entries: plan.audit,
          marks: current.marks,
          locks: current.locks,
          actor: 'alice',
          now: T0 + 100 * HOUR,
        }),
      )
      expect(undone.plan.refused).toEqual([])
      expect(undone.result.deleted).toBe(9_900)
      expect(undone.result.put).toBe(100)
      expect(await repo.countByState(CONN, 'reconciled')).toBe(0)
      expect((await db.marks.toArray()).map((m) => m.note).sort()).toEqual(noted.map((m) => m.note).sort())
      expect(await db.audit.count()).toBe(20_000)
    })
  })
})
