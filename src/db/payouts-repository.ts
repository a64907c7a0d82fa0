/**
 * Payouts in the cache (schema v11): what the Payouts view, the roll-forward and the deposit tie-out read,
 * and what the payout sync writes. Every write of a page goes with the sync state that says where the
 * read stands, in one transaction: a crash keeps both or neither, and a page read again replaces its rows
 * by id, so nothing is counted twice.
 */
import type { ClosebookDb } from './database'
import { historyByKeys } from './history-part-reads'
import { ChargesRepository } from './charges-repository'
import { LedgerLinkLookup, type LinkedRecord } from './ledger-link-lookup'
import { byTimeThenId, connectionBounds } from './repository-helpers'
import {
  OPEN_TRANSFER_KEY,
  type LedgerLink,
  type LedgerRow,
  type PayoutConfigRow,
  type PayoutQuarantineRow,
  type PayoutSyncState,
  type TransferRow,
} from './payout-rows'
import type { BankAccount, TransferStatusChange } from '../domain/payouts'
import { recordKeyOf, type ChargeRecord, type HistoryRecord } from '../domain/records'

/** What carries a ledger id: the link, and the cached charge or refund record when there is one. */
export interface LedgerRecords {
  link: LedgerLink
  charge?: ChargeRecord
  history?: HistoryRecord
}

export const initialPayoutState = (connectionId: string): PayoutSyncState => ({
  connectionId,
  access: { code: 'unknown' },
  lastRunAt: null,
  complete: false,
  details: null,
})

export class PayoutsRepository {
  constructor(private readonly db: ClosebookDb) {}

  // ---- reads ----

  /** Transfers created in [from, to) (epoch ms), oldest first. */
  async transfersInRange(connectionId: string, from: number, to: number): Promise<TransferRow[]> {
    const rows = await this.db.payoutTransfers
      .where('[connectionId+createdAt]')
      .between([connectionId, from], [connectionId, to], true, false)
      .toArray()
    return rows.sort(byTimeThenId)
  }

  async allTransfers(connectionId: string): Promise<TransferRow[]> {
    const rows = await this.db.payoutTransfers
      .where('[connectionId+id]')
      .between(...connectionBounds(connectionId))
      .toArray()
    return rows.sort(byTimeThenId)
  }

  transfer(connectionId: string, id: string): Promise<TransferRow | undefined> {
    return this.db.payoutTransfers.get([connectionId, id.toLowerCase()])
  }

  async ledgersOfTransfer(connectionId: string, transferId: string): Promise<LedgerRow[]> {
    const rows = await this.db.payoutLedgers
      .where('[connectionId+transferKey]')
      .equals([connectionId, transferId.toLowerCase()])
      .toArray()
    return rows.sort(byTimeThenId)
  }

  /** Ledgers that name no transfer: not yet paid out, or carried over. */
  async openLedgers(connectionId: string): Promise<LedgerRow[]> {
    const rows = await this.db.payoutLedgers
      .where('[connectionId+transferKey]')
      .equals([connectionId, OPEN_TRANSFER_KEY])
      .toArray()
    return rows.sort(byTimeThenId)
  }

  /** Ledgers created before `to` (epoch ms), oldest first: what a month's balance is made of. */
  async ledgersBefore(connectionId: string, to: number): Promise<LedgerRow[]> {
    const rows = await this.db.payoutLedgers
      .where('[connectionId+createdAt]')
      .between([connectionId, -Infinity], [connectionId, to], true, false)
      .toArray()
    return rows.sort(byTimeThenId)
  }

  /** The ids of the ledgers created in [from, to), read from the index alone (no row is loaded). */
  async ledgerIdsBetween(connectionId: string, from: number, to: number): Promise<string[]> {
    const keys = await this.db.payoutLedgers
      .where('[connectionId+createdAt]')
      .between([connectionId, from], [connectionId, to], true, false)
      .primaryKeys()
    return keys.map((k) => k[1])
  }

  /**
   * Every ledger of the connection except those of the given transfers (ids as cached, lower case): the
   * open ledgers, those of every other transfer and those naming a transfer not cached, oldest first.
   */
  async ledgersOutsideTransfers(connectionId: string, excluded: readonly string[]): Promise<LedgerRow[]> {
    const keys = [...new Set(excluded.map((k) => k.toLowerCase()))].sort()
    // Below every string key (the open ledgers' '' included) and above every one: arrays sort after strings.
    const bounds: [string, string | number | never[]][] = [
      [connectionId, -Infinity],
      ...keys.map((k) => [connectionId, k] as [string, string]),
      [connectionId, []],
    ]
    // One getAll per gap between the excluded keys: a multi-range cursor steps row by row.
    const gaps = await Promise.all(
      bounds
        .slice(1)
        .map((upper, i) =>
          this.db.payoutLedgers
            .where('[connectionId+transferKey]')
            .between(bounds[i], upper, false, false)
            .toArray(),
        ),
    )
    const rows = gaps.flat()
    return rows.sort(byTimeThenId)
  }

