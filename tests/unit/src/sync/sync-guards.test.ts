/**
 * The sync engine's guards against a service that pages wrongly, and how it moves on
 * past quarantined items: on fakes of main's api and of the cache, so each answer is exactly as written.
 */
import { describe, expect, it } from 'vitest'
import type { ListPageArgs, ListPageResult, QuarantinedItem } from '../../../../electron/shared/contract/api'
import type { HistoryItem } from '../../../../electron/shared/payment-api'
import { SyncEngine } from '../../../../src/sync/sync-engine'
import { quarantinedItem, uuid as id } from '../../../support/api-items'
import { memoryStore } from './memory-sync-store'

const CONNECTION = '0f0e0d0c-0b0a-4908-8706-050403020100'

function item(i: number): HistoryItem {
  return {
    store_id: id(999),
    resource_id: id(i),
    charge_id: null,
    amount: 100 + i,
    currency: 'JPY',
    type: 'charge',
    status: 'successful',
    created_on: new Date(Date.UTC(2026, 9, 1) + i * 1000).toISOString(),
    mode: 'live',
    payment_type: 'card',
  }
}

function quarantined(i: number): QuarantinedItem {
  return quarantinedItem(i, { request: 'GET /transaction_history', raw: { resource_id: id(i), amount: 'x' } })
}

/** A fake `api:listPage` answering from a script: the n-th call gets the n-th answer (or the last). */
function scripted(answers: ((args: ListPageArgs) => Omit<ListPageResult, 'fetchedAt'>)[]) {
  const calls: ListPageArgs[] = []
  return {
    calls,
    api: {
      listPage: (args: ListPageArgs): Promise<ListPageResult> => {
        calls.push(args)
        // Bounded: without its guards the engine would ask forever.
        if (calls.length > 20) return Promise.reject(new Error('runaway paging'))
        const answer = answers[Math.min(calls.length - 1, answers.length - 1)] as (
          a: ListPageArgs,
        ) => Omit<ListPageResult, 'fetchedAt'>
        return Promise.resolve({ ...answer(args), fetchedAt: new Date(0).toISOString() } as ListPageResult)
      },
      cancelJob: () => Promise.resolve(),
    },
  }
}

const request = {
  scope: { connectionId: CONNECTION, storeIds: [], resources: ['transaction_history' as const] },
  since: Date.UTC(2026, 9, 1),
  lookbackMs: 0,
  coveredUntil: {},
}

const history =
  (items: HistoryItem[], more: Partial<ListPageResult> = {}) =>
  () =>
    ({ resource: 'transaction_history', items, hasMore: false, ...more }) as Omit<ListPageResult, 'fetchedAt'>

describe('sync guards', () => {
  it('stops a partition whose cursor does not advance, with a specific error, instead of looping', async () => {
    const { api, calls } = scripted([history([item(1), item(2)], { hasMore: true })])
    const mem = memoryStore()
    const result = await new SyncEngine({ api, store: mem.store, concurrency: 1 }).run(request)
    expect(result.state).toBe('partial')
    expect(result.partitions[0]?.error).toEqual({
      code: 'malformed_response',
      message: expect.stringMatching(/does not move on/) as string,
      reason: 'cursor_stuck',
      params: {},
    })
    // One page stored, one more asked for (same cursor back): then it stops.
    expect(calls).toHaveLength(2)
    expect(calls[1]?.paging?.cursor).toBe(id(2))
    expect(mem.records.size).toBe(2)
  })

  it('stops when the service sends more records than its total_hits and still says there are more', async () => {
    let n = 0
    const page = () => {
      const items = [item(++n), item(++n)]
      return history(items, { hasMore: true, ...(n === 2 ? { totalHits: 3 } : {}) })()
    }
    const { api, calls } = scripted([page])
    const result = await new SyncEngine({ api, store: memoryStore().store, concurrency: 1 }).run(request)
    expect(result.partitions[0]?.error?.message).toMatch(/sent 4 records for a window it said holds 3/)
    expect(calls).toHaveLength(2)
  })

  it('pages on from next_cursor when main passes one, and past a quarantined last item', async () => {
    const next = id(500)
    const { api, calls } = scripted([
      history([item(1), item(2)], { hasMore: true, cursorAfter: next }),
      history([item(3)], { hasMore: true, quarantined: [quarantined(4)], cursorAfter: id(4) }),
      history([item(5)]),
    ])
    const mem = memoryStore()
    const result = await new SyncEngine({ api, store: mem.store, concurrency: 1 }).run(request)
    expect(result.state).toBe('done')
    expect(calls.map((c) => c.paging?.cursor)).toEqual([undefined, next, id(4)])
    expect([...mem.records.keys()]).toEqual([id(1), id(2), id(3), id(5)])
    expect([...mem.quarantine.keys()]).toEqual([id(4)])
    expect(result.quarantined).toBe(1)
  })

  it('a page of only quarantined items still moves on', async () => {
    const { api, calls } = scripted([
      history([], { hasMore: true, quarantined: [quarantined(1), quarantined(2)], cursorAfter: id(2) }),
      history([item(3)]),
    ])
    const mem = memoryStore()
    const result = await new SyncEngine({ api, store: mem.store, concurrency: 1 }).run(request)
    expect(result.state).toBe('done')
    expect(calls.map((c) => c.paging?.cursor)).toEqual([undefined, id(2)])
    expect(mem.quarantine.size).toBe(2)
  })
})
