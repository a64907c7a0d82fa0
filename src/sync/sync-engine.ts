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
import type {
  ListPageArgs,
  ListPageResult,
  QuarantinedItem,
  QueueStateView,
} from '../../electron/shared/contract/api'
import { DesktopApiError, type ApiErrorCode } from '../../electron/shared/errors'
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'
import type { SyncCheckpoint, SyncResource } from '../domain/records'
import {
  endAfter,
  INITIAL_PREFIX,
  isOpenEnd,
  pageQuery,
  PAGE_LIMIT,
  planIncrementalSync,
  planInitialSync,
  planWindowSync,
  splitCount,
  partitionKeyOf,
  splitRemainder,
  VERIFY_PREFIX,
  type SyncScope,
  type TimeWindow,
} from './plan'
import { PagingGuard, SpanTally, type PagingStop } from './paging-guard'
import { estimateTimeLeft } from './progress-estimate'
import { recheckChangeable, type ChangeableRecord } from './recheck'

export interface PageWriteResult {
  /** Keys of records that were not in the cache. */
  added: number
  /** Keys of records whose amount, currency, status or refunds differ from the cached copy. */
  changedKeys: string[]
}

export interface SyncStorePort {
  /** The plan of the last run of this connection (finished partitions included), or [] when none is open. */
  loadPlan(connectionId: string): Promise<SyncCheckpoint[]>
  /** Replaces the connection's open plan. */
  savePlan(connectionId: string, plan: SyncCheckpoint[]): Promise<void>
  /**
   * Writes a partition narrowed by a split and the partitions split from it, in one transaction (a crash
   * leaves either the whole partition or all its parts). Without it the engine never splits.
   */
  splitPartition?(checkpoints: SyncCheckpoint[]): Promise<void>
  /**
   * Writes the page's records and the partition's checkpoint in one transaction, with the items of the
   * page that were quarantined (an item that now validates leaves the quarantine).
   */
  putPage(
    page:
      | { resource: 'transaction_history'; items: HistoryItem[]; quarantined?: QuarantinedItem[] }
      | { resource: 'charges'; items: ChargeItem[]; quarantined?: QuarantinedItem[] },
    checkpoint: SyncCheckpoint,
    syncedAt: number,
  ): Promise<PageWriteResult>
  /**
   * Charges with a refund created in [from, to) that their cached charge record does not list yet: the
   * charge record is older than the window, so the sync did not fetch it again.
   */
  staleRefundedCharges(
    connectionId: string,
    from: number,
    to: number,
  ): Promise<{ chargeId: string; storeId: string }[]>
  /**
   * The newest `created_on` cached for a partition of the data (resource × store; null: any store), or
   * null when it holds nothing: where the next incremental window starts (minus the look-back). Without
   * it the engine falls back to `coveredUntil`.
   */
  newestCached?(connectionId: string, resource: SyncResource, storeId: string | null): Promise<number | null>
  /** Cached history records whose status is not final (recheck.ts); without it nothing is re-checked. */
  changeableRecords?(connectionId: string): Promise<ChangeableRecord[]>
  /** fingerprintOf() of an item as it would be cached; needed with changeableRecords. */
  fingerprintOfItem?(item: HistoryItem): string
  /** Closes the plan; `coveredUntil` advances the incremental start of each fully synced resource. */
  finishRun(
    connectionId: string,
    coveredUntil: Partial<Record<SyncResource, number>>,
    at: number,
  ): Promise<void>
}

export interface SyncApiPort {
  listPage(args: ListPageArgs): Promise<ListPageResult>
  cancelJob(jobId: string): Promise<unknown>
  queueState?(): Promise<QueueStateView>
}

export interface PartitionProgress {
  partitionId: string
  resource: SyncResource
  storeId: string | null
  from: number
  to: number
  records: number
  requests: number
  totalHits: number | null
  /**
   * Records the partition's window is expected to hold: its first page's `total_hits`, or after a split
   * its share (by time) of what was left; null while nothing says (the sync's time left is estimated then
   * from the other partitions of its list).
   */
  estimate: number | null
  done: boolean
  error: PartitionError | null
}

/**
 * Why a partition stopped: the error's code and English message, and when known a specific reason (a
 * paging guard's, paging-guard.ts, or main's `details.reason`) with its numbers, for the display language.
 */
