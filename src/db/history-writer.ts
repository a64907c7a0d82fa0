/**
 * The one owner of the synced copy and the tables derived from it: every write of history records also
 * files them in the day indexes (`dayDigests`, day-digests.ts; `dayTokens`, day-tokens.ts) and the
 * connection's store list (`stores`) in the same transaction, and nothing else writes those (migrations
 * keep their own frozen copies). Sync's pages, a quarantine re-fetch, clearing a connection's synced data
 * and restore all come through here, so the derived rows cannot drift from the records they describe.
 * The same holds for the charge list, stored in day parts with a row per day (charge-days.ts). History is
 * stored as lean rows in day parts (history-parts.ts); rows written before those stay in `history` until
 * a write of their record moves them.
 */
import Dexie, { type Table } from 'dexie'
import { fingerprintOf as reconcileFingerprintOf } from '../domain/fingerprint'
import type { ClosebookDb } from './database'
import {
  CHARGE_PART_SIZE,
  chargeDayRowsOf,
  hasOlderCharges,
  lastPartOf,
  putChargeDays,
  type ChargeDayTables,
} from './charge-days'
import {
  dayDigestRowsOf,
  putDigestRows,
  putDigests,
  storedDigestRows,
  type DigestTables,
} from './day-digests'
import { dayTokenRowsOf, putTokens, TOKEN_PART_SIZE } from './day-tokens'
import { DeferredCharges, type FiledCharge } from './deferred-charges'
import { DEFERRED_RECORDS, Deferral, deferredChargeDaysKey, deferredDaysKey } from './deferred-days'
import { deferredHistory } from './deferred-history'
import { clearHistory, HISTORY_PART_SIZE, historyPartRowsOf, putHistoryParts } from './history-parts'
import { flagChangedMarks } from './marks-repository'
import type { ChargeRecord, HistoryRecord, RecordKey, SyncCheckpoint } from '../domain/records'
import { assertSameConnection, connectionBounds, groupBy } from './repository-helpers'
import { rememberStores } from './store-names'
import { writeUntracked } from './untracked-writes'

/** The fingerprint rule lives with the reconciliation logic; the cache only compares. */
export type FingerprintOf = (record: HistoryRecord) => string

export interface PutPageResult {
  written: number
  /** Keys whose reconciled mark was flagged changed-since-reconciled by this page. */
  flagged: RecordKey[]
}

/** `records` grouped by connection, each group in the order given. */
const byConnection = <R extends { connectionId: string }>(records: readonly R[]): Map<string, R[]> =>
  groupBy(records, (r) => r.connectionId)

/** The day-index tables a restore builds from scratch (a generation's slot): digests, summaries, tokens. */
export type FreshDayTables = DigestTables & { dayTokens: Table }

/**
 * One page of a sync: its history or charge-list records and its checkpoint (putPages). `firstSync`: the
 * connection's cache held no record when the sync's plan was saved, so its commits file new records in new
 * day parts instead of rewriting the parts earlier commits wrote (history-parts.ts, charge-days.ts).
 */
export type PageWrite = { connectionId: string; checkpoint: SyncCheckpoint; firstSync?: boolean } & (
  | { resource: 'transaction_history'; records: readonly HistoryRecord[] }
  | { resource: 'charges'; records: readonly ChargeRecord[] }
)

export class HistoryWriter {
  /** A first sync's history records whose days' rows wait for their filing (deferred-days.ts). */
  readonly #history: Deferral<HistoryRecord>
  /** A first sync's charges whose day rows wait for their filing, and their parts' numbers. */
  readonly #chargeParts: DeferredCharges
  readonly #charges: Deferral<FiledCharge>

  constructor(
    private readonly db: ClosebookDb,
    private readonly fingerprintOf: FingerprintOf = reconcileFingerprintOf,
    /** Records per token row (TOKEN_PART_SIZE); tests make it small. */
    private readonly partSize: number = TOKEN_PART_SIZE,
    /** Charges per part (CHARGE_PART_SIZE); tests make it small. */
    private readonly chargePartSize: number = CHARGE_PART_SIZE,
    /** Records per history part (HISTORY_PART_SIZE); tests make it small. */
    private readonly historyPartSize: number = HISTORY_PART_SIZE,
    /** History records a first sync holds back before filing their days (DEFERRED_RECORDS); tests make it small. */
    deferredRecords: number = DEFERRED_RECORDS,
  ) {
    this.#history = new Deferral(db.settings, deferredHistory(db, partSize), deferredRecords)
    this.#chargeParts = new DeferredCharges(db, chargePartSize)
    // While a sync runs, only Month-end's charge figures and a charge looked up by id read the charge day
    // rows, so their batches grow (a first sync of 200k charges files them 6 times, not 40).
    this.#charges = new Deferral(db.settings, this.#chargeParts, deferredRecords, true)
  }

