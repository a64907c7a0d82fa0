import { describe, expect, it } from 'vitest'
import type { AuditEntry, MarkRecord, PeriodLock, RecordKey } from '../../../../src/domain/records'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import {
  planClosePeriod,
  planMarks,
  planReopenPeriod,
  planUndo,
  planUnlink,
  IMPORT_REMOVED,
  type MarkPlan,
  type PlanMarksInput,
} from '../../../../src/reconcile/marking'
import { CONN, history } from './fixtures'

const TZ = 'Asia/Tokyo'
const NOW = Date.parse('2026-11-05T00:00:00Z')
const a = history(1) // 2026-10-15
const b = history(2, { amount: 2500 })
/** The month-end charge of DESIGN §4: November in Tokyo, October in UTC. */
const monthEnd = history(3, { created_on: '2026-10-31T16:30:00Z' })

function plan(over: Partial<PlanMarksInput>): MarkPlan {
  return planMarks({
    action: 'mark',
    records: [a],
    marks: new Map(),
    locks: new Set(),
    actor: 'alice',
    now: NOW,
    timeZone: TZ,
    ...over,
  })
}

/** Applies a plan to a marks map, as the repository would. */
function apply(marks: Map<RecordKey, MarkRecord>, p: MarkPlan): Map<RecordKey, MarkRecord> {
  const next = new Map(marks)
  for (const k of p.deletes) next.delete(k)
  for (const m of p.puts) next.set(m.key, m)
  return next
}

describe('planMarks: mark', () => {
  it('marks unmarked records with their fingerprint and period, audited with before/after', () => {
    const p = plan({ records: [a, b] })
    expect(p.refused).toEqual([])
    expect(p.deletes).toEqual([])
    expect(p.puts).toHaveLength(2)
    expect(p.puts[0]).toEqual({
      connectionId: CONN,
      key: a.key,
      state: 'reconciled',
      note: '',
      fingerprint: fingerprintOf(a),
      changedSinceReconciled: 0,
      period: '2026-10',
      updatedAt: NOW,
      updatedBy: 'alice',
    })
    expect(p.audit).toHaveLength(2)
    expect(p.audit[0]).toMatchObject({
      action: 'mark',
      key: a.key,
      period: '2026-10',
      actor: 'alice',
      at: NOW,
    })
    expect(p.audit[0]?.before).toBeNull()
    expect(p.audit[0]?.after).toEqual(p.puts[0])
  })

  it('plans on record targets (a digest’s key, time and fingerprint) exactly as on the records', () => {
    const target = (r: typeof a) => ({
      connectionId: r.connectionId,
      key: r.key,
      createdAt: r.createdAt,
      fingerprint: fingerprintOf(r),
    })
    for (const action of ['mark', 'reconfirm', 'unmark'] as const) {
      const marks = action === 'mark' ? new Map() : apply(new Map(), plan({ records: [a, monthEnd] }))
      expect(plan({ action, marks, records: [target(a), target(monthEnd)] })).toEqual(
        plan({ action, marks, records: [a, monthEnd] }),
      )
    }
    // The target's fingerprint is the one recorded: it is not recomputed from anything else.
    const p = plan({ records: [{ ...target(a), fingerprint: 'given' }] })
    expect(p.puts[0]?.fingerprint).toBe('given')
  })

  it('takes the period from the accounting time zone', () => {
    expect(plan({ records: [monthEnd], timeZone: 'Asia/Tokyo' }).puts[0]?.period).toBe('2026-11')
    expect(plan({ records: [monthEnd], timeZone: 'UTC' }).puts[0]?.period).toBe('2026-10')
  })

  it('is a no-op for a record already reconciled on the same data', () => {
    const marks = apply(new Map(), plan({}))
    const again = plan({ marks, now: NOW + 1000 })
    expect(again).toEqual({ puts: [], deletes: [], audit: [], refused: [] })
  })

  it('re-marks a record whose data changed, keeping the note', () => {
    const marks = apply(new Map(), plan({ action: 'note', note: 'checked with bank' }))
    const marked = apply(marks, plan({ marks }))
    const changed = history(1, { amount: 900 })
    const p = plan({ records: [changed], marks: marked })
    expect(p.puts[0]).toMatchObject({ fingerprint: fingerprintOf(changed), note: 'checked with bank' })
    expect(p.audit[0]?.before).toEqual(marked.get(a.key))
  })

  it('takes the note given with the mark; without one it keeps the existing note', () => {
    const first = plan({ note: '  matched to deposit 0915 ' })
    expect(first.puts[0]?.note).toBe('matched to deposit 0915')
    const marks = apply(new Map(), first)
    const unmarked = apply(marks, plan({ action: 'unmark', marks }))
    const again = plan({ marks: unmarked })
    expect(again.puts[0]?.note).toBe('matched to deposit 0915')
    expect(again.puts[0]?.state).toBe('reconciled')
  })

  it('links a mark made from an accepted match to the imported row', () => {
    const links = new Map([[a.key, { source: 'orders' as const, importId: 'imp-1', line: 12 }]])
    const p = plan({ records: [a, b], links, note: 'order ORD-1' })
    expect(p.puts.find((m) => m.key === a.key)?.matchRef).toBe('orders:imp-1:12')
    expect(p.puts.find((m) => m.key === b.key)?.matchRef).toBeUndefined()
    expect(p.audit[0]?.after).toMatchObject({ matchRef: 'orders:imp-1:12' })
  })

  it('a link of one side keeps the other side’s link that the mark holds', () => {
    const sales = plan({ links: new Map([[a.key, { source: 'orders', importId: 'o-1', line: 3 }]]) })
    const marks = apply(new Map(), sales)
    const cash = plan({ marks, links: new Map([[a.key, { source: 'bank', importId: 'b-1', line: 9 }]]) })
    expect(cash.puts[0]?.matchRef).toBe('orders:o-1:3 bank:b-1:9')
    expect(cash.audit[0]?.before).toMatchObject({ matchRef: 'orders:o-1:3' })
  })

  it('handles a record listed twice once', () => {
    expect(plan({ records: [a, a] }).puts).toHaveLength(1)
  })
})

