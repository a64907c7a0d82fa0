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
import { endAfter, isOpenEnd } from './plan'
import type { PartitionProgress, SyncState } from './sync-engine'

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

/**
 * A partition's span for the density estimate: an open window ends at the present, not at the end of
 * time (else one open part not yet answered would be guessed to hold billions of records).
 */
function spanOf(p: PartitionProgress, now: number): number {
  const to = isOpenEnd(p.to) ? Math.max(p.from, endAfter(now)) : p.to
  return Math.max(1, to - p.from)
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

export function estimateProgress(
  progress: {
    state: SyncState
    partitions: readonly PartitionProgress[]
  },
  now = Date.now(),
): ProgressEstimate {
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
