/**
 * The time left the sync panel shows. The engine's estimate (progress-estimate.ts) counts the requests left
 * at the rate the service's headers allow, then, after its first seconds, at the run's average pace. Both
 * can be far off where answers come slower than the headers allow (the demo's sandbox, a busy machine):
 * the header rate reads short, and the average, which counts the run's start-up (planning, the first
 * answers), reads long. Here, once the last PACE_WINDOW_MS hold PACE_SIGNAL_REQUESTS requests, the pace the
 * run keeps now is weighed against the allowed rate (timeLeftRefiner); until then, the engine's estimate
 * stands.
 */
import { PAGE_LIMIT } from './plan'
import { pagesLeft } from './progress-estimate'
import type { PartitionProgress, SyncState } from './sync-engine'

export const PACE_WINDOW_MS = 2_000
export const PACE_SIGNAL_REQUESTS = 6

export interface TimeLeftSample {
  /** When the progress was reported (ms). */
  at: number
  state: SyncState
  /** Requests the run's partitions have sent so far. */
  requests: number
  partitions: readonly PartitionProgress[]
  /** The engine's estimate. */
  etaMs: number | null
}

/** Pages the run has left over both lists; null while a list with work left has not told its size. */
function runPagesLeft(
  partitions: readonly PartitionProgress[],
  pageLimit: number,
  now: number,
): number | null {
  let pages = 0
  for (const resource of ['transaction_history', 'charges'] as const) {
    const own = partitions.filter((p) => p.resource === resource)
    if (!own.some((p) => !p.done && p.error === null)) continue
    const left = pagesLeft(own, pageLimit, now)
    if (left === null) return null
    pages += left
  }
  return pages
}

/**
 * For one run: each progress sample in, the time left to show out. Until the recent pace says something,
 * the engine's estimate stands. Then the estimate is the geometric mean of the time at the rate the headers
 * allow (what the run can do at best: the fastest rate the engine's estimates imply, as it never counts
 * faster than that) and the time at the recent pace (what it did lately; runs speed up as their
 * partitions warm and split): neither alone is honest on a run that starts slow, as the demo's does.
 */
export function timeLeftRefiner(pageLimit = PAGE_LIMIT): (sample: TimeLeftSample) => number | null {
  const window: { at: number; requests: number }[] = []
  /** Pages per ms the headers allow, as the engine's first-seconds estimate implies. */
  let allowedPerMs: number | null = null
  return (sample) => {
    if (sample.state !== 'running') return sample.etaMs
    const pages = runPagesLeft(sample.partitions, pageLimit, sample.at)
    // The engine never counts faster than the headers allow: the fastest rate its estimates imply is that.
    if (pages !== null && pages > 0 && sample.etaMs !== null && sample.etaMs > 0)
      allowedPerMs = Math.max(allowedPerMs ?? 0, pages / sample.etaMs)
    window.push({ at: sample.at, requests: sample.requests })
    while (window.length > 1 && (window[0]?.at ?? sample.at) < sample.at - PACE_WINDOW_MS) window.shift()
    const first = window[0] ?? { at: sample.at, requests: sample.requests }
    const requests = sample.requests - first.requests
    const span = sample.at - first.at
    if (pages === null || span < PACE_WINDOW_MS / 4 || requests < PACE_SIGNAL_REQUESTS) return sample.etaMs
    const atPace = pages / (requests / span)
    const atAllowed = allowedPerMs === null ? atPace : pages / allowedPerMs
    // Never shorter than at the allowed rate: a first burst faster than the limit does not last.
    return Math.round(Math.max(atAllowed, Math.sqrt(atPace * atAllowed)))
  }
}
