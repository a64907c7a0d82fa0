/**
 * The payout roll-forward in the month workbook: "Roll-forward" holds, per currency, opening + sales −
 * refunds − fees + manual − payouts = closing, each activity figure a live SUMIFS over "Payout activity"
 * (every ledger of the month and every transfer paid or taken back), and the closing explained by
 * SUMIFS over "Payout open items". Under the table, a Control block whose figures must all be 0: the
 * closing less its explanation, and the activity's net less the roll-forward's movement. The opening and
 * last month's carried closing are values (the months before are not in the workbook); their difference is
 * a formula. Cached results are the app's figures. Texts used as criteria stay English. "Payout
 * repayments" lists what later transfers of the month repaid of earlier unpaid ones, with the evidence.
 */
import type { ExportCell, ExportRow, ExportSheet } from '../../electron/shared/contract/export'
import { currencyExponent, toMajorUnits } from '../domain/currency'
import {
  OPEN_BUCKETS,
  type CurrencyRollForward,
  type OpenBucket,
  type RollForward,
} from '../reconcile/payouts/rollforward'
import type { ReadingsReport } from '../reconcile/payouts/readings'
import type { RepaymentEvidence } from '../reconcile/payouts/repayments'
import type { TieOut } from '../reconcile/payouts/tie-out'
import { PAYOUT_EXCEPTIONS_SHEET, payoutExceptionRows, PX } from './payout-exceptions-sheet'
import { col, columnLetter, Columns } from './sheet-columns'
import { amountCell, dateCell } from './sheet-values'

export const PAYOUT_SHEETS = {
  rollForward: 'Roll-forward',
  activity: 'Payout activity',
  open: 'Payout open items',
  repayments: 'Payout repayments',
  exceptions: PAYOUT_EXCEPTIONS_SHEET,
} as const

export interface PayoutWorkbookInput {
  rollForward: RollForward
  /** Which readings the figures follow, and why (stated in the sheet's header block). */
  readings?: ReadingsReport
  /** The bank deposits tied to transfers: its exceptions are listed with the bad input. */
  tie?: TieOut
}

export interface PayoutSheet {
  spec: ExportSheet
  rowCount: number
  rows: () => Iterable<ExportRow>
}

const PA = new Columns([
  col('date', 'Date', 'datetime', 20),
  col('currency', 'Currency', 'text', 10),
  col('kind', 'Kind', 'text', 10),
  col('ref', 'Ledger or transfer', 'text', 38),
  col('transfer', 'Transfer', 'text', 38),
  col('origin', 'Origin or movement', 'text', 14),
  col('gross', 'Gross', 'amount', 14),
  col('fee', 'Fees', 'amount', 12),
  col('net', 'Net', 'amount', 14),
])

const PO = new Columns([
  col('currency', 'Currency', 'text', 10),
  col('item', 'Item', 'text', 16),
  col('transfer', 'Transfer', 'text', 38),
  col('status', 'Status at month end', 'text', 14),
  col('ledgers', 'Ledgers', 'integer', 9),
  col('amount', 'Amount', 'amount', 14),
])

const PR = new Columns([
  col('currency', 'Currency', 'text', 10),
  col('repaid', 'Owed by', 'text', 38),
  col('by', 'Paid with transfer', 'text', 38),
  col('ledgers', 'Ledgers', 'integer', 9),
  col('amount', 'Amount', 'amount', 14),
  col('evidence', 'How it is known', 'text', 48),
])

const EVIDENCE_TEXT: Record<RepaymentEvidence, string> = {
  metadata: "the paying transfer's metadata names the transfer it repays",
  note: "the paying transfer's note names the transfer it repays",
  amount: 'the paying transfer exceeds its own ledgers by exactly what was owed',
}

const RF = new Columns([
  col('currency', 'Currency', 'text', 12),
  col('opening', 'Opening', 'amount', 14),
  col('sales', 'Sales', 'amount', 14),
  col('refunds', 'Refunds', 'amount', 14),
  col('fees', 'Fees', 'amount', 14),
  col('manual', 'Manual items', 'amount', 14),
  col('payouts', 'Payouts', 'amount', 14),
  col('closing', 'Closing', 'amount', 14),
  col('carried', "Last month's closing", 'amount', 16),
  col('openingDifference', "Opening − last month's closing", 'amount', 18),
])
type RfKey = Parameters<typeof RF.letter>[0]

const BUCKET_TEXT: Record<OpenBucket, string> = {
  notInTransfer: 'Not yet in a transfer',
  created: 'Transfers created',
  approved: 'Transfers approved',
  processing: 'Transfers processing',
  failed: 'Failed transfers',
  carriedOver: 'Carried over (blank or canceled transfers)',
  other: 'Other transfers (other status, not cached)',
}

