/**
 * What an incremental sync spends on re-checking the cached records that can still change (src/sync/
 * recheck.ts): 200k history records cached (20k with --quick), 2 % of them in a non-final status
 * (pending, awaiting, authorized charges; pending refunds) spread over the whole history, 100 new charges,
 * and 1 % of the changeable records changed on the service since the last sync (late captures, payments,
 * refunds that succeeded). Also the steady state (nothing changed) and what the alternatives would cost.
 */
import type { HistoryItem } from '../../electron/shared/payment-api'
import { isChangeableStatus } from '../../src/sync/recheck'
import { measured, type MetricMap } from './metrics'
import { control, prefillFromSandbox, startSyncHarness } from './support/sync-harness'
import { round, runSync } from './support/sync-run'

const CHANGEABLE_SHARE = 0.02
const CHANGED_SHARE = 0.01

/** Runs `work` over `items`, `width` at a time (the control endpoint is not rate-limited). */
async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++] as T)
    }),
  )
}

export async function benchRecheck({ quick }: { quick: boolean }): Promise<MetricMap> {
  const metrics: MetricMap = {}
  const stores = 5
  const records = quick ? 20_000 : 200_000
  const h = await startSyncHarness({ seed: 404, stores, records, rateScale: 1, control: true })
  try {
    // Exactly 2 % changeable, evenly over time: the generator's other non-final records become final.
    const initial = await h.sandbox.snapshot()
    const history = initial.history as unknown as HistoryItem[]
    const wanted = Math.round(history.length * CHANGEABLE_SHARE)
    const every = Math.max(1, Math.floor(history.length / wanted))
    const keep = new Set<string>()
    const flips: { id: string; status: string }[] = []
    history.forEach((item, i) => {
      const changeable = isChangeableStatus(item.status)
      if (i % every === 0 && keep.size < wanted) {
        keep.add(item.resource_id)
        if (!changeable)
          flips.push({ id: item.resource_id, status: item.type === 'refund' ? 'pending' : 'authorized' })
      } else if (changeable) flips.push({ id: item.resource_id, status: 'successful' })
    })
    await inParallel(flips, 16, (f) => control(h, 'status', f))

    // The cache as a finished sync left it.
    const syncedAt = Date.now()
    const cachedHistory = await prefillFromSandbox(h, syncedAt)
    await h.store.connections.recordSync(h.connectionId, syncedAt, {
      transaction_history: syncedAt,
      charges: syncedAt,
    })
    const cachedChangeable = (await h.store.changeableRecords(h.connectionId)).length

    // Since then: 1 % of the changeable records changed, and 100 new charges.
    const changed = [...keep].filter((_, i) => i % Math.round(1 / CHANGED_SHARE) === 0)
    await inParallel(changed, 16, (id) => control(h, 'status', { id, status: 'successful' }))
    await control(h, 'charges', { count: 100 })
    await h.log.clear()

    const started = Date.now()
    const result = await runSync(h)
    const ms = Date.now() - started
    if (result.state !== 'done' || !result.recheck)
      throw new Error(`incremental sync ended ${result.state}, re-check ${JSON.stringify(result.recheck)}`)
    const served = (await h.log.served()).length
    const steadyStarted = Date.now()
    const steady = await runSync(h)
    const steadyMs = Date.now() - steadyStarted
    const where = `${cachedHistory} history records cached (fake-indexeddb), ${cachedChangeable} changeable (${round((100 * cachedChangeable) / cachedHistory)} %), ${stores} stores, rate scale 1, loopback`
    const pagesFromOldest = Math.ceil(cachedHistory / 100)
    metrics['sync.recheck_requests'] = measured(
      'sync.recheck_requests',
      result.recheck.requests,
      `${result.recheck.checked} changeable records re-checked, ${changed.length} of them changed on the service (${result.recheck.changed} stored copies changed, ${result.recheck.remaining} left); the whole incremental sync made ${served} requests at the sandbox in ${round(ms / 1000, 1)} s. Steady state (nothing changed): ${steady.recheck?.requests ?? '?'} requests. Alternatives: a lookup per changeable record = ${cachedChangeable} requests; unfiltered windows from the oldest changeable record ≈ ${pagesFromOldest} pages. ${where}`,
    )
    metrics['sync.recheck_ms'] = measured(
      'sync.recheck_ms',
      result.recheck.ms,
      `time of the re-check within that sync (cache reads, requests through the rate limiter, writes); steady state ${steady.recheck?.ms ?? '?'} ms of a ${round(steadyMs / 1000, 1)} s sync. ${where}`,
    )
  } finally {
    await h.close()
  }
  return metrics
}
