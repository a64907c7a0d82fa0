/**
 * Workers are shared between the resources: each resource has its own Route budget, so the
 * first resource to split must not keep every worker. On a fake of main's list API that pages a window
 * like the service (from/to, cursor, total_hits) and a fake cache that records splits.
 */
import { describe, expect, it } from 'vitest'
import type { ListPageArgs, ListPageResult } from '../../../../electron/shared/contract/api'
import type { ChargeItem, HistoryItem } from '../../../../electron/shared/payment-api'
import type { SyncCheckpoint, SyncResource } from '../../../../src/domain/records'
import { SyncEngine, type SyncStorePort } from '../../../../src/sync/sync-engine'
import { chargeItem, historyItem } from '../../../support/api-items'

const CONNECTION = '0f0e0d0c-0b0a-4908-8706-050403020100'
const SINCE = Date.UTC(2026, 0, 1)
const NOW = Date.UTC(2026, 0, 10)
const ITEMS = 10_000
const at = (i: number) => new Date(SINCE + i * 60_000).toISOString()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Pages [from, to) after the cursor, oldest first, with total_hits, like the list APIs. */
function listApi(firstChargeDelayMs: number) {
  const history = Array.from({ length: ITEMS }, (_, i) => historyItem(i, { created_on: at(i) }))
  const charges = Array.from({ length: ITEMS }, (_, i) => chargeItem(10_000 + i, { created_on: at(i) }))
  let historyDone = false
  let chargeCalls = 0
  /** Requests of each resource while history was still being paged. */
  const callsDuringHistory: Record<SyncResource, number> = { transaction_history: 0, charges: 0 }
  const api = {
    async listPage(args: ListPageArgs): Promise<ListPageResult> {
      const { resource } = args
      if (!historyDone) callsDuringHistory[resource]++
      // Charges answer their first page late: history has split and taken the workers by then.
      await sleep(resource === 'charges' && chargeCalls++ === 0 ? firstChargeDelayMs : 4)
      const from = Date.parse(args.filters?.from ?? '')
      const toText = args.filters?.to
      // History's `to` is inclusive (…999999Z), the charge list's exclusive.
      const before = (t: number) =>
        toText === undefined
          ? true
          : resource === 'charges'
            ? t < Date.parse(toText)
            : t <= Date.parse(toText)
      const all: (HistoryItem | ChargeItem)[] = resource === 'charges' ? charges : history
      const window = all.filter((item) => {
        const t = Date.parse(item.created_on)
        return t >= from && before(t)
      })
      const idOf = (item: HistoryItem | ChargeItem) => ('resource_id' in item ? item.resource_id : item.id)
      const cursor = args.paging?.cursor
      const start = cursor ? window.findIndex((item) => idOf(item) === cursor) + 1 : 0
      const limit = args.paging?.limit ?? 100
      const items = window.slice(start, start + limit)
      const hasMore = start + limit < window.length
      const page = { hasMore, totalHits: window.length, fetchedAt: new Date(NOW).toISOString() }
      return resource === 'charges'
        ? { resource, items: items as ChargeItem[], ...page }
        : { resource, items: items as HistoryItem[], ...page }
    },
    cancelJob: () => Promise.resolve(),
  }
  return {
    api,
    callsDuringHistory,
    historyFinished: () => {
      historyDone = true
    },
  }
}

function memoryStore(onHistoryComplete: () => void) {
  let plan: SyncCheckpoint[] = []
  const stored: Record<SyncResource, Set<string>> = { transaction_history: new Set(), charges: new Set() }
  /** Items written, counting an item written twice twice (the sets above would hide it). */
  const written: Record<SyncResource, number> = { transaction_history: 0, charges: 0 }
  const update = (cps: SyncCheckpoint[]) => {
    for (const cp of cps) {
      const i = plan.findIndex((p) => p.partitionId === cp.partitionId)
      if (i >= 0) plan[i] = { ...cp }
      else plan.push({ ...cp })
    }
  }
  const store: SyncStorePort = {
    loadPlan: () => Promise.resolve(plan),
    savePlan: (_c, p) => {
      plan = p.map((cp) => ({ ...cp }))
      return Promise.resolve()
    },
    splitPartition: (cps) => {
      update(cps)
      return Promise.resolve()
    },
    putPage: (page, cp) => {
      const ids =
        page.resource === 'charges' ? page.items.map((c) => c.id) : page.items.map((h) => h.resource_id)
      for (const id of ids) stored[page.resource].add(id)
      written[page.resource] += ids.length
      update([cp])
      if (stored.transaction_history.size === ITEMS) onHistoryComplete()
      return Promise.resolve({ added: page.items.length, changedKeys: [] })
    },
    staleRefundedCharges: () => Promise.resolve([]),
    finishRun: () => {
      plan = []
      return Promise.resolve()
    },
  }
  return { store, stored, written }
}

describe('workers shared between resources', () => {
  it("gives the later resource its share of workers while the first one's partitions still run", async () => {
    const fake = listApi(15)
    const mem = memoryStore(fake.historyFinished)
    const engine = new SyncEngine({ api: fake.api, store: mem.store, concurrency: 8, now: () => NOW })
    const result = await engine.run({
      scope: { connectionId: CONNECTION, storeIds: [], resources: ['transaction_history', 'charges'] },
      since: SINCE,
      lookbackMs: 0,
      coveredUntil: {},
    })
    expect(result.state).toBe('done')
    // Nothing lost or fetched twice by handing partitions back and forth.
    expect(mem.stored.transaction_history.size).toBe(ITEMS)
    expect(mem.stored.charges.size).toBe(ITEMS)
    expect(mem.written).toEqual({ transaction_history: ITEMS, charges: ITEMS })
    // 8 workers over 2 resources: while history pages, charges page about as often (4 partitions each),
    // not with the one worker history left them (a quarter of history's requests or fewer).
    const { transaction_history: historyCalls, charges: chargeCalls } = fake.callsDuringHistory
    expect(chargeCalls).toBeGreaterThan(0.6 * historyCalls)
  })
})
