/** What the Summary must show: the app's own month summary, in major units, keyed like the sheet rows. */
import type { MonthWorkbookInput } from '../../../src/export/month-workbook'
import { toMajorUnits } from '../../../src/domain/currency'
import { summarizeMonth, totalsByCurrency } from '../../../src/reconcile/month-summary'

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

function summaryOf(input: MonthWorkbookInput) {
  const inStore = (s: string) => input.storeId === null || s === input.storeId
  return summarizeMonth({
    history: input.history.filter((r) => inStore(r.storeId)),
    charges: input.charges.filter((c) => inStore(c.storeId)),
    marks: input.marks,
    timeZone: input.connection.timeZone,
    period: input.period,
  })
}

/**
 * `Total|currency|mode` → the 13 figures, added up here per currency × mode from summarizeMonth's rows
 * (independently of totalsByCurrency, so a wrong grouping there cannot agree with itself).
 */
export function expectedTotals(input: MonthWorkbookInput): Map<string, number[]> {
  const minor = new Map<string, { currency: string; figures: number[] }>()
  for (const row of summaryOf(input).rows) {
    const key = `Total|${row.currency}|${row.mode}`
    const entry = minor.get(key) ?? { currency: row.currency, figures: SUMMARY_FIELDS.map(() => 0) }
    SUMMARY_FIELDS.forEach(([field], i) => (entry.figures[i] = (entry.figures[i] ?? 0) + row[field]))
    minor.set(key, entry)
  }
  const out = new Map<string, number[]>()
  for (const [key, { currency, figures }] of [...minor].sort(([a], [b]) => {
    const [, ca, ma] = a.split('|')
    const [, cb, mb] = b.split('|')
    return (ma ?? '').localeCompare(mb ?? '') || (ca ?? '').localeCompare(cb ?? '')
  }))
    out.set(
      key,
      figures.map((v, i) => (SUMMARY_FIELDS[i]?.[1] === 'sum' ? toMajorUnits(v, currency) : v)),
    )
  // Checked against the app's own grouping too: same keys, same order.
  const app = totalsByCurrency(summaryOf(input).rows).map((t) => `Total|${t.currency}|${t.mode}`)
  if (JSON.stringify(app) !== JSON.stringify([...out.keys()]))
    throw new Error(`totals order ${app.join(',')}`)
  return out
}

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
