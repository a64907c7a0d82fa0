import Dexie from 'dexie'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { matchesSearch, searchDayOf } from '../../../../src/db/history-record'
import { HistoryRepository, type HistoryFilter } from '../../../../src/db/history-repository'
import { dayTokensCacheOf } from '../../../../src/db/token-cache'
import { warmTokenDays } from '../../../../src/db/token-warm'
import type { HistoryRecord } from '../../../../src/domain/records'
import { CONN, HOUR, T0, checkpoint, freshDeps, openDb } from './fixtures'
import { namedRecord } from './named-records'

const record = namedRecord

const all: HistoryFilter = { connectionId: CONN, from: 0, to: T0 * 2 }
/** Small parts and reads, so a warm takes several reads and a day several parts. */
const LIMITS = { firstRows: 1, maxRows: 2, partSize: 5 }

let db: ClosebookDb
let repo: HistoryRepository
let held: HistoryRecord[]

beforeEach(async () => {
  db = openDb('closebook-test', freshDeps())
  repo = new HistoryRepository(db, () => '', LIMITS)
  held = Array.from({ length: 60 }, (_, i) => record(i + 1))
  await repo.putPage(CONN, held, checkpoint())
})
afterEach(() => {
  dayTokensCacheOf(db).close()
  db.close()
})

/** Runs `read` and counts the token parts it read from the database. */
async function partsReadBy<T>(read: () => Promise<T>): Promise<{ value: T; parts: number }> {
  let parts = 0
  const count = (row: unknown) => {
    parts++
    return row
  }
  db.dayTokens.hook('reading', count)
  try {
    return { value: await read(), parts }
  } finally {
    db.dayTokens.hook('reading').unsubscribe(count)
  }
}

const truth = (records: readonly HistoryRecord[], search: string, filter = all) =>
  records.filter((r) => r.createdAt >= filter.from && r.createdAt < filter.to && matchesSearch(r, search))
    .length

describe("warming a period's search token parts", () => {
  it('holds the period, so a count in it afterwards reads no token part', async () => {
    const cold = await partsReadBy(() => repo.count({ ...all, search: 'ava' }))
    expect(cold.parts).toBeGreaterThan(0)
    dayTokensCacheOf(db).clear()

    const period = { ...all, from: T0 + 24 * HOUR, to: T0 + 120 * HOUR }
    await repo.warmSearch(CONN, period.from, period.to)
    for (const search of ['ava', 'stone', '山田', 'zed']) {
      if (search !== 'zed') expect(truth(held, search, period), search).toBeGreaterThan(0)
      const warm = await partsReadBy(() => repo.count({ ...period, search }))
      expect(warm, search).toEqual({ value: truth(held, search, period), parts: 0 })
    }
    // Days outside the period were not read.
    expect(dayTokensCacheOf(db).get(CONN, searchDayOf(T0))).toBeUndefined()
  })

  it('serves no stale part when a sync writes while it reads', async () => {
    const renamed = [record(20, 'Zed Stone'), record(500, 'Zed Ava', 10 * 3), record(501, 'Zed Reed', 400)]
    const warming = repo.warmSearch(CONN, all.from, all.to)
    await repo.putPage(CONN, renamed, checkpoint({ records: 62 }))
    await warming
    const now = [...held.filter((r) => r.key !== renamed[0]!.key), ...renamed]
    expect(truth(now, 'zed')).toBe(3)
    for (const search of ['zed', 'stone', 'ava', 'reed'])
      expect(await repo.count({ ...all, search }), search).toBe(truth(now, search))
    // And once warmed, a write drops what it touched: the next count reads that day again.
    await repo.warmSearch(CONN, all.from, all.to)
    await repo.putPage(CONN, [record(21, 'Zed Brook')], checkpoint({ records: 62 }))
    const after = await partsReadBy(() => repo.count({ ...all, search: 'zed' }))
    expect(after.value).toBe(truth([...now, record(21, 'Zed Brook')], 'zed'))
    expect(after.parts).toBeGreaterThan(0)
  })

  it('keeps no part read before a write that lands while the same read goes on', async () => {
    // The warm's first read (newest first, two parts) takes the last day's only part and the day
    // before's last; the rest of that day is read after it. A write to the last day starts during the
    // first read and commits before the rest is read.
    const renamed = record(59, 'Zed Stone')
    let writing: Promise<unknown> | undefined
    const onRead = (row: unknown) => {
      writing ??= Dexie.ignoreTransaction(() => repo.putPage(CONN, [renamed], checkpoint({ records: 60 })))
      return row
    }
    db.dayTokens.hook('reading', onRead)
    const warming = repo.warmSearch(CONN, all.from, all.to)
    await vi.waitFor(() => expect(writing).toBeDefined())
    db.dayTokens.hook('reading').unsubscribe(onRead)
    await Promise.all([warming, writing])
    const now = held.map((r) => (r.key === renamed.key ? renamed : r))
    for (const search of ['zed', 'stone', 'ava'])
      expect(await repo.count({ ...all, search }), search).toBe(truth(now, search))
  })

  it('stops when another period supersedes it, and joins a warm of the same period', async () => {
    const first = repo.warmSearch(CONN, all.from, all.to)
    expect(repo.warmSearch(CONN, all.from, all.to)).toBe(first)
    const lastDay = { ...all, from: T0 + 177 * HOUR, to: T0 + 180 * HOUR }
    const second = repo.warmSearch(CONN, lastDay.from, lastDay.to)
    await Promise.all([first, second])
    // The first warm stopped after its first read (two parts, newest first): the oldest day is not held.
    expect(dayTokensCacheOf(db).get(CONN, searchDayOf(T0 + 3 * HOUR))).toBeUndefined()
    expect(dayTokensCacheOf(db).get(CONN, searchDayOf(lastDay.from))).toBeDefined()
  })

  it("puts no more than the cache's budget", async () => {
    const cache = dayTokensCacheOf(db)
    await warmTokenDays(db, CONN, all.from, all.to, 2)
    const whole = cache.chars
    cache.clear()
    Object.defineProperty(cache, 'budget', { value: Math.floor(whole / 3) })
    await warmTokenDays(db, CONN, all.from, all.to, 2)
    expect(cache.chars).toBeGreaterThan(0)
    expect(cache.chars).toBeLessThanOrEqual(Math.floor(whole / 3))
    // Newest first: the newest day is held, the oldest is not.
    expect(cache.get(CONN, searchDayOf(held[59]!.createdAt))).toBeDefined()
    expect(cache.get(CONN, searchDayOf(held[0]!.createdAt))).toBeUndefined()
  })
})
