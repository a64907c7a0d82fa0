/**
 * Sync end to end in one process: the renderer's engine and Dexie cache, main's gateway and scheduler, a
 * real sandbox. After every scenario the cache must equal the sandbox's data exactly.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { MarkRecord } from '../../../src/db/records'
import { fingerprintOf } from '../../../src/reconcile/fingerprint'
import { CacheSyncStore } from '../../../src/sync/cache-sync-store'
import {
  SyncEngine,
  type SyncProgress,
  type SyncRequest,
  type SyncStorePort,
} from '../../../src/sync/sync-engine'
import { startHarness, type Harness } from '../support/harness'

const SINCE = Date.parse('2026-07-01T00:00:00Z')
const harnesses: Harness[] = []
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()))
})

async function harness(options: Parameters<typeof startHarness>[0]): Promise<Harness> {
  const h = await startHarness({
    seed: 21,
    stores: 3,
    records: 1200,
    rateScale: 50,
    control: true,
    ...options,
  })
  harnesses.push(h)
  return h
}

async function request(h: Harness, extra: Partial<SyncRequest> = {}): Promise<SyncRequest> {
  const conn = await h.store.connections.get(h.connectionId)
  return {
    scope: {
      connectionId: h.connectionId,
      storeIds: h.sandbox.storeIds,
      resources: ['transaction_history', 'charges'],
    },
    since: SINCE,
    lookbackMs: 2 * 3600_000,
    coveredUntil: conn?.highWater ?? {},
    ...extra,
  }
}

async function sync(
  h: Harness,
  extra: Partial<SyncRequest> = {},
  store: SyncStorePort = h.store,
): Promise<SyncProgress> {
  return new SyncEngine({ api: h.syncApi, store, concurrency: 6 }).run(await request(h, extra))
}

/** The cache holds exactly the sandbox's records: same keys, same fields, nothing more, nothing less. */
async function expectCacheEqualsSandbox(h: Harness): Promise<void> {
  const truth = h.sandbox.snapshot()
  const history = await h.db.history
    .where('[connectionId+createdAt]')
    .between([h.connectionId, -Infinity], [h.connectionId, Infinity])
    .toArray()
  const charges = await h.db.charges
    .where('[connectionId+createdAt]')
    .between([h.connectionId, -Infinity], [h.connectionId, Infinity])
    .toArray()
  const byKey = (items: { raw: unknown; key?: string; id?: string }[]) =>
    new Map(items.map((r) => [r.key ?? r.id, r.raw]))
  const cachedHistory = byKey(history)
  const cachedCharges = byKey(charges)
  expect(cachedHistory.size).toBe(truth.history.length)
  expect(cachedCharges.size).toBe(truth.charges.length)
  for (const item of truth.history)
    expect(cachedHistory.get(`${String(item['type'])}:${String(item['resource_id'])}`)).toEqual(item)
  for (const item of truth.charges) expect(cachedCharges.get(String(item['id']))).toEqual(item)
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

describe('sync against the sandbox', () => {
  it('a first sync fills the cache with exactly the sandbox data, partitioned by store and month', async () => {
    const h = await harness({})
    const seen: SyncProgress[] = []
    const result = await sync(h, { onProgress: (p) => seen.push(p) })
    expect(result.state).toBe('done')
    expect(result.kind).toBe('initial')
    // 2 resources × 3 stores × months from July to now.
    expect(result.partitions.length % 6).toBe(0)
    expect(result.partitions.length).toBeGreaterThanOrEqual(6 * 5)
    await expectCacheEqualsSandbox(h)
    expect(seen.some((p) => p.expected !== null && p.records < p.expected)).toBe(true)
    const conn = await h.store.connections.get(h.connectionId)
    expect(conn?.lastSyncedAt).not.toBeNull()
    expect(conn?.highWater['transaction_history']).toBeGreaterThan(SINCE)
    expect(await h.store.loadPlan(h.connectionId)).toEqual([]) // the plan is closed
  })

  it('resumes after a crash mid-sync (a page that never committed) with nothing missing or doubled', async () => {
    const h = await harness({})
    let pages = 0
    const crashing: SyncStorePort = {
      loadPlan: (id) => h.store.loadPlan(id),
      staleRefundedCharges: (id, from, to) => h.store.staleRefundedCharges(id, from, to),
      savePlan: (id, plan) => h.store.savePlan(id, plan),
      finishRun: (id, covered, at) => h.store.finishRun(id, covered, at),
      putPage: async (page, cp, at) => {
        if (++pages === 9) throw new Error('renderer crashed')
        return h.store.putPage(page, cp, at)
      },
    }
    const first = await sync(h, {}, crashing)
    expect(first.state).toBe('failed')
    expect(first.error?.message).toMatch(/renderer crashed/)
    const stored = await h.db.history.count()
    expect(stored).toBeGreaterThan(0)

    // As after a reload: a new Dexie instance and a new engine find the open plan and resume it.
    const { store } = await h.reopenDb()
    const open = await store.loadPlan(h.connectionId)
    expect(open.some((cp) => !cp.done)).toBe(true)
    expect(open.some((cp) => cp.cursor !== null)).toBe(true)
    const second = await new SyncEngine({ api: h.syncApi, store }).run(await request(h))
    expect(second.resumed).toBe(true)
    expect(second.state).toBe('done')
    await expectCacheEqualsSandbox(h)
  })

  it('cancel stops quickly, keeps the checkpoints, and the next run resumes', async () => {
    const h = await harness({ faults: { latencyMs: 30 } })
    const engine = new SyncEngine({ api: h.syncApi, store: h.store })
    let cancelled = false
    const run = engine.run({
      ...(await request(h)),
      onProgress: (p) => {
        if (!cancelled && p.records > 300) {
          cancelled = true
          void engine.cancel()
        }
      },
    })
    const result = await run
    expect(result.state).toBe('cancelled')
    expect(engine.running).toBe(false)
    const again = await sync(h)
    expect(again.resumed).toBe(true)
    expect(again.state).toBe('done')
    await expectCacheEqualsSandbox(h)
  })

  it('converges through 5xx bursts, dropped connections, cut JSON, bad items and 429 storms', async () => {
    const h = await harness({
      records: 800,
      faults: {
        failRate: 0.15,
        dropRate: 0.05,
        truncateRate: 0.05,
        badItemRate: 0.05,
        storm: { periodMs: 400, durationMs: 80 },
      },
    })
    const states: string[] = []
    for (let i = 0; i < 6; i++) {
      const result = await sync(h)
      states.push(result.state)
      if (result.state === 'done') break
      // Whatever failed says why, per partition.
      for (const p of result.partitions.filter((x) => x.error))
        expect(p.error?.message.length).toBeGreaterThan(10)
    }
    expect(states[states.length - 1]).toBe('done')
    await expectCacheEqualsSandbox(h)
    expect(h.sandbox.stats.byStatus['429'] ?? 0).toBeGreaterThan(0)
    expect(
      (h.sandbox.stats.byStatus['500'] ?? 0) +
        (h.sandbox.stats.byStatus['502'] ?? 0) +
        (h.sandbox.stats.byStatus['503'] ?? 0),
    ).toBeGreaterThan(0)
  }, 120_000)

  it('incremental sync after growth and changes: a few requests per partition, marks untouched, changes flagged', async () => {
    const h = await harness({ records: 3000 })
    expect((await sync(h)).state).toBe('done')

    // The accountant reconciles the newest charge with a note.
    const newestCharge = h.sandbox.data.charges[h.sandbox.data.charges.length - 1]
    const newest = await h.store.history.get(h.connectionId, `charge:${newestCharge?.id ?? ''}`)
    if (!newest) throw new Error('newest charge not cached')
    const mark: MarkRecord = {
      connectionId: h.connectionId,
      key: newest.key,
      state: 'reconciled',
      note: 'matched to order',
      fingerprint: fingerprintOf(newest),
      changedSinceReconciled: 0,
      period: '2026-10',
      updatedAt: 1,
      updatedBy: 'test',
    }
    await h.db.marks.put(mark)

    // The merchant goes on selling: 100 new charges, a refund and a late status change.
    await control(h, 'charges', { count: 100 })
    const pending = (await control(h, 'charges', { count: 1, status: 'pending' })) as {
      charges: { id: string }[]
    }
    await control(h, 'status', { id: pending.charges[0]?.id, status: 'successful' })
    await control(h, 'status', { id: newestCharge?.id, status: 'successful' })
    await control(h, 'refunds', { chargeId: newestCharge?.id, amount: 1 })

    const result = await sync(h)
    expect(result.state).toBe('done')
    expect(result.kind).toBe('incremental')
    expect(result.partitions).toHaveLength(6)
    for (const p of result.partitions) expect(p.requests).toBeLessThanOrEqual(5)
    expect(result.refreshRequests).toBe(1) // the old charge that got a refund
    await expectCacheEqualsSandbox(h)

    const after = await h.db.marks.get([h.connectionId, newest.key])
    expect(after?.note).toBe('matched to order')
    expect(after?.state).toBe('reconciled')
    expect(after?.fingerprint).toBe(mark.fingerprint)
    expect(after?.changedSinceReconciled).toBe(1) // its refunds changed
  }, 60_000)

  it('re-verify month re-fetches one month in full and reports every record that changed', async () => {
    const h = await harness({})
    expect((await sync(h)).state).toBe('done')
    const september = h.sandbox.data.charges.filter(
      (c) =>
        c.createdUs >= Date.parse('2026-09-01T00:00:00Z') * 1000 &&
        c.createdUs < Date.parse('2026-10-01T00:00:00Z') * 1000,
    )
    const target = september.find((c) => c.status === 'successful')
    if (!target) throw new Error('no September charge')
    await control(h, 'status', { id: target.id, status: 'canceled' })

    // An incremental sync does not see a change that old…
    expect((await sync(h)).changedKeys).toEqual([])
    // …re-verifying September does.
    const verify = await sync(h, {
      window: { from: Date.parse('2026-09-01T00:00:00Z'), to: Date.parse('2026-10-01T00:00:00Z') },
    })
    expect(verify.kind).toBe('window')
    expect(verify.state).toBe('done')
    expect(verify.changedKeys.sort()).toEqual([`charge-list:${target.id}`, `charge:${target.id}`].sort())
    await expectCacheEqualsSandbox(h)
  }, 60_000)

  it('offline: a sync with no server says so per partition and keeps the last synced time', async () => {
    const h = await harness({ records: 100 })
    expect((await sync(h)).state).toBe('done')
    const before = (await h.store.connections.get(h.connectionId))?.lastSyncedAt
    await h.sandbox.close()
    const result = await sync(h)
    expect(result.state).toBe('offline')
    expect(result.partitions.every((p) => p.error?.code === 'network')).toBe(true)
    expect((await h.store.connections.get(h.connectionId))?.lastSyncedAt).toBe(before)
    expect(
      await new CacheSyncStore(h.db).history.count({
        connectionId: h.connectionId,
        from: 0,
        to: Date.now() + 1,
      }),
    ).toBeGreaterThan(0)
  }, 60_000)
})