/** Explained block: one column per bucket from B, then the total; the control's figures stand under it. */
const LAST_BUCKET = columnLetter(1 + OPEN_BUCKETS.length)
const EXPLAINED = columnLetter(2 + OPEN_BUCKETS.length)
const BUCKET_GAP: null[] = OPEN_BUCKETS.map(() => null)

function money(formula: string, minor: number, currency: string): ExportCell {
  const d = currencyExponent(currency)
  return { formula: `ROUND(${formula},${d})`, result: toMajorUnits(minor, currency), decimals: d }
}

function activityRows(rf: RollForward): { count: number; rows: () => Iterable<ExportRow> } {
  const tz = rf.timeZone
  let count = 0
  for (const c of rf.currencies) count += c.ledgers.length + c.movements.length
  const rows = function* (): Iterable<ExportRow> {
    for (const c of rf.currencies) {
      const cur = c.currency
      for (const f of c.ledgers)
        yield PA.row({
          date: dateCell(f.ledger.createdAt, tz),
          currency: cur,
          kind: f.kind,
          ref: f.ledger.id,
          transfer: f.ledger.transferId,
          origin: f.ledger.origin,
          gross: amountCell(f.gross, cur),
          fee: amountCell(f.fee, cur),
          net: amountCell(f.net, cur),
        })
      for (const m of c.movements)
        yield PA.row({
          date: dateCell(m.at, tz),
          currency: cur,
          kind: 'payout',
          ref: m.transferId,
          transfer: m.transferId,
          origin: m.kind,
          net: amountCell(m.amount, cur),
        })
    }
  }
  return { count, rows }
}

function openRows(rf: RollForward): ExportRow[] {
  const out: ExportRow[] = []
  for (const c of rf.currencies)
    for (const item of c.open)
      out.push(
        PO.row({
          currency: c.currency,
          item: item.bucket,
          transfer: item.transferId,
          status: item.status,
          ledgers: item.ledgerCount,
          amount: amountCell(item.amount, c.currency),
        }),
      )
  return out
}

/** One currency's roll-forward row `r`: activity as SUMIFS over the activity sheet, closing as their sum. */
function rollForwardRow(c: CurrencyRollForward, r: number): ExportRow {
  const a = (k: Parameters<typeof PA.range>[1]) => PA.range(PAYOUT_SHEETS.activity, k)
  const sum = (column: 'gross' | 'fee' | 'net', kind: string) =>
    `SUMIFS(${a(column)},${a('currency')},$A${r},${a('kind')},"${kind}")`
  const L = (k: RfKey) => `${RF.letter(k)}${r}`
  const cur = c.currency
  return RF.row({
    currency: cur,
    opening: amountCell(c.opening, cur),
    sales: money(sum('gross', 'sale'), c.sales, cur),
    refunds: money(`-${sum('gross', 'refund')}`, c.refunds, cur),
    fees: money(`${sum('fee', 'sale')}+${sum('fee', 'refund')}`, c.fees, cur),
    manual: money(sum('net', 'manual'), c.manual, cur),
    payouts: money(sum('net', 'payout'), c.payouts, cur),
    closing: money(
      `${L('opening')}+${L('sales')}-${L('refunds')}-${L('fees')}+${L('manual')}-${L('payouts')}`,
      c.opening + c.sales - c.refunds - c.fees + c.manual - c.payouts,
      cur,
    ),
    carried: c.carriedOpening === null ? null : amountCell(c.carriedOpening, cur),
    openingDifference:
      c.carriedOpening === null ? null : money(`${L('opening')}-${L('carried')}`, c.openingDifference, cur),
  })
}

/**
 * Under the table: the closing explained per open-item kind (columns B…G, total in H), then the Control
 * block: H = closing − explained, I = the activity's net − (sales − refunds − fees + manual − payouts).
 */
