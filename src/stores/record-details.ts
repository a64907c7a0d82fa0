/** What the details pane shows beside one record, read from the cache: its charge, refunds, trail and mark. */
import { appCache } from '../db/cache'
import { PayoutsRepository } from '../db/payouts-repository'
import type { AuditEntry, ChargeRecord, HistoryRecord, RecordKey } from '../domain/records'
import { sharedDepositTie } from './deposit-tie'

export interface RecordDetails {
  /** Every history record of the record's charge (the charge and its refunds). */
  related: HistoryRecord[]
  charge: ChargeRecord | null
  /** The record's audit rows, newest first. */
  trail: AuditEntry[]
  /** The record's reconciled mark no longer matches its data (set by sync, cleared when re-marked). */
  changedSinceReconciled: boolean
  /** The mark's links to imported order and bank lines (sales and cash side), if any. */
  matchRef: string | undefined
  /** Where the record's money stands in the payouts; null: payouts not known for it. */
  settlement: Settlement | null
}

/**
 * `settled`: its ledger is in a paid transfer whose bank deposit is matched, or in a transfer (or carried
 * over without one) that such a transfer repaid; `inTransfer`: its ledger is in a transfer not (yet) tied
 * to a deposit; `notInTransfer`: its ledger waits for a transfer.
 */
export type Settlement =
  | { state: 'settled'; transferId: string; depositDay: string }
  | { state: 'inTransfer'; transferId: string }
  | { state: 'notInTransfer' }

/**
 * The record's settlement through its ledger (found by the record's id) and the connection's deposit
 * tie-out, shared by every record opened until its inputs change.
 */
export async function readSettlement(r: HistoryRecord): Promise<Settlement | null> {
  return (await readSettlements(r.connectionId, [r])).get(r.key) ?? null
}

/**
 * The settlement of each record of one connection, read together (the ledger grid's visible rows): one
 * ledger-link lookup per record (charges' in their days' parts, read together), one read of their
 * ledgers and the shared tie-out. A record whose ledger is not cached maps to null.
 */
export async function readSettlements(
  connectionId: string,
  records: readonly HistoryRecord[],
): Promise<Map<RecordKey, Settlement | null>> {
  const cache = appCache()
  const repo = new PayoutsRepository(cache.db)
  const links = await repo.linksOfRecords(
    connectionId,
    records.map((r) => ({
      kind: r.type,
      recordId: r.type === 'charge' ? r.chargeId : r.resourceId,
      createdAt: r.createdAt,
    })),
  )
  const ledgers = await repo.ledgersByIds(
    connectionId,
    links.flatMap((l) => (l ? [l.ledgerId] : [])),
  )
  // Even a ledger without a transfer may be paid by a later one (carried over): the tie-out knows.
  const connection = ledgers.size > 0 ? await cache.connections.get(connectionId) : undefined
  const tie = connection ? await sharedDepositTie(connection) : null
  const out = new Map<RecordKey, Settlement | null>()
  records.forEach((r, i) => {
    const link = links[i]
    const ledger = link ? ledgers.get(link.ledgerId.toLowerCase()) : undefined
    out.set(r.key, ledger ? settlementOf(ledger.id, ledger.transferId, tie) : null)
  })
  return out
}

/** A ledger's transfer, then the transfer repaying that one, and so on (repayment runs forward in time). */
function settlementOf(
  ledgerId: string,
  transferId: string | null,
  tie: Awaited<ReturnType<typeof sharedDepositTie>> | null,
): Settlement {
  const held = transferId ?? tie?.repayments.ledgerPaidBy.get(ledgerId) ?? null
  if (held === null) return { state: 'notInTransfer' }
  for (let id: string | undefined = held; id !== undefined; id = tie?.repayments.repaidBy.get(id)) {
    const match = tie?.tie.byTransfer.get(id.toLowerCase())
    if (match) return { state: 'settled', transferId: match.transferId, depositDay: match.line.day }
  }
  return { state: 'inTransfer', transferId: held }
}

export async function readRecordDetails(r: HistoryRecord): Promise<RecordDetails> {
  const cache = appCache()
  const related = await cache.history.byChargeId(r.connectionId, r.chargeId)
  const chargeRow = related.find((x) => x.type === 'charge')
  const charge = (await cache.charges.get(r.connectionId, r.chargeId, chargeRow?.createdAt)) ?? null
  const trail = (await cache.audit.listByKey(r.connectionId, r)).reverse()
  const mark = await cache.marks.get(r.connectionId, r)
  return {
    related,
    charge,
    trail,
    changedSinceReconciled: mark?.state === 'reconciled' && mark.changedSinceReconciled === 1,
    matchRef: mark?.matchRef,
    settlement: await readSettlement(r),
  }
}
