/**
 * Sync as the UI sees it: one run per connection at a time, its live progress, cancel, and the last
 * outcome. The engine does the work (src/sync); this store connects it to main and to the cache.
 */
import { toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { ConnectionSummary } from '../../electron/shared/contract'
import { appCache } from '../db/cache'
import { desktopApi } from '../platform'
import { CacheSyncStore } from '../sync/cache-sync-store'
import { throttleProgress } from '../sync/progress-throttle'
import { timeLeftRefiner } from '../sync/time-left'
import { SyncEngine, type SyncProgress } from '../sync/sync-engine'
import { PayoutSync, type PayoutSyncResult } from '../sync/payout-sync'
import { PayoutsRepository } from '../db/payouts-repository'
import type { TimeWindow } from '../sync/plan'

/** How far back a first sync reaches: the start of the month a year ago (a year-end close needs it). */
export function defaultSince(now: number): number {
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear() - 1, d.getUTCMonth(), 1)
}

/**
 * How far before the newest cached record an incremental window starts. The service lists from a search
 * index that shows a new record seconds late (its php SDK's test waits up to 20 s), so a record created
 * just before the newest one seen can appear later: 15 minutes covers that many times over and costs one
 * page at most for most merchants. Late status changes of older records are not the look-back's job: every
 * incremental sync re-checks the records that can still change (src/sync/recheck.ts).
 */
export const DEFAULT_LOOKBACK_MS = 15 * 60_000

/** The sync panel repaints at most this often during a run (src/sync/progress-throttle.ts). */
export const PROGRESS_PAINT_MS = 250

export const useSyncStore = defineStore('sync', () => {
  const progress = shallowRef<SyncProgress | null>(null)
  const runningFor = ref<string | null>(null)
  const lastError = ref<AppError | null>(null)
  /** The last payout sync's outcome (after the records; a failure there never fails the records). */
  const payouts = shallowRef<PayoutSyncResult | null>(null)
  let engine: SyncEngine | undefined
  /** The payout sync that follows the records, while it runs: Cancel stops it too. */
  let payoutRun: PayoutSync | undefined

  /** Makes sure the cache knows the connection (never its credentials), keeping what sync learned. */
  async function rememberConnection(c: ConnectionSummary): Promise<void> {
    const { connections } = appCache()
    const known = await connections.get(c.id)
    await connections.put({
      id: c.id,
      label: c.label,
      baseUrl: c.baseUrl,
      timeZone: c.timeZone,
      // A plain copy: a reactive array from the store cannot be cloned into IndexedDB.
      storeIds: [...c.storeIds],
      isDemo: c.isDemo,
      lastSyncedAt: known?.lastSyncedAt ?? null,
      highWater: { ...known?.highWater },
    })
  }

  async function run(connection: ConnectionSummary, window?: TimeWindow): Promise<SyncProgress | null> {
    if (engine?.running) return null
    lastError.value = null
    const cache = appCache()
    const api = desktopApi()
    engine = new SyncEngine({
      api: {
        listPage: (args) => api.api.listPage(args),
        cancelJob: (jobId) => api.api.cancelJob({ jobId }),
        queueState: () => api.api.queueState({}),
      },
      store: new CacheSyncStore(cache.db),
    })
    runningFor.value = connection.id
    const timeLeft = timeLeftRefiner()
    const paint = throttleProgress<SyncProgress>(
      (p) =>
        (progress.value = {
          ...p,
          etaMs: timeLeft({
            at: Date.now(),
            state: p.state,
            requests: p.requests,
            partitions: p.partitions,
            etaMs: p.etaMs,
          }),
        }),
      PROGRESS_PAINT_MS,
    )
    try {
      await rememberConnection(connection)
      const cached = await cache.connections.get(connection.id)
      const result = await engine.run({
        scope: {
          connectionId: connection.id,
          storeIds: [...connection.storeIds],
          resources: ['transaction_history', 'charges'],
        },
        since: defaultSince(Date.now()),
        lookbackMs: DEFAULT_LOOKBACK_MS,
        coveredUntil: cached?.highWater ?? {},
        ...(window ? { window } : {}),
        onProgress: paint.push,
      })
      paint.cancel()
      progress.value = result
      if (result.state === 'done' || result.state === 'partial') {
        payoutRun = new PayoutSync(
          {
            payoutPage: (args) => api.api.payoutPage(args),
            cancelJob: (jobId) => api.api.cancelJob({ jobId }),
          },
          new PayoutsRepository(cache.db),
        )
        payouts.value = await payoutRun.run({
          connectionId: connection.id,
          jobId: `payouts-${Date.now()}`,
          // "Verify month" reads the month's transfers again whole, with the month's records.
          ...(window ? { verify: window } : {}),
        })
      }
      return result
    } catch (e) {
      lastError.value = toAppError(e)
      return null
    } finally {
      paint.cancel()
      payoutRun = undefined
      runningFor.value = null
    }
  }

  /** Stops the sync in progress: the records' and, once they are done, the payouts'. */
  async function cancel(): Promise<void> {
    await Promise.all([engine?.cancel(), payoutRun?.cancel()])
  }

  return { progress, runningFor, lastError, payouts, run, cancel, rememberConnection }
})