describe('planMarks: locked periods', () => {
  it('refuses every record of a locked period and changes nothing', () => {
    const p = plan({ records: [a, b], locks: new Set(['2026-10']) })
    expect(p.puts).toEqual([])
    expect(p.audit).toEqual([])
    expect(p.refused).toEqual([
      { key: a.key, reason: 'period_locked' },
      { key: b.key, reason: 'period_locked' },
    ])
  })

  it('locks by the accounting zone: the month-end charge is free in Tokyo, locked in UTC', () => {
    const locks = new Set(['2026-10'])
    expect(plan({ records: [monthEnd], locks, timeZone: 'Asia/Tokyo' }).puts).toHaveLength(1)
    expect(plan({ records: [monthEnd], locks, timeZone: 'UTC' }).refused).toHaveLength(1)
  })

  it('also honours the period stored on the mark, and accepts lock rows', () => {
    const marks = apply(new Map(), plan({ records: [monthEnd], timeZone: 'UTC' })) // mark period 2026-10
    const lock: PeriodLock = { connectionId: CONN, period: '2026-10', lockedAt: 0, lockedBy: 'bob' }
    const p = plan({ action: 'unmark', records: [monthEnd], marks, locks: new Map([['2026-10', lock]]) })
    expect(p.refused).toEqual([{ key: monthEnd.key, reason: 'period_locked' }])
    expect(p.deletes).toEqual([])
  })

  it('only refuses the locked records of a mixed selection', () => {
    const p = plan({ records: [a, monthEnd], locks: new Set(['2026-10']) })
    expect(p.puts.map((m) => m.key)).toEqual([monthEnd.key])
    expect(p.refused.map((r) => r.key)).toEqual([a.key])
  })
})

