/**
 * What every sheet of a month workbook reads: the period's digests of the chosen store (accounting time
 * zone), its records a bounded batch at a time, store names, marks and the imported rows the marks link
 * to. Built once per workbook; holds digests, never the month's whole records.
 */
import type { ChargeDigest, ChargeRecord, HistoryRecord, MarkRecord, RecordKey } from '../domain/records'
import { periodRange } from '../domain/periods'
import { rowIdOf, type LinkedRow } from '../reconcile/match-links'
import type { AmountDigest } from '../reconcile/month-summary'
import type { MonthWorkbookMeta } from './month-workbook-input'
import {
  byTimeThenId,
  byTimeThenKey,
  sortedBy,
  type Batches,
  type MonthRefund,
  type MonthSource,
} from './month-source'

export interface MonthScope {
  tz: string
  range: { from: number; to: number }
  inPeriod: (t: number) => boolean
  source: MonthSource
  /** The period's digests of the chosen store, by time then key. */
  digests: readonly AmountDigest[]
  /** The period's charge-list digests of the chosen store, by time then id. */
  chargeDigests: readonly ChargeDigest[]
  /** The period's records of the chosen store, by time then key, a batch at a time. */
  history: () => AsyncGenerator<HistoryRecord[]>
  /** The period's charge-list records of the chosen store, by time then id, a batch at a time. */
  charges: () => AsyncGenerator<ChargeRecord[]>
  /** The chosen store's refunds by charge id: what a charge's net to date counts. */
  refundsByCharge: () => Promise<ReadonlyMap<string, MonthRefund[]>>
  linkedRows: ReadonlyMap<string, LinkedRow>
  storeName: (id: string) => string | null
  markOf: (r: { key: RecordKey }) => MarkRecord | undefined
}

async function* ofStore<T extends { storeId: string }>(
  batches: Batches<T>,
  storeId: string | null,
): AsyncGenerator<T[]> {
  for await (const batch of batches) {
    const kept = storeId === null ? [...batch] : batch.filter((r) => r.storeId === storeId)
    if (kept.length > 0) yield kept
  }
}

export function monthScope(input: MonthWorkbookMeta, source: MonthSource): MonthScope {
  const tz = input.connection.timeZone
  const range = periodRange(input.period, tz)
  const inStore = (storeId: string): boolean => input.storeId === null || storeId === input.storeId
  const inPeriod = (t: number): boolean => t >= range.from && t < range.to
  const digests = sortedBy(source.digests, byTimeThenKey).filter((d) => inStore(d.storeId))
  const chargeDigests = sortedBy(source.chargeDigests, byTimeThenId).filter((c) => inStore(c.storeId))
  let refunds: Promise<Map<string, MonthRefund[]>> | undefined
  return {
    tz,
    range,
    inPeriod,
    source,
    digests,
    chargeDigests,
    history: () => ofStore(source.history(), input.storeId),
    charges: () => ofStore(source.charges(), input.storeId),
    refundsByCharge: () =>
      (refunds ??= source.refunds().then((list) => {
        const byCharge = new Map<string, MonthRefund[]>()
        for (const r of list) {
          if (!inStore(r.storeId)) continue
          const charge = byCharge.get(r.chargeId)
          if (charge) charge.push(r)
          else byCharge.set(r.chargeId, [r])
        }
        return byCharge
      })),
    linkedRows: new Map((input.importedRows ?? []).map((r) => [rowIdOf(r), r])),
    storeName: (id) => source.storeNames.get(id) ?? null,
    markOf: (r) => input.marks.get(r.key),
  }
}
