/**
 * What a run does: finish an interrupted plan, re-read a window (Verify month), or plan a first or an
 * incremental sync (plan.ts). An interrupted sync must finish before a month is verified; a verification
 * that was cancelled is started afresh by the next one.
 */
import { DesktopApiError } from '../../electron/shared/errors'
import type { SyncCheckpoint } from '../domain/records'
import { INITIAL_PREFIX, planIncrementalSync, planInitialSync, planWindowSync, VERIFY_PREFIX } from './plan'
import type { SyncKind, SyncRequest } from './sync-types'

export interface RunPlan {
  kind: SyncKind
  plan: SyncCheckpoint[]
  /** Whether `plan` is the interrupted one (already stored), not a new one to store. */
  resumed: boolean
}

/**
 * The plan for `request`, given the connection's `open` plan (re-check pages left out) and, for an
 * incremental sync, the newest cached `created_on` per partition key (asked for only then).
 */
export async function planOfRun(
  request: SyncRequest,
  open: readonly SyncCheckpoint[],
  startedAt: number,
  newestCached: () => Promise<Map<string, number>>,
): Promise<RunPlan> {
  const { scope } = request
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
    plan = [...open]
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
    plan = planIncrementalSync(scope, await newestCached(), request.lookbackMs, request.since, startedAt)
    kind = 'incremental'
  }
  return { kind, plan, resumed }
}
