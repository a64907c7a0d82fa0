/**
 * A run's progress as the caller sees it: its first state, and the report sent after every change, with
 * totals, the records expected and the time left summed from the partitions' rows.
 */
import type { SyncResource } from '../domain/records'
import { PAGE_LIMIT } from './plan'
import { estimateTimeLeft } from './progress-estimate'
import type { PartitionProgress, SyncKind, SyncProgress, SyncRequest } from './sync-types'

/** A run's progress before its first page. */
export function startProgress(run: {
  connectionId: string
  jobId: string
  kind: SyncKind
  resumed: boolean
  partitions: PartitionProgress[]
  startedAt: number
}): SyncProgress {
  return {
    connectionId: run.connectionId,
    jobId: run.jobId,
    kind: run.kind,
    state: 'running',
    resumed: run.resumed,
    partitions: run.partitions,
    records: 0,
    requests: 0,
    expected: null,
    startedAt: run.startedAt,
    etaMs: null,
    waitingUntil: null,
    changedKeys: [],
    quarantined: 0,
    refreshRequests: 0,
    recheck: null,
    clockBehindMs: null,
    error: null,
  }
}

/**
 * Sums the partitions' rows into `progress` and sends a copy to the request's listener. The pace counts
 * this run's requests only: a resumed plan's partitions bring the requests of earlier runs.
 */
export function progressReporter(run: {
  progress: SyncProgress
  partitions: PartitionProgress[]
  perMinute: Partial<Record<SyncResource, number>>
  request: SyncRequest
  now: () => number
  startedAt: number
}): () => void {
  const { progress, partitions, perMinute, request, now, startedAt } = run
  const requestsOf = (resource: SyncResource) =>
    partitions.reduce((s, p) => s + (p.resource === resource ? p.requests : 0), 0)
  const sentBefore = {
    transaction_history: requestsOf('transaction_history'),
    charges: requestsOf('charges'),
  }
  return () => {
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
      elapsedMs: now() - startedAt,
      pageLimit: PAGE_LIMIT,
      now: now(),
    })
    request.onProgress?.({
      ...progress,
      partitions: partitions.map((p) => ({ ...p })),
      changedKeys: [...progress.changedKeys],
    })
  }
}
