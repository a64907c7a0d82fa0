/**
 * The sync engine's store port over the cache's repositories: a page and its checkpoint go to IndexedDB in
 * one transaction, records are replaced in place (marks are never touched), and what changed is reported.
 */
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'
import { chargeRecordOf } from '../db/charge-record'
import { ChargesRepository } from '../db/charges-repository'
import { CheckpointsRepository } from '../db/checkpoints-repository'
import { ConnectionsRepository } from '../db/connections-repository'
import type { ClosebookDb } from '../db/database'
import { historyRecordOf } from '../db/history-record'
import { HistoryRepository } from '../db/history-repository'
import { historyWithStatus, newestCreatedAt } from '../db/recency'
import { connectionBounds } from '../db/repository-helpers'
import { recordKeyOf, type ChargeRecord, type SyncCheckpoint, type SyncResource } from '../db/records'
import { fingerprintOf } from '../reconcile/fingerprint'
import { isChangeableStatus, type ChangeableRecord } from './recheck'
import type { PageWriteResult, SyncStorePort } from './sync-engine'

/**
 * The id of an element of a charge's `user_data.refunds`: the real service names it `refund_id`
 * (real-service.md); the seed's sandbox shape used `id`.
 */
export function refundIdOf(element: Record<string, unknown>): string | null {
  const id = element['refund_id'] ?? element['id']
  return typeof id === 'string' ? id : null
}

function chargeFingerprint(c: ChargeRecord): string {
  return JSON.stringify([c.chargedAmount, c.chargedCurrency, c.status, c.feeAmount, c.feeCurrency])
}

export class CacheSyncStore implements SyncStorePort {
  readonly history: HistoryRepository
  readonly charges: ChargesRepository
  readonly checkpoints: CheckpointsRepository
  readonly connections: ConnectionsRepository
  /**
   * Connections whose cache held no record when their current plan was saved: until the plan's pages are
   * all in, a page cannot replace anything (partitions do not overlap), so it is written without reading
   * the old copies first (a first sync is mostly cache writes; the reads cost a sixth of that).
   */
  private readonly emptyAtPlan = new Set<string>()

  constructor(private readonly db: ClosebookDb) {
    this.history = new HistoryRepository(db, fingerprintOf)
    this.charges = new ChargesRepository(db)
    this.checkpoints = new CheckpointsRepository(db)
    this.connections = new ConnectionsRepository(db)
  }

  loadPlan(connectionId: string): Promise<SyncCheckpoint[]> {
    this.emptyAtPlan.delete(connectionId)
    return this.checkpoints.list(connectionId)
  }

  async savePlan(connectionId: string, plan: SyncCheckpoint[]): Promise<void> {
    const { db } = this
    const empty = await db.transaction('rw', db.checkpoints, db.history, db.charges, async () => {
      await this.checkpoints.reset(connectionId)
      await db.checkpoints.bulkPut(plan)
      const range = connectionBounds(connectionId)
      const [history, charges] = await Promise.all([
        db.history
          .where('[connectionId+createdAt]')
          .between(...range)
          .first(),
        db.charges
          .where('[connectionId+createdAt]')
          .between(...range)
          .first(),
      ])
      return history === undefined && charges === undefined
    })
    if (empty) this.emptyAtPlan.add(connectionId)
    else this.emptyAtPlan.delete(connectionId)
  }

  /** The narrowed partition and its new parts together: a crash keeps the whole partition or every part. */
  async splitPartition(checkpoints: SyncCheckpoint[]): Promise<void> {
    const { db } = this
    await db.transaction('rw', db.checkpoints, () => db.checkpoints.bulkPut(checkpoints))
  }

