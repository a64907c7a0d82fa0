/**
 * What the engine reads off a checkpoint, a page or a failure: a partition's progress row, a page's time
 * span, the remaining records a first page suggests, and how an error is shown. Pure functions.
 */
import type { ListPageResult } from '../../electron/shared/contract/api'
import type { DesktopApiError } from '../../electron/shared/errors'
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'
import type { SyncCheckpoint } from '../domain/records'
import { isOpenEnd } from './plan'
import type { PartitionError, PartitionProgress } from './sync-types'

export function viewOf(cp: SyncCheckpoint): PartitionProgress {
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

export function createdMs(item: HistoryItem | ChargeItem | undefined): number {
  return item ? Date.parse(item.created_on) : Number.NaN
}

/** The oldest and newest `created_on` of a page's valid items; NaN when it has none. */
export function createdSpanOf(page: ListPageResult): { oldestCreated: number; newestCreated: number } {
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
export function errorOf(error: DesktopApiError): PartitionError {
  const reason = error.details?.['reason']
  const params = error.details?.['params']
  return {
    code: error.code,
    message: error.message,
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(isNumberRecord(params) ? { params } : {}),
  }
}

export function isNumberRecord(value: unknown): value is Record<string, number> {
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
export function remainingAfterFirstPage(page: ListPageResult, cp: SyncCheckpoint, now: number): number {
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
export const CLOCK_TOLERANCE_MS = 5 * 60_000

export function isQuotaError(error: unknown): boolean {
  const name = (error as { name?: unknown; inner?: { name?: unknown } } | null)?.name
  const inner = (error as { inner?: { name?: unknown } } | null)?.inner?.name
  return name === 'QuotaExceededError' || inner === 'QuotaExceededError'
}
