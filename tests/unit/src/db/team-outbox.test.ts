import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { MarkingService, type MarkSnapshot } from '../../../../src/db/marking-service'
import { teamMerchantSetting, TeamRepository } from '../../../../src/db/team-repository'
import type { HistoryRecord } from '../../../../src/domain/records'
import { planMarks, type MarkAction } from '../../../../src/reconcile/marking'
import { CONN, HOUR, T0, historyItem, openDb, uuid } from './fixtures'

const record = (n: number): HistoryRecord =>
  historyRecordOf(CONN, historyItem(n, { created_on: new Date(T0 + n * 60_000).toISOString() }), 0)

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

let db: ClosebookDb
let marking: MarkingService
beforeEach(() => {
  db = openDb()
  marking = new MarkingService(db)
})
afterEach(() => db.close())

describe('marks of a shared connection join the team outbox', () => {
  it('does nothing for a connection with no team merchant (the default)', async () => {
    await marking.planAndApply(CONN, [record(1)], planning('mark', [record(1)]))
    expect(await db.teamOutbox.count()).toBe(0)
  })

  it('queues each change in the marking transaction, with base versions counting queued writes', async () => {
    await db.settings.put({ key: teamMerchantSetting(CONN), value: { merchantId: 'mer_demo', mode: 'test' } })
    const [a, b] = [record(1), record(2)]
    await marking.planAndApply(CONN, [a, b], planning('mark', [a, b]))
    await marking.planAndApply(CONN, [a], planning('note', [a], 'receipt found'))
    const queued = await new TeamRepository(db).pending('mer_demo:test')
    expect(queued.map((q) => q.marks)).toEqual([
      [
        { kind: 'charge', id: uuid(1), month: '2026-10', reconciled: true, note: '', baseVersion: 0 },
        { kind: 'charge', id: uuid(2), month: '2026-10', reconciled: true, note: '', baseVersion: 0 },
      ],
      [
        {
          kind: 'charge',
          id: uuid(1),
          month: '2026-10',
          reconciled: true,
          note: 'receipt found',
          baseVersion: 1,
        },
      ],
    ])
    expect(new Set(queued.map((q) => q.key)).size).toBe(2)
  })

  it('a marking that fails writes neither the mark nor the outbox entry', async () => {
    await db.settings.put({ key: teamMerchantSetting(CONN), value: { merchantId: 'mer_demo', mode: 'test' } })
    const failing = marking.planAndApply(CONN, [record(3)], (snapshot) => {
      const plan = planning('mark', [record(3)])(snapshot)
      return { ...plan, audit: [{ ...plan.audit[0]!, connectionId: 'another' }] }
    })
    await expect(failing).rejects.toThrow()
    expect(await db.teamOutbox.count()).toBe(0)
    expect(await db.markDays.count()).toBe(0)
  })
})

describe('writes larger than one server call', () => {
  it('are queued as writes of at most 5000 marks, each with its own key, in order', async () => {
    const marks = Array.from({ length: 12_001 }, (_, i) => ({
      kind: 'charge' as const,
      id: `ch_${i}`,
      month: '2026-10',
      reconciled: true,
      note: '',
    }))
    await new TeamRepository(db).enqueue('mer_demo:test', marks, 0)
    const rows = await new TeamRepository(db).pending('mer_demo:test')
    expect(rows.map((r) => r.marks.length)).toEqual([5000, 5000, 2001])
    expect(new Set(rows.map((r) => r.key)).size).toBe(3)
    expect(rows.flatMap((r) => r.marks.map((m) => m.id))).toEqual(marks.map((m) => m.id))
  })
})
