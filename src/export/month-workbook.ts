/**
 * The month-end workbook as sheet definitions and lazily built rows (pure: no I/O). One workbook per
 * connection and period, optionally one store. The Summary's totals are live SUMIFS/COUNTIFS formulas
 * over the detail sheets, with cached results taken from `summarizeMonth`, so the file shows the app's
 * figures before any recalculation and a spreadsheet that recalculates arrives at the same ones.
 *
 * Detail sheets hold only records of the period (accounting time zone), so formulas need no date
 * criteria. Text values such as "Yes", "charge" and "reconciled" are criteria of those formulas: they
 * stay English whatever the UI language.
 */
import { toSafeFileNamePart } from '../../electron/shared/file-name'
import { summarizeDigests } from '../reconcile/month-summary'
import { auditSheet } from './month-audit-sheet'
import { depositSheet } from './month-deposit-sheet'
import { exceptionSheets } from './month-exception-sheets'
import {
  chargeRows,
  CH,
  refundRows,
  RF,
  SHEETS,
  transactionRows,
  TX,
  type RefundsOnTheWay,
} from './month-record-sheets'
import { monthScope } from './month-scope'
import { arrayMonthSource, type MonthSource } from './month-source'
import { summarySheet } from './month-summary-sheet'
import type {
  MonthWorkbookInput,
  MonthWorkbookMeta,
  SheetRows,
  WorkbookPlan,
  WorkbookPlanSheet,
} from './month-workbook-input'
import { payoutSheets } from './payout-sheets'
import type { Columns } from './sheet-columns'

export type {
  MonthClose,
  MonthWorkbookInput,
  MonthWorkbookMeta,
  UnmatchedImport,
  WorkbookPlan,
  WorkbookPlanSheet,
} from './month-workbook-input'
export { SHEETS, TRANSACTION_HEADERS, transactionRow, UNKNOWN_FEE_CURRENCY } from './month-record-sheets'
export { columnLetter } from './sheet-columns'
export {
  arrayMonthSource,
  byTimeThenId,
  byTimeThenKey,
  sortedBy,
  type MonthRefund,
  type MonthSource,
} from './month-source'

/** `closebook-<store>-2026-10.xlsx`, safe as a file name on every desktop. */
export function workbookFileName(label: string, period: string): string {
  const slug = toSafeFileNamePart(label)
  return `closebook-${slug || 'all-stores'}-${period}.xlsx`
}

function sheet(
  name: string,
  columns: Columns<string>,
  rowCount: number,
  rows: () => SheetRows,
): WorkbookPlanSheet {
  return { spec: { name, columns: columns.columns }, rowCount, rows }
}

/** The month's workbook of records in memory (any period: the period's are picked). */
export function buildMonthWorkbook(input: MonthWorkbookInput): WorkbookPlan {
  const { history, charges, storeNames, ...meta } = input
  const source = arrayMonthSource({
    period: input.period,
    timeZone: input.connection.timeZone,
    history,
    charges,
    ...(storeNames ? { storeNames } : {}),
  })
  return planMonthWorkbook(meta, source)
}

/**
 * The month's workbook: Summary, the record sheets, Deposits, exceptions, Audit, then the payout sheets.
 * The plan holds the month's digests; the Summary and the exception lists come from them, and each record
 * sheet reads its records from `source` a batch at a time as the writer takes its rows.
 */
export function planMonthWorkbook(input: MonthWorkbookMeta, source: MonthSource): WorkbookPlan {
  const scope = monthScope(input, source)
  const { tz, digests, chargeDigests } = scope
  const summary = summarizeDigests({
    digests,
    charges: chargeDigests,
    marks: input.marks,
    timeZone: tz,
    period: input.period,
  })
  const refunds = digests.reduce((n, d) => (d.type === 'refund' ? n + 1 : n), 0)
  const storeLabel = input.storeId === null ? null : (scope.storeName(input.storeId) ?? input.storeId)
  // The month's records are read once: the Refunds sheet's facts are noted in the Transactions sheet's pass.
  const refundsOnTheWay: RefundsOnTheWay = { facts: null }
  return {
    suggestedName: workbookFileName(storeLabel ?? input.connection.label, input.period),
    title: `Closebook ${input.period}${storeLabel ? ` ${storeLabel}` : ''}`,
    summary,
    sheets: [
      summarySheet(input, scope, summary, storeLabel),
      sheet(SHEETS.transactions, TX, digests.length, () => transactionRows(scope, refundsOnTheWay)),
      sheet(SHEETS.charges, CH, chargeDigests.length, () => chargeRows(scope, input.marks)),
      sheet(SHEETS.refunds, RF, refunds, () => refundRows(scope, refundsOnTheWay)),
      depositSheet(input, scope),
      ...exceptionSheets(input, scope, summary),
      auditSheet(input, scope),
      ...(input.payouts ? payoutSheets(input.payouts) : []),
    ],
  }
}
