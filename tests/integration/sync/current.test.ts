/**
 * Old records stay current and the local clock is never trusted: incremental
 * windows start from the cached data, changeable records are re-checked however old, and a crash in the
 * middle of a sync write converges to the server's truth on the next sync.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MarkingService } from '../../../src/db/marking-service'
import { MarksRepository } from '../../../src/db/marks-repository'
import type { MarkRecord } from '../../../src/domain/records'
import { fingerprintOf } from '../../../src/domain/fingerprint'
import {
  SyncEngine,
  type SyncApiPort,
  type SyncProgress,
  type SyncStorePort,
} from '../../../src/sync/sync-engine'
import { diffCacheWithSandbox } from '../support/compare'
import { startHarness, type Harness } from '../support/harness'
import { allHistory } from '../../../src/db/history-part-reads'

const SINCE = Date.parse('2026-07-01T00:00:00Z')
const HOUR = 3600_000
/** The app's look-back is 15 minutes (src/stores/sync-store.ts); the tests use the same. */
const LOOKBACK = 15 * 60_000
const harnesses: Harness[] = []
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()))
})

async function harness(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const h = await startHarness({
    seed: 33,
    stores: 2,
    records: 1200,
    rateScale: 50,
    control: true,
    ...options,
  })
  harnesses.push(h)
  return h
}

async function sync(
  h: Harness,
  options: { now?: () => number; store?: SyncStorePort; api?: SyncApiPort } = {},
): Promise<SyncProgress> {
  const conn = await h.store.connections.get(h.connectionId)
  return new SyncEngine({
    api: options.api ?? h.syncApi,
    store: options.store ?? h.store,
    concurrency: 4,
    ...(options.now ? { now: options.now } : {}),
  }).run({
    scope: {
      connectionId: h.connectionId,
      storeIds: h.sandbox.storeIds,
      resources: ['transaction_history', 'charges'],
    },
    since: SINCE,
    lookbackMs: LOOKBACK,
    coveredUntil: conn?.highWater ?? {},
  })
}

