/**
 * Sync throughput through the real gateway and scheduler: a first sync of a multi-store history against
 * the sandbox at the seed's own rate limits (rate scale 1), measured at the server.
 */
import { measured, type MetricMap } from './metrics'
import { round, runSync } from './support/sync-run'
import { startSyncHarness, type ServedRequest } from './support/sync-harness'

interface RouteUse {
  route: string
  served: number
  refused: number
  seconds: number
  utilization: number
}

/**
 * Per Route bucket: requests the sandbox served (non-429) between the first and the last response on that
 * route, divided by the most the bucket could have allowed in that time (its burst plus its per-minute
 * rate times the time). Both numbers come from the sandbox (its bucket parameters, its responses).
 */
function routeUse(served: ServedRequest[], burst: number, perMinute: number): RouteUse[] {
  const routes = [...new Set(served.map((r) => r.route))]
  return routes.map((route) => {
    const mine = served.filter((r) => r.route === route)
    const seconds = ((mine[mine.length - 1]?.at ?? 0) - (mine[0]?.at ?? 0)) / 1000
    const ok = mine.filter((r) => r.status !== 429).length
    const ceiling = burst + (perMinute * seconds) / 60
    return {
      route,
      served: ok,
      refused: mine.length - ok,
      seconds: round(seconds, 1),
      utilization: round(ok / ceiling, 3),
    }
  })
}

export async function benchScheduler({ quick }: { quick: boolean }): Promise<MetricMap> {
  const stores = 5
  const records = quick ? 6000 : 30_000
  // Rate scale 1: the seed's real limits (Route 30 burst, 1,200/min), so the bucket, not the loopback, binds.
  const h = await startSyncHarness({ seed: 101, stores, records, rateScale: 1 })
  try {
    const started = Date.now()
    const result = await runSync(h)
    const seconds = (Date.now() - started) / 1000
    if (result.state !== 'done') throw new Error(`sync ended ${result.state}: ${result.error?.message ?? ''}`)
    const { route } = h.sandbox.rateLimits
    const served = await h.log.served()
    const uses = routeUse(served, route.burst, route.perMinute)
    const detail = uses
      .map((u) => `${u.route}: ${u.served} served in ${u.seconds} s → ${u.utilization}`)
      .join('; ')
    const where = `${stores} stores, ${records} charges (${h.sandbox.historyCount} history records), rate scale 1, fake-indexeddb in Node`
    return {
      // The worst route: a sync is only as fast as its slowest bucket allows.
      'sync.route_utilization': measured(
        'sync.route_utilization',
        Math.min(...uses.map((u) => u.utilization)),
        `served ÷ (burst + ${route.perMinute}/min × time) per Route, worst shown; ${detail}; ${where}`,
      ),
      'sync.http_429': measured(
        'sync.http_429',
        served.filter((r) => r.status === 429).length,
        `429 responses the sandbox sent during that sync (${served.length} responses in all)`,
      ),
      'sync.records_per_s': measured(
        'sync.records_per_s',
        Math.round(result.records / seconds),
        `${result.records} records, ${result.requests} requests, ${result.partitions.length} partitions in ${round(seconds, 1)} s, cache writes included; ${where}`,
      ),
    }
  } finally {
    await h.close()
  }
}
