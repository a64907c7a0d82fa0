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
import type { ListPageResult, QueueStateView } from '../../electron/shared/contract/api'
import { DesktopApiError } from '../../electron/shared/errors'
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'
import type { SyncCheckpoint, SyncResource } from '../domain/records'
import {
  endAfter,
  isOpenEnd,
  pageQuery,
  PAGE_LIMIT,
  splitCount,
  partitionKeyOf,
  splitRemainder,
  type SyncScope,
} from './plan'
import { PagingGuard, SpanTally, type PagingStop } from './paging-guard'
import { estimateTimeLeft } from './progress-estimate'
import { recheckOlderChangeable, refreshRefundedCharges, type PassContext } from './follow-up-passes'
import { planOfRun } from './run-plan'
import {
  CLOCK_TOLERANCE_MS,
  createdMs,
  createdSpanOf,
  errorOf,
  isQuotaError,
  remainingAfterFirstPage,
  viewOf,
} from './page-facts'
import type {
  Entry,
  PageWriteResult,
  PartitionProgress,
  RunContext,
  SyncEngineOptions,
  SyncProgress,
  SyncRequest,
} from './sync-types'

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
    const { api, store } = this.options
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
      const progress: SyncProgress = {
        connectionId: scope.connectionId,
        jobId,
        kind,
        state: 'running',
        resumed,
        partitions,
        records: 0,
        requests: 0,
        expected: null,
        startedAt,
        etaMs: null,
        waitingUntil: null,
        changedKeys: [],
        quarantined: 0,
        refreshRequests: 0,
        recheck: null,
        clockBehindMs: null,
        error: null,
      }
      const perMinute: Partial<Record<SyncResource, number>> = {}
      const requestsOf = (resource: SyncResource) =>
        partitions.reduce((s, p) => s + (p.resource === resource ? p.requests : 0), 0)
      // A resumed plan's partitions bring the requests of earlier runs: the pace counts this run's only.
      const sentBefore = {
        transaction_history: requestsOf('transaction_history'),
        charges: requestsOf('charges'),
      }
      const emit = () => {
        progress.records = partitions.reduce((s, p) => s + p.records, 0)
        progress.requests = partitions.reduce((s, p) => s + p.requests, 0)
        progress.expected = partitions.every((p) => p.done || p.totalHits !== null)
          ? partitions.reduce((s, p) => s + (p.done ? p.records : Math.max(p.records, p.totalHits ?? 0)), 0)
          : null
        progress.etaMs = estimateTimeLeft({
          partitions,
          perMinute,
          sent: {
            transaction_history: requestsOf('transaction_history') - sentBefore.transaction_history,
            charges: requestsOf('charges') - sentBefore.charges,
          },
          elapsedMs: this.now() - startedAt,
          pageLimit: PAGE_LIMIT,
          now: this.now(),
        })
        request.onProgress?.({
          ...progress,
          partitions: partitions.map((p) => ({ ...p })),
          changedKeys: [...progress.changedKeys],
        })
      }
      emit()

      const pollStop = new AbortController()
      const poll = api.queueState
        ? this.pollQueue(api.queueState.bind(api), jobId, pollStop.signal, (until) => {
            if (progress.waitingUntil !== until) {
              progress.waitingUntil = until
              emit()
            }
          })
        : Promise.resolve()

      const queue: Entry[] = plan
        .map((cp, i) => ({ cp, view: partitions[i] as PartitionProgress }))
        .filter(({ cp }) => !cp.done)
      // Workers take the queued partition of the resource with the fewest running, so both Route
      // budgets are in use; a worker with nothing to take waits while a running partition may split.
      const running = new Map<SyncResource, number>()
      let active = 0
      let waiters: (() => void)[] = []
      const wakeAll = () => {
        const woken = waiters
        waiters = []
        for (const wake of woken) wake()
      }
      abort.signal.addEventListener('abort', wakeAll, { once: true })
      const take = (): Entry | undefined => {
        let best = -1
        for (let i = 0; i < queue.length; i++) {
          const r = (queue[i] as Entry).cp.resource
          if (best < 0 || (running.get(r) ?? 0) < (running.get((queue[best] as Entry).cp.resource) ?? 0))
            best = i
        }
        return best < 0 ? undefined : queue.splice(best, 1)[0]
      }
      const resourcesInPlan = new Set(plan.map((cp) => cp.resource)).size
      // Each resource has its own Route budget: workers are shared evenly between the resources with work.
      const share = Math.ceil(this.concurrency / Math.max(1, resourcesInPlan))
      const context: RunContext = {
        jobId,
        signal: abort.signal,
        progress,
        emit,
        partitions,
        perMinute,
        maxOpen: 2 * Math.ceil(this.concurrency / Math.max(1, resourcesInPlan)),
        spawn: (entries) => {
          for (const { cp, view } of entries) {
            plan.push(cp)
            if (!partitions.includes(view)) partitions.push(view)
            queue.push({ cp, view })
          }
          emit()
          wakeAll()
        },
        overShare: (resource) =>
          (running.get(resource) ?? 0) > share &&
          queue.some(({ cp }) => cp.resource !== resource && (running.get(cp.resource) ?? 0) < share),
        requeue: (entry) => {
          queue.push(entry)
          wakeAll()
        },
        guards: new Map(),
        tallies: new Map(),
      }
      const worker = async () => {
        while (!abort.signal.aborted) {
          const next = take()
          if (!next) {
            if (active === 0) return
            await new Promise<void>((resolve) => waiters.push(resolve))
            continue
          }
          const { resource } = next.cp
          active++
          running.set(resource, (running.get(resource) ?? 0) + 1)
          try {
            await this.fetchPartition(next.cp, next.view, context)
          } finally {
            active--
            running.set(resource, (running.get(resource) ?? 1) - 1)
            wakeAll()
          }
        }
      }
      await Promise.all(Array.from({ length: this.concurrency }, worker))
      abort.signal.removeEventListener('abort', wakeAll)
      pollStop.abort()
      await poll
      await store.endPages?.(scope.connectionId)

      const pass: PassContext = {
        options: this.options,
        now: this.now,
        jobId,
        signal: abort.signal,
        progress,
        emit,
      }
      if (progress.error) {
        progress.state = 'failed'
      } else if (current.cancelled) {
        progress.state = 'cancelled'
      } else if (
        partitions.every((p) => p.done) &&
        (kind !== 'incremental' || (await recheckOlderChangeable(pass, scope, plan))) &&
        (await refreshRefundedCharges(pass, plan))
      ) {
        const covered: Partial<Record<SyncResource, number>> = {}
        if (kind !== 'window') {
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
        }
        await store.finishRun(scope.connectionId, covered, this.now())
        progress.coveredUntil = covered
        // Windows and refunds are all in, but records out of their status are left for the next sync.
        progress.state = (progress.recheck?.remaining ?? 0) > 0 ? 'partial' : 'done'
      } else {
        const failed = partitions.filter((p) => p.error)
        progress.state =
          failed.length > 0 && failed.every((p) => p.error?.code === 'network') ? 'offline' : 'partial'
      }
      progress.waitingUntil = null
      progress.etaMs = null
      emit()
      return progress
    } finally {
      if (this.current?.abort === abort) this.current = undefined
    }
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

  /**
   * Pages through one partition. The next page is asked for while the last is written; writes are chained
   * in page order and a failed write stops the chain, so a stored checkpoint never points past stored
   * records. After the first page, a large partition is split (when the store can record splits).
   */
  private async fetchPartition(
    checkpoint: SyncCheckpoint,
    view: PartitionProgress,
    run: RunContext,
  ): Promise<void> {
    const { jobId, signal, progress, emit } = run
    let cp = checkpoint
    view.error = null
    let writing: Promise<boolean> = Promise.resolve(true)
    let guard = run.guards.get(cp.partitionId)
    if (!guard) {
      const key = partitionKeyOf(cp.resource, cp.storeId)
      const tally = run.tallies.get(key) ?? new SpanTally()
      run.tallies.set(key, tally)
      guard = new PagingGuard(cp, this.now(), tally)
      run.guards.set(cp.partitionId, guard)
    }
    const stop = async ({ reason, params, message }: PagingStop): Promise<void> => {
      await writing
      view.error = { code: 'malformed_response', message, reason, params }
      emit()
    }
    while (!cp.done && !signal.aborted) {
      let page: ListPageResult
      try {
        page = await this.options.api.listPage(pageQuery(cp, jobId))
      } catch (error) {
        await writing
        if (signal.aborted) {
          progress.state = 'cancelling'
          return
        }
        const shaped =
          error instanceof DesktopApiError ? error : new DesktopApiError('internal', String(error))
        if (shaped.code === 'cancelled') {
          progress.state = 'cancelling'
          return
        }
        view.error = errorOf(shaped)
        emit()
        return
      }
      if (page.routePerMinute !== undefined) run.perMinute[cp.resource] = page.routePerMinute
      // An impossible total_hits is unknown: it would only make the progress line absurd.
      const { totalHits: claimed, ...rest } = page
      const totalHits = guard.total(claimed)
      page = totalHits === undefined ? rest : { ...rest, totalHits }
      const last = page.items[page.items.length - 1]
      const quarantined = page.quarantined ?? []
      // The service's next_cursor when it sends one, else the id of the page's last item, quarantined or
      // not (main works it out); the last stored item's id from an older main.
      const cursor =
        page.cursorAfter ??
        (last
          ? page.resource === 'charges'
            ? (last as ChargeItem).id
            : (last as HistoryItem).resource_id
          : cp.cursor)
      const stopped = guard.check(
        {
          hasMore: page.hasMore,
          received: page.items.length + quarantined.length,
          ...createdSpanOf(page),
          totalHits,
          cursor,
        },
        cp.cursor,
      )
      if (stopped) {
        await stop(stopped)
        return
      }
      const next: SyncCheckpoint = {
        ...cp,
        cursor,
        records: cp.records + page.items.length,
        requests: cp.requests + 1,
        done: !page.hasMore,
        updatedAt: this.now(),
      }
      // The page is stored with the whole window; the narrowed one and its parts follow in one transaction.
      const parts = cp.requests === 0 && page.hasMore ? this.splitOf(next, page, view, run) : [next]
      run.progress.quarantined += quarantined.length
      const narrowed = parts[0] as SyncCheckpoint
      const previous = writing
      writing = previous.then((ok) => ok && this.writePage(page, next, parts, view, run))
      cp = narrowed
      // One write in flight at most: fetching never runs more than a page ahead of the cache.
      if (!(await previous)) break
      // The first resource to split would otherwise keep every worker until its partitions end, leaving
      // the other resource's budget mostly unused (the e2e bench: charges at a third of their rate while
      // history ran). Stopped after a stored page, the partition resumes from its cursor later.
      if (!cp.done && !signal.aborted && run.overShare(cp.resource)) {
        if (await writing) run.requeue({ cp, view })
        return
      }
    }
    await writing
  }

  /** The partition after its first page, split or not (see plan.ts `splitCount`, `splitRemainder`). */
  private splitOf(
    cp: SyncCheckpoint,
    page: ListPageResult,
    view: PartitionProgress,
    run: RunContext,
  ): SyncCheckpoint[] {
    if (!this.options.store.splitPartition) return [cp]
    const last = createdMs(page.items[page.items.length - 1])
    if (!Number.isFinite(last)) return [cp]
    const same = run.partitions.filter((p) => p.resource === cp.resource && !p.done && !p.error)
    const remaining = remainingAfterFirstPage(page, cp, this.now())
    const parts = splitCount({
      remaining,
      open: same.length,
      // This partition's row still says 0 requests: it counts itself, as splitCount expects.
      unprobed: same.filter((p) => p.requests === 0).length,
      maxOpen: run.maxOpen,
      limit: PAGE_LIMIT,
    })
    if (parts <= 1) return [cp]
    const split = splitRemainder(cp, last, parts, this.now())
    // What was left is shared between the parts by time, as the split itself assumes.
    const now = this.now()
    const spanOf = (p: SyncCheckpoint) => Math.max(0, (isOpenEnd(p.to) ? endAfter(now) : p.to) - p.from)
    const span = split.reduce((s, p) => s + spanOf(p), 0)
    const shareOf = (p: SyncCheckpoint): number | null =>
      span > 0 ? Math.round((Math.max(0, remaining) * spanOf(p)) / span) : null
    // Counted as open right away, so partitions answering meanwhile share what is left of the budget.
    for (const child of split.slice(1)) run.partitions.push({ ...viewOf(child), estimate: shareOf(child) })
    const narrowed = split[0] as SyncCheckpoint
    const share = shareOf(narrowed)
    view.to = narrowed.to
    view.estimate = share === null ? null : page.items.length + share
    return split
  }

  /**
   * Stores a page with its checkpoint, then a split made after it; hands the new parts to the run once
   * stored. False when the cache could not be written: the run stops (what was written stays).
   */
  private async writePage(
    page: ListPageResult,
    checkpoint: SyncCheckpoint,
    parts: SyncCheckpoint[],
    view: PartitionProgress,
    run: RunContext,
  ): Promise<boolean> {
    const { progress, emit } = run
    const narrowed = parts[0] as SyncCheckpoint
    const children = parts.slice(1)
    let written: PageWriteResult
    try {
      written = await this.options.store.putPage(
        page.resource === 'charges'
          ? { resource: 'charges', items: page.items, quarantined: page.quarantined ?? [] }
          : { resource: 'transaction_history', items: page.items, quarantined: page.quarantined ?? [] },
        checkpoint,
        this.now(),
      )
      if (children.length > 0) await this.options.store.splitPartition?.(parts)
    } catch (error) {
      // The cache cannot take more (full disk, quota, closed database): stop the whole run; what was
      // written stays, with its checkpoints, and the next run resumes from there.
      const quota = isQuotaError(error)
      progress.error ??= {
        code: quota ? 'disk_full' : 'internal',
        message: quota
          ? 'The local cache is full: free disk space, then sync again to resume.'
          : `The local cache could not be written: ${error instanceof Error ? error.message : String(error)}`,
      }
      // Parts counted as open but never stored: the resumed plan has the whole partition instead.
      for (const child of children) {
        const row = run.partitions.find((p) => p.partitionId === child.partitionId)
        if (row) row.error = { code: progress.error.code, message: progress.error.message }
      }
      this.current?.abort.abort()
      void this.options.api.cancelJob(run.jobId).catch(() => undefined)
      return false
    }
    view.records = narrowed.records
    view.requests = narrowed.requests
    view.done = narrowed.done
    view.to = narrowed.to
    // After a split the first page's count was for the whole window: the next page counts the narrowed one.
    view.totalHits = children.length > 0 ? null : (page.totalHits ?? view.totalHits)
    if (children.length === 0 && checkpoint.requests === 1 && page.totalHits !== undefined)
      view.estimate = page.totalHits
    if (written.changedKeys.length > 0) progress.changedKeys.push(...written.changedKeys)
    if (children.length > 0)
      run.spawn(
        children.map((cp) => ({
          cp,
          view: run.partitions.find((p) => p.partitionId === cp.partitionId) ?? viewOf(cp),
        })),
      )
    else emit()
    return true
  }

  private async pollQueue(
    queueState: () => Promise<QueueStateView>,
    jobId: string,
    signal: AbortSignal,
    report: (waitingUntil: number | null) => void,
  ): Promise<void> {
    const every = this.options.queuePollMs ?? 500
    while (!signal.aborted) {
      await new Promise<void>((resolve) => {
        // The listener goes with its timer: one added per poll and never removed piled up on the signal
        // over a long sync (Node warned of a leak past 10).
        const stop = (): void => {
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', stop)
          resolve()
        }, every)
        signal.addEventListener('abort', stop, { once: true })
      })
      if (signal.aborted) return
      try {
        const state = await queueState()
        const job = state.byJob.find((j) => j.jobId === jobId)
        const until = job?.waitingUntil ?? state.waitingUntil
        report(until !== null && until > this.now() ? until : null)
      } catch {
        // Progress display only: a failed poll changes nothing.
      }
    }
  }
}
