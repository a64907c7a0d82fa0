import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf, matchesSearch } from '../../../../src/db/history-record'
import { dayDigestRowsOf, markTargetOf } from '../../../../src/db/day-digests'
import { putTokens, tokenColumnsOf } from '../../../../src/db/day-tokens'
import {
  DEFAULT_SEARCH_LIMITS,
  HistoryRepository,
  type HistoryFilter,
  type HistoryQuery,
  type SearchLimits,
} from '../../../../src/db/history-repository'
import { MarksRepository } from '../../../../src/db/marks-repository'
import type { HistoryRecord, MarkRecord, MarkRef } from '../../../../src/domain/records'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { isChangeableStatus } from '../../../../src/domain/statuses'
import {
  CONN,
  HOUR,
  STORE_1,
  STORE_2,
  T0,
  checkpoint,
  historyItem,
  mark,
  openDb,
  putMarks,
  storedMarks,
  uuid,
} from './fixtures'
import { allHistory, countHistory } from '../../../../src/db/history-part-reads'

const fingerprint = (r: HistoryRecord): string => `${r.amount}|${r.currency}|${r.status}`

function record(n: number, over: Parameters<typeof historyItem>[1] = {}, conn = CONN): HistoryRecord {
  return historyRecordOf(conn, historyItem(n, over), T0 + 1000)
}

let db: ClosebookDb
let repo: HistoryRepository

/** Stores marks as the cache does, each in the day row of its record (one of `records`). */
async function putMarksOn(records: readonly HistoryRecord[], marks: readonly MarkRecord[]): Promise<void> {
  const at = new Map(records.map((r) => [r.key, r.createdAt]))
  await putMarks(db, marks, (m) => {
    const createdAt = at.get(m.key)
    if (createdAt === undefined) throw new Error(`no record for mark ${m.key}`)
    return createdAt
  })
}

/** The stored mark of a record, read as the app reads it. */
async function markOf(record: MarkRef): Promise<MarkRecord | undefined> {
  return new MarksRepository(db).get(CONN, record)
}

beforeEach(() => {
  db = openDb()
  repo = new HistoryRepository(db, fingerprint)
})
afterEach(() => db.close())

