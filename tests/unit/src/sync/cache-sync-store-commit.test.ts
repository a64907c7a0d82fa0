import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { dayDigestRowsOf } from '../../../../src/db/day-digests'
import { CacheSyncStore } from '../../../../src/sync/cache-sync-store'
import { CONN, checkpoint, chargeItem, historyItem, openDb, uuid } from '../db/fixtures'
import { allHistory, countHistory } from '../../../../src/db/history-part-reads'

let db: ClosebookDb
let store: CacheSyncStore
beforeEach(() => {
  db = openDb()
  store = new CacheSyncStore(db)
})
afterEach(() => db.close())

const T = Date.parse('2026-10-05T00:00:00Z')
const part = (n: number) =>
  checkpoint({ partitionId: `part-${n}`, cursor: uuid(n), records: 10, requests: 1 })
const historyPage = (n: number) => ({
  resource: 'transaction_history' as const,
  items: Array.from({ length: 10 }, (_, i) => historyItem(n * 10 + i)),
})

describe('CacheSyncStore: pages that arrive together share a transaction (group commit)', () => {
  it('stores every page, its checkpoint and its day rows, in fewer transactions than pages', async () => {
    await store.savePlan(CONN, [])
    const transaction = vi.spyOn(db, 'transaction')
    const results = await Promise.all([
      ...Array.from({ length: 6 }, (_, n) => store.putPage(historyPage(n), part(n), T)),
      store.putPage({ resource: 'charges', items: [chargeItem(1), chargeItem(2)] }, part(99), T),
    ])
    expect(results.map((r) => r.added)).toEqual([10, 10, 10, 10, 10, 10, 2])
    // The first page starts a transaction at once; the six others arrive while it runs and share one.
    expect(transaction.mock.calls.length).toBeLessThanOrEqual(3)
    expect(await countHistory(db)).toBe(60)
    expect(await store.charges.inRange(CONN, -Infinity, Infinity)).toHaveLength(2)
    expect((await db.checkpoints.toArray()).map((c) => c.partitionId).sort()).toEqual(
      [...Array.from({ length: 6 }, (_, n) => `part-${n}`), 'part-99'].sort(),
    )
    // A first sync's day rows are filed once its pages are in.
    await store.endPages(CONN)
    expect(await db.dayDigests.toArray()).toEqual(dayDigestRowsOf(await allHistory(db)))
  })

  it('pages arriving a few milliseconds apart wait for each other and share a transaction', async () => {
    await store.savePlan(CONN, [])
    const transaction = vi.spyOn(db, 'transaction')
    const writes: Promise<unknown>[] = []
    for (let n = 0; n < 4; n++) {
      writes.push(store.putPage(historyPage(n), part(n), T))
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    await Promise.all(writes)
    // Each commit rereads and rewrites the day rows its pages touch: one for the four, not one each.
    expect(transaction.mock.calls.length).toBe(1)
    expect(await countHistory(db)).toBe(40)
    await store.endPages(CONN)
    expect(await db.dayDigests.toArray()).toEqual(dayDigestRowsOf(await allHistory(db)))
  })

  it('a batch that cannot be written fails each of its pages and writes none of them', async () => {
    await store.savePlan(CONN, [])
    const failing = vi.spyOn(store.writer, 'putPages').mockRejectedValueOnce(new Error('disk full'))
    const settled = await Promise.allSettled(
      Array.from({ length: 3 }, (_, n) => store.putPage(historyPage(n), part(n), T)),
    )
    expect(failing).toHaveBeenCalled()
    // The first page's own transaction failed; the pages queued behind it went into the next one.
    expect(settled[0]).toMatchObject({ status: 'rejected', reason: new Error('disk full') })
    expect(await countHistory(db)).toBe(settled.filter((s) => s.status === 'fulfilled').length * 10)
    expect(await db.checkpoints.count()).toBe(settled.filter((s) => s.status === 'fulfilled').length)
  })
})

describe('CacheSyncStore: the pages of a first sync go to new day parts', () => {
  /** Two pages of one day in two commits (the second put waits for the first); each part's size. */
  async function twoCommits(): Promise<number[]> {
    await store.putPage(historyPage(0), part(0), T)
    await store.putPage(historyPage(1), part(1), T)
    const parts = await db.historyParts.toArray()
    return parts.map((p) => p.rows.length)
  }

  it('a plan saved on an empty cache files each commit in parts of its own', async () => {
    await store.savePlan(CONN, [])
    expect(await twoCommits()).toEqual([10, 10])
    expect(await countHistory(db)).toBe(20)
  })

  it('a first sync stopped before its end has its days filed when the next run loads its plan', async () => {
    await store.savePlan(CONN, [])
    await store.putPage(historyPage(0), part(0), T)
    await store.putPage(historyPage(1), part(1), T)
    expect(await db.dayDigests.count()).toBe(0)
    // A reload: a new store, which holds none of what the stopped run deferred.
    const next = new CacheSyncStore(db)
    expect(await next.loadPlan(CONN)).toHaveLength(2)
    expect(await db.dayDigests.toArray()).toEqual(dayDigestRowsOf(await allHistory(db)))
    expect(await db.dayTokens.count()).toBeGreaterThan(0)
  })

  it('a plan saved on a cache that holds records appends to the day’s last part', async () => {
    await store.savePlan(CONN, [])
    await store.putPage(historyPage(5), part(5), T) // a later day's records
    await store.savePlan(CONN, [])
    // One part of the first day (both commits), then the later day's.
    expect(await twoCommits()).toEqual([20, 10])
    expect(await countHistory(db)).toBe(30)
  })
})
