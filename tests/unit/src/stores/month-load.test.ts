import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChargeItem, HistoryItem } from '../../../../electron/shared/payment-api'
import { createCache, setAppCacheForTests, type Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { periodRange } from '../../../../src/domain/periods'
import type { HistoryRecord, MarkRecord, RecordKey } from '../../../../src/domain/records'
import {
  UNAVAILABLE_CLOSE_FACTS,
  canStillChange,
  closeChecklist,
  countExceptedWithNote,
  setCloseFactsProvider,
} from '../../../../src/reconcile/close-checklist'
import { crossCheck } from '../../../../src/reconcile/cross-check'
import { summarizeMonth, totalsByCurrency } from '../../../../src/reconcile/month-summary'
import { loadMonth, type MonthData } from '../../../../src/stores/month-load'
import { chargeDigestOf, dropColumns } from '../../../../src/db/charge-columns'
import { chargeDayOf } from '../../../../src/db/charge-days'
import {
  CONN,
  STORE_1,
  STORE_2,
  checkpoint,
  chargeRecord,
  connectionRow,
  countWholeChargeReads,
  historyRecord,
  mark,
  openDb,
  putMarks,
  uuid,
} from '../db/fixtures'

const PERIOD = '2026-10'
const TOKYO = connectionRow({ timeZone: 'Asia/Tokyo', storeIds: [STORE_1, STORE_2] })
const RANGE = periodRange(PERIOD, TOKYO.timeZone)
const MINUTE = 60_000
const STATUSES = ['successful', 'Successful', 'failed', 'pending', 'authorized', 'successful']
const CURRENCIES: [string, number][] = [
  ['JPY', 1],
  ['USD', 1],
  ['usd', 1],
  ['EUR', 1],
]

let db: ClosebookDb
let cache: Cache

/** Record `n` at `at`, varied: store, currency, type, status and mode follow from n. */
function varied(n: number, at: number, over: Partial<HistoryItem> = {}): HistoryRecord {
  const [currency] = CURRENCIES[n % CURRENCIES.length] ?? ['JPY']
  const refund = n % 7 === 3
  return historyRecord(n, {
    created_on: new Date(at).toISOString(),
    store_id: n % 3 === 0 ? STORE_2 : STORE_1,
    store_name: n % 3 === 0 ? 'Second store' : 'First store',
    currency,
    amount: currency === 'JPY' ? 1000 + n : 1999 + n * 3,
    status: STATUSES[n % STATUSES.length] ?? 'successful',
    mode: n % 11 === 5 ? 'test' : 'live',
    ...(refund ? { type: 'refund', charge_id: uuid(n - 1) } : {}),
    ...over,
  })
}

/** A month in Tokyo with records on its edges and just outside them, marks of every kind, and charges. */
async function fillMonth(): Promise<HistoryRecord[]> {
  const at = [
    RANGE.from - 1,
    RANGE.from,
    RANGE.to - 1,
    RANGE.to,
    ...Array.from({ length: 56 }, (_, i) => RANGE.from + (i + 1) * 13 * 60 * MINUTE),
  ]
  const history = at.map((t, n) => varied(n, t))
  // The second store's newest record names no store: its name comes from the one before.
  const lastOfStore2 = [...history].reverse().find((r) => r.storeId === STORE_2 && r.createdAt < RANGE.to)
  if (!lastOfStore2) throw new Error('no record of the second store')
  history[history.indexOf(lastOfStore2)] = varied(history.indexOf(lastOfStore2), lastOfStore2.createdAt, {
    store_name: '',
  })
  await cache.history.putPage(CONN, history, checkpoint())
  const charges = history
    .filter((r) => r.type === 'charge' && r.storeId === STORE_1 && r.currency !== 'EUR')
    .map((r, i) =>
      chargeRecord(Number.parseInt(r.resourceId.slice(-12), 16), {
        created_on: new Date(r.createdAt).toISOString(),
        charged_amount: i % 5 === 1 ? r.amount + 1 : r.amount,
        charged_currency: i % 9 === 2 ? 'GBP' : r.currency,
        status: i % 4 === 3 ? 'pending' : r.status,
        fee_amount: i % 6 === 4 ? null : 36 + i,
        fee_currency: i % 8 === 5 ? null : i % 8 === 6 ? 'JPY' : r.currency,
        mode: r.mode,
      }),
    )
  charges.push(chargeRecord(900, { created_on: new Date(RANGE.from + 5 * MINUTE).toISOString() }))
  // Charges only in the list on the month's edges in Tokyo and just outside them, several currencies and
  // statuses, fees in another currency or none.
  const edges: [number, Partial<ChargeItem>][] = [
    [RANGE.from - 1, { charged_currency: 'USD', charged_amount: 1250, fee_amount: 40, fee_currency: 'USD' }],
    [RANGE.from, { charged_currency: 'EUR', charged_amount: 990, fee_amount: 12, fee_currency: 'JPY' }],
    [RANGE.to - 1, { status: 'Successful', fee_amount: 77, fee_currency: null }],
    [RANGE.to, { status: 'failed', charged_amount: null, requested_amount: 5000 }],
  ]
  edges.forEach(([at, over], i) =>
    charges.push(chargeRecord(910 + i, { created_on: new Date(at).toISOString(), ...over })),
  )
  await cache.charges.putPage(CONN, charges, checkpoint({ resource: 'charges', partitionId: 'charges:all' }))
  const marks: MarkRecord[] = history.flatMap((r, n): MarkRecord[] => {
    const kind = n % 5
    if (kind === 0) return [mark(r.key, { fingerprint: fingerprintOf(r) })]
    if (kind === 1) return [mark(r.key, { fingerprint: n % 2 ? null : 'made on other data' })]
    if (kind === 2) return [mark(r.key, { state: 'unreconciled', note: `waits for deposit ${n}` })]
    if (kind === 3) return [mark(r.key, { state: 'unreconciled', note: '  ' })]
    return []
  })
  const timeOf = new Map(history.map((r) => [r.key, r.createdAt]))
  await putMarks(db, marks, (m) => timeOf.get(m.key) ?? 0)
  return history
}

/** The month as the records themselves give it: what Month-end computed before it read day rows. */
async function fromRecords() {
  const history = await cache.history.inRange(CONN, RANGE.from, RANGE.to)
  const charges = await cache.charges.inRange(CONN, RANGE.from, RANGE.to)
  const marks = new Map<RecordKey, MarkRecord>()
  for (const m of await cache.marks.getMany(CONN, history)) if (m) marks.set(m.key, m)
  const summary = summarizeMonth({ history, charges, marks, timeZone: TOKYO.timeZone, period: PERIOD })
  const storeNames = new Map<string, string>()
  for (const r of history) if (r.raw.store_name) storeNames.set(r.storeId, r.raw.store_name)
  const inPeriod = (t: number) => t >= RANGE.from && t < RANGE.to
  return {
    history,
    charges,
    summary,
    totals: totalsByCurrency(summary.rows),
    differences: crossCheck(
      history.filter((r) => r.type === 'charge'),
      charges,
    ).map((d) => [d.kind, d.chargeId]),
    storeNames,
    stillChanging: history.filter((r) => canStillChange(r.status)).length,
    excepted: countExceptedWithNote(history, marks, inPeriod),
  }
}

/** The checklist of the month from its records' figures (no payouts synced). */
async function checklistOf(want: Awaited<ReturnType<typeof fromRecords>>) {
  const rows = want.summary.rows
  return closeChecklist({
    periodEnd: RANGE.to,
    lastSyncedAt: TOKYO.lastSyncedAt,
    unfinishedPartitions: (await cache.checkpoints.list(CONN)).filter((c) => !c.done).length,
    lastVerified: { available: true, value: null },
    quarantined: { available: true, value: [] },
    stillChanging: want.stillChanging,
    changedSinceReconciled: rows.reduce((s, r) => s + r.changedSinceReconciledCount, 0),
    totals: want.totals,
    exceptedWithNote: want.excepted,
    differences: want.differences.length,
    otherStatus: rows.reduce((s, r) => s + r.otherStatusCount, 0),
  })
}

/** Every figure, name and checklist item of `month` is what the records give. */
async function expectSameMonth(month: MonthData, want: Awaited<ReturnType<typeof fromRecords>>) {
  expect(month.summary).toEqual(want.summary)
  expect(month.totals).toEqual(want.totals)
  expect(month.differences.map((d) => [d.kind, d.chargeId])).toEqual(want.differences)
  expect(month.storeNames).toEqual(want.storeNames)
  expect(month.payouts).toBeNull()
  expect(month.checklist).toEqual(await checklistOf(want))
  expect(month.chargeDigests).toEqual(want.charges.map(chargeDigestOf))
  expect(await month.history()).toEqual(want.history)
  expect(await month.charges()).toEqual(want.charges)
}

/**
 * Counts reads of whole history records by range (the month's records read at once) and of whole
 * charge-list records (each charge a part holds, each row of the table from before schema v10).
 */
function countRangeReads(): { ranges: number; charges: number } {
  const counter = { ranges: 0 }
  const original = cache.history.inRange.bind(cache.history)
  cache.history.inRange = (...a) => {
    counter.ranges++
    return original(...a)
  }
  const charges = countWholeChargeReads(db)
  return {
    get ranges() {
      return counter.ranges
    },
    get charges() {
      return charges.charges
    },
  }
}

/** Takes the compact columns out of the charge day rows of `days` (all when absent), as an older release wrote them. */
async function chargeDaysWrittenBefore(days?: (day: number) => boolean): Promise<number> {
  const rows = (await db.chargeDays.toArray()).filter((r) => !days || days(r.day))
  rows.forEach((r) => dropColumns(r))
  await db.chargeDays.bulkPut(rows)
  return rows.length
}

beforeEach(async () => {
  db = openDb()
  cache = createCache(db)
  setAppCacheForTests(cache)
  await cache.connections.put(TOKYO)
  setCloseFactsProvider({
    lastVerified: () => Promise.resolve({ available: true, value: null }),
    quarantined: () => Promise.resolve({ available: true, value: [] }),
  })
})
afterEach(() => {
  setCloseFactsProvider(UNAVAILABLE_CLOSE_FACTS)
  setAppCacheForTests(undefined)
  db.close()
})

describe('month load from day rows', () => {
  it('gives every figure the records give, without reading the month’s records', async () => {
    await fillMonth()
    const want = await fromRecords()
    // The month is varied enough for the comparison to mean something.
    expect(want.history.length).toBe(58)
    expect(new Set(want.summary.rows.map((r) => r.currency))).toEqual(new Set(['EUR', 'JPY', 'USD']))
    expect(want.summary.rows.some((r) => r.mode === 'test')).toBe(true)
    const sum = (f: (r: (typeof want.summary.rows)[number]) => number) =>
      want.summary.rows.reduce((s, r) => s + f(r), 0)
    expect(sum((r) => r.refundCount)).toBeGreaterThan(0)
    expect(sum((r) => r.otherStatusCount)).toBeGreaterThan(0)
    expect(sum((r) => r.changedSinceReconciledCount)).toBeGreaterThan(0)
    expect(sum((r) => r.reconciledCount)).toBeGreaterThan(sum((r) => r.changedSinceReconciledCount))
    expect(sum((r) => r.feeUnknownCurrencyCount)).toBeGreaterThan(0)
    expect(new Set(want.differences.map(([kind]) => kind)).size).toBe(5)
    expect(want.stillChanging).toBeGreaterThan(0)
    expect(want.excepted).toBeGreaterThan(0)
    // Charges in the list alone, in history alone, and fees in several currencies and none.
    expect(want.differences.filter(([kind]) => kind === 'missing_in_history')).toHaveLength(3)
    expect(want.differences.filter(([kind]) => kind === 'missing_in_charges').length).toBeGreaterThan(3)
    expect(new Set(want.charges.map((c) => c.feeCurrency))).toEqual(new Set(['JPY', 'USD', null]))

    const reads = countRangeReads()
    const month = await loadMonth(TOKYO, PERIOD)
    expect(reads).toEqual({ ranges: 0, charges: 0 })
    await expectSameMonth(month, want)
    expect(month.storeNames.get(STORE_2)).toBe('Second store')
    expect(month.digests.map((d) => d.key)).toEqual(want.history.map((r) => r.key))
  })

  it('reads the month’s records when its digests were written before they carried the amount', async () => {
    await fillMonth()
    const want = await fromRecords()
    const rows = await db.dayDigests.toArray()
    await db.dayDigests.bulkPut(
      rows.map((row) => ({ ...row, records: row.records.map(({ amount: _amount, ...d }) => d) })),
    )

    const reads = countRangeReads()
    const month = await loadMonth(TOKYO, PERIOD)
    expect(reads.ranges).toBe(1)
    await expectSameMonth(month, want)
  })

  it('reads a day’s charges from its parts when its day row was written before the compact columns', async () => {
    await fillMonth()
    const want = await fromRecords()
    // The month's first UTC days (the Tokyo edge among them) as an older release wrote them; the rest not.
    const first = Math.min(...(await db.chargeDays.toArray()).map((r) => r.day))
    expect(await chargeDaysWrittenBefore((day) => day <= first + 1)).toBe(2)

    const reads = countRangeReads()
    const month = await loadMonth(TOKYO, PERIOD)
    expect(reads.ranges).toBe(0)
    // Only those two days' charges are read whole.
    const older = want.charges.filter((c) => chargeDayOf(c.createdAt) <= first + 1)
    expect(older.length).toBeGreaterThan(0)
    expect(reads.charges).toBeGreaterThanOrEqual(older.length)
    expect(reads.charges).toBeLessThan(want.charges.length)
    await expectSameMonth(month, want)
  })

  it('gives the same month when every charge day row was written before the compact columns', async () => {
    await fillMonth()
    const want = await fromRecords()
    expect(await chargeDaysWrittenBefore()).toBeGreaterThan(10)
    await expectSameMonth(await loadMonth(TOKYO, PERIOD), want)
  })
})

describe('store names of a month', () => {
  it('names a store by its newest named record, reading a few of its records, not its month', async () => {
    // 400 records of one store; the newest 20 carry no store name, the ones before are each named apart.
    const history = Array.from({ length: 400 }, (_, n) =>
      varied(n * 3, RANGE.from + n * MINUTE, {
        store_id: STORE_1,
        store_name: n >= 380 ? '' : `Store as named by record ${n}`,
      }),
    )
    await cache.history.putPage(CONN, history, checkpoint())
    const read = { records: 0 }
    const getMany = cache.history.getMany.bind(cache.history)
    cache.history.getMany = (connectionId, keys) => {
      read.records += keys.length
      return getMany(connectionId, keys)
    }

    const month = await loadMonth(TOKYO, PERIOD)
    expect(month.storeNames).toEqual(new Map([[STORE_1, 'Store as named by record 379']]))
    // The newest, then 16 (all unnamed but one short), then 64 finds it: 81 records at most.
    expect(read.records).toBeGreaterThan(20)
    expect(read.records).toBeLessThanOrEqual(81)
  })
})
