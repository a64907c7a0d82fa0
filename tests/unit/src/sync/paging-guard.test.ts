/**
 * A sync never pages forever: on a fake of main's api that answers whatever a hostile service would, the
 * engine stops each partition with a specific reason after a bounded number of requests, keeps what it
 * stored, and reads an impossible total_hits as unknown.
 */
import { describe, expect, it } from 'vitest'
import type { ListPageArgs, ListPageResult } from '../../../../electron/shared/contract/api'
import type { HistoryItem } from '../../../../electron/shared/payment-api'
import {
  maxPagesOf,
  PagingGuard,
  plausibleTotal,
  recordsSpanCanHold,
} from '../../../../src/sync/paging-guard'
import { estimateProgress } from '../../../../src/sync/progress-estimate'
import { SyncEngine, type SyncProgress } from '../../../../src/sync/sync-engine'
import { historyItem, uuid } from '../../../support/api-items'
import { memoryStore } from './memory-sync-store'

const CONNECTION = '0f0e0d0c-0b0a-4908-8706-050403020100'
const T0 = Date.UTC(2026, 9, 1)
/** Far more calls than any guard allows in these tests: reaching it means a guard failed. */
const RUNAWAY = 2_000

type Answer = (args: ListPageArgs, call: number) => Omit<ListPageResult, 'fetchedAt'>

function hostile(answer: Answer) {
  const calls: ListPageArgs[] = []
  return {
    calls,
    api: {
      listPage: (args: ListPageArgs): Promise<ListPageResult> => {
        calls.push(args)
        if (calls.length > RUNAWAY) return Promise.reject(new Error('runaway paging'))
        return Promise.resolve({
          ...answer(args, calls.length),
          fetchedAt: new Date(0).toISOString(),
        } as ListPageResult)
      },
      cancelJob: () => Promise.resolve(),
    },
  }
}

const at = (ms: number) => new Date(ms).toISOString()
const item = (n: number, created: number): HistoryItem => historyItem(n, { created_on: at(created) })

async function run(answer: Answer, window?: { from: number; to: number }) {
  const h = hostile(answer)
  const mem = memoryStore()
  const progress: SyncProgress[] = []
  const result = await new SyncEngine({ api: h.api, store: mem.store, concurrency: 1, now: () => T0 }).run({
    scope: { connectionId: CONNECTION, storeIds: [], resources: ['transaction_history'] },
    since: T0 - 86_400_000,
    lookbackMs: 0,
    coveredUntil: {},
    ...(window ? { window } : {}),
    onProgress: (p) => progress.push(p),
  })
  return { result, calls: h.calls, mem, progress }
}

