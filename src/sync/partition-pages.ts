/**
 * One partition's pages: asked for one after another, the next while the last is written. Writes are
 * chained in page order and a failed write stops the chain, so a stored checkpoint never points past
 * stored records. After the first page, a large partition is split (when the store can record splits).
 */
import type { ListPageResult } from '../../electron/shared/contract/api'
import { DesktopApiError } from '../../electron/shared/errors'
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'
import type { SyncCheckpoint } from '../domain/records'
import {
  endAfter,
  isOpenEnd,
  pageQuery,
  PAGE_LIMIT,
  partitionKeyOf,
  splitCount,
  splitRemainder,
} from './plan'
import { PagingGuard, SpanTally, type PagingStop } from './paging-guard'
import {
  createdMs,
  createdSpanOf,
  errorOf,
  isQuotaError,
  remainingAfterFirstPage,
  viewOf,
} from './page-facts'
import type { PageWriteResult, PartitionProgress, RunContext, SyncEngineOptions } from './sync-types'

/** What a partition's pages need of the engine: its ports and its clock. */
export interface PartitionDeps {
  options: SyncEngineOptions
  now: () => number
}

/** Pages through one partition until it is done, fails, gives its worker back, or the run stops. */
export async function fetchPartition(
  deps: PartitionDeps,
  checkpoint: SyncCheckpoint,
  view: PartitionProgress,
  run: RunContext,
): Promise<void> {
  const { jobId, signal } = run
  let cp = checkpoint
  view.error = null
  let writing: Promise<boolean> = Promise.resolve(true)
  const guard = guardOf(deps, cp, run)
  while (!cp.done && !signal.aborted) {
    let fetched: ListPageResult
    try {
      fetched = await deps.options.api.listPage(pageQuery(cp, jobId))
    } catch (error) {
      await writing
      failedFetch(error, view, run)
      return
    }
    if (fetched.routePerMinute !== undefined) run.perMinute[cp.resource] = fetched.routePerMinute
    const checked = checkedPage(fetched, cp, guard)
    if ('stop' in checked) {
      const { reason, params, message } = checked.stop
      await writing
      view.error = { code: 'malformed_response', message, reason, params }
      run.emit()
      return
    }
    const { page, cursor } = checked
    const next: SyncCheckpoint = {
      ...cp,
      cursor,
      records: cp.records + page.items.length,
      requests: cp.requests + 1,
      done: !page.hasMore,
      updatedAt: deps.now(),
    }
    // The page is stored with the whole window; the narrowed one and its parts follow in one transaction.
    const parts = cp.requests === 0 && page.hasMore ? splitOf(deps, next, page, view, run) : [next]
    run.progress.quarantined += (page.quarantined ?? []).length
    const narrowed = parts[0] as SyncCheckpoint
    const previous = writing
    writing = previous.then((ok) => ok && writePage(deps, page, next, parts, view, run))
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

/** The partition's paging guard, kept by the run while the partition gives its worker back. */
function guardOf(deps: PartitionDeps, cp: SyncCheckpoint, run: RunContext): PagingGuard {
  const kept = run.guards.get(cp.partitionId)
  if (kept) return kept
  const key = partitionKeyOf(cp.resource, cp.storeId)
  const tally = run.tallies.get(key) ?? new SpanTally()
  run.tallies.set(key, tally)
  const guard = new PagingGuard(cp, deps.now(), tally)
  run.guards.set(cp.partitionId, guard)
  return guard
}

/** A failed page request: the run was cancelled, or the partition stops with the error shown. */
function failedFetch(error: unknown, view: PartitionProgress, run: RunContext): void {
  if (run.signal.aborted) {
    run.progress.state = 'cancelling'
    return
  }
  const shaped = error instanceof DesktopApiError ? error : new DesktopApiError('internal', String(error))
  if (shaped.code === 'cancelled') {
    run.progress.state = 'cancelling'
    return
  }
  view.error = errorOf(shaped)
  run.emit()
}

/** The page as paging goes on with it and the cursor after it, or why its guard stops the partition. */
function checkedPage(
  fetched: ListPageResult,
  cp: SyncCheckpoint,
  guard: PagingGuard,
): { page: ListPageResult; cursor: string | null } | { stop: PagingStop } {
  // An impossible total_hits is unknown: it would only make the progress line absurd.
  const { totalHits: claimed, ...rest } = fetched
  const totalHits = guard.total(claimed)
  const page: ListPageResult = totalHits === undefined ? rest : { ...rest, totalHits }
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
  return stopped ? { stop: stopped } : { page, cursor }
}

/** The partition after its first page, split or not (see plan.ts `splitCount`, `splitRemainder`). */
function splitOf(
  deps: PartitionDeps,
  cp: SyncCheckpoint,
  page: ListPageResult,
  view: PartitionProgress,
  run: RunContext,
): SyncCheckpoint[] {
  if (!deps.options.store.splitPartition) return [cp]
  const last = createdMs(page.items[page.items.length - 1])
  if (!Number.isFinite(last)) return [cp]
  const same = run.partitions.filter((p) => p.resource === cp.resource && !p.done && !p.error)
  const remaining = remainingAfterFirstPage(page, cp, deps.now())
  const parts = splitCount({
    remaining,
    open: same.length,
    // This partition's row still says 0 requests: it counts itself, as splitCount expects.
    unprobed: same.filter((p) => p.requests === 0).length,
    maxOpen: run.maxOpen,
    limit: PAGE_LIMIT,
  })
  if (parts <= 1) return [cp]
  const split = splitRemainder(cp, last, parts, deps.now())
  // What was left is shared between the parts by time, as the split itself assumes.
  const now = deps.now()
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
async function writePage(
  deps: PartitionDeps,
  page: ListPageResult,
  checkpoint: SyncCheckpoint,
  parts: SyncCheckpoint[],
  view: PartitionProgress,
  run: RunContext,
): Promise<boolean> {
  const { store } = deps.options
  const children = parts.slice(1)
  let written: PageWriteResult
  try {
    written = await store.putPage(
      page.resource === 'charges'
        ? { resource: 'charges', items: page.items, quarantined: page.quarantined ?? [] }
        : { resource: 'transaction_history', items: page.items, quarantined: page.quarantined ?? [] },
      checkpoint,
      deps.now(),
    )
    if (children.length > 0) await store.splitPartition?.(parts)
  } catch (error) {
    stopOnWriteFailure(deps, error, children, run)
    return false
  }
  pageStored(page, checkpoint, parts, view, run, written)
  return true
}

/**
 * The cache cannot take more (full disk, quota, closed database): stops the whole run; what was written
 * stays, with its checkpoints, and the next run resumes from there.
 */
function stopOnWriteFailure(
  deps: PartitionDeps,
  error: unknown,
  children: SyncCheckpoint[],
  run: RunContext,
): void {
  const { progress } = run
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
  run.abortRun()
  void deps.options.api.cancelJob(run.jobId).catch(() => undefined)
}

/** A stored page's progress: its partition's row, changed keys, and the parts split after it started. */
function pageStored(
  page: ListPageResult,
  checkpoint: SyncCheckpoint,
  parts: SyncCheckpoint[],
  view: PartitionProgress,
  run: RunContext,
  written: PageWriteResult,
): void {
  const narrowed = parts[0] as SyncCheckpoint
  const children = parts.slice(1)
  view.records = narrowed.records
  view.requests = narrowed.requests
  view.done = narrowed.done
  view.to = narrowed.to
  // After a split the first page's count was for the whole window: the next page counts the narrowed one.
  view.totalHits = children.length > 0 ? null : (page.totalHits ?? view.totalHits)
  if (children.length === 0 && checkpoint.requests === 1 && page.totalHits !== undefined)
    view.estimate = page.totalHits
  if (written.changedKeys.length > 0) run.progress.changedKeys.push(...written.changedKeys)
  if (children.length > 0)
    run.spawn(
      children.map((cp) => ({
        cp,
        view: run.partitions.find((p) => p.partitionId === cp.partitionId) ?? viewOf(cp),
      })),
    )
  else run.emit()
}
