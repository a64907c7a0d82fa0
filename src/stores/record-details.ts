/** What the details pane shows beside one record, read from the cache: its charge, refunds, trail and mark. */
import { appCache } from '../db/cache'
import { PayoutsRepository } from '../db/payouts-repository'
import type { AuditEntry, ChargeRecord, HistoryRecord } from '../domain/records'
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
 * `settled`: its ledger is in a paid transfer whose bank deposit is matched; `inTransfer`: its ledger is
 * in a transfer not (yet) tied to a deposit; `notInTransfer`: its ledger waits for a transfer.
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
  const cache = appCache()
  const repo = new PayoutsRepository(cache.db)
  const recordId = r.type === 'charge' ? r.chargeId : r.resourceId
  const link = (await repo.linksOfRecord(r.connectionId, recordId)).find((l) => l.kind === r.type)
  const ledger = link ? await repo.ledger(r.connectionId, link.ledgerId) : undefined
  if (!ledger) return null
  if (ledger.transferId === null) return { state: 'notInTransfer' }
  const connection = await cache.connections.get(r.connectionId)
  const tie = connection ? await sharedDepositTie(connection) : null
  const match = tie?.tie.byTransfer.get(ledger.transferId.toLowerCase())
  return match
    ? { state: 'settled', transferId: match.transferId, depositDay: match.line.day }
    : { state: 'inTransfer', transferId: ledger.transferId }
}

export async function readRecordDetails(r: HistoryRecord): Promise<RecordDetails> {
  const cache = appCache()
  const related = await cache.history.byChargeId(r.connectionId, r.chargeId)
  const chargeRow = related.find((x) => x.type === 'charge')
  const charge = (await cache.charges.get(r.connectionId, r.chargeId, chargeRow?.createdAt)) ?? null
  const trail = (await cache.audit.listByKey(r.connectionId, r.key)).reverse()
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
