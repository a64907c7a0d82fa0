import { describe, expect, it } from 'vitest'
import type { ListPageArgs, ListPageResult } from '../../../../electron/shared/contract/api'
import type { HistoryItem } from '../../../../electron/shared/payment-api'
import {
  isChangeableStatus,
  MAX_RECHECK_LOOKUPS,
  recheckChangeable,
  type ChangeableRecord,
} from '../../../../src/sync/recheck'
import { historyItem, uuid } from '../db/fixtures'

const T0 = Date.parse('2026-07-01T00:00:00Z')
const START = Date.parse('2026-11-01T00:00:00Z')

function record(n: number, status: string): ChangeableRecord {
  return {
    key: `charge:${uuid(n)}`,
    type: 'charge',
    resourceId: uuid(n),
    chargeId: uuid(n),
    storeId: 's1',
    status,
    createdAt: T0 + n * 60_000,
    fingerprint: `fp-${n}-${status}`,
  }
}

/** A service whose status lists hold `stillIn` (by id); every call is recorded. */
function service(stillIn: Set<string>) {
  const calls: ListPageArgs[] = []
  const listPage = (args: ListPageArgs): Promise<ListPageResult> => {
    calls.push(args)
    if (args.resource !== 'transaction_history')
      return Promise.resolve({
        resource: 'charges',
        items: [],
        hasMore: false,
        fetchedAt: '2026-11-24T00:00:00Z',
      })
    const status = args.filters?.status
    const after = args.paging?.cursor
    const all: HistoryItem[] = status
      ? [...stillIn].sort().map((id) => historyItem(Number.parseInt(id.slice(-12), 16), { status }))
      : []
    const from = after ? all.findIndex((i) => i.resource_id === after) + 1 : 0
    const items = all.slice(from, from + 100)
    return Promise.resolve({
      resource: 'transaction_history',
      items,
      hasMore: from + 100 < all.length,
      fetchedAt: '2026-11-24T00:00:00Z',
    })
  }
  return { calls, listPage }
}

const ports = (listPage: (args: ListPageArgs) => Promise<ListPageResult>) => ({
  listPage,
  putPage: () => Promise.resolve({ changedKeys: [] }),
  fingerprintOfItem: (item: HistoryItem) =>
    `fp-${Number.parseInt(item.resource_id.slice(-12), 16)}-${item.status}`,
  now: () => 0,
})

const input = (records: ChangeableRecord[]) => ({
  connectionId: 'c1',
  jobId: 'job',
  storeIds: [],
  windowStart: new Map<string | null, number>([[null, START]]),
  charges: false,
  records,
  signal: new AbortController().signal,
})

describe('recheckChangeable', () => {
  it('treats every status not known to be final as changeable', () => {
    expect(['pending', 'awaiting', 'authorized', 'something_new'].every(isChangeableStatus)).toBe(true)
    expect(['successful', 'failed', 'error', 'canceled'].some(isChangeableStatus)).toBe(false)
  })

  it('costs one status list per status (pages of 100), and a lookup only per record that left it', async () => {
    const records = [
      ...Array.from({ length: 250 }, (_, i) => record(i + 1, 'pending')),
      ...Array.from({ length: 30 }, (_, i) => record(i + 1001, 'authorized')),
    ]
    const left = new Set([records[3]?.resourceId, records[260]?.resourceId])
    const stillIn = new Set(records.map((r) => r.resourceId).filter((id) => !left.has(id)))
    const { calls, listPage } = service(stillIn)
    const result = await recheckChangeable(ports(listPage), input(records))
    expect(result.complete).toBe(true)
    expect(result.checked).toBe(280)
    // The fake serves each status list with every record still in its status (278): 3 pages for each of
    // the 2 statuses, then one search per record that left its status.
    const statusCalls = calls.filter((c) => c.resource === 'transaction_history' && c.filters?.status)
    const searches = calls.filter((c) => c.resource === 'transaction_history' && c.filters?.search)
    expect(statusCalls.length).toBe(6)
    expect(searches.map((c) => c.resource === 'transaction_history' && c.filters?.search).sort()).toEqual(
      [...left].sort(),
    )
    expect(result.requests).toBe(8)
    // Each status list starts at the oldest record in that status and ends where the window begins.
    for (const c of statusCalls)
      if (c.resource === 'transaction_history') expect(c.filters?.to).toBe('2026-10-31T23:59:59.999999Z')
  })

  it('is bounded: past MAX_RECHECK_LOOKUPS the rest is left for the next sync and said so', async () => {
    const records = Array.from({ length: MAX_RECHECK_LOOKUPS + 7 }, (_, i) => record(i + 1, 'awaiting'))
    const { calls, listPage } = service(new Set())
    const result = await recheckChangeable(ports(listPage), input(records))
    expect(result.remaining).toBe(7)
    expect(calls.filter((c) => c.resource === 'transaction_history' && c.filters?.search)).toHaveLength(
      MAX_RECHECK_LOOKUPS,
    )
  })

  it('ignores records inside the incremental window (the window reads them anyway)', async () => {
    const inside = { ...record(1, 'pending'), createdAt: START + 1000 }
    const { calls, listPage } = service(new Set())
    const result = await recheckChangeable(ports(listPage), input([inside]))
    expect(result.checked).toBe(0)
    expect(calls).toHaveLength(0)
  })
})
