import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { HistoryRepository, type HistoryQuery } from '../../../../src/db/history-repository'
import type { HistoryRecord } from '../../../../src/db/records'
import { CONN, HOUR, STORE_2, T0, checkpoint, historyItem, mark, openDb, uuid } from './fixtures'

const fingerprint = (r: HistoryRecord): string => `${r.amount}|${r.currency}|${r.status}`

function record(n: number, over: Parameters<typeof historyItem>[1] = {}, conn = CONN): HistoryRecord {
  return historyRecordOf(conn, historyItem(n, over), T0 + 1000)
}

let db: ClosebookDb
let repo: HistoryRepository

beforeEach(() => {
  db = openDb()
  repo = new HistoryRepository(db, fingerprint)
})
afterEach(() => db.close())

describe('putPage', () => {
  it('writes records and the checkpoint together', async () => {
    const res = await repo.putPage(CONN, [record(1), record(2)], checkpoint({ cursor: uuid(2), records: 2 }))
    expect(res).toEqual({ written: 2, flagged: [] })
    expect(await db.history.count()).toBe(2)
    expect((await db.checkpoints.get([CONN, checkpoint().partitionId]))?.cursor).toBe(uuid(2))
  })

  it('updates a record in place by key and never rewrites its mark', async () => {
    await repo.putPage(CONN, [record(1)], checkpoint())
    const original = record(1)
    const m = mark(original.key, {
      fingerprint: fingerprint(original),
      note: 'checked with bank',
      matchRef: 'x',
    })
    await db.marks.put(m)

    const updated = record(1, { metadata: { order_id: 'ORD-NEW' } })
    await repo.putPage(CONN, [updated], checkpoint({ cursor: uuid(1) }))

    expect(await db.history.count()).toBe(1)
    expect((await repo.get(CONN, original.key))?.orderRef).toBe('ORD-NEW')
    // Fingerprint unchanged: the mark is exactly as the accountant left it.
    expect(await db.marks.get([CONN, original.key])).toEqual(m)
  })

  it('flags a reconciled mark whose fingerprint changed, and only its flag', async () => {
    const r1 = record(1)
    const r2 = record(2)
    await repo.putPage(CONN, [r1, r2], checkpoint())
    await db.marks.bulkPut([
      mark(r1.key, { fingerprint: fingerprint(r1), note: 'n1' }),
      mark(r2.key, { fingerprint: fingerprint(r2), state: 'unreconciled', note: 'only a note' }),
    ])

    const res = await repo.putPage(
      CONN,
      [record(1, { status: 'refunded' }), record(2, { status: 'refunded' })],
      checkpoint(),
    )

    expect(res.flagged).toEqual([r1.key])
    const m1 = await db.marks.get([CONN, r1.key])
    expect(m1).toEqual(mark(r1.key, { fingerprint: fingerprint(r1), note: 'n1', changedSinceReconciled: 1 }))
    expect((await db.marks.get([CONN, r2.key]))?.changedSinceReconciled).toBe(0)
    expect((await repo.get(CONN, r1.key))?.status).toBe('refunded')
  })

  it('writes neither records nor checkpoint when the transaction fails midway', async () => {
    const r1 = record(1)
    await repo.putPage(CONN, [r1], checkpoint({ cursor: 'before' }))
    await db.marks.put(mark(r1.key, { fingerprint: 'other' }))

    // The fingerprint rule throws after bulkPut and checkpoint.put have run inside the transaction.
    const failing = new HistoryRepository(db, () => {
      throw new Error('boom')
    })
    await expect(
      failing.putPage(CONN, [record(1, { amount: 5 }), record(2)], checkpoint({ cursor: 'after' })),
    ).rejects.toThrow('boom')

    expect(await db.history.count()).toBe(1)
    expect((await repo.get(CONN, r1.key))?.amount).toBe(r1.amount)
    expect((await db.checkpoints.get([CONN, checkpoint().partitionId]))?.cursor).toBe('before')
    expect((await db.marks.get([CONN, r1.key]))?.changedSinceReconciled).toBe(0)
  })

  it('rolls back the records when the checkpoint cannot be stored', async () => {
    const bad = { ...checkpoint(), partitionId: undefined } as unknown as ReturnType<typeof checkpoint>
    await expect(repo.putPage(CONN, [record(1)], bad)).rejects.toThrow()
    expect(await db.history.count()).toBe(0)
    expect(await db.checkpoints.count()).toBe(0)
  })

  it('rejects a page that mixes connections', async () => {
    await expect(repo.putPage(CONN, [record(1, {}, 'other')], checkpoint())).rejects.toThrow(/connection/)
    expect(await db.history.count()).toBe(0)
  })
})