describe('planMarks: unmark, note, reconfirm', () => {
  it('unmark deletes a mark without a note and is a no-op when not reconciled', () => {
    const marks = apply(new Map(), plan({}))
    const p = plan({ action: 'unmark', marks })
    expect(p.deletes).toEqual([a.key])
    expect(p.audit[0]).toMatchObject({ action: 'unmark', after: null })
    expect(p.audit[0]?.before).toEqual(marks.get(a.key))
    expect(plan({ action: 'unmark' })).toEqual({ puts: [], deletes: [], audit: [], refused: [] })
  })

  it('unmark keeps the note and drops the match link', () => {
    let marks = apply(new Map(), plan({ action: 'note', note: 'see invoice 12' }))
    marks = apply(marks, plan({ marks }))
    marks.set(a.key, { ...marks.get(a.key)!, matchRef: 'bank:7' })
    const p = plan({ action: 'unmark', marks })
    expect(p.puts).toHaveLength(1)
    expect(p.puts[0]).toMatchObject({ state: 'unreconciled', note: 'see invoice 12', fingerprint: null })
    expect(p.puts[0]).not.toHaveProperty('matchRef')
  })

  it('note creates, edits and clears, and needs a note', () => {
    const created = plan({ action: 'note', note: '  late deposit  ' })
    expect(created.puts[0]).toMatchObject({ state: 'unreconciled', note: 'late deposit' })
    const marks = apply(new Map(), created)
    expect(plan({ action: 'note', note: 'late deposit', marks }).audit).toEqual([])
    const cleared = plan({ action: 'note', note: ' ', marks })
    expect(cleared.deletes).toEqual([a.key])
    expect(cleared.audit[0]).toMatchObject({ action: 'note', after: null })
    expect(() => plan({ action: 'note' })).toThrow(/needs a note/)
  })

  it('note on a reconciled mark keeps it reconciled', () => {
    const marks = apply(new Map(), plan({}))
    const p = plan({ action: 'note', note: 'ok', marks })
    expect(p.puts[0]).toMatchObject({ state: 'reconciled', note: 'ok', fingerprint: fingerprintOf(a) })
  })

  it('reconfirm takes the changed data as checked and clears the flag; no-op when unchanged', () => {
    const marks = apply(new Map(), plan({}))
    const changed = history(1, { status: 'refunded' })
    marks.set(a.key, { ...marks.get(a.key)!, changedSinceReconciled: 1 })
    const p = plan({ action: 'reconfirm', records: [changed], marks })
    expect(p.puts[0]).toMatchObject({ fingerprint: fingerprintOf(changed), changedSinceReconciled: 0 })
    expect(p.audit[0]?.action).toBe('reconfirm')
    const settled = apply(marks, p)
    expect(plan({ action: 'reconfirm', records: [changed], marks: settled }).audit).toEqual([])
    expect(plan({ action: 'reconfirm' }).puts).toEqual([]) // nothing to reconfirm when unmarked
  })
})

describe('planUnlink (removing an import)', () => {
  const orders = { source: 'orders' as const, importId: 'o-1', line: 3 }
  const bank = { source: 'bank' as const, importId: 'b-1', line: 9 }
  const unlink = (marks: Map<RecordKey, MarkRecord>, locks: ReadonlySet<string> = new Set()) =>
    planUnlink({ records: [a, b], marks, locks, importId: 'o-1', actor: 'carol', now: NOW + 1, timeZone: TZ })

  it('unmarks what only the import reconciled, keeps the note, and only drops the link elsewhere', () => {
    let marks = apply(new Map(), plan({ records: [a], links: new Map([[a.key, orders]]) }))
    marks = apply(marks, plan({ records: [b], links: new Map([[b.key, orders]]), note: 'called them' }))
    marks = apply(marks, plan({ records: [b], marks, links: new Map([[b.key, bank]]) }))
    const p = unlink(marks)
    expect(p.deletes).toEqual([a.key])
    // b is still paid by a deposit: reconciled, same fingerprint, only the order link goes.
    expect(p.puts).toEqual([
      { ...marks.get(b.key), matchRef: 'bank:b-1:9', updatedAt: NOW + 1, updatedBy: 'carol' },
    ])
    expect(p.audit.map((e) => [e.action, e.key, e.reason])).toEqual([
      ['unmark', a.key, IMPORT_REMOVED],
      ['mark', b.key, IMPORT_REMOVED],
    ])
    expect(p.audit[1]?.before).toEqual(marks.get(b.key))
  })

  it('refuses a closed period and ignores marks not linked to the import', () => {
    const marks = apply(new Map(), plan({ records: [a], links: new Map([[a.key, orders]]) }))
    expect(unlink(marks, new Set(['2026-10'])).refused).toEqual([{ key: a.key, reason: 'period_locked' }])
    expect(unlink(apply(new Map(), plan({ records: [a, b] })))).toEqual({
      puts: [],
      deletes: [],
      audit: [],
      refused: [],
    })
  })
})

