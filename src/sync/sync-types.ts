/**
 * What the sync engine and its parts share: the ports it drives (the API and the cache), the progress it
 * reports, and a running plan's partitions and their common state.
 */
import type {
  ListPageArgs,
  ListPageResult,
  QuarantinedItem,
  QueueStateView,
} from '../../electron/shared/contract/api'
import type { ApiErrorCode } from '../../electron/shared/errors'
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'
import type { SyncCheckpoint, SyncResource } from '../domain/records'
import type { SyncScope, TimeWindow } from './plan'
import type { PagingGuard, SpanTally } from './paging-guard'
import type { ChangeableRecord } from './recheck'

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
  /**
   * Every page of the run's plan that was going to be written is written (the run may have finished,
   * failed or been cancelled): whatever the store deferred for its pages is filed now.
   */
  endPages?(connectionId: string): Promise<void>
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

/** A partition of the running plan and its progress row. */
export interface Entry {
  cp: SyncCheckpoint
  view: PartitionProgress
}

/** What the partitions of one run share. */
export interface RunContext {
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
  /** Stops the whole run (the cache could not be written); stored checkpoints stay for a resume. */
  abortRun: () => void
  /** Each partition's paging guard, kept while the partition gives its worker back and takes one again. */
  guards: Map<string, PagingGuard>
  /** What the partitions of one list and store received in all (plan.ts `partitionKeyOf`). */
  tallies: Map<string, SpanTally>
}
