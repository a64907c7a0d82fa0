/**
 * The Summary sheet: the header block (merchant, period, time zone, close, team), then per store,
 * currency and mode the month's figures as live SUMIFS/COUNTIFS formulas over the detail sheets with the
 * app's figures cached, totals per currency and mode, and a Control block whose figures must all be 0.
 */
import type { ExportCell, ExportRow } from '../../electron/shared/contract/export'
import { currencyExponent, toMajorUnits } from '../domain/currency'
import { periodRange } from '../domain/periods'
import {
  totalsByCurrency,
  type CurrencyTotal,
  type MonthSummary,
  type MonthSummaryRow,
} from '../reconcile/month-summary'
import type { MonthWorkbookMeta, WorkbookPlanSheet } from './month-workbook-input'
import { CH, SHEETS, TX, UNKNOWN_FEE_CURRENCY } from './month-record-sheets'
import type { MonthScope } from './month-scope'
import { col, Columns } from './sheet-columns'
import { clipText, dateCell, formatWallClock, wallClockMs } from './sheet-values'
import { teamCloseRows } from './team-close-rows'

const SU = new Columns([
  col('storeId', 'Store ID', 'text', 38),
  col('storeName', 'Store', 'text', 20),
  col('currency', 'Currency', 'text', 10),
  col('mode', 'Mode', 'text', 7),
  col('chargeCount', 'Charges', 'integer', 10),
  col('chargeSum', 'Charge amount', 'amount', 15),
  col('refundCount', 'Refunds', 'integer', 10),
  col('refundSum', 'Refund amount', 'amount', 15),
  col('feeSum', 'Fees', 'amount', 13),
  col('feeUnknown', 'Fees without currency', 'integer', 12),
  col('net', 'Net of the month', 'amount', 15),
  col('reconciledCount', 'Reconciled', 'integer', 11),
  col('reconciledSum', 'Reconciled amount', 'amount', 15),
  col('unreconciledCount', 'Unreconciled', 'integer', 12),
  col('unreconciledSum', 'Unreconciled amount', 'amount', 15),
  col('changedCount', 'Changed since reconciled', 'integer', 12),
  col('otherCount', 'Other status (not counted)', 'integer', 12),
])

function summaryPreamble(input: MonthWorkbookMeta, storeLabel: string | null): ExportRow[] {
  const tz = input.connection.timeZone
  const range = periodRange(input.period, tz)
  const filters = [storeLabel === null ? 'All stores' : `Store: ${storeLabel}`, ...(input.filters ?? [])]
  const close = input.close ?? null
  return [
    ['Closebook month-end workbook'],
    ['Merchant', input.merchantName || null],
    ['Connection', input.connection.label],
    [
      'Period',
      `${input.period} (${formatWallClock(wallClockMs(range.from, tz))} to ${formatWallClock(wallClockMs(range.to, tz))}, end exclusive)`,
    ],
    ['Time zone', `${tz} (every date and time in this workbook)`],
    [
      'Amounts',
      "In major units of each row's currency (JPY in yen, USD in dollars and cents), never converted; different currencies are never added together.",
    ],
    ['Generated at', dateCell(input.generatedAt, tz)],
    ['Filters', filters.join('; ')],
    ['App version', input.appVersion],
    ['Month status', close ? 'Closed' : 'Open: not closed in Closebook when this workbook was generated'],
    ['Closed by', close ? clipText(close.closedBy) : null],
    ['Closed at', close ? dateCell(close.closedAt, tz) : null],
    ['Close note', close?.note ? clipText(close.note) : null],
    ...teamCloseRows(input.team, tz),
    [
      'Totals below are formulas over the detail sheets, per store, currency and mode; under the table, totals per currency and a control block whose figures must all be 0. Reconciled and unreconciled amounts are signed: refunds negative.',
    ],
  ]
}

type SummaryKey = Parameters<typeof SU.letter>[0]

