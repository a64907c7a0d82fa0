/**
 * The passes after a run's pages are in: re-reading the cached records that can still change (recheck.ts)
 * and bringing up to date the charges whose new refunds their cached copy does not list yet. Each says
 * whether it went to the end; the run is complete only when both did.
 */
import type { ListPageResult } from '../../electron/shared/contract/api'
import { DesktopApiError } from '../../electron/shared/errors'
import type { SyncCheckpoint } from '../domain/records'
import type { SyncScope } from './plan'
import { recheckChangeable } from './recheck'
import type { SyncEngineOptions, SyncProgress } from './sync-types'

/** What both passes share with the run: its ports and clock, its job, cancel signal and progress. */
export interface PassContext {
  options: SyncEngineOptions
  now: () => number
  jobId: string
  signal: AbortSignal
  progress: SyncProgress
  emit: () => void
}

/**
 * Re-reads the cached records that can still change and are older than this run's windows (recheck.ts).
 * False when it stopped on the way (cancel, an error): the run is then not complete.
 */
export async function recheckOlderChangeable(
  pass: PassContext,
  scope: SyncScope,
  plan: SyncCheckpoint[],
): Promise<boolean> {
  const { options, now, jobId, signal, progress, emit } = pass
  const { store, api } = options
  if (!store.changeableRecords || !scope.resources.includes('transaction_history')) return true
  const windowStart = new Map<string | null, number>()
  for (const cp of plan)
    if (cp.resource === 'transaction_history')
      windowStart.set(cp.storeId, Math.min(windowStart.get(cp.storeId) ?? Infinity, cp.from))
  const started = now()
  const records = await store.changeableRecords(scope.connectionId)
  progress.recheck = { checked: 0, requests: 0, changed: 0, remaining: 0, ms: 0 }
  const view = progress.recheck
  try {
    const result = await recheckChangeable(
      {
        listPage: (args) => api.listPage(args),
        putPage: (page, cp, at) => store.putPage(page, cp, at),
        // Without it every record read again counts as moved and is written (correct, only slower).
        fingerprintOfItem: (item) => store.fingerprintOfItem?.(item) ?? '',
        now: now,
      },
      {
        connectionId: scope.connectionId,
        jobId,
        storeIds: scope.storeIds,
        windowStart,
        charges: scope.resources.includes('charges'),
        records,
        signal,
        onRequest: () => {
          view.requests++
          emit()
        },
      },
    )
    Object.assign(view, {
      checked: result.checked,
      requests: result.requests,
      changed: result.changedKeys.length,
      remaining: result.remaining,
      ms: now() - started,
    })
    progress.changedKeys.push(...result.changedKeys)
    emit()
    return result.complete
  } catch (error) {
    const shaped = error instanceof DesktopApiError ? error : new DesktopApiError('internal', String(error))
    if (shaped.code !== 'cancelled' && !signal.aborted)
      progress.error ??= { code: shaped.code, message: shaped.message }
    return false
  }
}

/**
 * A new refund changes its charge's `user_data.refunds`, but the charge record is only fetched again if it
 * falls in the window. One search by charge id per such charge brings it up to date: the cost grows with
 * the new refunds, not with the history. False when the run stopped on the way.
 */
export async function refreshRefundedCharges(pass: PassContext, plan: SyncCheckpoint[]): Promise<boolean> {
  const { options, now, jobId, signal, progress, emit } = pass
  const history = plan.filter((cp) => cp.resource === 'transaction_history')
  if (history.length === 0) return true
  const connectionId = (history[0] as SyncCheckpoint).connectionId
  const from = Math.min(...history.map((cp) => cp.from))
  const to = Math.max(...history.map((cp) => cp.to))
  const stale = await options.store.staleRefundedCharges(connectionId, from, to)
  for (const { chargeId, storeId } of stale) {
    if (signal.aborted) return false
    let page: ListPageResult
    try {
      page = await options.api.listPage({
        connectionId,
        resource: 'transaction_history',
        priority: 'background',
        jobId,
        storeId,
        filters: { search: chargeId },
        paging: { limit: 100 },
      })
    } catch (error) {
      const shaped = error instanceof DesktopApiError ? error : new DesktopApiError('internal', String(error))
      if (shaped.code === 'cancelled' || signal.aborted) return false
      progress.error ??= { code: shaped.code, message: shaped.message }
      return false
    }
    progress.refreshRequests++
    const items =
      page.resource === 'transaction_history'
        ? page.items.filter((i) => i.resource_id === chargeId || i.charge_id === chargeId)
        : []
    const at = now()
    const quarantined = (page.quarantined ?? []).filter(
      (q) => q.itemId?.toLowerCase() === chargeId.toLowerCase(),
    )
    progress.quarantined += quarantined.length
    const written = await options.store.putPage(
      { resource: 'transaction_history', items, quarantined },
      {
        connectionId,
        partitionId: `refresh|${chargeId}`,
        resource: 'transaction_history',
        storeId,
        from,
        to,
        cursor: null,
        done: true,
        records: items.length,
        requests: 1,
        updatedAt: at,
      },
      at,
    )
    if (written.changedKeys.length > 0) progress.changedKeys.push(...written.changedKeys)
    emit()
  }
  return true
}