describe('putPage', () => {
  it('writes records and the checkpoint together', async () => {
    const res = await repo.putPage(CONN, [record(1), record(2)], checkpoint({ cursor: uuid(2), records: 2 }))
    expect(res).toEqual({ written: 2, flagged: [] })
    expect(await countHistory(db)).toBe(2)
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
    await putMarksOn([original], [m])

    const updated = record(1, { metadata: { order_id: 'ORD-NEW' } })
    await repo.putPage(CONN, [updated], checkpoint({ cursor: uuid(1) }))

    expect(await countHistory(db)).toBe(1)
    expect((await repo.get(CONN, original.key))?.orderRef).toBe('ORD-NEW')
    // Fingerprint unchanged: the mark is exactly as the accountant left it.
    expect(await markOf(original)).toEqual(m)
    expect(await storedMarks(db)).toEqual([m])
  })

  it('flags a reconciled mark whose fingerprint changed, and only its flag', async () => {
    const r1 = record(1)
    const r2 = record(2)
    await repo.putPage(CONN, [r1, r2], checkpoint())
    await putMarksOn(
      [r1, r2],
      [
        mark(r1.key, { fingerprint: fingerprint(r1), note: 'n1' }),
        mark(r2.key, { fingerprint: fingerprint(r2), state: 'unreconciled', note: 'only a note' }),
      ],
    )

    const res = await repo.putPage(
      CONN,
      [record(1, { status: 'refunded' }), record(2, { status: 'refunded' })],
      checkpoint(),
    )

    expect(res.flagged).toEqual([r1.key])
    const m1 = await markOf(r1)
    expect(m1).toEqual(mark(r1.key, { fingerprint: fingerprint(r1), note: 'n1', changedSinceReconciled: 1 }))
    expect((await markOf(r2))?.changedSinceReconciled).toBe(0)
    // The day row's flag follows its marks, so the changed filter finds the row.
    expect((await db.markDays.toArray()).map((d) => d.changed)).toEqual([1])
    expect((await repo.get(CONN, r1.key))?.status).toBe('refunded')
  })

  it('writes neither records nor checkpoint when the transaction fails midway', async () => {
    const r1 = record(1)
    await repo.putPage(CONN, [r1], checkpoint({ cursor: 'before' }))
    await putMarksOn([r1], [mark(r1.key, { fingerprint: 'other' })])

    // The fingerprint rule throws after bulkPut and checkpoint.put have run inside the transaction.
    const failing = new HistoryRepository(db, () => {
      throw new Error('boom')
    })
    await expect(
      failing.putPage(CONN, [record(1, { amount: 5 }), record(2)], checkpoint({ cursor: 'after' })),
    ).rejects.toThrow('boom')

    expect(await countHistory(db)).toBe(1)
    expect((await repo.get(CONN, r1.key))?.amount).toBe(r1.amount)
    expect((await db.checkpoints.get([CONN, checkpoint().partitionId]))?.cursor).toBe('before')
    expect((await markOf(r1))?.changedSinceReconciled).toBe(0)
    expect((await db.markDays.toArray()).map((d) => d.changed)).toEqual([0])
  })

  it('rolls back the records when the checkpoint cannot be stored', async () => {
    const bad = { ...checkpoint(), partitionId: undefined } as unknown as ReturnType<typeof checkpoint>
    await expect(repo.putPage(CONN, [record(1)], bad)).rejects.toThrow()
    expect(await countHistory(db)).toBe(0)
    expect(await db.checkpoints.count()).toBe(0)
  })

  it('rejects a page that mixes connections', async () => {
    await expect(repo.putPage(CONN, [record(1, {}, 'other')], checkpoint())).rejects.toThrow(/connection/)
    expect(await countHistory(db)).toBe(0)
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
    await putMarksOn(all, [
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

  it('reads every match oldest first with queryAll, whatever the filter', async () => {
    const { order: _o, offset: _off, limit: _l, ...filter } = base
    expect(ns(await repo.queryAll(filter))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    expect(ns(await repo.queryAll({ ...filter, type: 'refund', from: T0 + 5 * HOUR }))).toEqual([
      6, 8, 10, 12,
    ])
    expect(ns(await repo.queryAll({ ...filter, search: 'holder 1', type: 'charge' }))).toEqual([1, 11])
    await putMarksOn(all, [mark((all[2] as HistoryRecord).key), mark((all[6] as HistoryRecord).key)])
    expect(ns(await repo.queryAll({ ...filter, reconciled: 'reconciled' }))).toEqual([3, 7])
    expect(ns(await repo.queryAll({ ...filter, connectionId: 'conn-b' }))).toEqual([1, 2])
  })

  it('gives "mark all matching" the same records from the day digests as the records, for every filter', async () => {
    const { order: _o, offset: _off, limit: _l, ...filter } = base
    const byN = (n: number) => all[n - 1] as HistoryRecord
    await putMarksOn(all, [
      mark(byN(1).key),
      mark(byN(4).key, { changedSinceReconciled: 1 }),
      mark(byN(9).key, { state: 'unreconciled', note: 'n' }),
    ])
    const filters: HistoryFilter[] = [
      filter,
      { ...filter, from: T0 + 3 * HOUR, to: T0 + 9 * HOUR },
      { ...filter, from: T0 + 100 * HOUR },
      { ...filter, to: filter.from },
      { ...filter, type: 'refund' },
      { ...filter, storeId: STORE_2, currency: 'USD' },
      { ...filter, status: 'failed' },
      { ...filter, mode: 'live', brand: 'visa' },
      { ...filter, brand: 'nobrand' },
      { ...filter, reconciled: 'reconciled' },
      { ...filter, reconciled: 'unreconciled', type: 'charge' },
      { ...filter, reconciled: 'changed' },
      { ...filter, search: 'holder 1' },
      { ...filter, connectionId: 'conn-b' },
    ]
    for (const f of filters) {
      const expected = (await repo.queryAll(f)).map(markTargetOf)
      const targets = await repo.markTargets(f)
      expect(targets, JSON.stringify(f)).toEqual(expected)
      // The count reads the same digests (or, for search and changed, its own path): same answer.
      expect(await repo.count(f), JSON.stringify(f)).toBe(expected.length)
    }
    // Not vacuous: the filters above select different, non-empty sets.
    expect((await repo.markTargets({ ...filter, type: 'refund' })).length).toBe(6)
    expect((await repo.markTargets({ ...filter, reconciled: 'reconciled' })).map((t) => t.key)).toEqual([
      byN(1).key,
      byN(4).key,
    ])
    expect((await repo.markTargets(filter))[0]).toEqual({
      connectionId: CONN,
      key: byN(1).key,
      createdAt: byN(1).createdAt,
      fingerprint: fingerprintOf(byN(1)),
    })
  })

  it('pages and counts a field filter over a long range through the day digests, in time order', async () => {
    const DAY = 24 * HOUR
    // Refunds of STORE_2 every 10 days over a year, beside the 12 hourly records.
    const spread = Array.from({ length: 37 }, (_, i) =>
      record(100 + i, {
        created_on: new Date(T0 + (i + 1) * 10 * DAY).toISOString(),
        type: 'refund',
        charge_id: uuid(1),
        store_id: STORE_2,
      }),
    )
    await repo.putPage(CONN, spread, checkpoint())
    const year = { connectionId: CONN, from: T0, to: T0 + 400 * DAY }
    const all = (await allHistory(db)).sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : 1))
    const ofStore2 = all.filter((r) => r.storeId === STORE_2)
    expect(ofStore2).toHaveLength(6 + 37)
    expect(await repo.count({ ...year, storeId: STORE_2 })).toBe(6 + 37)
    expect(await repo.count({ ...year, storeId: STORE_2, to: T0 + 60 * DAY })).toBe(6 + 5)
    expect(await repo.count(year)).toBe(12 + 37)
    // Newest first across months (the walk reads a few days, then as many as the page still needs), and
    // any page after it: exactly the matches, in the date index's order.
    const keys = (rows: readonly HistoryRecord[]) => rows.map((r) => r.key)
    const newest = await repo.queryPage({ ...year, storeId: STORE_2, order: 'desc', offset: 0, limit: 5 })
    expect(keys(newest)).toEqual(keys(ofStore2.slice(-5).reverse()))
    const later = await repo.queryPage({ ...year, storeId: STORE_2, order: 'asc', offset: 4, limit: 30 })
    expect(keys(later)).toEqual(keys(ofStore2.slice(4, 34)))
    const refunds = await repo.queryPage({ ...year, type: 'refund', order: 'asc', offset: 0, limit: 100 })
    expect(keys(refunds)).toEqual(keys(all.filter((r) => r.type === 'refund')))
    expect(await repo.queryAll({ ...year, storeId: STORE_2, type: 'charge' })).toEqual(
      ofStore2.filter((r) => r.type === 'charge'),
    )
  })

  it('files records in day parts as lean rows: a key entry each, refund entries for refunds, status entries only for statuses that can still change', async () => {
    const pending = record(30, { status: 'pending' })
    const refund = record(31, { type: 'refund', charge_id: uuid(1) })
    await repo.putPage(CONN, [pending, refund], checkpoint())
    const all = await allHistory(db)
    expect(await db.history.count()).toBe(0)
    const entries = (index: string) => db.historyParts.orderBy(index).keys()
    expect(await entries('keys')).toHaveLength(all.length)
    const refunds = all.filter((r) => r.type === 'refund')
    expect(refunds.map((r) => r.key)).toContain(refund.key)
    expect(await entries('refundKeys')).toEqual(
      expect.arrayContaining(refunds.map((r) => [CONN, r.chargeId])),
    )
    expect(await entries('refundKeys')).toHaveLength(refunds.length)
    expect(await entries('refundTimes')).toHaveLength(refunds.length)
    const changeable = new Set(all.filter((r) => isChangeableStatus(r.status)).map((r) => r.status))
    expect(changeable).toContain('pending')
    const statuses = (await entries('facets')).flatMap((k) => {
      const [, facet, value] = k as unknown as [string, string, string]
      return facet === 'status' ? [value] : []
    })
    expect(new Set(statuses)).toEqual(changeable)
    for (const part of await db.historyParts.toArray())
      for (const row of part.rows) {
        expect(row.storeId).toBeUndefined()
        expect(row.currency).toBeUndefined()
      }
    // And every read gives the whole record back.
    expect(await repo.get(CONN, pending.key)).toEqual(pending)
    expect(await repo.getMany(CONN, [refund.key])).toEqual([refund])
  })

  it('keeps the day digests in step with the records a page replaces', async () => {
    const changed = record(3, { status: 'failed', amount: 999 })
    await repo.putPage(CONN, [changed], checkpoint())
    const [target] = await repo.markTargets({
      ...base,
      status: 'failed',
      from: T0 + 3 * HOUR,
      to: T0 + 4 * HOUR,
    })
    expect(target).toEqual(markTargetOf(changed))
    expect(await db.dayDigests.toArray()).toEqual(
      dayDigestRowsOf([...(await allHistory(db))]).sort(
        (a, b) => a.connectionId.localeCompare(b.connectionId) || a.day - b.day,
      ),
    )
  })

  it('finds a charge with its refunds and lists a range', async () => {
    const rows = await repo.byChargeId(CONN, uuid(3))
    expect(rows.map((r) => r.key)).toEqual([`charge:${uuid(3)}`, `refund:${uuid(4)}`])
    expect(ns(await repo.inRange(CONN, T0 + 11 * HOUR, T0 + 20 * HOUR))).toEqual([11, 12])
  })
})

describe('search through the token index', () => {
  const NAMES = ['Ava Dubois', 'Hiroshi Tanaka', 'Mia Schmidt', '山田 太郎', 'Avalon Tan']
  const STATUSES = ['successful', 'failed', 'pending']
  // 160 records over 5 days, four every 3 hours (ties on createdAt are ordered by key), every field
  // varied: the search files tokens by UTC day, so the set spans several days and the period cuts two.
  const generated = Array.from({ length: 160 }, (_, i) => {
    const n = i + 1
    const refund = n % 5 === 0
    const item = historyItem(n, {
      type: refund ? 'refund' : 'charge',
      charge_id: refund ? uuid(n - 1) : null,
      store_id: n % 3 === 0 ? STORE_2 : STORE_1,
      currency: n % 4 === 0 ? 'USD' : 'JPY',
      mode: n % 7 === 0 ? 'test' : 'live',
      status: STATUSES[n % 3] as string,
      metadata: { order_number: `ORD-2026-${String(n % 50).padStart(4, '0')}` },
      created_on: new Date(T0 + Math.floor(i / 4) * 3 * HOUR).toISOString(),
    })
    item.user_data = {
      ...item.user_data,
      cardholder_name: NAMES[n % NAMES.length] as string,
      brand: n % 2 === 0 ? 'visa' : 'master',
      last_four: String(4000 + (n % 10)),
    }
    return historyRecordOf(CONN, item, T0)
  })
  const FROM = T0 + 17 * HOUR
  const TO = T0 + 90 * HOUR
  const SEARCHES = ['ava', 'ava dubois', 'tan', 'tanaka hiro', '0007', 'ord-2026-001', '太郎', 'nobody']
  const FILTERS: Partial<HistoryQuery>[] = [
    {},
    { from: FROM, to: TO },
    { type: 'charge', status: 'successful' },
    { from: FROM, to: TO, storeId: STORE_2, currency: 'JPY' },
    { mode: 'live', brand: 'visa' },
    { from: FROM, to: TO, reconciled: 'reconciled' },
    { reconciled: 'unreconciled', status: 'failed', brand: 'master' },
    { reconciled: 'changed' },
  ]
  const base: HistoryQuery = {
    connectionId: CONN,
    from: T0,
    to: T0 + 200 * HOUR,
    order: 'asc',
    offset: 0,
    limit: 1000,
  }
  const keys = (rows: HistoryRecord[]) => rows.map((r) => r.key)
  const limits = (over: Partial<SearchLimits>) =>
    new HistoryRepository(db, fingerprint, { ...DEFAULT_SEARCH_LIMITS, ...over })

  /**
   * Re-files the day tokens in parts of `partSize` as putPage does (putTokens), in pages of 7, then the
   * first 20 records again (a re-sync: replaced where they stand), so days span several parts.
   */
  async function fileTokens(partSize: number): Promise<void> {
    await db.dayTokens.clear()
    for (const [conn, records] of [
      [CONN, generated],
      ['conn-b', generated.slice(0, 40).map((r) => historyRecordOf('conn-b', r.raw, T0))],
    ] as const) {
      for (let i = 0; i < records.length; i += 7)
        await putTokens(db.dayTokens, conn, records.slice(i, i + 7), partSize)
      await putTokens(db.dayTokens, conn, records.slice(0, 20), partSize)
    }
  }

  /** What the filter means, computed from the records alone. */
  function expected(q: HistoryQuery, reconciled: Set<string>, changed: Set<string>): string[] {
    const rows = generated
      .filter(
        (r) =>
          r.createdAt >= q.from &&
          r.createdAt < q.to &&
          (q.type === undefined || r.type === q.type) &&
          (q.status === undefined || r.status === q.status) &&
          (q.storeId === undefined || r.storeId === q.storeId) &&
          (q.currency === undefined || r.currency === q.currency) &&
          (q.mode === undefined || r.mode === q.mode) &&
          (q.brand === undefined || r.brand === q.brand) &&
          (q.search === undefined || matchesSearch(r, q.search)) &&
          (q.reconciled === undefined ||
            (q.reconciled === 'reconciled' && reconciled.has(r.key)) ||
            (q.reconciled === 'unreconciled' && !reconciled.has(r.key)) ||
            (q.reconciled === 'changed' && changed.has(r.key))),
      )
      .sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : 1))
      .map((r) => r.key)
    if (q.order === 'desc') rows.reverse()
    return rows.slice(q.offset, q.offset + q.limit)
  }

  beforeEach(async () => {
    await repo.putPage(CONN, generated, checkpoint())
    // The same records under another connection: its tokens must never leak into CONN's results.
    await repo.putPage(
      'conn-b',
      generated.slice(0, 40).map((r) => historyRecordOf('conn-b', r.raw, T0)),
      checkpoint({ connectionId: 'conn-b' }),
    )
    await putMarksOn(
      generated,
      generated
        .filter((_, i) => i % 3 === 1)
        .map((r, i) => mark(r.key, { changedSinceReconciled: i % 4 === 0 ? 1 : 0 })),
    )
  })

  // One test per filter: each runs every search through every plan in both orders and with offsets.
  it.each(FILTERS.map((f) => [JSON.stringify(f), f] as const))(
    'gives the same rows, order, pages and counts through every read plan and part size as the records: %s',
    async (_, filter) => {
      // Read plans: one row per request at first and at most two (a day is cut by the limit and read
      // whole, or left for the next request), a few rows per request, everything in one request.
      const plans = {
        rowByRow: limits({ firstRows: 1, maxRows: 2 }),
        fewRows: limits({ firstRows: 3, maxRows: 5 }),
        oneRequest: limits({ firstRows: 1e9, maxRows: 1e9 }),
        defaults: limits({}),
      }
      const marks = await storedMarks(db)
      // The marks are filed in the day rows of their records, which span five UTC days.
      expect(marks).toHaveLength(53)
      expect(await db.markDays.count()).toBe(5)
      const reconciled = new Set<string>(marks.filter((m) => m.state === 'reconciled').map((m) => m.key))
      const changed = new Set<string>(marks.filter((m) => m.changedSinceReconciled === 1).map((m) => m.key))
      let nonEmpty = 0
      const results: { label: string; q: HistoryQuery; want: string[]; all: number }[] = []
      for (const search of SEARCHES) {
        for (const page of [
          { order: 'asc' as const, offset: 0, limit: 1000 },
          { order: 'desc' as const, offset: 0, limit: 1000 },
          { order: 'desc' as const, offset: 2, limit: 4 },
        ]) {
          const q: HistoryQuery = { ...base, ...filter, search, ...page }
          const want = expected(q, reconciled, changed)
          const all = expected({ ...q, offset: 0, limit: 1e9 }, reconciled, changed)
          if (want.length > 0) nonEmpty++
          results.push({ label: JSON.stringify({ search, ...page }), q, want, all: all.length })
        }
      }
      // Parts of 3 records (~11 a day, some part-filled by the replaced records) and of the default size.
      for (const partSize of [3, DEFAULT_SEARCH_LIMITS.partSize]) {
        await fileTokens(partSize)
        const rows = (await db.dayTokens.toArray())
          .filter((r) => r.connectionId === CONN)
          .map((row) => tokenColumnsOf(row))
        expect(rows.every((r) => r.keys.length <= partSize)).toBe(true)
        // Every record filed once, whatever the part size and the replacements.
        expect(rows.flatMap((r) => r.keys).sort()).toEqual(generated.map((r) => r.key).sort())
        for (const { label, q, want, all } of results) {
          for (const [name, r] of Object.entries(plans)) {
            const at = `parts of ${partSize}, ${name} ${label}`
            expect(keys(await r.queryPage(q)), at).toEqual(want)
            expect(await r.count(q), at).toBe(all)
          }
        }
      }
      // The generated set gives real matches under this filter, not only empty results.
      expect(nonEmpty).toBeGreaterThan(6)
    },
    // Hundreds of queries on fake-indexeddb: a generous limit for a loaded machine, not a speed check.
    60_000,
  )

  it('finds by prefix: a name part, an order number part, last four', async () => {
    const q = { ...base, limit: 1000 }
    expect(await repo.count({ ...q, search: 'tana' })).toBe(
      generated.filter((r) => /Tanaka/.test(r.cardholderName)).length,
    )
    expect(keys(await repo.queryPage({ ...q, search: '0007' }))).toEqual(
      generated.filter((r) => r.raw.metadata?.['order_number'] === 'ORD-2026-0007').map((r) => r.key),
    )
    expect(await repo.count({ ...q, search: '4003' })).toBe(16)
    // Inside a word is not a prefix.
    expect(await repo.count({ ...q, search: 'anaka' })).toBe(0)
  })

  it('filters by card brand, with and without a search', async () => {
    const q = { ...base, limit: 1000 }
    const visa = generated.filter((r) => r.brand === 'visa')
    expect(keys(await repo.queryPage({ ...q, brand: 'visa' }))).toEqual(
      expected({ ...q, brand: 'visa' }, new Set(), new Set()),
    )
    expect(await repo.count({ ...q, brand: 'visa' })).toBe(80)
    expect(await repo.count({ ...q, brand: 'amex' })).toBe(0)
    expect(await repo.count({ ...q, brand: 'visa', search: 'ava' })).toBe(
      visa.filter((r) => matchesSearch(r, 'ava')).length,
    )
  })
})

describe('pages deep in a result start at the day of their first row', () => {
  // 60 records 7 hours apart (18 UTC days): every third a refund, every fifth reconciled.
  const many = Array.from({ length: 60 }, (_, i) => {
    const n = i + 1
    return historyRecordOf(
      CONN,
      historyItem(n, {
        created_on: new Date(T0 + n * 7 * HOUR).toISOString(),
        ...(n % 3 === 0 ? { type: 'refund' as const, charge_id: uuid(n - 1) } : {}),
        ...(n % 4 === 0 ? { store_id: STORE_2 } : {}),
      }),
      T0,
    )
  })
  const filters: HistoryFilter[] = [
    { connectionId: CONN, from: T0, to: T0 + 1000 * HOUR, type: 'charge' },
    { connectionId: CONN, from: T0 + 50 * HOUR, to: T0 + 300 * HOUR, storeId: STORE_1 },
    { connectionId: CONN, from: T0, to: T0 + 1000 * HOUR, reconciled: 'unreconciled' },
    { connectionId: CONN, from: T0, to: T0 + 1000 * HOUR, reconciled: 'reconciled', type: 'charge' },
  ]
  const keys = (rows: HistoryRecord[]): string[] => rows.map((r) => r.key)

  beforeEach(async () => {
    await repo.putPage(CONN, many, checkpoint())
    await putMarksOn(
      many,
      many.filter((_, i) => (i + 1) % 5 === 0).map((r) => mark(r.key)),
    )
  })

  it('counts each day of a field or reconciled filter, and nothing for a search', async () => {
    for (const filter of filters) {
      const counts = await repo.countByDay(filter)
      expect(counts?.total).toBe(await repo.count(filter))
      expect(counts?.days.length).toBeGreaterThan(5)
      expect(counts?.days.every((d, k, all) => d.n > 0 && (k === 0 || all[k - 1]!.day < d.day))).toBe(true)
    }
    expect(await repo.countByDay({ ...filters[0]!, search: 'holder' })).toBeNull()
    expect(await repo.countByDay({ connectionId: CONN, from: T0, to: T0 + 1000 * HOUR })).toBeNull()
  })

  it('gives every page the rows it gives without the counts, in both orders', async () => {
    for (const filter of filters) {
      const counts = await repo.countByDay(filter)
      const total = counts?.total ?? 0
      for (const order of ['asc', 'desc'] as const)
        for (let offset = 0; offset <= total + 2; offset++)
          for (const limit of [1, 3, 10]) {
            const q: HistoryQuery = { ...filter, order, offset, limit }
            expect(keys(await repo.queryPage(q, counts)), JSON.stringify(q)).toEqual(
              keys(await repo.queryPage(q)),
            )
          }
    }
  })

  it('reads no digest of the days before the page', async () => {
    const filter = filters[0]!
    const counts = await repo.countByDay(filter)
    const q: HistoryQuery = { ...filter, order: 'asc', offset: 20, limit: 5 }
    const expected = keys(await repo.queryPage(q))
    // The digests of the days before the page's first row go: a walk from the start would miss its rows.
    const firstDay = counts!.days.find((_, k, all) => all.slice(0, k + 1).reduce((s, d) => s + d.n, 0) > 20)!
    await db.dayDigests.where('[connectionId+day]').below([CONN, firstDay.day]).delete()
    expect(keys(await repo.queryPage(q, counts))).toEqual(expected)
    expect(keys(await repo.queryPage(q))).not.toEqual(expected)
  })
})
