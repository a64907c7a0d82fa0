/**
 * Sync planning, pure: which partitions (resource × store × time window) to fetch, and the one list query
 * each page of a partition sends. Partitions page oldest first (`cursor_direction=asc`), so the checkpoint's
 * cursor only moves forward and new records land after it, never before.
 *
 * A plan starts coarse, one partition per resource × store over the whole range (every partition costs at
 * least one request, so empty months must not be partitions), and the engine splits a partition whose
 * first page shows it is large (`splitRemainder`), so that enough partitions page in parallel.
 */
import type { ListPageArgs } from '../../electron/shared/contract/api'
import { MAX_PAGE_LIMIT } from '../../electron/shared/payment-api'
import type { SyncCheckpoint, SyncResource } from '../domain/records'

export interface SyncScope {
  connectionId: string
  /** Stores to sync one by one; empty: the all-stores lists. */
  storeIds: string[]
  resources: SyncResource[]
}

export interface TimeWindow {
  /** Epoch ms, inclusive. */
  from: number
  /** Epoch ms, exclusive. */
  to: number
}

export const SYNC_RESOURCES: SyncResource[] = ['transaction_history', 'charges']
/** The largest page the list operations accept (sandbox README, as the service's SDK). */
export const PAGE_LIMIT = MAX_PAGE_LIMIT

/** [from, to) cut at UTC month starts: small enough to fetch in parallel, few enough to track. */
export function monthlyWindows(from: number, to: number): TimeWindow[] {
  if (!(to > from)) return []
  const windows: TimeWindow[] = []
  let start = from
  while (start < to) {
    const d = new Date(start)
    const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
    const end = Math.min(next, to)
    windows.push({ from: start, to: end })
    start = end
  }
  return windows
}

export function partitionIdOf(resource: SyncResource, storeId: string | null, window: TimeWindow): string {
  return `${resource}|${storeId ?? '*'}|${new Date(window.from).toISOString()}|${new Date(window.to).toISOString()}`
}

/**
 * Resources interleaved (history of store 1, charges of store 1, history of store 2, …): each resource has
 * its own Route budget, so the engine, which starts partitions in plan order, uses both from the start.
 */
function partitions(scope: SyncScope, windows: TimeWindow[], now: number, prefix = ''): SyncCheckpoint[] {
  const stores: (string | null)[] = scope.storeIds.length > 0 ? scope.storeIds : [null]
  const out: SyncCheckpoint[] = []
  for (const window of windows)
    for (const storeId of stores)
      for (const resource of scope.resources)
        out.push({
          connectionId: scope.connectionId,
          partitionId: `${prefix}${partitionIdOf(resource, storeId, window)}`,
          resource,
          storeId,
          from: window.from,
          to: window.to,
          cursor: null,
          done: false,
          records: 0,
          requests: 0,
          updatedAt: now,
        })
  return out
}

/** Windows start and end on whole seconds, so the history list's inclusive `to` can be written exactly. */
export const toWholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000
/** The end of a window that includes `now`: the next whole second. */
export const endAfter = (now: number): number => toWholeSecond(now) + 1000

/**
 * Partitions of a first sync. Plans written before coarse partitions (one per month, no prefix) are still
 * resumed as they are: their checkpoints mean the same (window, cursor), only the id format differs.
 */
export const INITIAL_PREFIX = 'initial|'

/**
 * First sync: everything from `since` on, one partition per resource × store; the engine splits the
 * large ones once their first page tells how large they are.
 */
export function planInitialSync(scope: SyncScope, since: number, now: number): SyncCheckpoint[] {
  // Open-ended like incremental windows: a clock behind the service's would otherwise cut the newest off.
  return partitions(scope, [{ from: toWholeSecond(since), to: OPEN_END }], now, INITIAL_PREFIX)
}

/**
 * The end of an open window: the last incremental window has no `to` filter at all, so what the service
 * holds is read up to its own present whatever the local clock says (a clock hours behind would otherwise
 * leave the newest records out while the run says "up to date"). The latest time a Date can hold, so
 * `new Date(OPEN_END)` still formats and the value survives JSON (backups) and IndexedDB keys.
 */
export const OPEN_END = 8.64e15

export const isOpenEnd = (to: number): boolean => to >= OPEN_END

/** `${resource}|${storeId ?? '*'}`: a partition of the data (connection × store × kind) for its start. */
export const partitionKeyOf = (resource: SyncResource, storeId: string | null): string =>
  `${resource}|${storeId ?? '*'}`

/**
 * Later syncs: per resource × store, from the newest `created_on` already cached for that partition minus
 * the look-back (the service's search index shows a new record seconds late, so a record created just
 * before the newest one seen may appear only now), to an open end. Never from the local clock: a sync
 * under a clock 6 hours ahead, then corrected, starts where the data ends, not 6 hours later. A partition
 * with nothing cached yet starts at `since`. Its cost grows with what is new, not with the history.
 */
export function planIncrementalSync(
  scope: SyncScope,
  newestCached: ReadonlyMap<string, number>,
  lookbackMs: number,
  since: number,
  now: number,
): SyncCheckpoint[] {
  const stores: (string | null)[] = scope.storeIds.length > 0 ? scope.storeIds : [null]
  const out: SyncCheckpoint[] = []
  for (const storeId of stores)
    for (const resource of scope.resources) {
      const newest = newestCached.get(partitionKeyOf(resource, storeId))
      const from = toWholeSecond(newest === undefined ? since : Math.max(since, newest - lookbackMs))
      out.push(
        ...partitions(
          { ...scope, storeIds: storeId === null ? [] : [storeId], resources: [resource] },
          [{ from, to: OPEN_END }],
          now,
        ),
      )
    }
  return out
}

