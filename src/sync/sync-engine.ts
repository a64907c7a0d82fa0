/**
 * Runs a sync: fetches every partition of a plan page by page through `api:listPage` (main queues and
 * rate-limits the calls) and hands each page with its partition's new checkpoint to the store, which
 * writes both in one transaction. A crash, a reload or a cancel at any point resumes from the last stored
 * checkpoint: the unfinished plan is kept, and a page fetched twice updates records in place.
 *
 * Speed: a partition's pages are one round trip after another, so the engine keeps many partitions going
 * at once, both resources side by side (each has its own Route budget), splits a large partition after its
 * first page (plan.ts `splitRemainder`), and asks for a partition's next page while the last one is still
 * being written (writes stay in page order, so the checkpoint never runs ahead of the stored records).
 */
import { DesktopApiError } from '../../electron/shared/errors'
import type { SyncCheckpoint, SyncResource } from '../domain/records'
import { endAfter, isOpenEnd, partitionKeyOf, type SyncScope } from './plan'
import { recheckOlderChangeable, refreshRefundedCharges, type PassContext } from './follow-up-passes'
import { planOfRun } from './run-plan'
import { CLOCK_TOLERANCE_MS, viewOf } from './page-facts'
import { fetchPartition, type PartitionDeps } from './partition-pages'
import { PartitionPool } from './partition-pool'
import { pollQueue } from './queue-poll'
import { progressReporter, startProgress } from './run-progress'
import type { PartitionProgress, SyncEngineOptions, SyncKind, SyncProgress, SyncRequest } from './sync-types'

export type {
  PageWriteResult,
  PartitionError,
  PartitionProgress,
  SyncApiPort,
  SyncEngineOptions,
  SyncKind,
  SyncProgress,
  SyncRequest,
  SyncState,
  SyncStorePort,
} from './sync-types'

let runs = 0

export class SyncEngine {
  private readonly now: () => number
  private readonly concurrency: number
  private current: { jobId: string; abort: AbortController; cancelled: boolean } | undefined

  constructor(private readonly options: SyncEngineOptions) {
    this.now = options.now ?? Date.now
    this.concurrency = Math.max(1, options.concurrency ?? 16)
  }

  get running(): boolean {
    return this.current !== undefined
  }

  /** Stops the run: queued calls are dropped in main, in-flight ones aborted; checkpoints stay for resume. */
  async cancel(): Promise<void> {
    const run = this.current
    if (!run) return
    run.cancelled = true
    run.abort.abort()
    await this.options.api.cancelJob(run.jobId).catch(() => undefined)
  }

  /**
   * Runs a sync. When it finds an interrupted run, it finishes that plan first and then catches up with an
   * incremental run to now, so a resume never stops short of what is new since the interruption.
   */
  async run(request: SyncRequest): Promise<SyncProgress> {
    const first = await this.runOnce(request)
    if (!first.resumed || first.state !== 'done' || first.kind === 'window' || !first.coveredUntil)
      return first
    const next = await this.runOnce({
      ...request,
      coveredUntil: { ...request.coveredUntil, ...first.coveredUntil },
    })
    return {
      ...next,
      resumed: true,
      records: first.records + next.records,
      requests: first.requests + next.requests,
      refreshRequests: first.refreshRequests + next.refreshRequests,
      recheck: next.recheck ?? first.recheck,
      changedKeys: [...first.changedKeys, ...next.changedKeys],
      quarantined: first.quarantined + next.quarantined,
    }
  }

  private async runOnce(request: SyncRequest): Promise<SyncProgress> {
    if (this.current) throw new DesktopApiError('conflict', 'A sync is already running for this window.')
    const { scope } = request
    const startedAt = this.now()
    const jobId = `sync-${scope.connectionId.slice(0, 8)}-${startedAt}-${++runs}`
    const abort = new AbortController()
    const current = { jobId, abort, cancelled: false }
    this.current = current
    const { store } = this.options
    try {
      // Re-check pages are stored with a finished checkpoint of their own: never part of a plan to resume.
      const open = (await store.loadPlan(scope.connectionId)).filter(
        (cp) => !cp.partitionId.startsWith('recheck|'),
      )
      const { kind, plan, resumed } = await planOfRun(request, open, startedAt, () =>
        this.newestCached(scope, request.coveredUntil),
      )
      if (!resumed) await store.savePlan(scope.connectionId, plan)

      const partitions: PartitionProgress[] = plan.map(viewOf)
      const { connectionId } = scope
      const progress = startProgress({ connectionId, jobId, kind, resumed, partitions, startedAt })
      const perMinute: Partial<Record<SyncResource, number>> = {}
      const emit = progressReporter({ progress, partitions, perMinute, request, now: this.now, startedAt })
      emit()
      const poll = this.pollWaiting(jobId, progress, emit)
      const signal = abort.signal
      const abortRun = () => abort.abort()
      const pool = new PartitionPool(
        plan,
        { jobId, signal, progress, emit, partitions, perMinute, abortRun },
        this.concurrency,
      )
      const deps: PartitionDeps = { options: this.options, now: this.now }
      await pool.run((cp, view, run) => fetchPartition(deps, cp, view, run))
      await poll.stop()
      await store.endPages?.(scope.connectionId)

      const pass: PassContext = { options: this.options, now: this.now, jobId, signal, progress, emit }
      progress.state = await this.outcome(request, kind, plan, pass, current.cancelled)
      progress.waitingUntil = null
      progress.etaMs = null
      emit()
      return progress
    } finally {
      if (this.current?.abort === abort) this.current = undefined
    }
  }