async function control(h: Harness, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.sandbox.url}/__control/${path}`, {
    method: 'POST',
    headers: { 'X-Control-Token': h.sandbox.controlToken ?? '', 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Record<string, unknown>
}

async function expectConverged(h: Harness): Promise<void> {
  expect(await diffCacheWithSandbox(h)).toMatchObject({ missing: 0, extra: 0, different: 0 })
}

async function reconcile(h: Harness, key: `charge:${string}` | `refund:${string}`): Promise<MarkRecord> {
  const record = await h.store.history.get(h.connectionId, key)
  if (!record) throw new Error(`${key} not cached`)
  const mark: MarkRecord = {
    connectionId: h.connectionId,
    key,
    state: 'reconciled',
    note: '',
    fingerprint: fingerprintOf(record),
    changedSinceReconciled: 0,
    period: '2026-07',
    updatedAt: 1,
    updatedBy: 'test',
  }
  await new MarkingService(h.db).planAndApply(h.connectionId, [record], () => ({
    puts: [mark],
    deletes: [],
    audit: [],
    refused: [],
  }))
  return mark
}

describe('no trust in the local clock', () => {
  it('a sync under a clock 6 hours ahead, then corrected, loses nothing', async () => {
    const h = await harness()
    const ahead = () => Date.now() + 6 * HOUR
    expect((await sync(h, { now: ahead })).state).toBe('done')
    // Sold while the clock was wrong, and after it was put right.
    await control(h, 'charges', { count: 40 })
    expect((await sync(h, { now: ahead })).state).toBe('done')
    await expectConverged(h)
    await control(h, 'charges', { count: 40 })
    const corrected = await sync(h)
    expect(corrected.kind).toBe('incremental')
    expect(corrected.state).toBe('done')
    await expectConverged(h)
    // The windows started from the data: the newest cached record minus the look-back, per store.
    for (const p of corrected.partitions) expect(p.from).toBeLessThan(Date.now() - 5 * 60_000)
  }, 60_000)

  it('a clock 6 hours behind still reads to the service’s present, and the run says the clock is off', async () => {
    const h = await harness()
    expect((await sync(h)).state).toBe('done')
    await control(h, 'charges', { count: 30 })
    const behind = await sync(h, { now: () => Date.now() - 6 * HOUR })
    expect(behind.state).toBe('done')
    await expectConverged(h)
    // The newest record is ~6 h ahead of this clock: the panel says so instead of a bare "up to date".
    expect(behind.clockBehindMs).toBeGreaterThan(5 * HOUR)
    expect((await sync(h)).clockBehindMs).toBeNull()
  }, 60_000)
})

describe('the look-back', () => {
  it('finds a record the service lists late, created before the newest one cached', async () => {
    const h = await harness()
    expect((await sync(h)).state).toBe('done')
    // The service lists from a search index: a charge can show up after a newer one did. Two charges a
    // second apart in one store; the older is not listed yet during the next sync.
    const storeId = h.sandbox.storeIds[0]
    const late = (await control(h, 'charges', { count: 1, storeId })) as { charges: { id: string }[] }
    await new Promise((resolve) => setTimeout(resolve, 1100))
    await control(h, 'charges', { count: 1, storeId })
    const hidden = late.charges[0]?.id
    const lagging: SyncApiPort = {
      ...h.syncApi,
      listPage: async (args) => {
        const page = await h.syncApi.listPage(args)
        return page.resource === 'charges'
          ? { ...page, items: page.items.filter((c) => c.id !== hidden) }
          : { ...page, items: page.items.filter((i) => i.resource_id !== hidden) }
      },
    }
    expect((await sync(h, { api: lagging })).state).toBe('done')
    expect((await diffCacheWithSandbox(h)).missing).toBe(2) // its history row and its charge-list row
    // Listed now: the next window starts a look-back before the newest cached record, so it is read.
    expect((await sync(h)).state).toBe('done')
    await expectConverged(h)
  }, 60_000)
})

describe('changeable records are re-checked, however old', () => {
  it('a capture, a konbini payment and a refund that succeed months later are caught and flagged', async () => {
    const h = await harness()
    expect((await sync(h)).state).toBe('done')
    const july = (us: number) => us < Date.parse('2026-08-01T00:00:00Z') * 1000
    const charges = h.sandbox.data.charges
    const authorized = charges.find((c) => july(c.createdUs) && c.status === 'authorized')
    const pending = charges.find(
      (c) => july(c.createdUs) && (c.status === 'pending' || c.status === 'awaiting'),
    )
    const refund = charges.flatMap((c) => c.refunds).find((r) => july(r.createdUs) && r.status === 'pending')
    if (!authorized || !pending || !refund) throw new Error('the seed has no old changeable records')
    const marks = [await reconcile(h, `charge:${authorized.id}`), await reconcile(h, `refund:${refund.id}`)]

    await control(h, 'status', { id: authorized.id, status: 'successful' })
    await control(h, 'status', { id: pending.id, status: 'successful' })
    await control(h, 'status', { id: refund.id, status: 'successful' })

    const result = await sync(h)
    expect(result.state).toBe('done')
    await expectConverged(h)
    expect(result.changedKeys).toEqual(
      expect.arrayContaining([
        `charge:${authorized.id}`,
        `charge:${pending.id}`,
        `refund:${refund.id}`,
        `charge-list:${authorized.id}`,
      ]),
    )
    for (const mark of marks) {
      const after = await new MarksRepository(h.db).get(h.connectionId, {
        key: mark.key,
        createdAt: (await h.store.history.get(h.connectionId, mark.key))?.createdAt ?? 0,
      })
      expect(after?.changedSinceReconciled, mark.key).toBe(1)
    }
    // Bounded: one status query per store × non-final status (a page each at this size), and one or two
    // lookups per record that left its status.
    const recheck = result.recheck
    expect(recheck?.checked).toBeGreaterThan(3)
    expect(recheck?.remaining).toBe(0)
    expect(recheck?.requests).toBeLessThanOrEqual(2 * 4 + 3 * 2)

    // Nothing changed since: the next sync re-checks with the status queries alone and changes nothing.
    const again = await sync(h)
    expect(again.changedKeys).toEqual([])
    expect(again.recheck?.requests).toBeLessThanOrEqual(2 * 4)
  }, 60_000)

  it('refunded charges listing `refund_id` are seen as up to date: no search per refunded charge', async () => {
    const h = await harness({ records: 400 })
    expect((await sync(h)).state).toBe('done')
    const refunded = await h.store.staleRefundedCharges(h.connectionId, 0, Date.now() + HOUR)
    expect(refunded).toEqual([])
    // The real service's element names its id `refund_id`: rewritten so, the charges are still up to date.
    const rows = await allHistory(h.db)
    const charge = rows.find((r) => r.type === 'charge' && (r.raw.user_data?.refunds?.length ?? 0) > 0)
    if (!charge) throw new Error('no refunded charge')
    const realShape = (charge.raw.user_data?.refunds ?? []).map(({ id, ...rest }) => ({
      refund_id: id,
      ...rest,
    }))
    const { writer } = h.store
    await h.db.transaction('rw', writer.historyTables(), () =>
      writer.putHistory([
        { ...charge, raw: { ...charge.raw, user_data: { ...charge.raw.user_data, refunds: realShape } } },
      ]),
    )
    expect(await h.store.staleRefundedCharges(h.connectionId, 0, Date.now() + HOUR)).toEqual([])
  }, 60_000)
})

describe('a crash in the middle of the sync write', () => {
  // `window`: a page of the incremental window never commits. `lookup`: a re-checked charge's second write
  // (its charge-list record and its history rows are two writes) never commits: the first must not make
  // the record look current, or the other half would stay stale for good.
  for (const crashIn of ['window', 'lookup'] as const)
    it(`the next sync converges to the server’s truth (crash in a ${crashIn} write)`, async () => {
      const h = await harness()
      expect((await sync(h)).state).toBe('done')
      const old = h.sandbox.data.charges.filter(
        (c) => c.createdUs < Date.parse('2026-08-01T00:00:00Z') * 1000 && c.status === 'authorized',
      )
      expect(old.length).toBeGreaterThanOrEqual(2)
      for (const c of old.slice(0, 3)) await control(h, 'status', { id: c.id, status: 'successful' })
      await control(h, 'charges', { count: 150 })
      let windowWrites = 0
      let lookupWrites = 0
      const crashing: SyncStorePort = {
        loadPlan: (id) => h.store.loadPlan(id),
        savePlan: (id, plan) => h.store.savePlan(id, plan),
        splitPartition: (parts) => h.store.splitPartition(parts),
        staleRefundedCharges: (id, from, to) => h.store.staleRefundedCharges(id, from, to),
        newestCached: (id, resource, store) => h.store.newestCached(id, resource, store),
        changeableRecords: (id) => h.store.changeableRecords(id),
        fingerprintOfItem: (item) => h.store.fingerprintOfItem(item),
        finishRun: (id, covered, at) => h.store.finishRun(id, covered, at),
        putPage: async (page, cp, at) => {
          const lookup = /^recheck\|(charge|search)\|/.test(cp.partitionId)
          if (crashIn === 'window' && !cp.partitionId.startsWith('recheck|') && ++windowWrites === 3)
            throw new Error('renderer killed')
          if (crashIn === 'lookup' && lookup && ++lookupWrites === 2) throw new Error('renderer killed')
          return h.store.putPage(page, cp, at)
        },
      }
      expect((await sync(h, { store: crashing })).state).not.toBe('done')
      if (crashIn === 'lookup') expect(lookupWrites).toBe(2)
      const { store } = await h.reopenDb()
      const next = await sync(h, { store })
      expect(next.state).toBe('done')
      await expectConverged(h)
    }, 60_000)
})

describe('verify month', () => {
  it('a cancelled verification leaves no plan in the way of the next one, which reports what changed', async () => {
    const h = await harness()
    expect((await sync(h)).state).toBe('done')
    const september = { from: Date.parse('2026-09-01T00:00:00Z'), to: Date.parse('2026-10-01T00:00:00Z') }
    const target = h.sandbox.data.charges.find(
      (c) =>
        c.status === 'successful' &&
        c.createdUs >= september.from * 1000 &&
        c.createdUs < september.to * 1000,
    )
    if (!target) throw new Error('no September charge')
    await control(h, 'status', { id: target.id, status: 'canceled' })
    const conn = await h.store.connections.get(h.connectionId)
    const request = {
      scope: {
        connectionId: h.connectionId,
        storeIds: h.sandbox.storeIds,
        resources: ['transaction_history' as const, 'charges' as const],
      },
      since: SINCE,
      lookbackMs: LOOKBACK,
      coveredUntil: conn?.highWater ?? {},
      window: september,
    }
    const engine = new SyncEngine({ api: h.syncApi, store: h.store, concurrency: 1 })
    const cancelled = await engine.run({
      ...request,
      onProgress: (p) => {
        if (p.requests > 0) void engine.cancel()
      },
    })
    expect(cancelled.state).toBe('cancelled')
    expect((await h.store.loadPlan(h.connectionId)).some((cp) => !cp.done)).toBe(true)
    const again = await new SyncEngine({ api: h.syncApi, store: h.store }).run(request)
    expect(again.state).toBe('done')
    expect(again.resumed).toBe(false)
    expect(again.changedKeys).toEqual(expect.arrayContaining([`charge:${target.id}`]))
    await expectConverged(h)
  }, 60_000)
})
