/**
 * What the sync panel shows while a sync runs: records per list (the transaction history's charges and
 * refunds, and the charge list, counted apart: they are two views of the same payments), how many each
 * list will have, and a percentage that moves from the first pages on.
 *
 * The engine's own `expected` is null until every partition has answered once, which with six running at
 * a time is most of a first sync. Here each partition counts with its first page's `total_hits`; one that
 * has not answered yet is estimated from the density (records per millisecond of window) of those of the
 * same list that have, so the bar moves from the start and does not jump at the end.
 */
import type { SyncResource } from '../domain/records'
import { isOpenEnd } from './plan'
import type { PartitionProgress, SyncState } from './sync-engine'

/**
 * A partition's window in milliseconds, at least 1. An open window (no end: the service's present) ends
 * now; its sentinel end would make its density look like nothing and its share like everything.
 */
function spanOf(p: PartitionProgress, now: number): number {
  return Math.max(1, (isOpenEnd(p.to) ? Math.max(now, p.from) : p.to) - p.from)
}

export interface ListCount {
  /** Partitions of this list in the run (0: the run does not fetch it). */
  parts: number
  records: number
  /** Records the list will have; null while no partition of it has answered. */
  expected: number | null
  /** True while part of `expected` is an estimate (a partition not yet answered). */
  estimated: boolean
}

export interface ProgressEstimate {
  /** 0–100, or null while nothing is known (no partition has answered). */
  percent: number | null
  history: ListCount
  charges: ListCount
}

function countList(partitions: readonly PartitionProgress[], resource: SyncResource, now: number): ListCount {
  const own = partitions.filter((p) => p.resource === resource)
  let records = 0
  let known = 0
  let knownSpan = 0
  let unknownSpan = 0
  for (const p of own) {
    records += p.records
    const span = spanOf(p, now)
    if (p.done) {
      known += p.records
      knownSpan += span
    } else if (p.totalHits !== null) {
      known += Math.max(p.records, p.totalHits)
      knownSpan += span
    } else unknownSpan += span
  }
  const parts = own.length
  if (parts === 0) return { parts, records, expected: null, estimated: false }
  if (unknownSpan === 0) return { parts, records, expected: known, estimated: false }
  if (knownSpan === 0) return { parts, records, expected: null, estimated: true }
  const guessed = Math.round((known / knownSpan) * unknownSpan)
  return { parts, records, expected: Math.max(records, known + guessed), estimated: true }
}

export function estimateProgress(progress: {
  state: SyncState
  partitions: readonly PartitionProgress[]
  /** Where an open window ends (default: the local clock). */
  now?: number
}): ProgressEstimate {
  const now = progress.now ?? Date.now()
  const history = countList(progress.partitions, 'transaction_history', now)
  const charges = countList(progress.partitions, 'charges', now)
  if (progress.state === 'done') return { percent: 100, history, charges }
  const lists = [history, charges].filter((l) => l.expected !== null)
  if (lists.length === 0) return { percent: null, history, charges }
  const expected = lists.reduce((s, l) => s + (l.expected ?? 0), 0)
  const records = lists.reduce((s, l) => s + l.records, 0)
  // Not 100 until the engine says done: the last pages may still bring records.
  const percent = expected === 0 ? 0 : Math.min(99, Math.floor((records / expected) * 100))
  return { percent, history, charges }
}

/** Below this the pace of a run is its first burst: the rate the headers allow is the better guide. */
export const PACE_WARMUP_MS = 5_000

export interface TimeLeftInput {
  partitions: readonly PartitionProgress[]
  /** Route requests per minute per list, as the service's rate-limit headers allow. */
  perMinute: Partial<Record<SyncResource, number>>
  /** Requests sent per list in this run so far. */
  sent: Partial<Record<SyncResource, number>>
  /** Time since this run started. */
  elapsedMs: number
  /** Records per page the run asks for. */
  pageLimit: number
  /** Where an open window ends (the local clock). */
  now: number
}

/**
 * Pages the open partitions of one list have left: each from what its window is expected to hold (its own
 * estimate, else the list's density per millisecond of window times its span). Null when a partition has
 * no estimate and no partition of its list says anything yet.
 */
export function pagesLeft(own: readonly PartitionProgress[], pageLimit: number, now: number): number | null {
  let known = 0
  let knownSpan = 0
  for (const p of own) {
    if (!p.done && p.estimate === null) continue
    known += p.done ? p.records : Math.max(p.records, p.estimate ?? 0)
    knownSpan += spanOf(p, now)
  }
  let pages = 0
  for (const p of own) {
    if (p.done || p.error !== null) continue
    let expected = p.estimate
    if (expected === null) {
      if (knownSpan === 0) return null
      expected = (known / knownSpan) * spanOf(p, now)
    }
    // An open partition has at least the page that says it is done.
    pages += Math.max(1, Math.ceil(Math.max(0, expected - p.records) / pageLimit))
  }
  return pages
}

/**
 * Milliseconds a running sync has left: the requests each list has left, at the rate the service allows
 * that list (each list has its own Route budget, so they run side by side and the slower one decides), or
 * at the pace the run actually keeps once past its first burst, when that is slower. Null while a list
 * with work left has not told its rate or its size yet (before its first page).
 */
export function estimateTimeLeft(input: TimeLeftInput): number | null {
  let longest = 0
  for (const resource of ['transaction_history', 'charges'] as const) {
    const own = input.partitions.filter((p) => p.resource === resource)
    if (!own.some((p) => !p.done && p.error === null)) continue
    const pages = pagesLeft(own, input.pageLimit, input.now)
    const perMinute = input.perMinute[resource]
    if (pages === null || perMinute === undefined || !(perMinute > 0)) return null
    let perMs = perMinute / 60_000
    const sent = input.sent[resource] ?? 0
    if (input.elapsedMs >= PACE_WARMUP_MS && sent > 0) perMs = Math.min(perMs, sent / input.elapsedMs)
    longest = Math.max(longest, pages / perMs)
  }
  return Math.round(longest)
}
