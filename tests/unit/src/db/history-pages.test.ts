import { beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyPages } from '../../../../src/db/history-pages'
import { historyRecordOf } from '../../../../src/db/history-record'
import { HistoryRepository, type HistoryFilter } from '../../../../src/db/history-repository'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import type { HistoryRecord } from '../../../../src/domain/records'
import { CONN, T0, checkpoint, historyItem, openDb } from './fixtures'

const N = 40
/**
 * Record i's time: six records share each time, 20 minutes apart, so pages end inside a run of equal times
 * and time windows of an hour or less hold some of them.
 */
const timeOf = (i: number): number => T0 + Math.floor(i / 6) * 1_200_000

let db: ClosebookDb
let history: HistoryRepository

beforeEach(async () => {
  db = openDb()
  history = new HistoryRepository(db, fingerprintOf)
  const records = Array.from({ length: N }, (_, i) =>
    historyRecordOf(
      CONN,
      historyItem(i, {
        created_on: new Date(timeOf(i)).toISOString(),
        ...(i % 4 === 3 ? { type: 'refund' as const } : {}),
      }),
      0,
    ),
  )
  await history.putPage(CONN, records, checkpoint())
  return () => db.close()
})

describe('historyPages', () => {
  const all: HistoryFilter = { connectionId: CONN, from: 0, to: 8.64e15 }
  const keys = (rows: readonly HistoryRecord[]): string[] => rows.map((r) => r.key)

  it.each([
    ['all periods', all],
    ['refunds only (day digests)', { ...all, type: 'refund' as const }],
    ['a search (day tokens)', { ...all, search: 'holder' }],
    ['from inside one run of equal times to inside another', { ...all, from: timeOf(9), to: timeOf(30) + 1 }],
    ['reconciled or not (keys tested on each record)', { ...all, reconciled: 'unreconciled' as const }],
  ])('joins to exactly one whole query, both orders, in pages of any size: %s', async (_, filter) => {
    // The range alone is read in time windows of about the page size; any other filter, in pages of it.
    const windows = Object.keys(filter).length === 3
    for (const order of ['asc', 'desc'] as const) {
      const whole = await history.queryPage({ ...filter, order, offset: 0, limit: Infinity })
      for (const size of [1, 5, 6, 7, 100]) {
        const pages: HistoryRecord[][] = []
        for await (const page of historyPages(history, filter, order, size)) pages.push(page)
        expect(keys(pages.flat())).toEqual(keys(whole))
        if (!windows) expect(pages.every((p) => p.length <= size)).toBe(true)
        // A range's day holding more than four pages is read in windows within it.
        if (size < (windows ? whole.length / 4 : 18)) expect(pages.length).toBeGreaterThan(1)
      }
    }
  })

  it('refuses a page size below one', async () => {
    await expect(historyPages(history, all, 'asc', 0).next()).rejects.toThrow(/at least 1/)
  })

  it('reads each UTC day in one window, whole, while a day holds few pages; a denser day in parts of it', async () => {
    const DAY = 86_400_000
    const start = Math.ceil(T0 / DAY) * DAY + 2 * DAY
    // Twelve days of 20 records (one every 72 minutes), then a day of 200.
    const times = [
      ...Array.from({ length: 240 }, (_, i) => start + i * 4_320_000),
      ...Array.from({ length: 200 }, (_, i) => start + 12 * DAY + i * 432_000),
    ]
    await history.putPage(
      CONN,
      times.map((at, i) =>
        historyRecordOf(CONN, historyItem(1_000 + i, { created_on: new Date(at).toISOString() }), 0),
      ),
      checkpoint(),
    )
    const filter = { ...all, from: start }
    for (const order of ['asc', 'desc'] as const) {
      const windows: [number, number][] = []
      const paged = {
        queryPage: history.queryPage.bind(history),
        countRangeByDay: history.countRangeByDay.bind(history),
        inRange: (c: string, from: number, to: number) => {
          windows.push([from, to])
          return history.inRange(c, from, to)
        },
      }
      const pages: HistoryRecord[][] = []
      for await (const page of historyPages(paged, filter, order, 10)) pages.push(page)
      const whole = await history.queryPage({ ...filter, order, offset: 0, limit: Infinity })
      expect(keys(pages.flat())).toEqual(keys(whole))
      // The days of 20 records (two pages): read by one window each.
      for (let day = 0; day < 12; day++) {
        const [lo, hi] = [start + day * DAY, start + (day + 1) * DAY]
        const reading = windows.filter(([from, to]) => from < hi && to > lo)
        expect(reading, `${order}, day ${day}`).toHaveLength(1)
      }
      // The day of 200 (twenty pages) is read a few pages at a time, not whole.
      const dense = windows.filter(([from]) => from >= start + 12 * DAY)
      expect(dense.length, order).toBeGreaterThan(4)
      expect(Math.max(...pages.map((p) => p.length)), order).toBeLessThanOrEqual(40)
    }
  })
})
