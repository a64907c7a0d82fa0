/**
 * The sync engine's store port over the cache's repositories: a page and its checkpoint go to IndexedDB in
 * one transaction, records are replaced in place (marks are never touched), and what changed is reported.
 */
import type { QuarantinedItem } from '../../electron/shared/contract/api'
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'
import { chargeRecordOf } from '../db/charge-record'
import { ChargesRepository } from '../db/charges-repository'
import { CheckpointsRepository } from '../db/checkpoints-repository'
import { ConnectionsRepository } from '../db/connections-repository'
import type { ClosebookDb } from '../db/database'
import { hasHistory } from '../db/history-part-reads'
import { historyRecordOf } from '../db/history-record'
import { HistoryRepository } from '../db/history-repository'
import type { HistoryWriter, PageWrite } from '../db/history-writer'
import { historyLedgerLinksOf } from '../db/ledger-links'
import { historyWithStatus, newestCreatedAt } from '../db/recency'
import { quarantineIdOf, quarantineIdOfRecord, QuarantineRepository } from '../db/quarantine-repository'
import { type ChargeRecord, type SyncCheckpoint, type SyncResource } from '../domain/records'
import { fingerprintOf } from '../domain/fingerprint'
import { isChangeableStatus, type ChangeableRecord } from './recheck'
import { staleRefundedCharges } from './refunded-charges'
import type { PageWriteResult, SyncStorePort } from './sync-engine'

/** Records one group commit takes at most: bounds the UI thread's work in one task (cloning records). */
const MAX_RECORDS_PER_COMMIT = 800

/**
 * A commit of fewer records than this waits up to GATHER_MS for more pages first: each commit reads and
 * rewrites the day rows its pages touch, so the cheaper a commit, the more of them, and the more day rows
 * rewritten per record, unless a commit gathers what arrives in a short wait.
 */
const GATHER_RECORDS = 400
const GATHER_MS = 40
const GATHER_STEP_MS = 10

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** A page waiting for its transaction, with its quarantine work. */
interface PendingPage {
  page: PageWrite
  quarantined: readonly QuarantinedItem[]
  released: string[]
  syncedAt?: number
  settle?: (error: Error | null) => void
}

function chargeFingerprint(c: ChargeRecord): string {
  return JSON.stringify([c.chargedAmount, c.chargedCurrency, c.status, c.feeAmount, c.feeCurrency])
}

export class CacheSyncStore implements SyncStorePort {
  readonly history: HistoryRepository
  /** The one owner of history, charges and the day indexes' writes (src/db/history-writer.ts). */
  readonly writer: HistoryWriter
  readonly charges: ChargesRepository
  readonly checkpoints: CheckpointsRepository
  readonly connections: ConnectionsRepository
  readonly quarantine: QuarantineRepository
  /**
   * Quarantined item ids per connection, loaded on its first page: a page whose records include one of
   * them releases it. Most connections have none, and then a page costs no quarantine request at all.
   */
  private readonly quarantinedIds = new Map<string, Set<string>>()
  /**
   * Connections whose cache held no record when their current plan was saved: until the plan's pages are
   * all in, a page cannot replace anything (partitions do not overlap), so it is written without reading
   * the old copies first (a first sync is mostly cache writes; the reads cost a sixth of that).
   */
  private readonly emptyAtPlan = new Set<string>()

  constructor(private readonly db: ClosebookDb) {
    this.history = new HistoryRepository(db, fingerprintOf)
    this.writer = this.history.writer
    this.charges = new ChargesRepository(db)
    this.checkpoints = new CheckpointsRepository(db)
    this.connections = new ConnectionsRepository(db)
    this.quarantine = new QuarantineRepository(db)
  }

  private async knownQuarantine(connectionId: string): Promise<Set<string>> {
    let ids = this.quarantinedIds.get(connectionId)
    if (!ids) {
      ids = new Set((await this.quarantine.list(connectionId)).map((r) => r.id))
      this.quarantinedIds.set(connectionId, ids)
    }
    return ids
  }

