/**
 * Sync compared side by side with clients that have no scheduler, and the cost of an incremental sync on
 * a large history. Each client gets its own sandbox with the same seed (identical data, fresh buckets).
 */
import type { SandboxOptions } from '../../electron/sandbox/server'
import { measured, type MetricMap } from './metrics'
import { greedyParallel, sequentialPager, type NaiveResult } from './support/naive-clients'
import { control, prefillFromSandbox, startSyncHarness, type SyncHarness } from './support/sync-harness'
import { defaultSince, round, runSync } from './support/sync-run'
import { endAfter, monthlyWindows, toWholeSecond } from '../../src/sync/plan'

/**
 * Loopback answers in ~5 ms, where every client is bound by the Route bucket alike; a sequential pager is
 * slow because of round trips. 100 ms plus a seeded 0–100 ms jitter stands for a round trip to the service.
 */
const LATENCY = { latencyMs: 100, jitterMs: 100 }

async function withSandbox<T>(options: SandboxOptions, run: (h: SyncHarness) => Promise<T>): Promise<T> {
  const h = await startSyncHarness(options)
  try {
    return await run(h)
  } finally {
    await h.close()
  }
}

export async function benchSync({ quick }: { quick: boolean }): Promise<MetricMap> {
  const metrics: MetricMap = {}
  const stores = 5
  const records = quick ? 6000 : 20_000
  const options: SandboxOptions = { seed: 202, stores, records, rateScale: 1, faults: LATENCY }
  const where = `${stores} stores, ${records} charges, rate scale 1, answers delayed ${LATENCY.latencyMs}+0..${LATENCY.jitterMs} ms`

  // Closebook: engine + gateway + scheduler, cache writes (fake-indexeddb) included in its time.
  const ours = await withSandbox(options, async (h) => {
    const started = Date.now()
    const result = await runSync(h)
    if (result.state !== 'done') throw new Error(`sync ended ${result.state}`)
    const ms = Date.now() - started
    return { ms, records: result.records, requests: (await h.log.served()).length }
  })
  const sequential: NaiveResult = await withSandbox(options, (h) => sequentialPager(h.sandbox))
  const greedy: NaiveResult = await withSandbox(options, (h) => {
    const now = Date.now()
    return greedyParallel(h.sandbox, monthlyWindows(toWholeSecond(defaultSince(now)), endAfter(now)))
  })
  const describe = (r: NaiveResult) =>
    `${r.records} records, ${r.requests} requests, ${r.http429} × 429 in ${round(r.ms / 1000, 1)} s`

  // Wall time of the naive pager ÷ Closebook's, on identical data and latency.
  metrics['sync.speedup_vs_sequential'] = measured(
    'sync.speedup_vs_sequential',
    round(sequential.ms / ours.ms),
    `sequential pager (limit 100, list after list): ${describe(sequential)}; Closebook: ${ours.records} records, ${ours.requests} requests in ${round(ours.ms / 1000, 1)} s; ${where}`,
  )
  metrics['sync.greedy_429'] = measured(
    'sync.greedy_429',
    greedy.http429,
    `greedy client (store × resource × month partitions all at once, as Closebook planned before coarse partitions; no scheduler, honours Retry-After): ${describe(greedy)}; ${where}`,
  )

  // Incremental: a large history already cached and synced up to now, then 100 new charges arrive.
  const large = quick ? 20_000 : 200_000
  await withSandbox({ seed: 303, stores, records: large, rateScale: 1, control: true }, async (h) => {
    const syncedAt = Date.now()
    const cached = await prefillFromSandbox(h, syncedAt)
    // Both resources covered up to now, as a complete sync would have recorded.
    await h.store.connections.recordSync(h.connectionId, syncedAt, {
      transaction_history: syncedAt,
      charges: syncedAt,
    })
    await control(h, 'charges', { count: 100 })
    await h.log.clear()
    const result = await runSync(h)
    if (result.state !== 'done' || result.kind !== 'incremental')
      throw new Error(`incremental sync ended ${result.state} (${result.kind})`)
    const perPartition = Math.max(...result.partitions.map((p) => p.requests))
    // Requests as the engine counted them per partition; the sandbox's own count is the cross-check.
    metrics['sync.incremental_requests'] = measured(
      'sync.incremental_requests',
      perPartition,
      `max over ${result.partitions.length} partitions; ${result.records} records fetched, ${(await h.log.served()).length} requests at the sandbox (${result.refreshRequests} refresh); ${cached} history records cached (fake-indexeddb, filled through the history writer) and ${large} charges in the sandbox`,
    )
  })
  return metrics
}