/** A full re-fetch of one window (e.g. "re-verify month" before closing it), split like a first sync. */
export function planWindowSync(scope: SyncScope, window: TimeWindow, now: number): SyncCheckpoint[] {
  const from = toWholeSecond(window.from)
  const to = toWholeSecond(window.to)
  return partitions(scope, from < to ? [{ from, to }] : [], now, VERIFY_PREFIX)
}

/** Partitions of a re-verify run: they never advance the incremental start. */
export const VERIFY_PREFIX = 'verify|'

/**
 * How many parts a partition should become after its first page (1: leave it whole). Enough for each
 * resource to keep `chainsPerResource` partitions paging (a partition's pages are one after another, so
 * its speed is one page per round trip), up to `maxOpen` open partitions; the extra ones are shared
 * with the partitions of that resource that have not answered yet, so the first to answer does not take
 * them all; and never parts under `minPagesPerPart` pages (each part costs a partial last page).
 */
export function splitCount(input: {
  /** Records the partition still has to fetch after this page (estimated). */
  remaining: number
  /** Open (not done) partitions of this resource, this one included. */
  open: number
  /** Of those, the ones that have not fetched a page yet, this one included. */
  unprobed: number
  maxOpen: number
  limit?: number
  minPagesPerPart?: number
}): number {
  const { remaining, open, unprobed, maxOpen } = input
  const pages = Math.ceil(Math.max(0, remaining) / (input.limit ?? PAGE_LIMIT))
  const byPages = Math.floor(pages / (input.minPagesPerPart ?? 3))
  const budget = maxOpen - open
  if (budget <= 0 || byPages <= 1) return 1
  const share = Math.ceil(budget / Math.max(1, unprobed))
  return 1 + Math.min(share, byPages - 1)
}

/**
 * Splits what is left of a partition after a page whose last record was created at `lastCreatedMs`:
 * the partition keeps its cursor and the first slice, new partitions (no cursor yet) take the others.
 * Cuts are on whole seconds strictly after that record, so the partition keeps everything up to its
 * cursor and the parts neither overlap nor leave a gap. Slices are equal in time (records are assumed
 * spread evenly; a part that turns out large is split again on its own first page).
 * Returns the partition (narrowed) first, then the new ones; just the partition when nothing is left.
 */
export function splitRemainder(
  cp: SyncCheckpoint,
  lastCreatedMs: number,
  parts: number,
  now: number,
): SyncCheckpoint[] {
  const start = toWholeSecond(lastCreatedMs) + 1000
  if (parts <= 1 || !(start < cp.to)) return [cp]
  // An open window is sliced up to the local now (the clock only balances the parts here; the last part
  // stays open, so a wrong clock makes parts uneven, never leaves records out).
  const end = isOpenEnd(cp.to) ? Math.max(endAfter(now), start + 1000) : cp.to
  const cuts: number[] = []
  for (let i = 0; i <= parts; i++) {
    const at = i === parts ? cp.to : toWholeSecond(start + ((end - start) * i) / parts)
    if (cuts.length === 0 || at > (cuts[cuts.length - 1] as number)) cuts.push(at)
  }
  if (cuts.length < 3) return [cp]
  const narrowed: SyncCheckpoint = { ...cp, to: cuts[1] as number, updatedAt: now }
  const children: SyncCheckpoint[] = []
  for (let i = 1; i + 1 < cuts.length; i++) {
    const from = cuts[i] as number
    children.push({
      ...cp,
      // Extends the parent's id, so it keeps its prefix (a verify run stays one) and ids stay unique.
      partitionId: `${cp.partitionId}>${new Date(from).toISOString()}`,
      from,
      to: cuts[i + 1] as number,
      cursor: null,
      done: false,
      records: 0,
      requests: 0,
      updatedAt: now,
    })
  }
  return [narrowed, ...children]
}

/** `.999999Z`: the history list's `to` is inclusive, to the microsecond, so [from, to) becomes ≤ to − 1 µs. */
function inclusiveEndIso(toMs: number): string {
  return `${new Date(toMs - 1000).toISOString().slice(0, 19)}.999999Z`
}

/** The query for the next page of a partition. */
export function pageQuery(cp: SyncCheckpoint, jobId: string, limit = PAGE_LIMIT): ListPageArgs {
  const paging = { limit, cursor_direction: 'asc' as const, ...(cp.cursor ? { cursor: cp.cursor } : {}) }
  const common = {
    connectionId: cp.connectionId,
    priority: 'background' as const,
    jobId,
    ...(cp.storeId ? { storeId: cp.storeId } : {}),
    paging,
  }
  const from = new Date(cp.from).toISOString()
  // An open window sends no `to`: the service's present is the end, not the local clock's.
  if (isOpenEnd(cp.to))
    return cp.resource === 'transaction_history'
      ? { resource: 'transaction_history', ...common, filters: { from } }
      : { resource: 'charges', ...common, filters: { from } }
  return cp.resource === 'transaction_history'
    ? // Windows end on whole seconds, so "at or before end − 1 µs" is exactly "before end".
      { resource: 'transaction_history', ...common, filters: { from, to: inclusiveEndIso(cp.to) } }
    : // The charge list's `to` is already exclusive ("before", seed §4.2).
      { resource: 'charges', ...common, filters: { from, to: new Date(cp.to).toISOString() } }
}