export interface PartitionError {
  code: ApiErrorCode
  message: string
  reason?: string
  params?: Record<string, number>
}

export type SyncState = 'running' | 'cancelling' | 'cancelled' | 'done' | 'partial' | 'offline' | 'failed'

export interface SyncProgress {
  connectionId: string
  jobId: string
  kind: SyncKind
  state: SyncState
  resumed: boolean
  partitions: PartitionProgress[]
  records: number
  requests: number
  /** Records expected in all (from `total_hits`); null until every partition has answered once. */
  expected: number | null
  startedAt: number
  etaMs: number | null
  /** Epoch ms until which queued calls wait for a rate limit or a retry; null when not waiting. */
  waitingUntil: number | null
  changedKeys: string[]
  /** Items set aside in this run (invalid accounting core, or dated outside their window). */
  quarantined: number
  /** What a completed run covered, per resource (the next incremental run starts there). */
  coveredUntil?: Partial<Record<SyncResource, number>>
  /** Requests that brought charge records up to date with their new refunds (not in any partition). */
  refreshRequests: number
  /** Re-check of cached records that can still change (recheck.ts); null until it ran. */
  recheck: { checked: number; requests: number; changed: number; remaining: number; ms: number } | null
  /**
   * How far the newest cached record is ahead of the local clock, when more than a few minutes: the
   * computer's clock is behind the service's (sync does not depend on it; times shown as "now" do).
   */
  clockBehindMs: number | null
  /** Why the run stopped as a whole (the cache could not be written); partitions keep their own errors. */
  error: { code: ApiErrorCode; message: string } | null
}

export type SyncKind = 'initial' | 'incremental' | 'window'

export interface SyncRequest {
  scope: SyncScope
  /** Where history starts for this connection (first sync, or a resource never synced). */
  since: number
  /** How far back an incremental sync re-reads, for late status changes. */
  lookbackMs: number
  /** What the last complete sync covered, per resource (from the cache). */
  coveredUntil: Partial<Record<SyncResource, number>>
  /** A full re-fetch of this window instead (re-verify a month). */
  window?: TimeWindow
  onProgress?: (progress: SyncProgress) => void
}

export interface SyncEngineOptions {
  api: SyncApiPort
  store: SyncStorePort
  now?: () => number
  /**
   * Partitions fetched at once, shared between the resources; main's scheduler keeps the rate within
   * limits whatever this is. Also sets how far large partitions are split (see plan.ts `splitCount`).
   */
  concurrency?: number
  /** How often to ask main for "waiting for rate limit until …". */
  queuePollMs?: number
}

let runs = 0

/** A partition of the running plan and its progress row. */
interface Entry {
  cp: SyncCheckpoint
  view: PartitionProgress
}

/** What the partitions of one run share. */
interface RunContext {
  jobId: string
  signal: AbortSignal
  progress: SyncProgress
  emit: () => void
  partitions: PartitionProgress[]
  /** Open partitions per resource that a split may add, at most. */
  maxOpen: number
  /** Hands over partitions split off a running one, once stored. */
  spawn: (entries: Entry[]) => void
  /**
   * Whether a partition of `resource` should give its worker back after the page in hand: its resource
   * runs more than its share of the workers while another resource's partitions wait for one.
   */
  overShare: (resource: SyncResource) => boolean
  /** Route requests per minute per list, from the last page's rate-limit headers (via main). */
  perMinute: Partial<Record<SyncResource, number>>
  /** Puts a partition that gave its worker back at the end of the queue, to go on where it stopped. */
  requeue: (entry: Entry) => void
  /** Each partition's paging guard, kept while the partition gives its worker back and takes one again. */
  guards: Map<string, PagingGuard>
  /** What the partitions of one list and store received in all (plan.ts `partitionKeyOf`). */
  tallies: Map<string, SpanTally>
}

function viewOf(cp: SyncCheckpoint): PartitionProgress {
  return {
    partitionId: cp.partitionId,
    resource: cp.resource,
    storeId: cp.storeId,
    from: cp.from,
    to: cp.to,
    records: cp.records,
    requests: cp.requests,
    totalHits: null,
    estimate: null,
    done: cp.done,
    error: null,
  }
}

function createdMs(item: HistoryItem | ChargeItem | undefined): number {
  return item ? Date.parse(item.created_on) : Number.NaN
}

