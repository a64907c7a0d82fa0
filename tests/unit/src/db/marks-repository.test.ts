import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  AuditRepository,
  DAY_TAGGED_CHANGES,
  auditDayTag,
  auditEntriesOf,
  auditRowsOf,
  auditTag,
} from '../../../../src/db/audit-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import {
  MarksRepository,
  ORPHAN_MARK_DAY,
  PeriodLockedError,
  flagChangedMarks,
  markDayOf,
} from '../../../../src/db/marks-repository'
import { MarkingService, type MarkSnapshot } from '../../../../src/db/marking-service'
import { historyRecordOf } from '../../../../src/db/history-record'
import type { AuditEntry, HistoryRecord, MarkRecord, RecordKey } from '../../../../src/domain/records'
import { planMarks, planUndo, type MarkAction } from '../../../../src/reconcile/marking'
import {
  CONN,
  HOUR,
  applyPlan,
  T0,
  auditEntry,
  historyItem,
  mark,
  openDb,
  putMarks,
  ref,
  storedAudit,
  storedMarks,
  uuid,
} from './fixtures'

const DAY = 24 * HOUR
const k = (n: number): RecordKey => `charge:${uuid(n)}`

/** A history record of `connectionId` at `atMs` (its key is k(n)). */
const record = (n: number, atMs = T0 + n * 60_000, connectionId = CONN): HistoryRecord =>
  historyRecordOf(connectionId, historyItem(n, { created_on: new Date(atMs).toISOString() }), 0)

/** A planner applying `action` to `records` over the snapshot it is given. */
const planning =
  (action: MarkAction, records: readonly HistoryRecord[], note?: string) => (current: MarkSnapshot) =>
    planMarks({
      action,
      records,
      marks: current.marks,
      locks: current.locks,
      ...(note !== undefined ? { note } : {}),
      actor: 'alice',
      now: T0 + 99 * HOUR,
      timeZone: 'UTC',
    })
const markAll = (records: readonly HistoryRecord[], note?: string) => planning('mark', records, note)

/** For putMarks: each mark filed by its record's time (T0 when not listed). */
const timesOf =
  (records: readonly HistoryRecord[]) =>
  (m: MarkRecord): number =>
    records.find((r) => r.key === m.key)?.createdAt ?? T0

/** The connection's day rows as [day, keys of their marks (sorted)], by day. */
async function dayRows(connectionId = CONN): Promise<[number, RecordKey[]][]> {
  const rows = await db.markDays
    .where('[connectionId+day]')
    .between([connectionId, -Infinity], [connectionId, Infinity])
    .toArray()
  return rows.map((r) => [r.day, r.marks.map((m) => m.key).sort()])
}

let db: ClosebookDb
let repo: MarksRepository
let marking: MarkingService

beforeEach(() => {
  db = openDb()
  repo = new MarksRepository(db)
  marking = new MarkingService(db)
})
afterEach(() => db.close())