  /**
   * Pages waiting for the next write transaction. A page's write is queued and the pages that arrive
   * while a transaction runs go together in the next one (group commit): the e2e bench measured the
   * fixed cost per transaction and the day rows rewritten per page as the bulk of ingest, and 16 parts
   * syncing at once keep several pages waiting. A page's promise settles when its transaction has.
   */
  private pending: PendingPage[] = []
  private flushing = false

  /** The page's quarantine work: items set aside, and stored ids that release an earlier one. */
  private async quarantineWork(
    page: PageWrite,
    quarantined: readonly QuarantinedItem[],
  ): Promise<PendingPage> {
    const known = await this.knownQuarantine(page.connectionId)
    const storedIds =
      page.resource === 'transaction_history'
        ? page.records.map((r) => quarantineIdOfRecord('transaction_history', r.type, r.resourceId))
        : page.records.map((r) => quarantineIdOfRecord('charges', null, r.id))
    return { page, quarantined, released: storedIds.filter((id) => known.has(id)) }
  }

  private static tablesOf(db: ClosebookDb, writer: HistoryWriter) {
    return [...writer.pageTables(), db.quarantine, db.ledgerLinks]
  }

  /** Writes pages, their checkpoints and quarantine work in one transaction (or the caller's). */
  private async writePages(batch: readonly PendingPage[], syncedAt: number): Promise<void> {
    const { db } = this
    await db.transaction('rw', CacheSyncStore.tablesOf(db, this.writer), async () => {
      await this.writer.putPages(batch.map((p) => p.page))
      // A charge's link is written with its part (ledger-links.ts); history records' links are rows.
      const links = batch.flatMap(({ page }) =>
        page.resource === 'transaction_history' ? historyLedgerLinksOf(page.records) : [],
      )
      if (links.length > 0) await db.ledgerLinks.bulkPut(links)
      for (const { page, quarantined, released } of batch) {
        await this.quarantine.putMany(page.connectionId, [...quarantined], syncedAt)
        await this.quarantine.release(page.connectionId, released)
      }
    })
    for (const { page, quarantined, released } of batch) {
      const known = this.quarantinedIds.get(page.connectionId)
      if (!known) continue
      for (const id of released) known.delete(id)
      for (const item of quarantined) known.add(quarantineIdOf(item))
    }
  }