function footerRows(rf: RollForward, firstRow: number): ExportRow[] {
  const o = (k: Parameters<typeof PO.range>[1]) => PO.range(PAYOUT_SHEETS.open, k)
  const a = (k: Parameters<typeof PA.range>[1]) => PA.range(PAYOUT_SHEETS.activity, k)
  const n = rf.currencies.length
  const explainedTitle = firstRow + n + 1
  const firstExplained = explainedTitle + 2
  const firstControl = firstExplained + n + 2
  const out: ExportRow[] = [
    [],
    [
      'Closing explained item by item (the open items sheet, per currency): every figure below adds up to the closing.',
    ],
    ['Currency', ...OPEN_BUCKETS.map((b) => BUCKET_TEXT[b]), 'Explained'],
  ]
  rf.currencies.forEach((c, i) => {
    const r = firstExplained + i
    const cells: ExportRow = [c.currency]
    for (const b of OPEN_BUCKETS)
      cells.push(
        money(
          `SUMIFS(${o('amount')},${o('currency')},$A${r},${o('item')},"${b}")`,
          c.explained[b],
          c.currency,
        ),
      )
    cells.push(money(`SUM(B${r}:${LAST_BUCKET}${r})`, c.closing - c.unexplained, c.currency))
    out.push(cells)
  })
  out.push([])
  out.push([
    'Control: every figure must be 0.',
    ...BUCKET_GAP,
    'Closing − explained',
    'Activity net − movement',
  ])
  rf.currencies.forEach((c, i) => {
    const r = firstControl + i
    const table = firstRow + i
    const explained = firstExplained + i
    const L = (k: RfKey) => `${RF.letter(k)}${table}`
    const movement = `${L('sales')}-${L('refunds')}-${L('fees')}+${L('manual')}-${L('payouts')}`
    const kind = (k: string) => `SUMIFS(${a('net')},${a('currency')},$A${r},${a('kind')},"${k}")`
    const activityNet = `${kind('sale')}+${kind('refund')}+${kind('manual')}-${kind('payout')}`
    out.push([
      c.currency,
      ...BUCKET_GAP,
      money(`${RF.letter('closing')}${table}-${EXPLAINED}${explained}`, c.unexplained, c.currency),
      money(`${activityNet}-(${movement})`, 0, c.currency),
    ])
  })
  return out
}

function preamble(input: PayoutWorkbookInput): ExportRow[] {
  const rf = input.rollForward
  const reading = input.readings
  const source = (s: 'data' | 'setting', checked: number) =>
    s === 'data'
      ? `shown by the data (${checked} items checked)`
      : 'the data cannot tell: the setting decides'
  return [
    ['Receivable from the payment service, rolled forward per currency'],
    ['Period', `${rf.period} (${rf.timeZone})`],
    [
      'Ledger amounts',
      reading
        ? `${reading.readings.ledgerAmounts}: ${source(reading.ledgerAmounts.source, reading.ledgerAmounts.checked)}`
        : null,
    ],
    [
      'Transfer fee',
      reading
        ? `${reading.readings.transferFee === 'manual_ledger' ? 'a manual ledger inside the transfer' : 'deducted by the bank'}: ${source(reading.transferFee.source, reading.transferFee.checked)}`
        : null,
    ],
    [
      'Opening is the balance at the first instant of the month (last month’s closing by construction); sales, refunds, fees, manual items and payouts are formulas over the activity sheet; payouts are transfers paid in the month less those taken back.',
    ],
  ]
}

/**
 * What later transfers of the month repaid of earlier unpaid ones (or of ledgers carried without a
 * transfer), per currency, with the evidence the rule found: the same list as the Month-end view.
 */
function repaymentRows(rf: RollForward): ExportRow[] {
  return rf.currencies.flatMap((c) =>
    c.repayments.map((r) =>
      PR.row({
        currency: c.currency,
        repaid: r.transferId ?? 'Ledgers carried over without a transfer',
        by: r.byTransferId,
        ledgers: r.ledgerCount,
        amount: amountCell(r.amount, c.currency),
        evidence: EVIDENCE_TEXT[r.evidence],
      }),
    ),
  )
}

/** The roll-forward, its activity, its open items, what later transfers repaid and the payout exceptions. */
export function payoutSheets(input: PayoutWorkbookInput): PayoutSheet[] {
  const rf = input.rollForward
  const pre = preamble(input)
  const firstRow = pre.length + 2
  const table = rf.currencies.map((c, i) => rollForwardRow(c, firstRow + i))
  const footer = rf.currencies.length > 0 ? footerRows(rf, firstRow) : []
  const activity = activityRows(rf)
  const open = openRows(rf)
  const repayments = repaymentRows(rf)
  const exceptions = payoutExceptionRows(rf.problems, input.tie)
  return [
    {
      spec: {
        name: PAYOUT_SHEETS.rollForward,
        columns: RF.columns,
        preamble: pre,
        ...(footer.length ? { footer } : {}),
      },
      rowCount: table.length,
      rows: () => table,
    },
    {
      spec: { name: PAYOUT_SHEETS.activity, columns: PA.columns },
      rowCount: activity.count,
      rows: activity.rows,
    },
    { spec: { name: PAYOUT_SHEETS.open, columns: PO.columns }, rowCount: open.length, rows: () => open },
    {
      spec: { name: PAYOUT_SHEETS.repayments, columns: PR.columns },
      rowCount: repayments.length,
      rows: () => repayments,
    },
    {
      spec: { name: PAYOUT_SHEETS.exceptions, columns: PX.columns },
      rowCount: exceptions.length,
      rows: () => exceptions,
    },
  ]
}