  async putPage(
    page:
      | { resource: 'transaction_history'; items: HistoryItem[] }
      | { resource: 'charges'; items: ChargeItem[] },
    checkpoint: SyncCheckpoint,
    syncedAt: number,
  ): Promise<PageWriteResult> {
    const { connectionId } = checkpoint
    if (page.resource === 'transaction_history') {
      const records = page.items.map((item) => historyRecordOf(connectionId, item, syncedAt))
      const before = this.emptyAtPlan.has(connectionId)
        ? []
        : await this.history.getMany(
            connectionId,
            records.map((r) => r.key),
          )
      await this.history.putPage(connectionId, records, checkpoint)
      const changedKeys: string[] = []
      let added = 0
      records.forEach((r, i) => {
        const old = before[i]
        if (!old) added++
        else if (fingerprintOf(old) !== fingerprintOf(r)) changedKeys.push(r.key)
      })
      return { added, changedKeys }
    }
    const records = page.items.map((item) => chargeRecordOf(connectionId, item, syncedAt))
    const before = this.emptyAtPlan.has(connectionId)
      ? []
      : await this.charges.getMany(
          connectionId,
          records.map((r) => r.id),
        )
    await this.charges.putPage(connectionId, records, checkpoint)
    const changedKeys: string[] = []
    let added = 0
    records.forEach((r, i) => {
      const old = before[i]
      if (!old) added++
      else if (chargeFingerprint(old) !== chargeFingerprint(r)) changedKeys.push(`charge-list:${r.id}`)
    })
    return { added, changedKeys }
  }

  async staleRefundedCharges(
    connectionId: string,
    from: number,
    to: number,
  ): Promise<{ chargeId: string; storeId: string }[]> {
    // Every page of the plan is in: what comes next (refreshed charges) replaces records of this run.
    this.emptyAtPlan.delete(connectionId)
    const inWindow = await this.history.inRange(connectionId, from, to)
    const refunds = inWindow.filter((r) => r.type === 'refund')
    if (refunds.length === 0) return []
    const chargeIds = [...new Set(refunds.map((r) => r.chargeId))]
    const charges = await this.history.getMany(
      connectionId,
      chargeIds.map((id) => recordKeyOf('charge', id)),
    )
    const stale: { chargeId: string; storeId: string }[] = []
    chargeIds.forEach((chargeId, i) => {
      const charge = charges[i]
      if (!charge) return // not cached (e.g. created before the sync start): nothing to bring up to date
      const elements: unknown = (charge.raw.user_data as { refunds?: unknown } | undefined)?.refunds
      const listed = new Set(
        (Array.isArray(elements) ? (elements as unknown[]) : []).map((r) =>
          r !== null && typeof r === 'object' ? refundIdOf(r as Record<string, unknown>) : null,
        ),
      )
      const missing = refunds.some((r) => r.chargeId === chargeId && !listed.has(r.resourceId))
      if (missing) stale.push({ chargeId, storeId: charge.storeId })
    })
    return stale
  }

  newestCached(connectionId: string, resource: SyncResource, storeId: string | null): Promise<number | null> {
    return newestCreatedAt(this.db, connectionId, resource, storeId)
  }

  async changeableRecords(connectionId: string): Promise<ChangeableRecord[]> {
    const rows = await historyWithStatus(this.db, connectionId, isChangeableStatus)
    return rows.map((r) => ({
      key: r.key,
      type: r.type,
      resourceId: r.resourceId,
      chargeId: r.chargeId,
      storeId: r.storeId,
      status: r.status,
      createdAt: r.createdAt,
      fingerprint: fingerprintOf(r),
    }))
  }

  /** The fingerprint an item would have once cached (for the re-check's "unchanged, not rewritten"). */
  fingerprintOfItem(item: HistoryItem): string {
    return fingerprintOf(historyRecordOf('', item, 0))
  }

  async finishRun(
    connectionId: string,
    coveredUntil: Partial<Record<SyncResource, number>>,
    at: number,
  ): Promise<void> {
    this.emptyAtPlan.delete(connectionId)
    await this.connections.recordSync(connectionId, at, coveredUntil)
    await this.checkpoints.reset(connectionId)
  }
}