/**
 * The 13 figures of one summary row as formulas over the detail sheets. `storeRow` names the row whose
 * A (store), C (currency) and D (mode) cells are the criteria; without a store (the control block), only
 * currency and mode are, so the details are summed over every store.
 */
function detailFormulas(
  r: number,
  byStore: boolean,
  currency: string,
): Record<Exclude<SummaryKey, 'storeId' | 'storeName' | 'currency' | 'mode' | 'net'>, string> & {
  net: string
} {
  const d = currencyExponent(currency)
  const tx = (k: Parameters<typeof TX.range>[1]) => TX.range(SHEETS.transactions, k)
  const ch = (k: Parameters<typeof CH.range>[1]) => CH.range(SHEETS.charges, k)
  const store = byStore ? `${tx('storeId')},$A${r},` : ''
  const key = `${store}${tx('currency')},$C${r},${tx('mode')},$D${r}`
  const counted = `${tx('counted')},"Yes"`
  const count = (criteria: string) => `COUNTIFS(${key},${criteria})`
  const sum = (column: Parameters<typeof TX.range>[1], criteria: string) =>
    `SUMIFS(${tx(column)},${key},${criteria})`
  const chargeKey = `${byStore ? `${ch('storeId')},$A${r},` : ''}${ch('mode')},$D${r},${ch('counted')},"Yes"`
  const charged = sum('amount', `${tx('type')},"charge",${counted}`)
  const refunded = sum('amount', `${tx('type')},"refund",${counted}`)
  const fees = `SUMIFS(${ch('fee')},${chargeKey},${ch('feeCurrency')},$C${r})`
  const round = (f: string) => `ROUND(${f},${d})`
  return {
    chargeCount: count(`${tx('type')},"charge",${counted}`),
    chargeSum: round(charged),
    refundCount: count(`${tx('type')},"refund",${counted}`),
    refundSum: round(refunded),
    feeSum: round(fees),
    feeUnknown: `COUNTIFS(${chargeKey},${ch('currency')},$C${r},${ch('feeCurrency')},"${UNKNOWN_FEE_CURRENCY}")`,
    net: round(`${charged}-${refunded}-${fees}`),
    reconciledCount: count(`${counted},${tx('reconciliation')},"reconciled"`),
    reconciledSum: round(sum('signed', `${counted},${tx('reconciliation')},"reconciled"`)),
    unreconciledCount: count(`${counted},${tx('reconciliation')},"unreconciled"`),
    unreconciledSum: round(sum('signed', `${counted},${tx('reconciliation')},"unreconciled"`)),
    changedCount: count(`${counted},${tx('changed')},"Yes"`),
    otherCount: count(`${tx('counted')},"No"`),
  }
}

/** Summary columns E…Q with the month-summary field each one shows and whether it is an amount. */
const FIGURE_COLUMNS: readonly [
  Exclude<SummaryKey, 'storeId' | 'storeName' | 'currency' | 'mode'>,
  keyof CurrencyTotal,
  boolean,
][] = [
  ['chargeCount', 'chargeCount', false],
  ['chargeSum', 'chargeSum', true],
  ['refundCount', 'refundCount', false],
  ['refundSum', 'refundSum', true],
  ['feeSum', 'feeSum', true],
  ['feeUnknown', 'feeUnknownCurrencyCount', false],
  ['net', 'net', true],
  ['reconciledCount', 'reconciledCount', false],
  ['reconciledSum', 'reconciledSum', true],
  ['unreconciledCount', 'unreconciledCount', false],
  ['unreconciledSum', 'unreconciledSum', true],
  ['changedCount', 'changedSinceReconciledCount', false],
  ['otherCount', 'otherStatusCount', false],
]

function figureCell(formula: string, minor: number, isAmount: boolean, currency: string): ExportCell {
  if (!isAmount) return { formula, result: minor }
  const decimals = currencyExponent(currency)
  return { formula, result: toMajorUnits(minor, currency), decimals }
}

