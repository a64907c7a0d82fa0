/**
 * Re-check of cached records that can still change (DESIGN §4: "records that can still change are
 * re-checked on every sync"). A konbini or bank-transfer charge is paid days later, an authorized charge
 * is captured, a pending refund succeeds: the incremental window (days of data at most) never reads such
 * an old record again, so the cache and the month's totals would keep the old status for good.
 *
 * Cost, in requests (measured by `npm run bench`, metric `sync.recheck_requests`): per store × non-final
 * status, ONE status-filtered history list from the oldest cached record in that status to the start of
 * the incremental window (pages of 100, so 4,000 pending records cost 40 requests), then one lookup per
 * record that is no longer in its status (a search by its charge id, which brings the charge and all its
 * refunds; plus, for a charge, a one-millisecond window of the charge list for its fees and charged
 * amount). Lookups by id for every changeable record would cost one request per record (4,000); windows
 * from the oldest changeable record, unfiltered, would re-read most of the history.
 */
import type { ListPageArgs, ListPageResult } from '../../electron/shared/contract/api'
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'
import type { RecordKey, SyncCheckpoint } from '../domain/records'
import { pageQuery, PAGE_LIMIT, toWholeSecond } from './plan'

// The rule lives in the domain: the cache files changeable records apart (history-row.ts).
export { FINAL_STATUSES, isChangeableStatus } from '../domain/statuses'

/**
 * Lookups (records no longer in their status) done per sync at most: a sync after months offline, when
 * thousands of pending records were paid, stays bounded; what is left is done by the next sync, and the
 * run says so rather than "up to date".
 */
export const MAX_RECHECK_LOOKUPS = 300

/** A cached history record whose status is not final. */
export interface ChangeableRecord {
  key: RecordKey
  type: 'charge' | 'refund'
  resourceId: string
  chargeId: string
  storeId: string
  status: string
  createdAt: number
  /** fingerprintOf() of the cached copy: an unchanged record read again is not written again. */
  fingerprint: string
}

export interface RecheckPorts {
  listPage(args: ListPageArgs): Promise<ListPageResult>
  putPage(
    page:
      | { resource: 'transaction_history'; items: HistoryItem[] }
      | { resource: 'charges'; items: ChargeItem[] },
    checkpoint: SyncCheckpoint,
    syncedAt: number,
  ): Promise<{ changedKeys: string[] }>
  /** fingerprintOf() of an item as it would be cached (same function as ChangeableRecord.fingerprint). */
  fingerprintOfItem(item: HistoryItem): string
  now(): number
}

export interface RecheckInput {
  connectionId: string
  jobId: string
  /** Stores synced one by one (their own paths); empty: the all-stores paths. */
  storeIds: readonly string[]
  /** Per store (null: all stores), where this run's history window starts: newer records it reads anyway. */
  windowStart: ReadonlyMap<string | null, number>
  /** Whether the charge list is synced too (then a changed charge's charge-list record is read again). */
  charges: boolean
  records: readonly ChangeableRecord[]
  signal: AbortSignal
  /** After every request. */
  onRequest?: () => void
}

export interface RecheckResult {
  /** Changeable records looked at (older than the incremental window). */
  checked: number
  requests: number
  /** Keys whose stored copy changed (history keys, and `charge-list:<id>`). */
  changedKeys: string[]
  /** Records found out of their status that were not looked up yet (over MAX_RECHECK_LOOKUPS). */
  remaining: number
  /** False when it stopped on the way (cancel): the caller must not say "up to date". */
  complete: boolean
}

/** A checkpoint for the put port: written `done`, so a crash never leaves a re-check page to "resume". */
function recheckCheckpoint(
  input: RecheckInput,
  id: string,
  storeId: string | null,
  now: number,
): SyncCheckpoint {
  return {
    connectionId: input.connectionId,
    partitionId: `recheck|${id}`,
    resource: 'transaction_history',
    storeId,
    from: 0,
    to: 0,
    cursor: null,
    done: true,
    records: 0,
    requests: 1,
    updatedAt: now,
  }
}

