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
import type { ExportRow } from '../../electron/shared/contract/export'
import { toSafeFileNamePart } from '../../electron/shared/file-name'
import { summarizeMonth } from '../reconcile/month-summary'
import { auditSheet } from './month-audit-sheet'
import { depositSheet } from './month-deposit-sheet'
import { exceptionSheets } from './month-exception-sheets'
import { chargeRows, CH, refundRows, RF, SHEETS, transactionRow, TX } from './month-record-sheets'
import { monthScope } from './month-scope'
import { summarySheet } from './month-summary-sheet'
import type { MonthWorkbookInput, WorkbookPlan, WorkbookPlanSheet } from './month-workbook-input'
import { payoutSheets } from './payout-sheets'
import type { Columns } from './sheet-columns'

export type {
  MonthClose,
  MonthWorkbookInput,
  UnmatchedImport,
  WorkbookPlan,
  WorkbookPlanSheet,
} from './month-workbook-input'
export { SHEETS, TRANSACTION_HEADERS, transactionRow, UNKNOWN_FEE_CURRENCY } from './month-record-sheets'
export { columnLetter } from './sheet-columns'

/** `closebook-<store>-2026-10.xlsx`, safe as a file name on every desktop. */
export function workbookFileName(label: string, period: string): string {
  const slug = toSafeFileNamePart(label)
  return `closebook-${slug || 'all-stores'}-${period}.xlsx`
}

function sheet(
  name: string,
  columns: Columns<string>,
  rowCount: number,
  rows: () => Iterable<ExportRow>,
): WorkbookPlanSheet {
  return { spec: { name, columns: columns.columns }, rowCount, rows }
}

/** The month's workbook: Summary, the record sheets, Deposits, exceptions, Audit, then the payout sheets. */
export function buildMonthWorkbook(input: MonthWorkbookInput): WorkbookPlan {
  const scope = monthScope(input)
  const { tz, history, charges } = scope
  const refunds = history.filter((r) => r.type === 'refund')
  const summary = summarizeMonth({ history, charges, marks: input.marks, timeZone: tz, period: input.period })
  const storeLabel = input.storeId === null ? null : (scope.storeName(input.storeId) ?? input.storeId)
  return {
    suggestedName: workbookFileName(storeLabel ?? input.connection.label, input.period),
    title: `Closebook ${input.period}${storeLabel ? ` ${storeLabel}` : ''}`,
    summary,
    sheets: [
      summarySheet(input, scope, summary, storeLabel),
      sheet(SHEETS.transactions, TX, history.length, function* () {
        for (const r of history) yield transactionRow(r, scope.markOf(r), tz, scope.storeName(r.storeId))
      }),
      sheet(SHEETS.charges, CH, charges.length, () => chargeRows(scope, input.marks)),
      sheet(SHEETS.refunds, RF, refunds.length, () => refundRows(scope, refunds)),
      depositSheet(input, scope),
      ...exceptionSheets(input, scope, summary),
      auditSheet(input, scope),
      ...(input.payouts ? payoutSheets(input.payouts) : []),
    ],
  }
}
