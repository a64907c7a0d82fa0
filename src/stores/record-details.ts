/** What the details pane shows beside one record, read from the cache: its charge, refunds, trail and mark. */
import { appCache } from '../db/cache'
import type { AuditEntry, ChargeRecord, HistoryRecord } from '../domain/records'

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
  }
}
