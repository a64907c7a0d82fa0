/**
 * Sync planning, pure: which partitions (resource × store × time window) to fetch, and the one list query
 * each page of a partition sends. Partitions page oldest first (`cursor_direction=asc`), so the checkpoint's
 * cursor only moves forward and new records land after it, never before.
 */
import type { ListPageArgs } from '../../electron/shared/contract/api'
import type { SyncCheckpoint, SyncResource } from '../db/records'

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
export const PAGE_LIMIT = 100

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

function partitions(scope: SyncScope, windows: TimeWindow[], now: number): SyncCheckpoint[] {
  const stores: (string | null)[] = scope.storeIds.length > 0 ? scope.storeIds : [null]
  const out: SyncCheckpoint[] = []
  for (const resource of scope.resources)
    for (const storeId of stores)
      for (const window of windows)
        out.push({
          connectionId: scope.connectionId,
          partitionId: partitionIdOf(resource, storeId, window),
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

/** First sync: everything from `since` to now, a partition per resource × store × month. */
export function planInitialSync(scope: SyncScope, since: number, now: number): SyncCheckpoint[] {
  return partitions(scope, monthlyWindows(toWholeSecond(since), endAfter(now)), now)
}

/**
 * Later syncs: from where the last complete sync ended, minus the look-back (late status changes), to now,
 * one partition per resource × store. Its cost grows with what is new, not with the history.
 */
export function planIncrementalSync(
  scope: SyncScope,
  coveredUntil: Partial<Record<SyncResource, number>>,
  lookbackMs: number,
  since: number,
  now: number,
): SyncCheckpoint[] {
  const out: SyncCheckpoint[] = []
  for (const resource of scope.resources) {
    const covered = coveredUntil[resource]
    const from = toWholeSecond(covered === undefined ? since : Math.max(since, covered - lookbackMs))
    const to = endAfter(now)
    out.push(...partitions({ ...scope, resources: [resource] }, from < to ? [{ from, to }] : [], now))
  }
  return out
}

/** A full re-fetch of one window (e.g. "re-verify month" before closing it). */
export function planWindowSync(scope: SyncScope, window: TimeWindow, now: number): SyncCheckpoint[] {
  return partitions(scope, monthlyWindows(toWholeSecond(window.from), toWholeSecond(window.to)), now).map(
    (cp) => ({
      ...cp,
      partitionId: `${VERIFY_PREFIX}${cp.partitionId}`,
    }),
  )
}

/** Partitions of a re-verify run: they never advance the incremental start. */
export const VERIFY_PREFIX = 'verify|'

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
  return cp.resource === 'transaction_history'
    ? // Windows end on whole seconds, so "at or before end − 1 µs" is exactly "before end".
      { resource: 'transaction_history', ...common, filters: { from, to: inclusiveEndIso(cp.to) } }
    : // The charge list's `to` is already exclusive ("before", seed §4.2).
      { resource: 'charges', ...common, filters: { from, to: new Date(cp.to).toISOString() } }
}
