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
        if (size < 18) expect(pages.length).toBeGreaterThan(1)
      }
    }
  })

  it('refuses a page size below one', async () => {
    await expect(historyPages(history, all, 'asc', 0).next()).rejects.toThrow(/at least 1/)
  })
})
