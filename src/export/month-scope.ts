/**
 * What every sheet of a month workbook reads: the period's records of the chosen store (accounting time
 * zone), store names, marks and the imported rows the marks link to. Built once per workbook.
 */
import type { ChargeRecord, HistoryRecord, MarkRecord } from '../domain/records'
import { periodRange } from '../domain/periods'
import { rowIdOf, type LinkedRow } from '../reconcile/match-links'
import type { MonthWorkbookInput } from './month-workbook-input'

export interface MonthScope {
  tz: string
  range: { from: number; to: number }
  inPeriod: (t: number) => boolean
  /** Every cached record of the chosen store (any period). */
  storeHistory: readonly HistoryRecord[]
  /** The period's records of the chosen store, by time then key. */
  history: readonly HistoryRecord[]
  /** The period's charge-list records of the chosen store, by time then id. */
  charges: readonly ChargeRecord[]
  /** Refunds of every period by charge id: a charge's net "to date" counts them all. */
  refundsByCharge: ReadonlyMap<string, HistoryRecord[]>
  linkedRows: ReadonlyMap<string, LinkedRow>
  storeName: (id: string) => string | null
  markOf: (r: HistoryRecord) => MarkRecord | undefined
}

function byTimeThenKey<T extends { createdAt: number }>(key: (r: T) => string) {
  return (a: T, b: T): number => a.createdAt - b.createdAt || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)
}

export function monthScope(input: MonthWorkbookInput): MonthScope {
  const tz = input.connection.timeZone
  const range = periodRange(input.period, tz)
  const inStore = (storeId: string): boolean => input.storeId === null || storeId === input.storeId
  const inPeriod = (t: number): boolean => t >= range.from && t < range.to

  const storeHistory = input.history.filter((r) => inStore(r.storeId))
  const history = storeHistory.filter((r) => inPeriod(r.createdAt)).sort(byTimeThenKey((r) => r.key))
  const charges = input.charges
    .filter((c) => inStore(c.storeId) && inPeriod(c.createdAt))
    .sort(byTimeThenKey((c) => c.id))

  const storeNames = new Map(input.storeNames ?? [])
  // store_name may be missing (real-service.md): a record without one leaves the gap to the others.
  for (const r of input.history)
    if (!storeNames.has(r.storeId) && r.raw.store_name) storeNames.set(r.storeId, r.raw.store_name)
  for (const c of input.charges)
    if (!storeNames.has(c.storeId) && c.raw.store_name) storeNames.set(c.storeId, c.raw.store_name)

  const refundsByCharge = new Map<string, HistoryRecord[]>()
  for (const r of storeHistory) {
    if (r.type !== 'refund') continue
    const list = refundsByCharge.get(r.chargeId) ?? []
    list.push(r)
    refundsByCharge.set(r.chargeId, list)
  }
  return {
    tz,
    range,
    inPeriod,
    storeHistory,
    history,
    charges,
    refundsByCharge,
    linkedRows: new Map((input.importedRows ?? []).map((r) => [rowIdOf(r), r])),
    storeName: (id) => storeNames.get(id) ?? null,
    markOf: (r) => input.marks.get(r.key),
  }
}
