import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { restoreBackupFile } from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import {
  DaySummaries,
  combosOfRow,
  daySummariesOf,
  packedSummaryRowOf,
  summaryOf,
} from '../../../../src/db/day-summaries'
import { recordDigestOf } from '../../../../src/db/day-digests'
import { fieldTests } from '../../../../src/db/history-filter'
import { historyRecordOf, searchDayOf } from '../../../../src/db/history-record'
import { HistoryRepository, type HistoryFilter } from '../../../../src/db/history-repository'
import type { HistoryRecord } from '../../../../src/domain/records'
import {
  CONN,
  HOUR,
  STORE_1,
  STORE_2,
  T0,
  cardUserData,
  checkpoint,
  connectionRow,
  freshDeps,
  historyItem,
  openDb,
  uuid,
} from './fixtures'
import { backupText } from './backup-support'

const fingerprint = (r: HistoryRecord): string => `${r.amount}|${r.currency}|${r.status}`
const FOREVER = 8.64e15

/** Record n: an hour apart (eight days for 200), with stores, types, statuses, currencies, modes, brands mixed. */
function record(n: number, over: Parameters<typeof historyItem>[1] = {}): HistoryRecord {
  return historyRecordOf(
    CONN,
    historyItem(n, {
      store_id: n % 3 === 0 ? STORE_2 : STORE_1,
      type: n % 5 === 0 ? 'refund' : 'charge',
      // A refund names its charge, as a backup's check requires.
      ...(n % 5 === 0 ? { charge_id: uuid(n + 100_000) } : {}),
      status: n % 7 === 0 ? 'failed' : 'successful',
      currency: n % 4 === 0 ? 'USD' : 'JPY',
      mode: n % 6 === 0 ? 'test' : 'live',
      user_data: { ...cardUserData(n), brand: n % 2 === 0 ? 'master' : 'visa' },
      ...over,
    }),
    T0 + 1000,
  )
}

/** What a walk of every record gives: per UTC day with a match, ascending, and the total. */
function expected(records: readonly HistoryRecord[], filter: HistoryFilter) {
  const tests = fieldTests(filter)
  const byDay = new Map<number, number>()
  for (const r of records)
    if (r.createdAt >= filter.from && r.createdAt < filter.to && tests.every((t) => t(r)))
      byDay.set(searchDayOf(r.createdAt), (byDay.get(searchDayOf(r.createdAt)) ?? 0) + 1)
  const days = [...byDay].sort((a, b) => a[0] - b[0]).map(([day, n]) => ({ day, n }))
  return { days, total: days.reduce((s, d) => s + d.n, 0) }
}

const all: HistoryFilter = { connectionId: CONN, from: 0, to: FOREVER }
const FILTERS: [string, HistoryFilter][] = [
  ['refunds, all periods', { ...all, type: 'refund' }],
  ['one store in USD', { ...all, storeId: STORE_2, currency: 'USD' }],
  [
    'test mode on master, a range that cuts two days',
    { ...all, from: T0 + 30 * HOUR + 1, to: T0 + 150 * HOUR, mode: 'test', brand: 'master' },
  ],
  ['failed, a range inside one day', { ...all, from: T0 + 50 * HOUR, to: T0 + 60 * HOUR, status: 'failed' }],
  ['an empty range', { ...all, from: T0 + 10 * HOUR, to: T0 + 10 * HOUR, type: 'charge' }],
]

let deps: ReturnType<typeof freshDeps>
let db: ClosebookDb
let repo: HistoryRepository
let records: HistoryRecord[]

beforeEach(async () => {
  deps = freshDeps()
  db = openDb('closebook-test', deps)
  repo = new HistoryRepository(db, fingerprint)
  records = Array.from({ length: 200 }, (_, i) => record(i + 1))
  await repo.putPage(CONN, records, checkpoint())
})
afterEach(() => {
  daySummariesOf(db).close()
  db.close()
})

