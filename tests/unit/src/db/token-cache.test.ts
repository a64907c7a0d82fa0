import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { matchesSearch, searchDayOf } from '../../../../src/db/history-record'
import { HistoryRepository, type HistoryFilter } from '../../../../src/db/history-repository'
import { DayTokensCache, dayTokensCacheOf } from '../../../../src/db/token-cache'
import type { HistoryRecord } from '../../../../src/domain/records'
import { CONN, HOUR, T0, checkpoint, freshDeps, openDb } from './fixtures'
import { namedRecord } from './named-records'

const record = namedRecord

const all: HistoryFilter = { connectionId: CONN, from: 0, to: T0 * 2 }
const SEARCHES = ['ava', 'stone', 'stone ava', '山田', 'reed', 'zed', '00000000-0000-4000']

let deps: ReturnType<typeof freshDeps>
let db: ClosebookDb
let repo: HistoryRepository
let held: HistoryRecord[]

/** Small parts and batches, so days span several parts and a walk several requests. */
const LIMITS = { firstRows: 1, maxRows: 2, partSize: 5 }

beforeEach(async () => {
  deps = freshDeps()
  db = openDb('closebook-test', deps)
  repo = new HistoryRepository(db, () => '', LIMITS)
  held = Array.from({ length: 60 }, (_, i) => record(i + 1))
  await repo.putPage(CONN, held, checkpoint())
})
afterEach(() => {
  dayTokensCacheOf(db).close()
  db.close()
})

/** Every search's count and its pages, newest and oldest first, against matchesSearch over `records`. */
async function expectAnswers(records: readonly HistoryRecord[], filter: HistoryFilter = all): Promise<void> {
  for (const search of SEARCHES) {
    const want = records
      .filter((r) => r.createdAt >= filter.from && r.createdAt < filter.to && matchesSearch(r, search))
      .map((r) => r.key)
      .sort()
    expect(await repo.count({ ...filter, search }), search).toBe(want.length)
    for (const order of ['asc', 'desc'] as const) {
      const page = await repo.queryPage({ ...filter, search, order, offset: 0, limit: 7 })
      const sorted = records
        .filter((r) => want.includes(r.key))
        .sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : 1))
      if (order === 'desc') sorted.reverse()
      expect(
        page.map((r) => r.key),
        `${search} ${order}`,
      ).toEqual(sorted.slice(0, 7).map((r) => r.key))
    }
  }
}

describe('search token parts held between searches', () => {
  it('answers the same from held parts as from a cold read, and holds the days it read', async () => {
    await expectAnswers(held)
    const cache = dayTokensCacheOf(db)
    expect(cache.chars).toBeGreaterThan(0)
    for (const r of held) expect(cache.get(CONN, searchDayOf(r.createdAt))).toBeDefined()
    await expectAnswers(held)
    // A period the cache holds in part: the rest is read, and the answers stay whole.
    cache.drop('all')
    await expectAnswers(held, { ...all, from: T0 + 40 * HOUR, to: T0 + 100 * HOUR })
    await expectAnswers(held)
  })

  it('is right after a sync renames a record, adds one to a held day and one on a new day', async () => {
    await expectAnswers(held)
    const cache = dayTokensCacheOf(db)
    const untouched = searchDayOf(held[0]!.createdAt)
    const changed = [record(20, 'Zed Stone'), record(500, 'Zed Ava', 10 * 3), record(501, 'Zed Reed', 400)]
    await repo.putPage(CONN, changed, checkpoint({ records: 62 }))
    for (const r of changed) expect(cache.get(CONN, searchDayOf(r.createdAt))).toBeUndefined()
    expect(cache.get(CONN, untouched)).toBeDefined()
    await expectAnswers([...held.filter((r) => r.key !== changed[0]!.key), ...changed])
  })

  it('is right after a write through another connection to the same cache, and after a restore switch', async () => {
    await expectAnswers(held)
    const other = openDb('closebook-test', deps)
    const added = record(600, 'Zed Brook', 7)
    try {
      await new HistoryRepository(other, () => '', LIMITS).putPage(CONN, [added], checkpoint({ records: 61 }))
    } finally {
      other.close()
    }
    await expectAnswers([...held, added])
    await db.liveGeneration.put(await db.storedGeneration())
    expect(dayTokensCacheOf(db).chars).toBe(0)
  })

  it('walks on past days without records, before, between and after held days', async () => {
    // Only the first two days and the fifth have records: days 3 and 4 are empty.
    const sparse = held.filter((r) => [0, 1, 4].includes(searchDayOf(r.createdAt) - searchDayOf(T0)))
    const other = openDb('closebook-sparse', freshDeps())
    try {
      repo = new HistoryRepository(other, () => '', LIMITS)
      await repo.putPage(CONN, sparse, checkpoint())
      const fifth = (searchDayOf(T0) + 4) * 86_400_000
      // The fifth day held alone, then whole periods: held days come after an empty gap.
      await expectAnswers(sparse, { ...all, from: fifth, to: fifth + 86_400_000 })
      await expectAnswers(sparse)
      dayTokensCacheOf(other).clear()
      await expectAnswers(sparse, { ...all, to: fifth })
      await expectAnswers(sparse)
    } finally {
      dayTokensCacheOf(other).close()
      other.close()
    }
  })

  it('keeps no parts read before a write that dropped days', async () => {
    const cache = new DayTokensCache(db)
    const day = searchDayOf(held[0]!.createdAt)
    const version = cache.begin()
    await repo.putPage(CONN, [record(1, 'Zed Stone')], checkpoint())
    cache.put(version, CONN, day, await db.dayTokens.toArray())
    expect(cache.get(CONN, day)).toBeUndefined()
    cache.close()
  })

  it('drops the least recently used days past its budget', async () => {
    const rows = await db.dayTokens.toArray()
    const cache = new DayTokensCache(db, 1)
    cache.put(cache.begin(), CONN, 1, [rows[0]!])
    expect(cache.get(CONN, 1)).toBeUndefined()
    const one = new DayTokensCache(db, Number.MAX_SAFE_INTEGER)
    one.put(one.begin(), CONN, 1, [rows[0]!])
    const size = one.chars
    const two = new DayTokensCache(db, size * 2)
    const version = two.begin()
    for (const day of [1, 2]) two.put(version, CONN, day, [rows[0]!])
    two.get(CONN, 1)
    two.put(version, CONN, 3, [rows[0]!])
    expect([1, 2, 3].map((d) => two.get(CONN, d) !== undefined)).toEqual([true, false, true])
    expect(two.chars).toBe(size * 2)
    for (const c of [cache, one, two]) c.close()
  })
})