/** The oldest and newest `created_on` of a page's valid items; NaN when it has none. */
function createdSpanOf(page: ListPageResult): { oldestCreated: number; newestCreated: number } {
  let oldest = Number.NaN
  let newest = Number.NaN
  for (const item of page.items) {
    const at = createdMs(item)
    if (!(at >= oldest)) oldest = at
    if (!(at <= newest)) newest = at
  }
  return { oldestCreated: oldest, newestCreated: newest }
}

/** A failed call as its partition shows it: with main's specific reason, when it gave one. */
function errorOf(error: DesktopApiError): PartitionError {
  const reason = error.details?.['reason']
  const params = error.details?.['params']
  return {
    code: error.code,
    message: error.message,
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(isNumberRecord(params) ? { params } : {}),
  }
}

function isNumberRecord(value: unknown): value is Record<string, number> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.values(value).every((v) => typeof v === 'number' && Number.isFinite(v))
  )
}

/**
 * Records a partition still has after its first page: `total_hits` when the service sends it, else the
 * page's own density over the rest of the window (the seed does not promise `total_hits`).
 */
function remainingAfterFirstPage(page: ListPageResult, cp: SyncCheckpoint, now: number): number {
  const n = page.items.length
  if (page.totalHits !== undefined) return page.totalHits - n
  const first = createdMs(page.items[0])
  const last = createdMs(page.items[n - 1])
  if (!Number.isFinite(first) || !Number.isFinite(last)) return 0
  // An open window's end is the service's present: estimated by the local clock (only the split depends on it).
  const end = isOpenEnd(cp.to) ? Math.max(last, now) : cp.to
  return (n * Math.max(0, end - last)) / Math.max(1000, last - first)
}

/** A newest record this far ahead of the local clock means the clock is behind the service's. */
const CLOCK_TOLERANCE_MS = 5 * 60_000

