/** What the Summary must show: the app's own month summary, in major units, keyed like the sheet rows. */
import type { MonthWorkbookInput } from '../../../src/export/month-workbook'
import { toMajorUnits } from '../../../src/reconcile/currency'
import { summarizeMonth } from '../../../src/reconcile/month-summary'

export const SUMMARY_FIELDS = [
  ['chargeCount', 'count'],
  ['chargeSum', 'sum'],
  ['refundCount', 'count'],
  ['refundSum', 'sum'],
  ['feeSum', 'sum'],
  ['feeUnknownCurrencyCount', 'count'],
  ['net', 'sum'],
  ['reconciledCount', 'count'],
  ['reconciledSum', 'sum'],
  ['unreconciledCount', 'count'],
  ['unreconciledSum', 'sum'],
  ['changedSinceReconciledCount', 'count'],
  ['otherStatusCount', 'count'],
] as const

/** `storeId|currency|mode` → the 13 figures in Summary column order (E…Q). */
export function expectedSummary(input: MonthWorkbookInput): Map<string, number[]> {
  const inStore = (s: string) => input.storeId === null || s === input.storeId
  const summary = summarizeMonth({
    history: input.history.filter((r) => inStore(r.storeId)),
    charges: input.charges.filter((c) => inStore(c.storeId)),
    marks: input.marks,
    timeZone: input.connection.timeZone,
    period: input.period,
  })
  return new Map(
    summary.rows.map((row) => [
      `${row.storeId}|${row.currency}|${row.mode}`,
      SUMMARY_FIELDS.map(([field, kind]) =>
        kind === 'sum' ? toMajorUnits(row[field], row.currency) : row[field],
      ),
    ]),
  )
}