  /** Every cached status change of the connection's transfers, oldest first. */
  async allStatusChanges(connectionId: string): Promise<TransferStatusChange[]> {
    const rows = await this.db.payoutStatusChanges
      .where('[connectionId+id]')
      .between(...connectionBounds(connectionId))
      .toArray()
    return rows.sort(byTimeThenId)
  }

  /** Each record's ledger link, in the order given (undefined: none known); ledger-link-lookup.ts. */
  linksOfRecords(
    connectionId: string,
    records: readonly LinkedRecord[],
  ): Promise<(LedgerLink | undefined)[]> {
    return new LedgerLinkLookup(this.db).linksOfRecords(connectionId, records)
  }

  ledger(connectionId: string, id: string): Promise<LedgerRow | undefined> {
    return this.db.payoutLedgers.get([connectionId, id.toLowerCase()])
  }

  /** The cached ledgers of the given ids, by id (an id not cached is absent). */
  async ledgersByIds(connectionId: string, ids: readonly string[]): Promise<Map<string, LedgerRow>> {
    const rows = await this.db.payoutLedgers.bulkGet(
      ids.map((id) => [connectionId, id.toLowerCase()] as [string, string]),
    )
    return new Map(rows.flatMap((l) => (l ? [[l.id, l] as const] : [])))
  }

  async statusChanges(connectionId: string, transferId: string): Promise<TransferStatusChange[]> {
    const rows = await this.db.payoutStatusChanges
      .where('[connectionId+transferId]')
      .equals([connectionId, transferId.toLowerCase()])
      .toArray()
    return rows.sort(byTimeThenId)
  }

  /**
   * The charge or refund records carrying each ledger id (ledger-link-lookup.ts), keyed by ledger id. A
   * ledger no cached record carries is absent from the map.
   */
  async recordsByLedgerIds(
    connectionId: string,
    ledgerIds: readonly string[],
  ): Promise<Map<string, LedgerRecords>> {
    const { links, charges: inParts } = await new LedgerLinkLookup(this.db).linksOfLedgers(
      connectionId,
      ledgerIds,
    )
    // Links kept as rows name charges cached anywhere (parts, or the table from before v10).
    const charges = links.filter((l) => l.kind === 'charge' && !inParts.has(l.recordId))
    const chargeRecords = await new ChargesRepository(this.db).getMany(
      connectionId,
      charges.map((l) => l.recordId),
      charges.map((l) => l.createdAt),
    )
    const byCharge = new Map(inParts)
    for (const c of chargeRecords) if (c) byCharge.set(c.id, c)
    const history = await historyByKeys(
      this.db,
      connectionId,
      links.map((l) => recordKeyOf(l.kind, l.recordId)),
    )
    const out = new Map<string, LedgerRecords>()
    links.forEach((link, i) => {
      const charge = link.kind === 'charge' ? byCharge.get(link.recordId) : undefined
      const row = history[i]
      out.set(link.ledgerId, { link, ...(charge ? { charge } : {}), ...(row ? { history: row } : {}) })
    })
    return out
  }

  async bankAccounts(connectionId: string): Promise<BankAccount[]> {
    return this.db.payoutBankAccounts
      .where('[connectionId+id]')
      .between(...connectionBounds(connectionId))
      .toArray()
  }

  config(connectionId: string): Promise<PayoutConfigRow | undefined> {
    return this.db.payoutConfig.get(connectionId)
  }

  async syncState(connectionId: string): Promise<PayoutSyncState> {
    return (await this.db.payoutSync.get(connectionId)) ?? initialPayoutState(connectionId)
  }

  quarantined(connectionId: string): Promise<PayoutQuarantineRow[]> {
    return this.db.payoutQuarantine
      .where('[connectionId+id]')
      .between(...connectionBounds(connectionId))
      .toArray()
  }

  // ---- writes (payout sync) ----

  async putState(state: PayoutSyncState): Promise<void> {
    await this.db.payoutSync.put(state)
  }

  /** The configuration and the bank accounts, replacing what was cached, with the state. */
  async putAccount(
    config: PayoutConfigRow | null,
    accounts: readonly BankAccount[] | null,
    state: PayoutSyncState,
  ): Promise<void> {
    const { db } = this
    await db.transaction('rw', [db.payoutConfig, db.payoutBankAccounts, db.payoutSync], async () => {
      if (config) await db.payoutConfig.put(config)
      if (accounts) {
        await db.payoutBankAccounts
          .where('[connectionId+id]')
          .between(...connectionBounds(state.connectionId))
          .delete()
        await db.payoutBankAccounts.bulkPut([...accounts])
      }
      await db.payoutSync.put(state)
    })
  }