describe('counts from day summaries', () => {
  it.each(FILTERS)(
    'gives what a walk of the records gives, before and after the days are summarised: %s',
    async (_, filter) => {
      const want = expected(records, filter)
      expect(await repo.countByDay(filter)).toEqual(want)
      // Now from the summaries of the days the range covers whole.
      expect(await repo.countByDay(filter)).toEqual(want)
      expect(await repo.count(filter)).toBe(want.total)
    },
  )

  it.each(FILTERS)(
    'gives what a walk gives on the first count of a session, from the stored summaries: %s',
    async (_, filter) => {
      // As a new session finds the cache: nothing held in memory.
      daySummariesOf(db).clear()
      expect(await repo.countByDay(filter)).toEqual(expected(records, filter))
      daySummariesOf(db).clear()
      expect(await repo.count(filter)).toBe(expected(records, filter).total)
    },
  )

  it('counts a range without field tests (all periods) from the summaries too', async () => {
    expect(await repo.count(all)).toBe(200)
    expect(await repo.count({ ...all, from: T0 + 24 * HOUR })).toBe(200 - 23)
  })

  it('is right after a sync writes the digests of days already summarised', async () => {
    const failed: HistoryFilter = { ...all, status: 'failed' }
    await repo.countByDay(failed)
    expect(daySummariesOf(db).get(CONN, searchDayOf(records[30]!.createdAt))).toBeDefined()
    // A record that fails, a failed one that succeeds on a later read, and a new failed one: on summarised days.
    const changed = [
      record(31, { status: 'failed' }),
      record(35, { status: 'successful' }),
      record(1001, { status: 'failed', created_on: new Date(T0 + 40 * HOUR + 1).toISOString() }),
    ]
    await repo.putPage(CONN, changed, checkpoint({ records: 201 }))
    const now = [...records.filter((r) => !changed.some((c) => c.key === r.key)), ...changed]
    expect(now).toHaveLength(201)
    expect(await repo.countByDay(failed)).toEqual(expected(now, failed))
    expect(await repo.count(failed)).toBe(expected(records, failed).total + 1)
  })

  it('drops the summaries of the days a sync page wrote and keeps the others', async () => {
    const failed: HistoryFilter = { ...all, status: 'failed' }
    await repo.countByDay(failed)
    const summaries = daySummariesOf(db)
    const written = searchDayOf(records[100]!.createdAt)
    const other = searchDayOf(records[10]!.createdAt)
    await repo.putPage(CONN, [record(101, { status: 'failed' })], checkpoint({ records: 200 }))
    expect(summaries.get(CONN, written)).toBeUndefined()
    expect(summaries.get(CONN, other)).toBeDefined()
    const now = records.map((r) => (r.key === records[100]!.key ? record(101, { status: 'failed' }) : r))
    expect(await repo.countByDay(failed)).toEqual(expected(now, failed))
    // A switch of the live generation (a restore) drops them all.
    await db.liveGeneration.put(await db.storedGeneration())
    expect(summaries.get(CONN, other)).toBeUndefined()
  })

  it('is right after a write through another connection to the same cache', async () => {
    const usd: HistoryFilter = { ...all, currency: 'USD' }
    const before = await repo.count(usd)
    // Another window on the same cache: its write reaches this one as Dexie's storage-mutated event.
    const other = openDb('closebook-test', deps)
    try {
      await new HistoryRepository(other, fingerprint).putPage(
        CONN,
        [record(2001, { currency: 'USD', created_on: new Date(T0 + 20 * HOUR).toISOString() })],
        checkpoint({ records: 201 }),
      )
    } finally {
      other.close()
    }
    expect(await repo.count(usd)).toBe(before + 1)
  })

  it('answers a first count of whole days from their stored summaries, without reading their digests', async () => {
    const day = searchDayOf(records[100]!.createdAt)
    const [from, to] = [day * 86_400_000, (day + 1) * 86_400_000]
    const oneDay: HistoryFilter = { ...all, from, to, type: 'charge' }
    const want = expected(records, oneDay)
    expect(want.total).toBeGreaterThan(0)
    // The day's digest row emptied behind the writer's back: a count that read it would find nothing.
    await db.dayDigests.put({ connectionId: CONN, day, records: [] })
    daySummariesOf(db).clear()
    expect(await repo.countByDay(oneDay)).toEqual(want)
  })

  it('counts days written before the stored summaries (none stored) from their digests', async () => {
    // A cache upgraded from before schema v16: its days have digests and no summary rows.
    await db.daySummaries.clear()
    daySummariesOf(db).clear()
    for (const [, filter] of FILTERS) expect(await repo.countByDay(filter)).toEqual(expected(records, filter))
    // The days it read are held in memory, so the next count is from summaries, and still right.
    for (const [, filter] of FILTERS) expect(await repo.count(filter)).toBe(expected(records, filter).total)
  })

  it('is right on the first count after a sync writes days already summarised, and in another session', async () => {
    const usd: HistoryFilter = { ...all, currency: 'USD', from: T0 + 30 * HOUR + 1 }
    await repo.count(usd)
    const changed = [
      record(40, { currency: 'USD' }),
      record(44, { currency: 'JPY' }),
      record(3001, { currency: 'USD', created_on: new Date(T0 + 72 * HOUR).toISOString() }),
    ]
    await repo.putPage(CONN, changed, checkpoint({ records: 201 }))
    const now = [...records.filter((r) => !changed.some((c) => c.key === r.key)), ...changed]
    daySummariesOf(db).clear()
    expect(await repo.countByDay(usd)).toEqual(expected(now, usd))
    // Another window on the same cache has never counted: it reads the stored summaries.
    const other = openDb('closebook-test', deps)
    try {
      const theirs = new HistoryRepository(other, fingerprint)
      expect(await theirs.countByDay(usd)).toEqual(expected(now, usd))
      daySummariesOf(other).close()
    } finally {
      other.close()
    }
  })

  it('is right on the first count after a restore, which stores the summaries of the days it files', async () => {
    await db.connections.put(connectionRow())
    const restored = openDb('closebook-restored', deps)
    try {
      // The target held other records, counted once: the restore replaces them and their summaries.
      const theirs = new HistoryRepository(restored, fingerprint)
      await theirs.putPage(CONN, [record(5000, { type: 'refund' })], checkpoint())
      expect(await theirs.count({ ...all, type: 'refund' })).toBe(1)
      await restoreBackupFile(restored, new Blob([await backupText(db)]), { pageRows: 7 })
      daySummariesOf(restored).clear()
      for (const [, filter] of FILTERS)
        expect(await theirs.countByDay(filter)).toEqual(expected(records, filter))
      daySummariesOf(restored).close()
    } finally {
      restored.close()
    }
  })

  it('stores a summary packed, or plain when a value holds a joiner, and reads either back the same', () => {
    const combos = summaryOf(records.map(recordDigestOf))
    expect(combos.length).toBeGreaterThan(10)
    const packed = packedSummaryRowOf({ connectionId: CONN, day: 1, combos })
    expect(packed).toHaveProperty('comboText')
    expect(combosOfRow(packed)).toEqual(combos)
    const odd = combos.map((c, i) => (i === 3 ? { ...c, brand: 'vi\u0002sa' } : c))
    const plain = packedSummaryRowOf({ connectionId: CONN, day: 1, combos: odd })
    expect(plain).not.toHaveProperty('comboText')
    expect(combosOfRow(plain)).toEqual(odd)
    expect(() => combosOfRow({ ...packed, counts: [1] })).toThrow(/does not unpack to 1 combinations/)
  })

  it('keeps no summary built from a read that a write may have overtaken', () => {
    const summaries = new DaySummaries(db)
    const version = summaries.begin()
    summaries.clear()
    summaries.put(version, CONN, 5, [])
    expect(summaries.get(CONN, 5)).toBeUndefined()
    summaries.put(summaries.begin(), CONN, 5, [])
    expect(summaries.get(CONN, 5)).toEqual([])
    summaries.close()
  })
})