function summaryRow(row: MonthSummaryRow, r: number, storeName: string | null): ExportRow {
  const formulas = detailFormulas(r, true, row.currency)
  const d = currencyExponent(row.currency)
  const L = (k: SummaryKey) => `${SU.letter(k)}${r}`
  // The store row's net is its own columns' difference: what the reader sees add up.
  formulas.net = `ROUND(${L('chargeSum')}-${L('refundSum')}-${L('feeSum')},${d})`
  const cells: Partial<Record<SummaryKey, ExportCell>> = {
    storeId: row.storeId,
    storeName,
    currency: row.currency,
    mode: row.mode,
  }
  for (const [column, field, isAmount] of FIGURE_COLUMNS)
    cells[column] = figureCell(
      formulas[column],
      row[field as keyof MonthSummaryRow] as number,
      isAmount,
      row.currency,
    )
  return SU.row(cells)
}

/**
 * Under the store table: per currency × mode, the sum of the store rows, then a control block that
 * recomputes each figure from the detail sheets over every store and subtracts the total: every control
 * figure must be 0. A store row lost, edited or mis-keyed shows there.
 */
function summaryFooter(rows: readonly MonthSummaryRow[], firstRow: number): ExportRow[] {
  if (rows.length === 0) return []
  const lastRow = firstRow + rows.length - 1
  const totals = totalsByCurrency(rows)
  const totalsTitle = lastRow + 2
  const firstTotal = totalsTitle + 1
  const controlTitle = firstTotal + totals.length + 1
  const firstControl = controlTitle + 1
  const span = (k: SummaryKey) => `$${SU.letter(k)}$${firstRow}:$${SU.letter(k)}$${lastRow}`
  const out: ExportRow[] = [
    [],
    ['Totals per currency and mode: the store rows above added up; currencies are never added together.'],
  ]
  totals.forEach((t, i) => {
    const r = firstTotal + i
    const d = currencyExponent(t.currency)
    const cells: Partial<Record<SummaryKey, ExportCell>> = {
      storeId: 'Total',
      currency: t.currency,
      mode: t.mode,
    }
    for (const [column, field, isAmount] of FIGURE_COLUMNS) {
      const f = `SUMIFS(${span(column)},${span('currency')},$C${r},${span('mode')},$D${r})`
      cells[column] = figureCell(isAmount ? `ROUND(${f},${d})` : f, t[field] as number, isAmount, t.currency)
    }
    out.push(SU.row(cells))
  })
  out.push([])
  out.push(['Control: the detail sheets over every store minus the totals above. Every figure must be 0.'])
  totals.forEach((t, i) => {
    const r = firstControl + i
    const total = firstTotal + i
    const d = currencyExponent(t.currency)
    const formulas = detailFormulas(r, false, t.currency)
    const cells: Partial<Record<SummaryKey, ExportCell>> = {
      storeId: 'Control',
      currency: t.currency,
      mode: t.mode,
    }
    for (const [column, , isAmount] of FIGURE_COLUMNS) {
      const f = `${formulas[column]}-${SU.letter(column)}${total}`
      cells[column] = isAmount
        ? { formula: `ROUND(${f},${d})`, result: 0, decimals: d }
        : { formula: f, result: 0 }
    }
    out.push(SU.row(cells))
  })
  return out
}

/** The Summary sheet of the month: header block, one row per store × currency × mode, totals, control. */
export function summarySheet(
  input: MonthWorkbookMeta,
  scope: MonthScope,
  summary: MonthSummary,
  storeLabel: string | null,
): WorkbookPlanSheet {
  const preamble = summaryPreamble(input, storeLabel)
  const firstRow = preamble.length + 2
  const rows = summary.rows.map((row, i) => summaryRow(row, firstRow + i, scope.storeName(row.storeId)))
  const footer = summaryFooter(summary.rows, firstRow)
  return {
    spec: { name: SHEETS.summary, columns: SU.columns, preamble, ...(footer.length ? { footer } : {}) },
    rowCount: rows.length,
    rows: () => rows,
  }
}