describe('a sync that would never end stops by itself', () => {
  it('a cursor that alternates between two ids, with no total_hits, stops at the first repeat', async () => {
    // Page n is items [2n+1, 2n+2] whose last id alternates between uuid(1) and uuid(2).
    const { result, calls, mem } = await run((_args, call) => ({
      resource: 'transaction_history',
      items: [item(call * 2 + 1, T0 + call * 1000)],
      hasMore: true,
      cursorAfter: uuid(call % 2 === 0 ? 1 : 2),
    }))
    expect(result.state).toBe('partial')
    expect(result.partitions[0]?.error).toMatchObject({
      code: 'malformed_response',
      reason: 'cursor_repeated',
      params: { pages: 3 },
    })
    expect(calls.map((c) => c.paging?.cursor)).toEqual([undefined, uuid(2), uuid(1)])
    // What came before the loop is stored, and the checkpoint stays at the last good cursor.
    expect(mem.records.size).toBe(2)
    expect(mem.plan()[0]?.cursor).toBe(uuid(1))
  })

  it('fresh cursors with the same timestamp forever stop once the span cannot hold that many records', async () => {
    const { result, calls, mem } = await run((_args, call) => ({
      resource: 'transaction_history',
      items: Array.from({ length: 100 }, (_, i) => item(call * 100 + i, T0)),
      hasMore: true,
    }))
    expect(result.partitions[0]?.error).toMatchObject({ reason: 'too_dense' })
    // A whole day's window, but every record at one instant: that instant holds a few thousand at most.
    const canHold = recordsSpanCanHold(T0, T0)
    expect(canHold).toBe(2_000)
    expect(result.partitions[0]?.error?.params).toEqual({ received: canHold + 100, canHold })
    expect(calls.length).toBe(canHold / 100 + 1)
    expect(mem.records.size).toBe(canHold)
  })

  it('a window never takes more pages than it can hold records', async () => {
    const window = { from: T0, to: T0 + 2000 }
    const { result, calls } = await run(
      (_args, call) => ({
        resource: 'transaction_history',
        items: [item(call, T0 + (call % 2000))],
        hasMore: true,
      }),
      window,
    )
    const max = maxPagesOf(window, T0)
    expect(max).toBe(Math.ceil((3 * 1000 + 1000) / 100) + 1)
    expect(result.partitions[0]?.error).toMatchObject({ reason: 'too_many_pages', params: { pages: max } })
    expect(calls.length).toBe(max)
  })

  it('an impossible total_hits is unknown: not shown, not extrapolated, not a reason to stop', async () => {
    for (const total of [1e12, -5, 2.5, 2 ** 60]) {
      const { result, progress } = await run((_args, call) => ({
        resource: 'transaction_history',
        items: [item(call, T0 - 1000 * (10 - call))],
        hasMore: call < 3,
        ...(call === 1 ? { totalHits: total } : {}),
      }))
      expect(result.state, String(total)).toBe('done')
      expect(progress.every((p) => p.partitions.every((x) => x.totalHits === null))).toBe(true)
      for (const p of progress) {
        const e = estimateProgress({ ...p, now: T0 })
        expect(e.history.expected ?? 0).toBeLessThanOrEqual(3)
      }
    }
  })
})

describe('PagingGuard', () => {
  const cp = { from: T0, to: T0 + 3_600_000, cursor: null }

  it('takes a plausible total and refuses one the window cannot hold', () => {
    expect(plausibleTotal(2_000, cp, T0)).toBe(2_000)
    expect(plausibleTotal(0, cp, T0)).toBe(0)
    expect(plausibleTotal(recordsSpanCanHold(cp.from, cp.to) + 1, cp, T0)).toBeUndefined()
    expect(plausibleTotal(Number.NaN, cp, T0)).toBeUndefined()
  })

  it('an open window is bounded by the present plus a day, not by the end of time', () => {
    const open = { from: T0, to: 8.64e15 }
    expect(maxPagesOf(open, T0)).toBeLessThan(maxPagesOf({ from: T0, to: T0 + 2 * 86_400_000 }, T0))
  })

  it('a cursor sent back to where a page started is stuck, one seen before is a repeat', () => {
    const guard = new PagingGuard(cp, T0)
    const page = (cursor: string) => ({
      hasMore: true,
      received: 1,
      oldestCreated: T0,
      newestCreated: T0,
      totalHits: undefined,
      cursor,
    })
    expect(guard.check(page(uuid(1)), null)).toBeNull()
    expect(guard.check(page(uuid(1)), uuid(1))?.reason).toBe('cursor_stuck')
    expect(guard.check(page(uuid(2)), uuid(1))).toBeNull()
    expect(guard.check(page(uuid(1)), uuid(2))?.reason).toBe('cursor_repeated')
  })

  it('a last page is always stored, whatever it says', () => {
    const guard = new PagingGuard(cp, T0)
    expect(
      guard.check(
        {
          hasMore: false,
          received: 0,
          oldestCreated: Number.NaN,
          newestCreated: Number.NaN,
          totalHits: 5,
          cursor: null,
        },
        null,
      ),
    ).toBeNull()
  })
})