describe('queries', () => {
  // 12 records an hour apart: even n refunds of STORE_2 in USD/test, status failed for n % 3 === 0.
  const all = Array.from({ length: 12 }, (_, i) => {
    const n = i + 1
    return record(
      n,
      n % 2 === 0
        ? { type: 'refund', charge_id: uuid(n - 1), store_id: STORE_2, currency: 'USD', mode: 'test' }
        : { status: n % 3 === 0 ? 'failed' : 'successful' },
    )
  })
  const base: HistoryQuery = {
    connectionId: CONN,
    from: T0,
    to: T0 + 100 * HOUR,
    order: 'asc',
    offset: 0,
    limit: 100,
  }
  const ns = (rows: HistoryRecord[]): number[] => rows.map((r) => (r.createdAt - T0) / HOUR)

  beforeEach(async () => {
    await repo.putPage(CONN, all, checkpoint())
    await repo.putPage(
      'conn-b',
      [record(1, {}, 'conn-b'), record(2, {}, 'conn-b')],
      checkpoint({ connectionId: 'conn-b' }),
    )
  })

  it('orders by time in both directions and pages with offset/limit', async () => {
    expect(ns(await repo.queryPage(base))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    expect(ns(await repo.queryPage({ ...base, order: 'desc', offset: 2, limit: 3 }))).toEqual([10, 9, 8])
    expect(ns(await repo.queryPage({ ...base, offset: 10, limit: 5 }))).toEqual([11, 12])
    expect(await repo.count(base)).toBe(12)
  })

  it('keeps to the half-open time range and to the connection', async () => {
    const q = { ...base, from: T0 + 3 * HOUR, to: T0 + 6 * HOUR }
    expect(ns(await repo.queryPage(q))).toEqual([3, 4, 5])
    expect(await repo.count({ ...base, connectionId: 'conn-b' })).toBe(2)
  })

  it('filters by each indexed field, alone and combined', async () => {
    expect(ns(await repo.queryPage({ ...base, type: 'refund' }))).toEqual([2, 4, 6, 8, 10, 12])
    expect(ns(await repo.queryPage({ ...base, storeId: STORE_2, order: 'desc', limit: 2 }))).toEqual([12, 10])
    expect(ns(await repo.queryPage({ ...base, currency: 'USD', offset: 4 }))).toEqual([10, 12])
    expect(ns(await repo.queryPage({ ...base, mode: 'live' }))).toEqual([1, 3, 5, 7, 9, 11])
    expect(ns(await repo.queryPage({ ...base, status: 'failed' }))).toEqual([3, 9])
    expect(
      ns(await repo.queryPage({ ...base, status: 'successful', type: 'charge', offset: 1, limit: 2 })),
    ).toEqual([5, 7])
    expect(await repo.count({ ...base, status: 'successful', type: 'charge' })).toBe(4)
    expect(await repo.count({ ...base, storeId: STORE_2, currency: 'JPY' })).toBe(0)
  })

  it('searches ids, metadata, name and e-mail, case-insensitively', async () => {
    expect(ns(await repo.queryPage({ ...base, search: 'ord-7' }))).toEqual([7])
    expect(ns(await repo.queryPage({ ...base, search: 'HOLDER11@EXAMPLE' }))).toEqual([11])
    expect(ns(await repo.queryPage({ ...base, search: uuid(5) }))).toEqual([5, 6]) // refund 6 carries charge 5's id
    // Every term must occur: charges of Holder 1 and Holder 11.
    expect(ns(await repo.queryPage({ ...base, search: 'holder 1', type: 'charge' }))).toEqual([1, 11])
    expect(await repo.count({ ...base, search: 'holder nobody' })).toBe(0)
  })

  it('filters by reconciliation state, with offset applied after the filter', async () => {
    const byN = (n: number) => all[n - 1] as HistoryRecord
    await db.marks.bulkPut([
      mark(byN(1).key),
      mark(byN(2).key, { changedSinceReconciled: 1 }),
      mark(byN(3).key, { state: 'unreconciled', note: 'ask client' }),
      mark(byN(5).key, { changedSinceReconciled: 1 }),
    ])
    expect(ns(await repo.queryPage({ ...base, reconciled: 'reconciled' }))).toEqual([1, 2, 5])
    expect(ns(await repo.queryPage({ ...base, reconciled: 'reconciled', offset: 1, limit: 1 }))).toEqual([2])
    expect(await repo.count({ ...base, reconciled: 'unreconciled' })).toBe(9)
    expect(
      ns(await repo.queryPage({ ...base, reconciled: 'unreconciled', order: 'desc', limit: 3 })),
    ).toEqual([12, 11, 10])
    expect(ns(await repo.queryPage({ ...base, reconciled: 'changed' }))).toEqual([2, 5])
    expect(ns(await repo.queryPage({ ...base, reconciled: 'changed', order: 'desc', offset: 1 }))).toEqual([
      2,
    ])
    expect(await repo.count({ ...base, reconciled: 'changed', type: 'refund' })).toBe(1)
  })

  it('finds a charge with its refunds and lists a range', async () => {
    const rows = await repo.byChargeId(CONN, uuid(3))
    expect(rows.map((r) => r.key)).toEqual([`charge:${uuid(3)}`, `refund:${uuid(4)}`])
    expect(ns(await repo.inRange(CONN, T0 + 11 * HOUR, T0 + 20 * HOUR))).toEqual([11, 12])
  })
})