  /** A page of transfers and its quarantined items; each keeps what was read of its details. */
  async putTransfers(
    connectionId: string,
    rows: (before: Map<string, TransferRow>) => TransferRow[],
    ids: readonly string[],
    quarantined: readonly PayoutQuarantineRow[],
  ): Promise<TransferRow[]> {
    const { db } = this
    return db.transaction('rw', [db.payoutTransfers, db.payoutQuarantine], async () => {
      const before = await db.payoutTransfers.bulkGet(ids.map((id) => [connectionId, id] as [string, string]))
      const known = new Map(before.flatMap((t) => (t ? [[t.id, t] as const] : [])))
      const written = rows(known)
      await db.payoutTransfers.bulkPut(written)
      await this.releaseAndQuarantine(
        connectionId,
        written.map((t) => `transfer:${t.id}`),
        quarantined,
      )
      return written
    })
  }

  /**
   * A page of one transfer's ledgers or status changes, with the state saying where the next page starts,
   * in one transaction. A ledger read again replaces its row (same id): a replayed page adds nothing.
   */
  async putDetailsPage(
    page: { ledgers?: readonly LedgerRow[]; changes?: readonly TransferStatusChange[] },
    quarantined: readonly PayoutQuarantineRow[],
    state: PayoutSyncState,
  ): Promise<void> {
    const { db } = this
    const { connectionId } = state
    await db.transaction(
      'rw',
      [db.payoutLedgers, db.payoutStatusChanges, db.payoutSync, db.payoutQuarantine],
      async () => {
        if (page.ledgers) await db.payoutLedgers.bulkPut([...page.ledgers])
        if (page.changes) await db.payoutStatusChanges.bulkPut([...page.changes])
        const ids = [
          ...(page.ledgers ?? []).map((l) => `ledger:${l.id}`),
          ...(page.changes ?? []).map((c) => `status_change:${c.id}`),
        ]
        await this.releaseAndQuarantine(connectionId, ids, quarantined)
        await db.payoutSync.put(state)
      },
    )
  }

  /**
   * A transfer's details read to the end: it remembers the status they were read at and how many ledgers
   * it has; ledgers cached under it that this read did not see no longer name it (they moved, or the
   * service took them back), so they are open again until a read places them.
   */
  async finishDetails(
    connectionId: string,
    transferId: string,
    readAtStatus: string,
    seenLedgerIds: ReadonlySet<string> | null,
    state: PayoutSyncState,
  ): Promise<void> {
    const { db } = this
    await db.transaction('rw', [db.payoutTransfers, db.payoutLedgers, db.payoutSync], async () => {
      const rows = await db.payoutLedgers
        .where('[connectionId+transferKey]')
        .equals([connectionId, transferId])
        .toArray()
      const stale = seenLedgerIds ? rows.filter((l) => !seenLedgerIds.has(l.id)) : []
      if (stale.length > 0)
        await db.payoutLedgers.bulkPut(
          stale.map((l) => ({ ...l, transferId: null, transferKey: OPEN_TRANSFER_KEY })),
        )
      const transfer = await db.payoutTransfers.get([connectionId, transferId])
      if (transfer)
        await db.payoutTransfers.put({
          ...transfer,
          detailsReadAt: readAtStatus,
          ledgerCount: rows.length - stale.length,
        })
      await db.payoutSync.put(state)
    })
  }

  /** Single ledgers read by id (those a charge points to that no transfer listed): open ledgers. */
  async putLedgers(rows: readonly LedgerRow[], quarantined: readonly PayoutQuarantineRow[]): Promise<void> {
    const { db } = this
    const connectionId = rows[0]?.connectionId ?? quarantined[0]?.connectionId
    if (connectionId === undefined) return
    await db.transaction('rw', [db.payoutLedgers, db.payoutQuarantine], async () => {
      await db.payoutLedgers.bulkPut([...rows])
      await this.releaseAndQuarantine(
        connectionId,
        rows.map((l) => `ledger:${l.id}`),
        quarantined,
      )
    })
  }

  /** Ledger ids that cached records carry but no cached ledger has: whose ledger is still to be read. */
  async linkedLedgerIdsWithoutLedger(connectionId: string, limit: number): Promise<string[]> {
    const ids = await new LedgerLinkLookup(this.db).ledgerIds(connectionId)
    const found = await this.db.payoutLedgers.bulkGet(ids.map((id) => [connectionId, id] as [string, string]))
    return ids.filter((_, i) => found[i] === undefined).slice(0, limit)
  }

  private async releaseAndQuarantine(
    connectionId: string,
    storedIds: readonly string[],
    quarantined: readonly PayoutQuarantineRow[],
  ): Promise<void> {
    if (storedIds.length > 0)
      await this.db.payoutQuarantine.bulkDelete(storedIds.map((id) => [connectionId, id] as [string, string]))
    if (quarantined.length > 0) await this.db.payoutQuarantine.bulkPut([...quarantined])
  }
}