function isQuotaError(error: unknown): boolean {
  const name = (error as { name?: unknown; inner?: { name?: unknown } } | null)?.name
  const inner = (error as { inner?: { name?: unknown } } | null)?.inner?.name
  return name === 'QuotaExceededError' || inner === 'QuotaExceededError'
}

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
      // A verification that was cancelled is started afresh by the next one (it only re-reads a window);
      // an interrupted sync must finish first.
      const openVerify = open.length > 0 && open.every((cp) => cp.partitionId.startsWith(VERIFY_PREFIX))
      const resumed = open.some((cp) => !cp.done) && !(request.window && openVerify)
      if (resumed && request.window)
        throw new DesktopApiError(
          'conflict',
          'An interrupted sync is open: run it to the end before re-verifying a month.',
        )
      let kind: SyncKind
      let plan: SyncCheckpoint[]
      if (resumed) {
        plan = open
        // Display only. A plan from before coarse partitions has no prefix: several windows per partition
        // key (not counting split parts, whose ids have a '>') means it came from a first sync.
        kind = open.some((cp) => cp.partitionId.startsWith(VERIFY_PREFIX))
          ? 'window'
          : open.some((cp) => cp.partitionId.startsWith(INITIAL_PREFIX)) ||
              open.filter((cp) => !cp.partitionId.includes('>')).length >
                scope.resources.length * Math.max(1, scope.storeIds.length)
            ? 'initial'
            : 'incremental'
      } else if (request.window) {
        plan = planWindowSync(scope, request.window, startedAt)
        kind = 'window'
      } else if (scope.resources.every((r) => request.coveredUntil[r] === undefined)) {
        plan = planInitialSync(scope, request.since, startedAt)
        kind = 'initial'
      } else {
        plan = planIncrementalSync(
          scope,
          await this.newestCached(scope, request.coveredUntil),
          request.lookbackMs,
          request.since,
          startedAt,
        )
        kind = 'incremental'
      }
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

      if (progress.error) {
        progress.state = 'failed'
      } else if (current.cancelled) {
        progress.state = 'cancelled'
      } else if (
        partitions.every((p) => p.done) &&
        (kind !== 'incremental' || (await this.recheck(scope, plan, jobId, abort.signal, progress, emit))) &&
        (await this.refreshRefundedCharges(plan, jobId, abort.signal, progress, emit))
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
   * Re-reads the cached records that can still change and are older than this run's windows (recheck.ts).
   * False when it stopped on the way (cancel, an error): the run is then not complete.
   */
  private async recheck(
    scope: SyncScope,
    plan: SyncCheckpoint[],
    jobId: string,
    signal: AbortSignal,
    progress: SyncProgress,
    emit: () => void,
  ): Promise<boolean> {
    const { store, api } = this.options
    if (!store.changeableRecords || !scope.resources.includes('transaction_history')) return true
    const windowStart = new Map<string | null, number>()
    for (const cp of plan)
      if (cp.resource === 'transaction_history')
        windowStart.set(cp.storeId, Math.min(windowStart.get(cp.storeId) ?? Infinity, cp.from))
    const started = this.now()
    const records = await store.changeableRecords(scope.connectionId)
    progress.recheck = { checked: 0, requests: 0, changed: 0, remaining: 0, ms: 0 }
    const view = progress.recheck
    try {
      const result = await recheckChangeable(
        {
          listPage: (args) => api.listPage(args),
          putPage: (page, cp, at) => store.putPage(page, cp, at),
          // Without it every record read again counts as moved and is written (correct, only slower).
          fingerprintOfItem: (item) => store.fingerprintOfItem?.(item) ?? '',
          now: this.now,
        },
        {
          connectionId: scope.connectionId,
          jobId,
          storeIds: scope.storeIds,
          windowStart,
          charges: scope.resources.includes('charges'),
          records,
          signal,
          onRequest: () => {
            view.requests++
            emit()
          },
        },
      )
      Object.assign(view, {
        checked: result.checked,
        requests: result.requests,
        changed: result.changedKeys.length,
        remaining: result.remaining,
        ms: this.now() - started,
      })
      progress.changedKeys.push(...result.changedKeys)
      emit()
      return result.complete
    } catch (error) {
      const shaped = error instanceof DesktopApiError ? error : new DesktopApiError('internal', String(error))
      if (shaped.code !== 'cancelled' && !signal.aborted)
        progress.error ??= { code: shaped.code, message: shaped.message }
      return false
    }
  }

  /**
   * A new refund changes its charge's `user_data.refunds`, but the charge record is only fetched again if it
   * falls in the window. One search by charge id per such charge brings it up to date: the cost grows with
   * the new refunds, not with the history. False when the run stopped on the way.
   */
  private async refreshRefundedCharges(
    plan: SyncCheckpoint[],
    jobId: string,
    signal: AbortSignal,
    progress: SyncProgress,
    emit: () => void,
  ): Promise<boolean> {
    const history = plan.filter((cp) => cp.resource === 'transaction_history')
    if (history.length === 0) return true
    const connectionId = (history[0] as SyncCheckpoint).connectionId
    const from = Math.min(...history.map((cp) => cp.from))
    const to = Math.max(...history.map((cp) => cp.to))
    const stale = await this.options.store.staleRefundedCharges(connectionId, from, to)
    for (const { chargeId, storeId } of stale) {
      if (signal.aborted) return false
      let page: ListPageResult
      try {
        page = await this.options.api.listPage({
          connectionId,
          resource: 'transaction_history',
          priority: 'background',
          jobId,
          storeId,
          filters: { search: chargeId },
          paging: { limit: 100 },
        })
      } catch (error) {
        const shaped =
          error instanceof DesktopApiError ? error : new DesktopApiError('internal', String(error))
        if (shaped.code === 'cancelled' || signal.aborted) return false
        progress.error ??= { code: shaped.code, message: shaped.message }
        return false
      }
      progress.refreshRequests++
      const items =
        page.resource === 'transaction_history'
          ? page.items.filter((i) => i.resource_id === chargeId || i.charge_id === chargeId)
          : []
      const now = this.now()
      const quarantined = (page.quarantined ?? []).filter(
        (q) => q.itemId?.toLowerCase() === chargeId.toLowerCase(),
      )
      progress.quarantined += quarantined.length
      const written = await this.options.store.putPage(
        { resource: 'transaction_history', items, quarantined },
        {
          connectionId,
          partitionId: `refresh|${chargeId}`,
          resource: 'transaction_history',
          storeId,
          from,
          to,
          cursor: null,
          done: true,
          records: items.length,
          requests: 1,
          updatedAt: now,
        },
        now,
      )
      if (written.changedKeys.length > 0) progress.changedKeys.push(...written.changedKeys)
      emit()
    }
    return true
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