export async function recheckChangeable(ports: RecheckPorts, input: RecheckInput): Promise<RecheckResult> {
  const result: RecheckResult = { checked: 0, requests: 0, changedKeys: [], remaining: 0, complete: false }
  const call = async (args: ListPageArgs): Promise<ListPageResult> => {
    const page = await ports.listPage(args)
    result.requests++
    input.onRequest?.()
    return page
  }
  const stores: (string | null)[] = input.storeIds.length > 0 ? [...input.storeIds] : [null]
  const outOfStatus: ChangeableRecord[] = []
  const cached = new Map<string, string>(input.records.map((r) => [r.key, r.fingerprint]))
  for (const storeId of stores) {
    const start = input.windowStart.get(storeId)
    if (start === undefined) continue
    const byStatus = new Map<string, ChangeableRecord[]>()
    for (const r of input.records) {
      if ((storeId !== null && r.storeId !== storeId) || !(r.createdAt < start)) continue
      let group = byStatus.get(r.status)
      if (!group) byStatus.set(r.status, (group = []))
      group.push(r)
    }
    for (const [status, group] of byStatus) {
      result.checked += group.length
      const oldest = Math.min(...group.map((r) => r.createdAt))
      const seen = new Set<string>()
      // The same window query the sync pages with, plus the status filter, from the oldest such record.
      let cp: SyncCheckpoint = {
        ...recheckCheckpoint(input, `${status}|${storeId ?? '*'}`, storeId, ports.now()),
        from: toWholeSecond(oldest),
        to: start,
        done: false,
      }
      for (;;) {
        if (input.signal.aborted) return result
        const base = pageQuery(cp, input.jobId, PAGE_LIMIT)
        if (base.resource !== 'transaction_history') break
        const page = await call({ ...base, filters: { ...base.filters, status } })
        const items = page.resource === 'transaction_history' ? page.items : []
        for (const item of items) seen.add(`${item.type}:${item.resource_id}`)
        // Still in that status, but the amount (a partial capture) or the refunds may have moved: only
        // those are written (rewriting thousands of unchanged records every sync costs the cache dearly).
        const moved = items.filter(
          (item) => cached.get(`${item.type}:${item.resource_id}`) !== ports.fingerprintOfItem(item),
        )
        if (moved.length > 0) {
          const now = ports.now()
          const written = await ports.putPage(
            { resource: 'transaction_history', items: moved },
            { ...cp, done: true, updatedAt: now },
            now,
          )
          result.changedKeys.push(...written.changedKeys)
        }
        const last = items[items.length - 1]
        if (!page.hasMore || !last) break
        cp = { ...cp, cursor: last.resource_id }
      }
      for (const r of group) if (!seen.has(r.key)) outOfStatus.push(r)
    }
  }

  // Each record out of its status is read again through its charge: one search brings the charge and all
  // its refunds (a refund's success also changes its charge's `user_data.refunds`).
  const byCharge = new Map<string, ChangeableRecord>()
  for (const r of outOfStatus.sort((a, b) => a.createdAt - b.createdAt)) {
    const known = byCharge.get(r.chargeId)
    if (!known || (r.type === 'charge' && known.type !== 'charge')) byCharge.set(r.chargeId, r)
  }
  const lookups = [...byCharge.values()]
  const now = lookups.slice(0, MAX_RECHECK_LOOKUPS)
  result.remaining = lookups.length - now.length
  for (const r of now) {
    if (input.signal.aborted) return result
    const storeScope = input.storeIds.length > 0 ? { storeId: r.storeId } : {}
    if (r.type === 'charge' && input.charges) {
      // The charge list has no id filter: a window of the charge's own millisecond finds it (from ≥, to <).
      const at = Math.floor(r.createdAt)
      const page = await call({
        connectionId: input.connectionId,
        resource: 'charges',
        priority: 'background',
        jobId: input.jobId,
        ...storeScope,
        filters: { from: new Date(at).toISOString(), to: new Date(at + 1).toISOString() },
        paging: { limit: PAGE_LIMIT },
      })
      const items = page.resource === 'charges' ? page.items.filter((c) => c.id === r.chargeId) : []
      if (items.length > 0) {
        const t = ports.now()
        const written = await ports.putPage(
          { resource: 'charges', items },
          { ...recheckCheckpoint(input, `charge|${r.chargeId}`, r.storeId, t), resource: 'charges' },
          t,
        )
        result.changedKeys.push(...written.changedKeys)
      }
    }
    const page = await call({
      connectionId: input.connectionId,
      resource: 'transaction_history',
      priority: 'background',
      jobId: input.jobId,
      ...storeScope,
      filters: { search: r.chargeId },
      paging: { limit: PAGE_LIMIT },
    })
    const items =
      page.resource === 'transaction_history'
        ? page.items.filter((i) => i.resource_id === r.chargeId || i.charge_id === r.chargeId)
        : []
    if (items.length > 0) {
      const t = ports.now()
      const written = await ports.putPage(
        { resource: 'transaction_history', items },
        recheckCheckpoint(input, `search|${r.chargeId}`, r.storeId, t),
        t,
      )
      result.changedKeys.push(...written.changedKeys)
    }
  }
  result.complete = true
  return result
}