describe('planUndo', () => {
  it('reverses a batch: marked records return to their previous state', () => {
    let marks = apply(new Map(), plan({ action: 'note', note: 'keep me', records: [b] }))
    const before = new Map(marks)
    const p = plan({ records: [a, b], marks })
    marks = apply(marks, p)
    const undo = planUndo({ entries: p.audit, marks, locks: new Set(), actor: 'carol', now: NOW + 5 })
    expect(undo.refused).toEqual([])
    expect(undo.deletes).toEqual([a.key])
    expect(undo.puts).toHaveLength(1)
    expect(undo.puts[0]).toMatchObject({ ...before.get(b.key), updatedAt: NOW + 5, updatedBy: 'carol' })
    expect(undo.audit.map((e) => [e.action, e.key, e.reason])).toEqual([
      ['unmark', b.key, 'undo'],
      ['unmark', a.key, 'undo'],
    ])
    const restored = apply(marks, undo)
    expect(restored.has(a.key)).toBe(false)
    expect(restored.get(b.key)?.state).toBe('unreconciled')
  })

  it('refuses keys in a period locked since, and keys changed again since', () => {
    let marks = apply(new Map(), plan({ records: [a, monthEnd] }))
    const p = plan({ action: 'note', note: 'n', records: [a, monthEnd], marks })
    marks = apply(marks, p)
    marks.set(monthEnd.key, { ...marks.get(monthEnd.key)!, note: 'edited later' })
    const undo = planUndo({ entries: p.audit, marks, locks: new Set(['2026-10']), actor: 'carol', now: NOW })
    expect(undo.refused).toEqual([
      { key: monthEnd.key, reason: 'changed_since' },
      { key: a.key, reason: 'period_locked' },
    ])
    expect(undo.puts).toEqual([])
    expect(undo.deletes).toEqual([])
    expect(undo.audit).toEqual([])
  })

  it('will not undo period actions', () => {
    const close = planClosePeriod({
      connectionId: CONN,
      period: '2026-10',
      locks: new Set(),
      actor: 'x',
      now: NOW,
    })
    const entries: AuditEntry[] = close.audit
    expect(() => planUndo({ entries, marks: new Map(), locks: new Set(), actor: 'x', now: NOW })).toThrow(
      /close-period/,
    )
  })
})

describe('planClosePeriod / planReopenPeriod', () => {
  const base = { connectionId: CONN, period: '2026-10', actor: 'alice', now: NOW }

  it('closes an open period with an audited lock, and is a no-op on a closed one', () => {
    const p = planClosePeriod({ ...base, locks: new Set() })
    expect(p.puts).toEqual([{ connectionId: CONN, period: '2026-10', lockedAt: NOW, lockedBy: 'alice' }])
    expect(p.audit[0]).toMatchObject({ action: 'close-period', key: null, period: '2026-10', before: null })
    expect(planClosePeriod({ ...base, locks: new Set(['2026-10']) })).toEqual({
      puts: [],
      deletes: [],
      audit: [],
    })
  })

  it('reopens with a required reason, audited with the lock it removes', () => {
    const lock: PeriodLock = { connectionId: CONN, period: '2026-10', lockedAt: 1, lockedBy: 'bob' }
    const locks = new Map([['2026-10', lock]])
    const p = planReopenPeriod({ ...base, locks, reason: ' late refund ' })
    expect(p.deletes).toEqual(['2026-10'])
    expect(p.audit[0]).toMatchObject({
      action: 'reopen-period',
      reason: 'late refund',
      before: lock,
      after: null,
    })
    expect(() => planReopenPeriod({ ...base, locks, reason: '  ' })).toThrow(/reason is required/)
    expect(planReopenPeriod({ ...base, locks: new Set(), reason: 'r' }).deletes).toEqual([])
  })

  it("keeps the closer's note and the records' snapshot on the lock, not the snapshot in the audit", () => {
    const snapshot = { 'charge:a': '0000abcd', 'refund:b': '1234abcd' }
    const p = planClosePeriod({ ...base, locks: new Set(), details: { note: ' all matched ', snapshot } })
    expect(p.puts[0]).toMatchObject({ lockedBy: 'alice', note: 'all matched', snapshot })
    expect(p.audit[0]?.after).toEqual({
      connectionId: CONN,
      period: '2026-10',
      lockedAt: NOW,
      lockedBy: 'alice',
      note: 'all matched',
      records: 2,
    })
    const lock = p.puts[0]
    if (!lock) throw new Error('no lock')
    const reopen = planReopenPeriod({ ...base, locks: new Map([['2026-10', lock]]), reason: 'late refund' })
    expect(reopen.audit[0]?.before).not.toHaveProperty('snapshot')
  })

  it('rejects a malformed period', () => {
    expect(() => planClosePeriod({ ...base, period: '2026/10', locks: new Set() })).toThrow(RangeError)
  })

  it('a closed then reopened period accepts marks again', () => {
    const closed = planClosePeriod({ ...base, locks: new Set() })
    const locks = new Set(closed.puts.map((l) => l.period))
    expect(plan({ locks }).refused).toHaveLength(1)
    const reopened = planReopenPeriod({ ...base, locks, reason: 'fix' })
    for (const p of reopened.deletes) locks.delete(p)
    expect(plan({ locks }).puts).toHaveLength(1)
  })
})