  /** Queues a page for the next group commit; settles when it is stored (or its transaction failed). */
  private commit(work: PendingPage, syncedAt: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ ...work, syncedAt, settle: (error) => (error ? reject(error) : resolve()) })
      if (!this.flushing) void this.flush()
    })
  }

  private pendingRecords(): number {
    let records = 0
    for (const p of this.pending) records += p.page.records.length
    return records
  }

  private async flush(): Promise<void> {
    this.flushing = true
    try {
      while (this.pending.length > 0) {
        for (
          let waited = 0;
          waited < GATHER_MS && this.pendingRecords() < GATHER_RECORDS;
          waited += GATHER_STEP_MS
        )
          await pause(GATHER_STEP_MS)
        let records = 0
        let taken = 0
        for (const p of this.pending) {
          if (taken > 0 && records + p.page.records.length > MAX_RECORDS_PER_COMMIT) break
          records += p.page.records.length
          taken++
        }
        const batch = this.pending.splice(0, taken)
        try {
          // The newest sync time of the batch: the quarantine rows' "last seen".
          await this.writePages(batch, Math.max(...batch.map((p) => p.syncedAt ?? 0)))
          for (const p of batch) p.settle?.(null)
        } catch (error) {
          for (const p of batch) p.settle?.(error instanceof Error ? error : new Error(String(error)))
        }
      }
    } finally {
      this.flushing = false
    }
  }

  async loadPlan(connectionId: string): Promise<SyncCheckpoint[]> {
    this.emptyAtPlan.delete(connectionId)
    this.quarantinedIds.delete(connectionId)
    // Days an earlier first sync left unfiled (a crash, a reload) are filed before anything is written.
    await this.writer.fileDeferredDays(connectionId)
    return this.checkpoints.list(connectionId)
  }

  async savePlan(connectionId: string, plan: SyncCheckpoint[]): Promise<void> {
    const { db } = this
    const tables = [db.checkpoints, ...db.historyRecordTables(), db.charges, db.chargeParts]
    const empty = await db.transaction('rw', tables, async () => {
      await this.checkpoints.reset(connectionId)
      await db.checkpoints.bulkPut(plan)
      const [history, charges] = await Promise.all([
        hasHistory(db, connectionId),
        this.charges.any(connectionId),
      ])
      return !history && !charges
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
      | { resource: 'transaction_history'; items: HistoryItem[]; quarantined?: QuarantinedItem[] }
      | { resource: 'charges'; items: ChargeItem[]; quarantined?: QuarantinedItem[] },
    checkpoint: SyncCheckpoint,
    syncedAt: number,
  ): Promise<PageWriteResult> {
    return this.storePage(page, checkpoint, syncedAt, (work) => this.commit(work, syncedAt))
  }

  /** A page's records, the copies they replace (for what changed), and its write through `write`. */
  private async storePage(
    page:
      | { resource: 'transaction_history'; items: HistoryItem[]; quarantined?: QuarantinedItem[] }
      | { resource: 'charges'; items: ChargeItem[]; quarantined?: QuarantinedItem[] },
    checkpoint: SyncCheckpoint,
    syncedAt: number,
    write: (work: PendingPage) => Promise<void>,
  ): Promise<PageWriteResult> {
    const { connectionId } = checkpoint
    const quarantined = page.quarantined ?? []
    const fresh = this.emptyAtPlan.has(connectionId)
    if (page.resource === 'transaction_history') {
      const records = page.items.map((item) => historyRecordOf(connectionId, item, syncedAt))
      const before = fresh
        ? []
        : await this.history.getMany(
            connectionId,
            records.map((r) => r.key),
          )
      await write(
        await this.quarantineWork(
          { resource: page.resource, connectionId, records, checkpoint, firstSync: fresh },
          quarantined,
        ),
      )
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
    const before = fresh
      ? []
      : await this.charges.getMany(
          connectionId,
          records.map((r) => r.id),
          records.map((r) => r.createdAt),
        )
    await write(
      await this.quarantineWork(
        { resource: page.resource, connectionId, records, checkpoint, firstSync: fresh },
        quarantined,
      ),
    )
    const changedKeys: string[] = []
    let added = 0
    records.forEach((r, i) => {
      const old = before[i]
      if (!old) added++
      else if (chargeFingerprint(old) !== chargeFingerprint(r)) changedKeys.push(`charge-list:${r.id}`)
    })
    return { added, changedKeys }
  }

  /**
   * Stores the items a "fetch again" brought and releases their quarantine row, in one transaction. The
   * page goes through putPage (flags, digests, tokens as for any page); its stand-in checkpoint is removed
   * in the same transaction, so it never joins a sync plan.
   */
  async putRefetched(
    connectionId: string,
    page:
      | { resource: 'transaction_history'; items: HistoryItem[] }
      | { resource: 'charges'; items: ChargeItem[] },
    quarantineId: string,
    at: number,
  ): Promise<PageWriteResult> {
    const cp: SyncCheckpoint = {
      connectionId,
      partitionId: `refetch|${quarantineId}`,
      resource: page.resource,
      storeId: null,
      from: at,
      to: at,
      cursor: null,
      done: true,
      records: page.items.length,
      requests: 1,
      updatedAt: at,
    }
    const { db } = this
    const written = await db.transaction('rw', CacheSyncStore.tablesOf(db, this.writer), async () => {
      // Written at once inside this transaction, not queued for a group commit.
      const result = await this.storePage(page, cp, at, (work) => this.writePages([work], at))
      await db.checkpoints.delete([connectionId, cp.partitionId])
      await this.quarantine.release(connectionId, [quarantineId])
      return result
    })
    this.quarantinedIds.get(connectionId)?.delete(quarantineId)
    return written
  }

  staleRefundedCharges(
    connectionId: string,
    from: number,
    to: number,
  ): Promise<{ chargeId: string; storeId: string }[]> {
    // Every page of the plan is in: what comes next (refreshed charges) replaces records of this run.
    this.emptyAtPlan.delete(connectionId)
    return staleRefundedCharges(this.db, this.history, connectionId, from, to)
  }

  /** The run's pages are in (or it stopped): a first sync's days still waiting are filed. */
  endPages(connectionId: string): Promise<void> {
    return this.writer.fileDeferredDays(connectionId)
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