  /** Shows "waiting until …" while main holds this run's calls, until stopped (main's queue polled). */
  private pollWaiting(
    jobId: string,
    progress: SyncProgress,
    emit: () => void,
  ): { stop: () => Promise<void> } {
    const { api } = this.options
    const pollStop = new AbortController()
    const every = this.options.queuePollMs ?? 500
    const poll = api.queueState
      ? pollQueue(api.queueState.bind(api), jobId, pollStop.signal, every, this.now, (until) => {
          if (progress.waitingUntil !== until) {
            progress.waitingUntil = until
            emit()
          }
        })
      : Promise.resolve()
    return {
      stop: async () => {
        pollStop.abort()
        await poll
      },
    }
  }

  /**
   * How the run ended once its partitions stopped. Only a run whose partitions all finished, and whose
   * follow-up passes did, closes its plan and advances what the cache covers.
   */
  private async outcome(
    request: SyncRequest,
    kind: SyncKind,
    plan: SyncCheckpoint[],
    pass: PassContext,
    cancelled: boolean,
  ): Promise<SyncProgress['state']> {
    const { progress } = pass
    const { scope } = request
    if (progress.error) return 'failed'
    if (cancelled) return 'cancelled'
    const { partitions } = progress
    if (
      partitions.every((p) => p.done) &&
      (kind !== 'incremental' || (await recheckOlderChangeable(pass, scope, plan))) &&
      (await refreshRefundedCharges(pass, plan))
    ) {
      const covered = kind !== 'window' ? await this.coveredAfter(request, plan, progress) : {}
      await this.options.store.finishRun(scope.connectionId, covered, this.now())
      progress.coveredUntil = covered
      // Windows and refunds are all in, but records out of their status are left for the next sync.
      return (progress.recheck?.remaining ?? 0) > 0 ? 'partial' : 'done'
    }
    const failed = partitions.filter((p) => p.error)
    return failed.length > 0 && failed.every((p) => p.error?.code === 'network') ? 'offline' : 'partial'
  }

  /**
   * What a finished run's data covers per resource (the next incremental run starts there), and whether
   * the newest record shows the local clock behind the service's.
   */
  private async coveredAfter(
    request: SyncRequest,
    plan: SyncCheckpoint[],
    progress: SyncProgress,
  ): Promise<Partial<Record<SyncResource, number>>> {
    const { scope } = request
    const { store } = this.options
    const covered: Partial<Record<SyncResource, number>> = {}
    const newest = await this.newestCached({ ...scope, storeIds: [] }, {})
    for (const resource of scope.resources) {
      // What the data covers, not what the clock said: only a fallback reads the plan's ends.
      const ends = plan
        .filter((cp) => cp.resource === resource)
        .map((cp) => (isOpenEnd(cp.to) ? endAfter(this.now()) : cp.to))
      const at = store.newestCached
        ? (newest.get(partitionKeyOf(resource, null)) ?? request.since)
        : ends.length > 0
          ? Math.max(...ends)
          : undefined
      if (at !== undefined) covered[resource] = at
    }
    const ahead = (newest.get(partitionKeyOf('transaction_history', null)) ?? -Infinity) - this.now()
    progress.clockBehindMs = ahead > CLOCK_TOLERANCE_MS ? ahead : null
    return covered
  }

  /** Newest cached `created_on` per partition key (plan.ts `partitionKeyOf`), from the data. */
  private async newestCached(
    scope: SyncScope,
    coveredUntil: Partial<Record<SyncResource, number>>,
  ): Promise<Map<string, number>> {
    const out = new Map<string, number>()
    const stores: (string | null)[] = scope.storeIds.length > 0 ? scope.storeIds : [null]
    const { store } = this.options
    for (const storeId of stores)
      for (const resource of scope.resources) {
        const newest = store.newestCached
          ? await store.newestCached(scope.connectionId, resource, storeId)
          : (coveredUntil[resource] ?? null)
        if (newest !== null) out.set(partitionKeyOf(resource, storeId), newest)
      }
    return out
  }
}