describe('MarksRepository', () => {
  it('applies puts, deletes and audit rows together', async () => {
    await putMarks(db, [mark(k(9))], () => T0 + DAY)
    const res = await applyPlan(
      db,
      {
        connectionId: CONN,
        puts: [mark(k(1)), mark(k(2), { state: 'unreconciled', note: 'n' })],
        deletes: [k(9)],
        audit: [
          auditEntry({ key: k(1) }),
          auditEntry({ key: k(2), action: 'note' }),
          auditEntry({ key: k(9), action: 'unmark' }),
        ],
      },
      [ref(k(1)), ref(k(2)), ref(k(9), T0 + DAY)],
    )
    expect(res.put).toBe(2)
    expect(res.deleted).toBe(1)
    // Three actions: three audit rows.
    expect(res.auditSeqs).toHaveLength(3)
    expect(
      (await repo.getMany(CONN, [ref(k(1)), ref(k(2)), ref(k(9), T0 + DAY)])).map((m) => m?.state),
    ).toEqual(['reconciled', 'unreconciled', undefined])
    expect((await storedAudit(db)).map((a) => [a.seq, a.action])).toEqual([
      [res.auditSeqs[0], 'mark'],
      [res.auditSeqs[1], 'note'],
      [res.auditSeqs[2], 'unmark'],
    ])
    // k(9)'s day row held nothing else: it is gone.
    expect(await dayRows()).toEqual([[markDayOf(T0), [k(1), k(2)].sort()]])
  })

  it('writes nothing when any audit row fails', async () => {
    // A function cannot be cloned into IndexedDB: the audit add fails after the marks were put.
    for (const brokenAction of ['mark', 'note'] as const) {
      // 'mark': one row with a broken change; 'note': a good row, then a broken one.
      const broken = auditEntry({ key: k(1), action: brokenAction, after: () => 1 })
      await expect(
        applyPlan(
          db,
          { connectionId: CONN, puts: [mark(k(1))], deletes: [], audit: [auditEntry(), broken] },
          [ref(k(1))],
        ),
      ).rejects.toThrow()
      expect(await storedMarks(db)).toEqual([])
      expect(await db.markDays.count()).toBe(0)
      expect(await db.audit.count()).toBe(0)
    }
  })

  it('refuses to change marks in a closed period, atomically', async () => {
    await putMarks(db, [mark(k(5), { period: '2026-09' })], () => T0 - DAY)
    await db.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0, lockedBy: 'alice' })

    await expect(
      applyPlan(db, { connectionId: CONN, puts: [mark(k(1))], deletes: [k(5)], audit: [auditEntry()] }, [
        ref(k(1)),
        ref(k(5), T0 - DAY),
      ]),
    ).rejects.toBeInstanceOf(PeriodLockedError)
    await expect(
      applyPlan(
        db,
        { connectionId: CONN, puts: [mark(k(2), { period: '2026-09' })], deletes: [], audit: [] },
        [ref(k(2))],
      ),
    ).rejects.toThrow(/2026-09 is closed/)

    expect(await repo.get(CONN, ref(k(5), T0 - DAY))).toEqual(mark(k(5), { period: '2026-09' }))
    expect(await repo.get(CONN, ref(k(1)))).toBeUndefined()
    expect(await repo.get(CONN, ref(k(2)))).toBeUndefined()
    expect(await storedMarks(db)).toHaveLength(1)
    expect(await db.audit.count()).toBe(0)
  })

  it('lists changed-since-reconciled marks through the day rows', async () => {
    const at = new Map([
      [k(1), T0],
      [k(2), T0],
      [k(3), T0 + 40 * DAY],
      [k(4), T0],
      [k(5), T0 + 2 * DAY],
    ])
    await putMarks(
      db,
      [
        mark(k(1), { changedSinceReconciled: 1 }),
        mark(k(2)),
        mark(k(3), { period: '2026-11', changedSinceReconciled: 1 }),
        mark(k(4), { connectionId: 'other', changedSinceReconciled: 1 }),
        // Not reconciled: its flag does not count.
        mark(k(5), { state: 'unreconciled', note: 'n', fingerprint: null, changedSinceReconciled: 1 }),
      ],
      (m) => at.get(m.key) ?? T0,
    )
    expect((await repo.listChangedSinceReconciled(CONN)).map((m) => m.key).sort()).toEqual(
      [k(1), k(3)].sort(),
    )
    expect((await repo.listChangedSinceReconciled('other')).map((m) => m.key)).toEqual([k(4)])
    const flagged = await db.markDays.where('[connectionId+changed]').equals([CONN, 1]).toArray()
    expect(flagged.map((r) => r.day).sort()).toEqual([markDayOf(T0), markDayOf(T0 + 40 * DAY)].sort())
    expect((await db.markDays.get([CONN, markDayOf(T0 + 2 * DAY)]))?.changed).toBe(0)
  })

  it('reads the marks of the days a range touches, and all of a connection', async () => {
    const day0 = markDayOf(T0)
    await putMarks(
      db,
      [
        mark(k(1)),
        mark(k(2), { note: 'late' }),
        mark(k(3)),
        mark(k(4)),
        mark(k(5), { connectionId: 'other' }),
      ],
      (m) =>
        ({ [k(1)]: T0 + HOUR, [k(2)]: T0 + DAY + 23 * HOUR, [k(3)]: T0 + DAY, [k(4)]: T0 + 3 * DAY })[
          m.key
        ] ?? T0 + DAY,
    )
    // A mark whose record is not cached.
    await db.markDays.put({ connectionId: CONN, day: ORPHAN_MARK_DAY, marks: [mark(k(9))], changed: 0 })
    const keys = (marks: MarkRecord[]) => marks.map((m) => m.key).sort()

    // Whole days: an hour of day 1 returns every mark of day 1, not the other connection's.
    expect(keys(await repo.overlapping(CONN, T0 + DAY + HOUR, T0 + DAY + 2 * HOUR))).toEqual(
      [k(2), k(3)].sort(),
    )
    // [from, to) ends before `to`: day 1's end excludes day 2... and day 3.
    expect(keys(await repo.overlapping(CONN, T0 + DAY, T0 + 2 * DAY))).toEqual([k(2), k(3)].sort())
    expect(keys(await repo.overlapping(CONN, T0, T0 + 4 * DAY))).toEqual([k(1), k(2), k(3), k(4)].sort())
    expect(keys(await repo.overlapping(CONN, T0 + 2 * DAY, T0 + 3 * DAY))).toEqual([])
    expect(await repo.overlapping(CONN, T0 + DAY, T0 + DAY)).toEqual([])
    expect(await repo.overlapping(CONN, T0 + 2 * DAY, T0 + DAY)).toEqual([])
    expect((await repo.overlapping('other', T0, T0 + 4 * DAY)).map((m) => m.key)).toEqual([k(5)])

    // all: orphans included, other connections not.
    expect(keys(await repo.all(CONN))).toEqual([k(1), k(2), k(3), k(4), k(9)].sort())
    expect((await repo.all(CONN)).find((m) => m.key === k(2))?.note).toBe('late')
    expect((await repo.all('other')).map((m) => m.key)).toEqual([k(5)])
    expect(await repo.all('nobody')).toEqual([])
    expect((await dayRows()).map(([d]) => d)).toEqual([ORPHAN_MARK_DAY, day0, day0 + 1, day0 + 3])
  })

  it('reads pages of records with the same marks as getMany: dense and sparse pages, edge days, orphans', async () => {
    // Twenty records over 40 days, every other day: marks on the first and last day, an orphan, another
    // connection's mark on the same day as a record, and a record with a mark in both its day and the orphan row.
    const records = Array.from({ length: 20 }, (_, i) => record(i + 1, T0 + 2 * i * DAY + (i % 3) * HOUR))
    const marked = records.filter((_, i) => i === 0 || i === 19 || i % 4 === 1)
    await putMarks(
      db,
      [...marked.map((r) => mark(r.key, { note: `n${r.key}` })), mark(k(5), { connectionId: 'other' })],
      (m) => (m.connectionId === 'other' ? records[4]!.createdAt : timesOf(records)(m)),
    )
    await db.markDays.put({
      connectionId: CONN,
      day: ORPHAN_MARK_DAY,
      marks: [mark(records[7]!.key, { note: 'orphan' }), mark(records[0]!.key, { note: 'older' })],
      changed: 0,
    })
    const expected = async (page: readonly HistoryRecord[]) =>
      (await repo.getMany(CONN, page)).map((m) => m && [m.key, m.note])
    const read = repo.pageReader(CONN)
    const got = async (page: readonly HistoryRecord[]) => {
      const marks = await read(page)
      return page.map((r) => marks.get(r.key)).map((m) => m && [m.key, m.note])
    }
    const pages = [
      records.slice(0, 5), // dense: days 0–8, five of nine days with a record... read as one range
      records.slice(5, 12),
      records.slice(12), // ends on the last day, whose mark is on the range's upper edge
      [records[0]!, records[19]!], // sparse: two days 38 apart, read by key
      [records[19]!, records[7]!], // an orphan's record
      [],
    ]
    for (const page of pages) expect(await got(page)).toEqual(await expected(page))
    expect((await got(records)).filter(Boolean)).toHaveLength(marked.length + 1)
    expect((await read([records[0]!])).get(records[0]!.key)?.note).toBe(`n${records[0]!.key}`)
    expect((await read([records[19]!])).get(records[19]!.key)?.note).toBe(`n${records[19]!.key}`)
    expect((await read([records[7]!])).get(records[7]!.key)?.note).toBe('orphan')
  })

  it('rejects a plan whose rows belong to another connection', async () => {
    await expect(
      applyPlan(
        db,
        {
          connectionId: CONN,
          puts: [mark(k(1), { connectionId: 'other' })],
          deletes: [],
          audit: [],
        },
        [ref(k(1))],
      ),
    ).rejects.toThrow(/connection/)
    await expect(
      applyPlan(
        db,
        {
          connectionId: CONN,
          puts: [mark(k(1))],
          deletes: [],
          audit: [auditEntry({ connectionId: 'other', key: k(1) })],
        },
        [ref(k(1))],
      ),
    ).rejects.toThrow(/connection/)
    expect(await storedMarks(db)).toEqual([])
    expect(await db.audit.count()).toBe(0)
  })

  it('rejects, atomically, a plan that puts or deletes a record not among its refs', async () => {
    await putMarks(db, [mark(k(9), { state: 'unreconciled', note: 'keep' })])
    const before = await storedMarks(db)
    // A put of a record that was not named.
    await expect(
      applyPlan(
        db,
        {
          connectionId: CONN,
          puts: [mark(k(1)), mark(k(2))],
          deletes: [],
          audit: [auditEntry({ key: k(1) })],
        },
        [ref(k(1))],
      ),
    ).rejects.toThrow(`${k(2)} was not among the records read`)
    // A delete of a stored mark whose record was not named.
    await expect(
      applyPlan(
        db,
        { connectionId: CONN, puts: [mark(k(1))], deletes: [k(9)], audit: [auditEntry({ key: k(9) })] },
        [ref(k(1))],
      ),
    ).rejects.toThrow(`${k(9)} was not among the records read`)
    // The same through planAndApply: the planner adds a record it was not given.
    const records = [record(1)]
    await expect(
      marking.planAndApply(CONN, records, (current) => {
        const plan = markAll(records)(current)
        return { ...plan, deletes: [k(9)] }
      }),
    ).rejects.toThrow(/was not among the records read/)
    expect(await storedMarks(db)).toEqual(before)
    expect(await db.audit.count()).toBe(0)
  })

  it('raises a day row’s changed flag with a changed reconciled mark, and clears it when reconfirmed or unmarked', async () => {
    const records = [record(1, T0 + HOUR), record(2, T0 + 2 * HOUR), record(3, T0 + DAY)]
    const [a, b, c] = records as [HistoryRecord, HistoryRecord, HistoryRecord]
    const day0 = markDayOf(T0)
    const changedDays = async () =>
      (await db.markDays.where('[connectionId+changed]').equals([CONN, 1]).toArray()).map((r) => r.day)
    const listed = async () => (await repo.listChangedSinceReconciled(CONN)).map((m) => m.key).sort()

    await marking.planAndApply(CONN, records, markAll(records))
    await marking.planAndApply(CONN, [b], planning('note', [b], 'keep this'))
    expect(await changedDays()).toEqual([])
    expect(await listed()).toEqual([])

    // Sync's side, as the app stores it: the reconciled marks come back flagged.
    const flag = (m: MarkRecord | undefined) => ({ ...(m as MarkRecord), changedSinceReconciled: 1 as const })
    const current = await repo.getMany(CONN, records)
    await applyPlan(db, { connectionId: CONN, puts: current.map(flag), deletes: [], audit: [] }, records)
    expect(await changedDays()).toEqual([day0, day0 + 1])
    expect(await listed()).toEqual([a.key, b.key, c.key].sort())

    // Reconfirming one of day 0's two flagged marks leaves the row flagged.
    await marking.planAndApply(CONN, [a], planning('reconfirm', [a]))
    expect((await repo.get(CONN, a))?.changedSinceReconciled).toBe(0)
    expect(await changedDays()).toEqual([day0, day0 + 1])
    expect(await listed()).toEqual([b.key, c.key].sort())

    // Unmarking the other (it keeps its note, so the row stays) clears day 0's flag.
    await marking.planAndApply(CONN, [b], planning('unmark', [b]))
    expect(await repo.get(CONN, b)).toMatchObject({ state: 'unreconciled', note: 'keep this' })
    expect((await db.markDays.get([CONN, day0]))?.changed).toBe(0)
    expect(await changedDays()).toEqual([day0 + 1])
    expect(await listed()).toEqual([c.key])

    // Day 1's only mark reconfirmed: no flagged row is left.
    await marking.planAndApply(CONN, [c], planning('reconfirm', [c]))
    expect(await changedDays()).toEqual([])
    expect(await listed()).toEqual([])
    expect((await db.markDays.get([CONN, day0 + 1]))?.changed).toBe(0)
  })

  describe('flagChangedMarks', () => {
    const fp = (r: HistoryRecord): string => `fp-${r.amount}-${r.status}`

    it('flags only reconciled marks whose fingerprint differs, changing nothing else', async () => {
      const same = record(1, T0)
      const changed = record(2, T0 + HOUR)
      const noted = record(3, T0 + DAY)
      const flagged = record(4, T0 + DAY)
      const later = record(6, T0 + 2 * DAY)
      const records = [same, changed, noted, flagged, record(5, T0 + 2 * DAY), later]
      const marks = [
        mark(same.key, { fingerprint: fp(same), note: 'same' }),
        mark(changed.key, { fingerprint: 'fp-old', note: 'checked by bob', updatedBy: 'bob' }),
        // Unreconciled: it has no fingerprint to compare.
        mark(noted.key, { state: 'unreconciled', note: 'a note', fingerprint: null }),
        // Already flagged: left alone, not reported again.
        mark(flagged.key, { fingerprint: 'fp-old', changedSinceReconciled: 1 }),
        mark(later.key, { fingerprint: 'fp-older', matchRef: 'orders:x:1' }),
      ]
      // Another connection's mark under the same key, with a stale fingerprint: not this sync's.
      const others = [mark(changed.key, { connectionId: 'other', fingerprint: 'fp-old' })]
      await putMarks(db, [...marks, ...others], timesOf(records))

      const keys = await db.transaction('rw', db.markDays, () =>
        flagChangedMarks(db.markDays, CONN, records, fp),
      )
      expect(keys).toEqual([changed.key, later.key])

      const stored = await repo.getMany(CONN, records)
      expect(stored).toEqual([
        marks[0],
        { ...marks[1], changedSinceReconciled: 1 },
        marks[2],
        marks[3],
        undefined,
        { ...marks[4], changedSinceReconciled: 1 },
      ])
      expect(await repo.all('other')).toEqual(others)
      expect((await repo.listChangedSinceReconciled(CONN)).map((m) => m.key).sort()).toEqual(
        [changed.key, flagged.key, later.key].sort(),
      )
      const day0 = markDayOf(T0)
      expect(
        (await db.markDays.where('[connectionId+changed]').equals([CONN, 1]).toArray()).map((r) => r.day),
      ).toEqual([day0, day0 + 1, day0 + 2])
      expect((await db.markDays.get(['other', day0]))?.changed).toBe(0)

      // Run again: nothing new to flag, nothing written.
      const rowsBefore = await db.markDays.toArray()
      expect(
        await db.transaction('rw', db.markDays, () => flagChangedMarks(db.markDays, CONN, records, fp)),
      ).toEqual([])
      expect(await db.markDays.toArray()).toEqual(rowsBefore)
    })

    it('moves an orphan mark into its record’s day row once the record is synced', async () => {
      // A mark filed under ORPHAN_MARK_DAY (restored or migrated before its record was cached).
      const rec = record(7, T0 + DAY)
      const orphan = mark(rec.key, { fingerprint: 'fp-old', note: 'accountant note' })
      const stays = mark(record(8).key, { note: 'record still absent' })
      await db.markDays.put({ connectionId: CONN, day: ORPHAN_MARK_DAY, marks: [orphan, stays], changed: 0 })
      expect((await db.markDays.toArray()).map((r) => r.day)).toEqual([ORPHAN_MARK_DAY])
      // Before the sync, the mark is already found by its record (read through the orphan row).
      expect((await repo.get(CONN, rec))?.note).toBe('accountant note')

      const flagged = await db.transaction('rw', db.markDays, () =>
        flagChangedMarks(db.markDays, CONN, [rec], fp),
      )
      expect(flagged).toEqual([rec.key])
      const dayRow = await db.markDays.get([CONN, markDayOf(rec.createdAt)])
      expect(dayRow?.marks).toEqual([{ ...orphan, changedSinceReconciled: 1 }])
      expect((await db.markDays.get([CONN, ORPHAN_MARK_DAY]))?.marks).toEqual([stays])

      // Marking it again updates the one mark (its note kept): no second mark for the key.
      await marking.planAndApply(CONN, [rec], (current) =>
        planMarks({
          action: 'reconfirm',
          records: [rec],
          marks: current.marks,
          locks: current.locks,
          actor: 'alice',
          now: T0 + 9 * DAY,
          timeZone: 'UTC',
        }),
      )
      const all = await repo.all(CONN)
      expect(all.filter((m) => m.key === rec.key)).toEqual([
        expect.objectContaining({ note: 'accountant note', changedSinceReconciled: 0 }),
      ])
    })

    it('moves an orphan mark that did not change too, without reporting it', async () => {
      const rec = record(9, T0)
      const orphan = mark(rec.key, { fingerprint: fp(rec) })
      await db.markDays.put({ connectionId: CONN, day: ORPHAN_MARK_DAY, marks: [orphan], changed: 0 })
      expect(
        await db.transaction('rw', db.markDays, () => flagChangedMarks(db.markDays, CONN, [rec], fp)),
      ).toEqual([])
      expect(await db.markDays.get([CONN, ORPHAN_MARK_DAY])).toBeUndefined()
      expect((await db.markDays.get([CONN, markDayOf(T0)]))?.marks).toEqual([orphan])
    })

    it('returns nothing and writes nothing for records without marks', async () => {
      const records = [record(1), record(2, T0 + DAY)]
      expect(
        await db.transaction('rw', db.markDays, () => flagChangedMarks(db.markDays, CONN, records, fp)),
      ).toEqual([])
      expect(await db.markDays.count()).toBe(0)
    })
  })

  describe('planAndApply', () => {
    it('plans on the marks and locks read inside the transaction, and writes the plan', async () => {
      await putMarks(db, [mark(record(1).key, { state: 'unreconciled', note: 'keep me', fingerprint: null })])
      await db.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0, lockedBy: 'bob' })
      const records = [record(1), record(2), record(3, Date.parse('2026-09-30T12:00:00Z'))]
      const { plan, result } = await marking.planAndApply(CONN, records, markAll(records))
      // The September record is refused (locked), not a reason to refuse the whole batch.
      expect(plan.refused).toEqual([{ key: records[2]?.key, reason: 'period_locked' }])
      expect(result.put).toBe(2)
      // One action: one audit row holding both changes.
      expect(result.auditSeqs).toHaveLength(1)
      const stored = await repo.getMany(CONN, records)
      expect(stored.map((m) => m?.state)).toEqual(['reconciled', 'reconciled', undefined])
      // The existing note was seen by the planner and kept.
      expect(stored[0]?.note).toBe('keep me')
      const audit = await storedAudit(db)
      expect(
        audit.map((a) => [a.seq, a.part, a.key, (a.before as { note?: string } | null)?.note ?? null]),
      ).toEqual([
        [result.auditSeqs[0], 0, records[0]?.key, 'keep me'],
        [result.auditSeqs[0], 1, records[1]?.key, null],
      ])
    })

    it('writes nothing when a write fails halfway through a bulk apply', async () => {
      // Over 62 days (three months): many day rows are written before the audit fails.
      const records = Array.from({ length: 500 }, (_, i) => record(i, T0 + i * 3 * HOUR))
      await putMarks(
        db,
        [mark(records[7]?.key as RecordKey, { state: 'unreconciled', note: 'n', fingerprint: null })],
        timesOf(records),
      )
      const rowsBefore = await db.markDays.toArray()
      await expect(
        marking.planAndApply(CONN, records, (current) => {
          const plan = markAll(records)(current)
          // An audit row IndexedDB cannot clone, between two good ones: the marks were already put.
          const audit: AuditEntry[] = [...plan.audit]
          audit.splice(250, 0, auditEntry({ key: records[0]?.key ?? null, action: 'note', after: () => 1 }))
          return { ...plan, audit }
        }),
      ).rejects.toThrow()
      expect(await storedMarks(db)).toHaveLength(1)
      expect(await db.markDays.toArray()).toEqual(rowsBefore)
      expect((await repo.get(CONN, records[7] as HistoryRecord))?.state).toBe('unreconciled')
      expect(await db.audit.count()).toBe(0)
    })

    it('refuses, atomically, a plan that touches a locked mark the planner did not plan for', async () => {
      await putMarks(db, [mark(k(5), { period: '2026-09' })], () => T0 - DAY)
      await db.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0, lockedBy: 'alice' })
      const records = [record(1)]
      await expect(
        marking.planAndApply(CONN, [...records, ref(k(5), T0 - DAY)], (current) => {
          // The planner saw the lock and the mark...
          expect(current.locks.has('2026-09')).toBe(true)
          expect(current.marks.get(k(5))?.period).toBe('2026-09')
          const plan = markAll(records)(current)
          return { ...plan, deletes: [k(5)] }
        }),
      ).rejects.toBeInstanceOf(PeriodLockedError)
      expect(await repo.get(CONN, ref(k(5), T0 - DAY))).toBeDefined()
      expect(await repo.get(CONN, records[0] as HistoryRecord)).toBeUndefined()
      expect(await storedMarks(db)).toHaveLength(1)
      expect(await db.audit.count()).toBe(0)
    })

    it('sees only the named records’ current marks, and keeps the other marks of their day rows', async () => {
      // Over about four days.
      const records = Array.from({ length: 1200 }, (_, i) => record(i, T0 + i * 5 * 60_000))
      const noted = (r: HistoryRecord) =>
        mark(r.key, { state: 'unreconciled', note: `note ${r.key}`, fingerprint: null })
      for (const extra of [0, 2000]) {
        await db.markDays.clear()
        // Another connection's mark under the same key, on the same day, must never be taken for this one's.
        const notMine = mark(records[1]?.key as RecordKey, { connectionId: 'other', note: 'not mine' })
        // Unrelated marks on the same days (with 2000, more marks than records named).
        const unrelated = Array.from({ length: extra }, (_, i) => mark(k(50_000 + i), { note: `u${i}` }))
        const unrelatedAt = (m: MarkRecord) => T0 + (Number.parseInt(m.note.slice(1), 10) % 4) * DAY
        await putMarks(
          db,
          [notMine, ...records.filter((_, i) => i % 2 === 0).map(noted), ...unrelated],
          (m) => (m.note.startsWith('u') ? unrelatedAt(m) : timesOf(records)(m)),
        )
        await db.audit.clear()
        const { plan } = await marking.planAndApply(CONN, records, markAll(records))
        expect(plan.puts).toHaveLength(1200)
        expect(plan.puts.filter((m) => m.note.startsWith('note ')).length).toBe(600)
        expect(plan.puts.some((m) => m.note === 'not mine')).toBe(false)
        const befores = (await storedAudit(db)).filter((a) => a.before !== null)
        expect(befores).toHaveLength(600)
        // Rewriting the day rows kept what the plan did not touch.
        expect(await repo.all('other')).toEqual([notMine])
        const all = await repo.all(CONN)
        expect(all).toHaveLength(1200 + extra)
        expect(all.filter((m) => m.note.startsWith('u'))).toHaveLength(extra)
        expect(new Set(all.map((m) => m.key)).size).toBe(1200 + extra)
      }
    })

    it('cancelled while it writes, rolls back: no mark and no audit row lands', async () => {
      const records = Array.from({ length: 2000 }, (_, i) => record(i, T0 + i * HOUR))
      const controller = new AbortController()
      await expect(
        marking.planAndApply(
          CONN,
          records,
          (current) => {
            // Cancel once the writes have been issued.
            setTimeout(() => controller.abort(), 0)
            return markAll(records)(current)
          },
          { signal: controller.signal },
        ),
      ).rejects.toThrow()
      expect(await storedMarks(db)).toEqual([])
      expect(await db.markDays.count()).toBe(0)
      expect(await db.audit.count()).toBe(0)
      // A signal already aborted never opens the transaction.
      await expect(
        marking.planAndApply(CONN, [records[0] as HistoryRecord], markAll(records.slice(0, 1)), {
          signal: controller.signal,
        }),
      ).rejects.toThrow()
      expect(await db.markDays.count()).toBe(0)
      expect(await db.audit.count()).toBe(0)
    })

    it('marks 10k records in one audit row, and undo restores every one', async () => {
      // One every four minutes: 10k records over 28 days of October.
      const records = Array.from({ length: 10_000 }, (_, i) => record(i, T0 + i * 4 * 60_000))
      const days = new Set(records.map((r) => markDayOf(r.createdAt)))
      expect(days.size).toBe(28)
      // Some records already carry a note: undo must bring those marks back, not delete them.
      const noted = records
        .slice(0, 100)
        .map((r) => mark(r.key, { state: 'unreconciled', note: `n${r.key}`, fingerprint: null }))
      await putMarks(db, noted, timesOf(records))
      const reconciled = async () => (await repo.all(CONN)).filter((m) => m.state === 'reconciled').length

      const { plan, result } = await marking.planAndApply(CONN, records, markAll(records))
      expect(plan.puts).toHaveLength(10_000)
      expect(result.auditSeqs).toHaveLength(1)
      expect(await db.audit.count()).toBe(1)
      expect(await db.markDays.count()).toBe(28)
      expect(await reconciled()).toBe(10_000)
      const entries = await storedAudit(db)
      expect(entries).toHaveLength(10_000)
      expect(new Set(entries.map((e) => e.key)).size).toBe(10_000)
      expect(
        entries.every(
          (e) =>
            e.action === 'mark' &&
            e.actor === 'alice' &&
            e.at === T0 + 99 * HOUR &&
            e.seq === result.auditSeqs[0],
        ),
      ).toBe(true)

      const undone = await marking.planAndApply(CONN, records, (current) =>
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
      expect(undone.result.auditSeqs).toHaveLength(1)
      expect(await reconciled()).toBe(0)
      expect((await storedMarks(db)).map((m) => m.note).sort()).toEqual(noted.map((m) => m.note).sort())
      // Only the noted records' day rows are left (the first 100 records: 400 minutes of day 0).
      expect((await dayRows()).map(([d]) => d)).toEqual([markDayOf(T0)])
      expect(await db.audit.count()).toBe(2)
      const all = await storedAudit(db)
      expect(all).toHaveLength(20_000)
      expect(all.slice(10_000).every((e) => e.action === 'unmark' && e.reason === 'undo')).toBe(true)
    })

    it("tags a row of many changes by its records' days, and a record's trail finds its own changes through them", async () => {
      // 150 records over four days, plus one more on the first day marked alone.
      const records = Array.from({ length: 150 }, (_, i) => record(i + 1, T0 + i * 30 * 60_000))
      const alone = record(500, T0 + 5 * 60_000)
      const never = record(501, T0 + 6 * 60_000)
      const bulk = await marking.planAndApply(CONN, records, markAll(records))
      const single = await marking.planAndApply(CONN, [alone], markAll([alone]))
      const small = records.slice(0, DAY_TAGGED_CHANGES)
      const again = await marking.planAndApply(CONN, small, planning('unmark', small))

      const days = [...new Set(records.map((r) => markDayOf(r.createdAt)))]
      expect(days).toHaveLength(4)
      const bulkRow = await db.audit.get(bulk.result.auditSeqs[0] as number)
      expect(bulkRow?.changes).toHaveLength(150)
      expect(bulkRow?.keyTags).toEqual(days.map((d) => auditDayTag(CONN, d)))
      // A row of a few changes (one, or exactly the limit) keeps a tag per record.
      expect((await db.audit.get(single.result.auditSeqs[0] as number))?.keyTags).toEqual([
        auditTag(CONN, alone.key),
      ])
      expect((await db.audit.get(again.result.auditSeqs[0] as number))?.keyTags).toEqual(
        small.map((r) => auditTag(CONN, r.key)),
      )

      const audits = new AuditRepository(db)
      const trail = async (r: HistoryRecord) =>
        (await audits.listByKey(CONN, r)).map((e) => [e.seq, e.part, e.action, e.key])
      const [bulkSeq] = bulk.result.auditSeqs
      const [againSeq] = again.result.auditSeqs
      expect(await trail(records[0]!)).toEqual([
        [bulkSeq, 0, 'mark', records[0]!.key],
        [againSeq, 0, 'unmark', records[0]!.key],
      ])
      expect(await trail(records[149]!)).toEqual([[bulkSeq, 149, 'mark', records[149]!.key]])
      // Records of the bulk row's first day that it does not hold: only their own changes, or none.
      expect(await trail(alone)).toEqual([[single.result.auditSeqs[0], 0, 'mark', alone.key]])
      expect(await trail(never)).toEqual([])
      expect(await audits.listByKey('other', records[0]!)).toEqual([])
      // Without the records' days (a backup's entries, restored), the same row is tagged per record.
      const [rebuilt] = auditRowsOf(auditEntriesOf(bulkRow!))
      expect(rebuilt?.keyTags).toEqual(records.map((r) => auditTag(CONN, r.key)))
    })

    it('writes a bulk mark over D days as D day rows, and deletes a day row with its last mark', async () => {
      const day0 = markDayOf(T0)
      const r3 = record(3, T0 + DAY + HOUR)
      const r4 = record(4, T0 + 3 * DAY + 2 * HOUR)
      const r5 = record(5, T0 + 3 * DAY + 20 * HOUR)
      const records = [record(1, T0 + HOUR), record(2, T0 + 5 * HOUR), r3, r4, r5]
      const { result } = await marking.planAndApply(CONN, records, markAll(records))
      expect(result.put).toBe(5)
      expect(await db.markDays.count()).toBe(3)
      expect(await dayRows()).toEqual([
        [day0, [k(1), k(2)].sort()],
        [day0 + 1, [k(3)]],
        [day0 + 3, [k(4), k(5)].sort()],
      ])
      expect((await db.markDays.get([CONN, day0]))?.marks.every((m) => m.state === 'reconciled')).toBe(true)

      // Day 1's only mark goes: so does its row.
      await marking.planAndApply(CONN, [r3], planning('unmark', [r3]))
      expect(await db.markDays.get([CONN, day0 + 1])).toBeUndefined()
      expect(await db.markDays.count()).toBe(2)
      // One of day 3's two: the row stays with the other.
      await marking.planAndApply(CONN, [r4], planning('unmark', [r4]))
      expect(await dayRows()).toEqual([
        [day0, [k(1), k(2)].sort()],
        [day0 + 3, [k(5)]],
      ])
      await marking.planAndApply(CONN, [r5], planning('unmark', [r5]))
      expect(await dayRows()).toEqual([[day0, [k(1), k(2)].sort()]])
      expect(await repo.getMany(CONN, [r3, r4, r5])).toEqual([undefined, undefined, undefined])
    })

    it('audits a bulk action as one row, found by key and by period through the tag indexes', async () => {
      // Four September records, six October ones.
      const records = Array.from({ length: 10 }, (_, i) =>
        record(i + 1, i < 4 ? T0 - (i + 1) * DAY : T0 + i * HOUR),
      )
      const others = records.map((r, i) => record(i + 1, r.createdAt, 'other'))
      const mine = await marking.planAndApply(CONN, records, markAll(records))
      const theirs = await marking.planAndApply('other', others, markAll(others))
      const [seq] = mine.result.auditSeqs
      const [otherSeq] = theirs.result.auditSeqs
      expect(mine.result.auditSeqs).toHaveLength(1)
      expect(theirs.result.auditSeqs).toHaveLength(1)
      expect(await db.audit.count()).toBe(2)

      const row = await db.audit.get(seq as number)
      expect(row?.connectionId).toBe(CONN)
      expect(row?.changes.map((c) => c.key)).toEqual(records.map((r) => r.key))
      expect(row?.changes.map((c) => c.period)).toEqual([
        ...Array<string>(4).fill('2026-09'),
        ...Array<string>(6).fill('2026-10'),
      ])
      expect(row?.keyTags).toEqual(records.map((r) => auditTag(CONN, r.key)))
      expect(row?.periodTags).toEqual([auditTag(CONN, '2026-09'), auditTag(CONN, '2026-10')])
      // The multi-entry indexes hold the row once per tag, per connection.
      const key6 = records[6]?.key as RecordKey
      expect(await db.audit.where('keyTags').equals(auditTag(CONN, key6)).primaryKeys()).toEqual([seq])
      expect(await db.audit.where('periodTags').equals(auditTag('other', '2026-09')).primaryKeys()).toEqual([
        otherSeq,
      ])

      const audits = new AuditRepository(db)
      const byKey = await audits.listByKey(CONN, records[6]!)
      expect(byKey).toHaveLength(1)
      expect(byKey[0]).toMatchObject({
        seq,
        part: 6,
        key: key6,
        connectionId: CONN,
        action: 'mark',
        period: '2026-10',
      })
      expect((byKey[0]?.after as MarkRecord).state).toBe('reconciled')
      expect(
        (await audits.listByKey('other', others[6]!)).map((e) => [e.seq, e.part, e.connectionId]),
      ).toEqual([[otherSeq, 6, 'other']])
      const september = await audits.listByPeriod(CONN, '2026-09')
      expect(september.map((e) => [e.seq, e.part, e.key])).toEqual(
        records.slice(0, 4).map((r, i) => [seq, i, r.key]),
      )
      expect((await audits.listByPeriod(CONN, '2026-10')).map((e) => e.part)).toEqual([4, 5, 6, 7, 8, 9])
      expect(await audits.listByPeriod(CONN, '2026-11')).toEqual([])
      expect(await audits.listByKey(CONN, { key: k(999), createdAt: T0 })).toEqual([])
      expect(await audits.count(CONN)).toBe(10)
      expect((await audits.listByConnection(CONN)).map((e) => e.part)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    })
  })
})