  /** The tables a write of history records touches: a caller's own transaction must include them. */
  historyTables(): Table[] {
    const { db } = this
    return [...db.historyRecordTables(), db.dayDigests, db.daySummaries, db.dayTokens, db.stores, db.settings]
  }

  /** The tables a write of charge-list records touches: a caller's own transaction must include them. */
  chargeTables(): Table[] {
    const { db } = this
    return [db.charges, db.chargeDays, db.chargeParts, db.settings]
  }

  /**
   * Stores (replaces by id) charge-list records in their days' parts (charge-days.ts). A charge still in
   * the `charges` table from before schema v10 leaves it, so it is held once. Those of `newParts`
   * connections (a first sync) go to new day parts, and their day rows wait for a filing
   * (deferred-charges.ts); any other write of a connection files its waiting days first. Joins the
   * caller's transaction, which must include chargeTables().
   */
  async putCharges(
    records: readonly ChargeRecord[],
    newParts: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    const { db } = this
    for (const [connectionId, mine] of byConnection(records)) {
      const first = newParts.has(connectionId)
      // Checked without an await where the answer is known (putHistory says why).
      if (first && (this.#charges.isDeferring(connectionId) || (await this.#charges.begins(connectionId)))) {
        await this.putDeferredCharges(connectionId, mine)
        continue
      }
      if (!this.#charges.isSettled(connectionId)) await this.#charges.file(connectionId)
      this.#charges.end(connectionId)
      this.#chargeParts.forget(connectionId)
      if (await hasOlderCharges(db.charges, connectionId))
        await db.charges.bulkDelete(mine.map((c): [string, string] => [connectionId, c.id]))
      await putChargeDays(db, connectionId, mine, this.chargePartSize, first)
    }
  }

  /**
   * A first sync's charges: into new parts now, their days listed as unfiled in the same transaction, and
   * the day rows filed once DEFERRED_RECORDS charges wait. A page holding a charge this sync may have
   * written already files the waiting days first and is then written as any first sync's page is, so that
   * charge is replaced where it stands.
   */
  private async putDeferredCharges(connectionId: string, records: readonly ChargeRecord[]): Promise<void> {
    if (records.some((c) => this.#charges.mayBeHeld(connectionId, c.id))) {
      await this.#charges.file(connectionId)
      const rows = await putChargeDays(this.db, connectionId, records, this.chargePartSize, true)
      for (const row of rows) this.#chargeParts.noteLastPart(connectionId, row.day, lastPartOf(row))
      this.#charges.noteFiled(
        connectionId,
        records.map((c) => c.id),
      )
      return
    }
    await this.#charges.hold(connectionId, await this.#chargeParts.writeParts(connectionId, records))
  }

  /** Adds charges to an empty cache (a whole-cache restore), their day rows and parts built from scratch. */
  async addFreshCharges(records: readonly ChargeRecord[]): Promise<void> {
    await this.fileFreshCharges(records, this.db, false)
  }

  /**
   * Files whole days of charges in day tables built from scratch: a restore's next generation, which
   * nothing reads until the switch (`untracked`: untracked-writes.ts), or an empty cache. In a
   * transaction over both tables.
   */
  async fileFreshCharges(records: readonly ChargeRecord[], target: ChargeDayTables, untracked = true) {
    for (const [connectionId, mine] of byConnection(records)) {
      const { chargeDays, chargeParts } = chargeDayRowsOf(connectionId, mine, this.chargePartSize)
      if (untracked)
        await Promise.all([
          writeUntracked(target.chargeDays, chargeDays, 'add'),
          writeUntracked(target.chargeParts, chargeParts, 'add'),
        ])
      else await Promise.all([target.chargeDays.bulkAdd(chargeDays), target.chargeParts.bulkAdd(chargeParts)])
    }
  }

  /**
   * Takes up to `parts` parts out of charge day tables being built from scratch (a restore's next
   * generation) and returns their charges; once no part is left, empties the day rows too (`done`). In a
   * transaction over both tables.
   */
  async takeFreshCharges(
    target: ChargeDayTables,
    parts: number,
  ): Promise<{ charges: ChargeRecord[]; done: boolean }> {
    const taken = await target.chargeParts.limit(parts).toArray()
    if (taken.length === 0) {
      await target.chargeDays.clear()
      return { charges: [], done: true }
    }
    await target.chargeParts.bulkDelete(
      taken.map((p): [string, number, number] => [p.connectionId, p.day, p.part]),
    )
    return { charges: taken.flatMap((p) => p.charges), done: false }
  }

  /**
   * Stores (replaces by key) history records and files them in the day indexes. Joins the caller's
   * transaction, which must include historyTables(); records of several connections are filed per
   * connection. Those of `newParts` connections (a first sync) go to new day parts (history-parts.ts) and
   * their days' digests, summaries and tokens wait for a filing (deferred-days.ts); any other write of a
   * connection files its waiting days first.
   */
  async putHistory(
    records: readonly HistoryRecord[],
    newParts: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    const { db } = this
    for (const [connectionId, mine] of byConnection(records)) {
      const first = newParts.has(connectionId)
      // Checked without an await where the answer is known: a caller's transaction scope that is not an
      // async function loses the transaction across an await of a promise that issued no request.
      if (first && (this.#history.isDeferring(connectionId) || (await this.#history.begins(connectionId)))) {
        await this.putDeferred(connectionId, mine)
        continue
      }
      // Deferral is over for this connection: its waiting days are filed, its sieve let go.
      if (!this.#history.isSettled(connectionId)) await this.#history.file(connectionId)
      this.#history.end(connectionId)
      // The days' digest rows, read once for the parts (which keys may be held) and the digests.
      const digests = await storedDigestRows(db.dayDigests, connectionId, mine)
      await putHistoryParts(db, connectionId, mine, this.historyPartSize, first, digests)
      await putDigests(db, connectionId, mine, digests)
      await putTokens(db.dayTokens, connectionId, mine, this.partSize)
      await rememberStores(this.db, connectionId, mine)
    }
  }

  /**
   * Files records into their days' parts alone: records whose days' digests, summaries and tokens list them
   * already and that no part holds (set-aside rows of an older cache, filed: legacy-move.ts). Their rows
   * leave the store they came from. Joins the caller's transaction (historyTables()).
   */
  async putFiledParts(connectionId: string, records: readonly HistoryRecord[]): Promise<void> {
    await putHistoryParts(this.db, connectionId, records, this.historyPartSize, false, () => false)
  }

  /**
   * A first sync's records: into new parts now (a record this sync wrote before replaced where it
   * stands), their days listed as unfiled in the same transaction, and the days filed once
   * DEFERRED_RECORDS records wait.
   */
  private async putDeferred(connectionId: string, records: readonly HistoryRecord[]): Promise<void> {
    const held = (key: RecordKey) => this.#history.mayBeHeld(connectionId, key)
    await putHistoryParts(this.db, connectionId, records, this.historyPartSize, true, held)
    await rememberStores(this.db, connectionId, records)
    await this.#history.hold(connectionId, records)
  }

  /**
   * Files the days a first sync left unfiled, history's and the charge list's: from the records this
   * writer holds for them, or, for days listed by a run that ended in a crash or a failed transaction,
   * from the records stored on them. Joins the caller's transaction, which must include historyTables()
   * and chargeTables(); without one, runs in its own.
   */
  async fileDeferredDays(connectionId: string): Promise<void> {
    if (this.#history.isSettled(connectionId) && this.#charges.isSettled(connectionId)) return
    // An async scope: Dexie keeps the transaction open across its awaits.
    if (!Dexie.currentTransaction)
      return this.db.transaction('rw', this.dayFilingTables(), async () => {
        await this.fileDeferredDays(connectionId)
      })
    await this.#history.file(connectionId)
    await this.#charges.file(connectionId)
  }

  /** The tables a filing of deferred days writes: history's and the charge list's. */
  private dayFilingTables(): Table[] {
    return [...new Set([...this.historyTables(), ...this.chargeTables()])]
  }

  /**
   * Files the days every stopped first sync left listed (a crash or a quit before the run's end), so the
   * ledger's counts and searches and Month-end hold those records from the cache's opening on, offline
   * too, not only once the next sync starts. Returns the connections filed.
   */
  async fileStoppedFirstSyncs(): Promise<string[]> {
    const connections = [...new Set([...(await this.#history.stopped()), ...(await this.#charges.stopped())])]
    for (const connectionId of connections) await this.fileDeferredDays(connectionId)
    return connections
  }

  /**
   * Adds history to an empty cache (a whole-cache restore) with its day index rows built from scratch:
   * one write per table, no read-merge. Joins the caller's transaction (historyTables()).
   */
  async addFresh(records: readonly HistoryRecord[]): Promise<void> {
    const { db } = this
    await db.historyParts.bulkAdd(historyPartRowsOf(records, this.historyPartSize))
    await putDigestRows(db, dayDigestRowsOf(records), 'add')
    await db.dayTokens.bulkAdd(dayTokenRowsOf(records))
  }

  /**
   * Files one whole day's records (or several whole days) in day-index tables built from scratch: a
   * restore's next generation (backup-stream.ts), which nothing reads until the switch (written untracked:
   * untracked-writes.ts). The same rows addFresh writes, so restored and live indexes cannot differ. Joins
   * the caller's transaction over the three tables.
   */
  async fileFreshDays(records: readonly HistoryRecord[], target: FreshDayTables): Promise<void> {
    await Promise.all([
      putDigestRows(target, dayDigestRowsOf(records), 'untracked'),
      writeUntracked(target.dayTokens, dayTokenRowsOf(records), 'put'),
    ])
  }

  /** Empties day tables being built from scratch (a restore's next generation). In a transaction over both. */
  async clearFreshDays(target: FreshDayTables): Promise<void> {
    await Promise.all([target.dayDigests.clear(), target.daySummaries.clear(), target.dayTokens.clear()])
  }

  /**
   * Stores one page of history and its checkpoint in one transaction: both land or neither does.
   * Records are replaced in place by key; marks are never rewritten, only their changed-since-reconciled
   * flag is raised when a reconciled record's fingerprint no longer matches.
   */
  async putHistoryPage(
    connectionId: string,
    records: readonly HistoryRecord[],
    checkpoint: SyncCheckpoint,
  ): Promise<PutPageResult> {
    const { db } = this
    return db.transaction('rw', this.pageTables(), async () => {
      const page: PageWrite = { resource: 'transaction_history', connectionId, records, checkpoint }
      return { written: records.length, flagged: await this.putPages([page]) }
    })
  }

  /** The tables putPages writes: a caller's own transaction must include them. */
  pageTables(): Table[] {
    const { db } = this
    return [...this.dayFilingTables(), db.checkpoints, db.markDays]
  }

  /**
   * Stores several pages with their checkpoints at once (sync writes what arrived while the previous
   * write ran in one transaction): each day row and token part they touch is read and rewritten once,
   * not once per page, and the transaction's fixed cost is paid once. Joins the caller's transaction,
   * which must include pageTables(). Returns the keys whose reconciled mark was flagged changed.
   */
  async putPages(pages: readonly PageWrite[]): Promise<RecordKey[]> {
    const { db } = this
    const history: HistoryRecord[] = []
    const charges: ChargeRecord[] = []
    // Connections whose pages here are all of a first sync.
    const firstSync = new Set(pages.filter((p) => p.firstSync === true).map((p) => p.connectionId))
    for (const page of pages) {
      assertSameConnection(page.connectionId, page.records, `${page.resource} page`)
      assertSameConnection(page.connectionId, [page.checkpoint], 'checkpoint')
      if (page.firstSync !== true) firstSync.delete(page.connectionId)
      if (page.resource === 'transaction_history') history.push(...page.records)
      else charges.push(...page.records)
    }
    if (history.length > 0) await this.putHistory(history, firstSync)
    if (charges.length > 0) await this.putCharges(charges, firstSync)
    await db.checkpoints.bulkPut(pages.map((p) => p.checkpoint))
    const flagged: RecordKey[] = []
    for (const connectionId of new Set(history.map((r) => r.connectionId))) {
      const mine = history.filter((r) => r.connectionId === connectionId)
      flagged.push(...(await flagChangedMarks(db.markDays, connectionId, mine, this.fingerprintOf)))
    }
    return flagged
  }

  /** Stores one page of charge-list records and its checkpoint in one transaction; replaced by id. */
  async putChargesPage(
    connectionId: string,
    records: readonly ChargeRecord[],
    checkpoint: SyncCheckpoint,
  ): Promise<number> {
    assertSameConnection(connectionId, records, 'charge page')
    assertSameConnection(connectionId, [checkpoint], 'checkpoint')
    const { db } = this
    await db.transaction('rw', [...this.chargeTables(), db.checkpoints], async () => {
      await this.putCharges(records)
      await db.checkpoints.put(checkpoint)
    })
    return records.length
  }

  /**
   * Drops a connection's synced copy: history and charges with their day rows, and sync checkpoints. The
   * store list stays (names, for when the records come back). Joins the caller's transaction, which must
   * include historyTables(), chargeTables() and checkpoints.
   */
  async clearConnection(connectionId: string): Promise<void> {
    const { db } = this
    const [lo, hi] = connectionBounds(connectionId)
    await clearHistory(db, connectionId)
    await db.settings.bulkDelete([deferredDaysKey(connectionId), deferredChargeDaysKey(connectionId)])
    await db.dayDigests.where('[connectionId+day]').between(lo, hi).delete()
    await db.daySummaries.where('[connectionId+day]').between(lo, hi).delete()
    await db.dayTokens.where('[connectionId+day+part]').between(lo, hi).delete()
    await db.charges.where('[connectionId+id]').between(lo, hi).delete()
    await db.chargeDays.where('[connectionId+day]').between(lo, hi).delete()
    await db.chargeParts.where('[connectionId+day+part]').between(lo, hi).delete()
    await db.checkpoints.where('[connectionId+partitionId]').between(lo, hi).delete()
  }
}
