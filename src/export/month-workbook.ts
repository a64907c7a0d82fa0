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
import type { ExportCell, ExportRow, ExportSheet } from '../../electron/shared/contract/export'
import {
  recordKeyOf,
  type AuditEntry,
  type ChargeRecord,
  type HistoryRecord,
  type MarkRecord,
  type RecordKey,
} from '../domain/records'
import { depositFigures, type DepositExplanation } from '../reconcile/deposits'
import { describeMatchRef, rowIdOf, type LinkDescription, type LinkedRow } from '../reconcile/match-links'
import { auditRecordText, auditValueText } from './audit-text'
import { auditPreamble, teamCloseRows, type WorkbookTeamClose } from './team-close-rows'
import { isSuccessful, crossCheck, netOf, type Difference } from '../reconcile/cross-check'
import { currencyExponent, normalizeCurrency, toMajorUnits } from '../domain/currency'
import { hasChangedSinceReconciled } from '../domain/fingerprint'
import type { QuarantinedItem } from '../reconcile/close-checklist'
import { col, columnLetter, Columns } from './sheet-columns'
import { payoutSheets, type PayoutWorkbookInput } from './payout-sheets'
import {
  summarizeMonth,
  totalsByCurrency,
  type CurrencyTotal,
  type MonthSummary,
  type MonthSummaryRow,
} from '../reconcile/month-summary'
import { periodRange } from '../domain/periods'
import {
  amountCell,
  amountText,
  clipText,
  dateCell,
  formatWallClock,
  jsonText,
  wallClockMs,
} from './sheet-values'

export interface MonthWorkbookInput {
  merchantName: string
  connection: { id: string; label: string; timeZone: string }
  /** `YYYY-MM` in the accounting time zone. */
  period: string
  /** One store's workbook, or null for every store of the connection. */
  storeId: string | null
  /** Store names by id; records' own `store_name` fills any gap. */
  storeNames?: ReadonlyMap<string, string>
  /** The connection's cached records (any period: the builder picks the period's). */
  history: readonly HistoryRecord[]
  charges: readonly ChargeRecord[]
  marks: ReadonlyMap<RecordKey, MarkRecord>
  audit: readonly AuditEntry[]
  generatedAt: number
  appVersion: string
  /** Further filters to state in the header block (the store filter is stated already). */
  filters?: readonly string[]
  /** Imported order or bank lines of the period that no accepted match links to (issue: matching). */
  unmatchedImports?: readonly UnmatchedImport[]
  /** The month's close when the workbook was made; null or absent: the month is open. */
  close?: MonthClose | null
  /** Items held in quarantine for the month (real exceptions); absent: none known. */
  quarantined?: readonly QuarantinedItem[]
  /**
   * The imported rows the marks link to (for "Matched to") and every bank line (for the
   * Deposits sheet; those of the period are listed). Absent: no imports.
   */
  importedRows?: readonly LinkedRow[]
  /** Records a deposit pays that lie outside the period (a payout spans a month end), and their charges. */
  linkedHistory?: readonly HistoryRecord[]
  linkedCharges?: readonly ChargeRecord[]
  /** The payout model's transfer fee with tax (minor units): the difference a deposit usually shows. */
  transferFee?: number
  /** The month's payout roll-forward: adds the payout sheets (payout-sheets.ts). */
  payouts?: PayoutWorkbookInput
  /** The month on the team server and the verified audit chain head; absent: not shared with a team. */
  team?: WorkbookTeamClose | null
}

export interface MonthClose {
  closedAt: number
  closedBy: string
  note: string | null
}

export interface UnmatchedImport {
  source: 'orders' | 'bank'
  fileName: string
  line: number
  orderNumber: string | null
  at: number
  amount: number
  currency: string
}

export interface WorkbookPlanSheet {
  spec: ExportSheet
  rowCount: number
  rows: () => Iterable<ExportRow>
}

export interface WorkbookPlan {
  suggestedName: string
  title: string
  sheets: WorkbookPlanSheet[]
  /** What the Summary's formulas must add up to. */
  summary: MonthSummary
}

export const SHEETS = {
  summary: 'Summary',
  transactions: 'Transactions',
  charges: 'Charges',
  refunds: 'Refunds',
  deposits: 'Deposits',
  exceptions: 'Exceptions',
  notReconciled: 'Not reconciled',
  audit: 'Audit',
} as const

export { columnLetter }

/** Fee currency written when the API gave a fee without one (counted in "Fees without currency"). */
export const UNKNOWN_FEE_CURRENCY = '(unknown)'

const TX = new Columns([
  col('created', 'Created', 'datetime', 20),
  col('type', 'Type', 'text', 9),
  col('id', 'Record ID', 'text', 38),
  col('chargeId', 'Charge ID', 'text', 38),
  col('storeId', 'Store ID', 'text', 38),
  col('storeName', 'Store', 'text', 20),
  col('mode', 'Mode', 'text', 7),
  col('status', 'Status', 'text', 12),
  col('counted', 'In totals', 'text', 9),
  col('currency', 'Currency', 'text', 10),
  col('amount', 'Amount', 'amount', 14),
  col('signed', 'Signed amount', 'amount', 14),
  col('reconciliation', 'Reconciliation', 'text', 14),
  col('changed', 'Changed since reconciled', 'text', 12),
  col('note', 'Note', 'text', 30),
  col('brand', 'Brand', 'text', 10),
  col('cardholder', 'Cardholder', 'text', 22),
  col('email', 'E-mail', 'text', 28),
  col('orderRef', 'Order', 'text', 18),
  col('metadata', 'Metadata', 'text', 40),
])

const CH = new Columns([
  col('created', 'Created', 'datetime', 20),
  col('id', 'Charge ID', 'text', 38),
  col('storeId', 'Store ID', 'text', 38),
  col('storeName', 'Store', 'text', 20),
  col('mode', 'Mode', 'text', 7),
  col('status', 'Status', 'text', 12),
  col('counted', 'In totals', 'text', 9),
  col('currency', 'Currency', 'text', 10),
  col('charged', 'Charged', 'amount', 14),
  col('requestedCurrency', 'Requested currency', 'text', 12),
  col('requested', 'Requested', 'amount', 14),
  col('feeCurrency', 'Fee currency', 'text', 12),
  col('fee', 'Fee', 'amount', 12),
  col('refunded', 'Refunded to date', 'amount', 14),
  col('net', 'Net after refunds to date', 'amount', 14),
  col('separate', 'Other-currency amounts', 'text', 24),
  col('merchantTxId', 'Merchant transaction ID', 'text', 24),
  col('descriptor', 'Descriptor', 'text', 20),
  col('matched', 'Matched to', 'text', 48),
])

const RF = new Columns([
  col('created', 'Created', 'datetime', 20),
  col('id', 'Refund ID', 'text', 38),
  col('chargeId', 'Charge ID', 'text', 38),
  col('storeId', 'Store ID', 'text', 38),
  col('storeName', 'Store', 'text', 20),
  col('mode', 'Mode', 'text', 7),
  col('status', 'Status', 'text', 12),
  col('currency', 'Currency', 'text', 10),
  col('amount', 'Amount', 'amount', 14),
  col('reconciliation', 'Reconciliation', 'text', 14),
  col('changed', 'Changed since reconciled', 'text', 12),
  col('note', 'Note', 'text', 30),
  col('cardholder', 'Cardholder', 'text', 22),
  col('orderRef', 'Order', 'text', 18),
  col('matched', 'Matched to', 'text', 48),
])

/** One bank deposit line and the records it pays. */
const DP = new Columns([
  col('date', 'Deposit date', 'datetime', 20),
  col('file', 'File', 'text', 24),
  col('line', 'Line', 'integer', 7),
  col('currency', 'Currency', 'text', 10),
  col('deposit', 'Deposit', 'amount', 14),
  col('records', 'Records paid', 'integer', 10),
  col('charged', 'Charges', 'amount', 14),
  col('refunded', 'Refunds', 'amount', 14),
  col('fees', 'Fees', 'amount', 12),
  col('net', 'Expected (net of fees)', 'amount', 16),
  col('difference', 'Difference', 'amount', 14),
  col('explanation', 'Explanation', 'text', 48),
  col('keys', 'Record IDs', 'text', 60),
])

const EX = new Columns([
  col('kind', 'Exception', 'text', 24),
  col('reason', 'Reason', 'text', 60),
  col('record', 'Record', 'text', 46),
  col('created', 'Created', 'datetime', 20),
  col('storeId', 'Store ID', 'text', 38),
  col('mode', 'Mode', 'text', 7),
  col('currency', 'Currency', 'text', 10),
  col('amount', 'Amount', 'amount', 14),
  col('status', 'Status', 'text', 12),
  col('note', 'Note', 'text', 30),
])

const AU = new Columns([
  col('at', 'At', 'datetime', 20),
  col('actor', 'By', 'text', 18),
  col('action', 'Action', 'text', 14),
  col('record', 'Record', 'text', 46),
  col('period', 'Period', 'text', 9),
  col('before', 'Before', 'text', 40),
  col('after', 'After', 'text', 40),
  col('reason', 'Reason', 'text', 30),
])

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

const yesNo = (b: boolean): string => (b ? 'Yes' : 'No')

/** A link in the workbook's words (English, as every sheet): "Order ORD-12 (orders.csv, line 2)". */
function linkText(d: LinkDescription, tz: string): string {
  if (d.side === null) return d.raw
  if ('gone' in d) return `${d.side === 'sales' ? 'Order' : 'Deposit'} line ${d.line} of a removed file`
  if (d.side === 'sales') return `Order ${d.orderNumber ?? '(no number)'} (${d.fileName}, line ${d.line})`
  const day = formatWallClock(wallClockMs(d.at, tz)).slice(0, 10)
  return `Deposit ${day} ${amountText(d.amount, normalizeCurrency(d.currency))} (${d.fileName}, line ${d.line})`
}

/** Every link of a mark, sales first: the "Matched to" cell (null: not matched). */
function matchedText(
  mark: MarkRecord | undefined,
  rows: ReadonlyMap<string, LinkedRow>,
  tz: string,
): string | null {
  const described = describeMatchRef(mark?.matchRef, rows)
  return described.length > 0 ? clipText(described.map((d) => linkText(d, tz)).join('; ')) : null
}

function explanationText(e: DepositExplanation, currency: string): string {
  switch (e.code) {
    case 'unmatched':
      return 'Not matched to any records yet'
    case 'exact':
      return 'Equal to the records it pays'
    case 'transfer_fee':
      return `Transfer fee ${amountText(e.fee, currency)} deducted by the payment service`
    case 'unexplained':
      return `Unexplained difference of ${amountText(e.difference, currency)}: check the payout`
  }
}

/** Headers of the Transactions sheet, also the ledger CSV's. */
export const TRANSACTION_HEADERS: readonly string[] = TX.list.map((c) => c.header)

/** One history record as a Transactions row (and a ledger CSV line). */
export function transactionRow(
  r: HistoryRecord,
  mark: MarkRecord | undefined,
  tz: string,
  storeName: string | null,
): ExportRow {
  const currency = normalizeCurrency(r.currency)
  return TX.row({
    created: dateCell(r.createdAt, tz),
    type: r.type,
    id: r.resourceId,
    chargeId: r.chargeId,
    storeId: r.storeId,
    storeName,
    mode: r.mode,
    status: r.status,
    counted: yesNo(isSuccessful(r.status)),
    currency,
    amount: amountCell(r.amount, currency),
    signed: amountCell(r.type === 'refund' ? -r.amount : r.amount, currency),
    reconciliation: mark?.state === 'reconciled' ? 'reconciled' : 'unreconciled',
    changed: yesNo(hasChangedSinceReconciled(mark, r)),
    note: mark?.note ? clipText(mark.note) : null,
    brand: r.brand || null,
    cardholder: r.cardholderName || null,
    email: r.cardholderEmail || null,
    orderRef: r.orderRef,
    metadata: r.raw.metadata && Object.keys(r.raw.metadata).length > 0 ? jsonText(r.raw.metadata) : null,
  })
}

function byTimeThenKey<T extends { createdAt: number }>(key: (r: T) => string) {
  return (a: T, b: T): number => a.createdAt - b.createdAt || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)
}

/** `closebook-<store>-2026-10.xlsx`, safe as a file name on every desktop. */
export function workbookFileName(label: string, period: string): string {
  const slug = toSafeFileNamePart(label)
  return `closebook-${slug || 'all-stores'}-${period}.xlsx`
}

export function buildMonthWorkbook(input: MonthWorkbookInput): WorkbookPlan {
  const tz = input.connection.timeZone
  const range = periodRange(input.period, tz)
  const inStore = (storeId: string): boolean => input.storeId === null || storeId === input.storeId
  const inPeriod = (t: number): boolean => t >= range.from && t < range.to

  const storeHistory = input.history.filter((r) => inStore(r.storeId))
  const history = storeHistory.filter((r) => inPeriod(r.createdAt)).sort(byTimeThenKey((r) => r.key))
  const charges = input.charges
    .filter((c) => inStore(c.storeId) && inPeriod(c.createdAt))
    .sort(byTimeThenKey((c) => c.id))
  const refunds = history.filter((r) => r.type === 'refund')
  const summary = summarizeMonth({ history, charges, marks: input.marks, timeZone: tz, period: input.period })

  const storeNames = new Map(input.storeNames ?? [])
  // store_name may be missing (real-service.md): a record without one leaves the gap to the others.
  for (const r of input.history)
    if (!storeNames.has(r.storeId) && r.raw.store_name) storeNames.set(r.storeId, r.raw.store_name)
  for (const c of input.charges)
    if (!storeNames.has(c.storeId) && c.raw.store_name) storeNames.set(c.storeId, c.raw.store_name)
  const storeName = (id: string): string | null => storeNames.get(id) ?? null

  // Refunds of every period count toward a charge's net "to date" (netOf), not only this month's.
  const refundsByCharge = new Map<string, HistoryRecord[]>()
  for (const r of storeHistory) {
    if (r.type !== 'refund') continue
    const list = refundsByCharge.get(r.chargeId) ?? []
    list.push(r)
    refundsByCharge.set(r.chargeId, list)
  }

  const linkedRows = new Map((input.importedRows ?? []).map((r) => [rowIdOf(r), r]))
  const markOf = (r: HistoryRecord) => input.marks.get(r.key)
  const reconciled = (r: HistoryRecord): boolean => markOf(r)?.state === 'reconciled'

  const transactionRows = function* (): Iterable<ExportRow> {
    for (const r of history) yield transactionRow(r, markOf(r), tz, storeName(r.storeId))
  }

  const chargeRows = function* (): Iterable<ExportRow> {
    for (const c of charges) {
      const currency = normalizeCurrency(c.chargedCurrency)
      const net = netOf(c, refundsByCharge.get(c.id) ?? [])
      const feeCurrency =
        c.feeAmount === null
          ? null
          : c.feeCurrency === null
            ? UNKNOWN_FEE_CURRENCY
            : normalizeCurrency(c.feeCurrency)
      const separate = net.separate
        .map((s) =>
          s.currency
            ? `${s.kind} ${amountText(s.amount, s.currency)}`
            : `${s.kind} ${s.amount} (no currency)`,
        )
        .join('; ')
      // While pending or awaiting the service has charged nothing (charged_amount null): Charged and the
      // net stay empty; what the charge asks for is in Requested, in its own currency.
      const chargedNothing = c.raw.charged_amount === null
      const requestedCurrency = normalizeCurrency(c.raw.requested_currency)
      yield CH.row({
        created: dateCell(c.createdAt, tz),
        id: c.id,
        storeId: c.storeId,
        storeName: storeName(c.storeId),
        mode: c.mode,
        status: c.status,
        counted: yesNo(isSuccessful(c.status)),
        currency,
        charged: chargedNothing ? null : amountCell(c.chargedAmount, currency),
        requestedCurrency,
        requested: amountCell(c.raw.requested_amount, requestedCurrency),
        feeCurrency,
        // A fee without a currency has no decimals to go by: written as the API's integer.
        fee:
          c.feeAmount === null
            ? null
            : c.feeCurrency === null
              ? c.feeAmount
              : amountCell(c.feeAmount, normalizeCurrency(c.feeCurrency)),
        refunded: amountCell(net.refunded, currency),
        net: chargedNothing ? null : amountCell(net.net, currency),
        separate: separate || null,
        merchantTxId: c.merchantTransactionId,
        descriptor: typeof c.raw.descriptor === 'string' && c.raw.descriptor ? c.raw.descriptor : null,
        matched: matchedText(input.marks.get(recordKeyOf('charge', c.id)), linkedRows, tz),
      })
    }
  }

  const refundRows = function* (): Iterable<ExportRow> {
    for (const r of refunds) {
      const currency = normalizeCurrency(r.currency)
      const mark = markOf(r)
      yield RF.row({
        created: dateCell(r.createdAt, tz),
        id: r.resourceId,
        chargeId: r.chargeId,
        storeId: r.storeId,
        storeName: storeName(r.storeId),
        mode: r.mode,
        status: r.status,
        currency,
        amount: amountCell(r.amount, currency),
        reconciliation: reconciled(r) ? 'reconciled' : 'unreconciled',
        changed: yesNo(hasChangedSinceReconciled(mark, r)),
        note: mark?.note ? clipText(mark.note) : null,
        cardholder: r.cardholderName || null,
        orderRef: r.orderRef,
        matched: matchedText(mark, linkedRows, tz),
      })
    }
  }

  // Deposits of the period: each bank line, the records it pays (of any period), and the difference.
  const deposits = (input.importedRows ?? [])
    .filter((r) => r.source === 'bank' && r.amount > 0 && inPeriod(r.at))
    .sort(
      (a, b) => a.at - b.at || (a.importId < b.importId ? -1 : a.importId > b.importId ? 1 : a.line - b.line),
    )
  const depositRecords = new Map<RecordKey, HistoryRecord>()
  for (const r of [...input.history, ...(input.linkedHistory ?? [])]) depositRecords.set(r.key, r)
  const depositCharges = new Map<string, ChargeRecord>()
  for (const c of [...input.charges, ...(input.linkedCharges ?? [])]) depositCharges.set(c.id, c)
  const depositRows = function* (): Iterable<ExportRow> {
    for (const d of deposits) {
      const currency = normalizeCurrency(d.currency)
      const f = depositFigures(
        { amount: d.amount, currency: d.currency, keys: d.matchedKeys },
        depositRecords,
        depositCharges,
        input.transferFee ?? 0,
      )
      const matched = d.matchedKeys.length > 0
      yield DP.row({
        date: dateCell(d.at, tz),
        file: d.fileName,
        line: d.line,
        currency,
        deposit: amountCell(d.amount, currency),
        records: d.matchedKeys.length,
        charged: matched ? amountCell(f.charged, currency) : null,
        refunded: matched ? amountCell(f.refunded, currency) : null,
        fees: matched ? amountCell(f.fees, currency) : null,
        net: matched ? amountCell(f.net, currency) : null,
        difference: matched ? amountCell(f.difference, currency) : null,
        explanation: clipText(
          explanationText(f.explanation, currency) +
            (f.notCounted.length > 0
              ? `; ${f.notCounted.length} linked record(s) not counted (not cached, other currency or not successful)`
              : ''),
        ),
        keys: matched ? clipText(d.matchedKeys.join(' ')) : null,
      })
    }
  }

  const checked = buildExceptions(history, charges, input.marks, tz)
  const exceptions = [
    ...checked.exceptions,
    ...(input.quarantined ?? []).map((q) =>
      EX.row({
        kind: 'quarantined',
        reason: `Refused by sync (${q.resource === 'charges' ? 'charge list' : 'transaction history'}): ${q.reason}. Not in any total until it is fetched again.`,
        record: q.itemId,
        created: dateCell(q.seenAt, tz),
      }),
    ),
    ...(input.unmatchedImports ?? [])
      .filter((u) => u.at >= range.from && u.at < range.to)
      .map((u) =>
        EX.row({
          kind: `${u.source === 'bank' ? 'bank line' : 'order'} without a match`,
          reason: `${u.fileName}, line ${u.line}${u.orderNumber ? ` (order ${u.orderNumber})` : ''}: no charge or refund was matched to it.`,
          record: null,
          created: dateCell(u.at, tz),
          currency: normalizeCurrency(u.currency),
          amount: amountCell(u.amount, normalizeCurrency(u.currency)),
        }),
      ),
  ]
  const notReconciled = checked.notReconciled
  const audit = auditOfPeriod(input, range, new Set(storeHistory.map((r) => r.key)))

  const recordsByKey = new Map(input.history.map((r) => [r.key, r]))
  const linkOf = (matchRef: string): string =>
    describeMatchRef(matchRef, linkedRows)
      .map((d) => linkText(d, tz))
      .join('; ')
  const auditRows = function* (): Iterable<ExportRow> {
    for (const e of audit) {
      yield AU.row({
        at: dateCell(e.at, tz),
        actor: e.actor,
        action: e.action,
        record: auditRecordText(e.key, recordsByKey, tz),
        period: e.period,
        before: auditValueText(e.before, tz, linkOf),
        after: auditValueText(e.after, tz, linkOf),
        reason: e.reason ? clipText(e.reason) : null,
      })
    }
  }

  const storeLabel = input.storeId === null ? null : (storeName(input.storeId) ?? input.storeId)
  const preamble = summaryPreamble(input, storeLabel)
  const firstRow = preamble.length + 2
  const summaryRows = summary.rows.map((row, i) => summaryRow(row, firstRow + i, storeName(row.storeId)))
  const footer = summaryFooter(summary.rows, firstRow)

  const sheet = (
    name: string,
    columns: Columns<string>,
    rowCount: number,
    rows: () => Iterable<ExportRow>,
  ) => ({
    spec: { name, columns: columns.columns },
    rowCount,
    rows,
  })
  return {
    suggestedName: workbookFileName(storeLabel ?? input.connection.label, input.period),
    title: `Closebook ${input.period}${storeLabel ? ` ${storeLabel}` : ''}`,
    summary,
    sheets: [
      {
        spec: { name: SHEETS.summary, columns: SU.columns, preamble, ...(footer.length ? { footer } : {}) },
        rowCount: summaryRows.length,
        rows: () => summaryRows,
      },
      sheet(SHEETS.transactions, TX, history.length, transactionRows),
      sheet(SHEETS.charges, CH, charges.length, chargeRows),
      sheet(SHEETS.refunds, RF, refunds.length, refundRows),
      sheet(SHEETS.deposits, DP, deposits.length, depositRows),
      sheet(SHEETS.exceptions, EX, exceptions.length, () => exceptions),
      sheet(SHEETS.notReconciled, EX, notReconciled.length, () => notReconciled),
      {
        ...sheet(SHEETS.audit, AU, audit.length, auditRows),
        ...withPreamble(SHEETS.audit, AU, auditPreamble(input.team)),
      },
      ...(input.payouts ? payoutSheets(input.payouts) : []),
    ],
  }
}

/** A sheet spec with a header block, when there is one. */
function withPreamble(
  name: string,
  columns: Columns<string>,
  preamble: ExportRow[] | null,
): { spec?: WorkbookPlanSheet['spec'] } {
  return preamble ? { spec: { name, columns: columns.columns, preamble } } : {}
}

function summaryPreamble(input: MonthWorkbookInput, storeLabel: string | null): ExportRow[] {
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

const DIFFERENCE_REASONS: Record<Difference['kind'], (d: Difference) => string> = {
  missing_in_charges: () => 'In the transaction history but not in the charge list (sync the charges again).',
  missing_in_history: () => 'In the charge list but not in the transaction history (sync the history again).',
  currency: (d) =>
    `History currency ${d.history?.currency ?? '?'} differs from charged currency ${d.charge?.chargedCurrency ?? '?'}.`,
  amount: (d) =>
    `History amount ${d.history ? amountText(d.history.amount, d.history.currency) : '?'} differs from charged amount ${
      d.charge ? amountText(d.charge.chargedAmount, d.charge.chargedCurrency) : '?'
    }.`,
  status: (d) =>
    `History status "${d.history?.status ?? '?'}" differs from charge status "${d.charge?.status ?? '?'}".`,
}

/**
 * Everything an accountant should look at before closing, in two lists: real exceptions (records changed
 * since they were reconciled, records not counted because of their status, cross-check differences between
 * history and charge list, fees the API gave without a currency) and counted records simply not reconciled
 * yet, which would otherwise bury the few real ones under hundreds of routine rows.
 */
function buildExceptions(
  history: readonly HistoryRecord[],
  charges: readonly ChargeRecord[],
  marks: ReadonlyMap<RecordKey, MarkRecord>,
  tz: string,
): { exceptions: ExportRow[]; notReconciled: ExportRow[] } {
  const rows: ExportRow[] = []
  const notReconciled: ExportRow[] = []
  const recordRow = (r: HistoryRecord, kind: string, reason: string): ExportRow =>
    EX.row({
      kind,
      reason,
      record: r.key,
      created: dateCell(r.createdAt, tz),
      storeId: r.storeId,
      mode: r.mode,
      currency: normalizeCurrency(r.currency),
      amount: amountCell(r.amount, normalizeCurrency(r.currency)),
      status: r.status,
      note: marks.get(r.key)?.note ? clipText(marks.get(r.key)?.note ?? '') : null,
    })
  for (const r of history) {
    const mark = marks.get(r.key)
    if (!isSuccessful(r.status)) {
      rows.push(recordRow(r, 'not counted', `Status "${r.status}": no money moved, so not in the totals.`))
    } else if (mark?.state !== 'reconciled') {
      notReconciled.push(recordRow(r, 'not reconciled yet', 'Counted in the totals, not reconciled yet.'))
    } else if (hasChangedSinceReconciled(mark, r)) {
      rows.push(
        recordRow(
          r,
          'changed since reconciled',
          `Amount, currency, status or refunds changed after it was reconciled by ${mark.updatedBy}; reconfirm it.`,
        ),
      )
    }
  }
  for (const d of crossCheck(history, charges)) {
    const record = d.history
    const charge = d.charge
    const currency = normalizeCurrency(record?.currency ?? charge?.chargedCurrency ?? '')
    const amount = record?.amount ?? charge?.chargedAmount ?? null
    rows.push(
      EX.row({
        kind: `cross-check: ${d.kind.replace(/_/g, ' ')}`,
        reason: DIFFERENCE_REASONS[d.kind](d),
        record: record?.key ?? `charge:${d.chargeId}`,
        created: dateCell(record?.createdAt ?? charge?.createdAt ?? 0, tz),
        storeId: record?.storeId ?? charge?.storeId ?? null,
        mode: record?.mode ?? charge?.mode ?? null,
        currency: currency || null,
        amount: amount === null || !currency ? null : amountCell(amount, currency),
        status: record?.status ?? charge?.status ?? null,
      }),
    )
  }
  for (const c of charges) {
    if (c.feeAmount === null || c.feeCurrency !== null || !isSuccessful(c.status)) continue
    rows.push(
      EX.row({
        kind: 'fee without currency',
        reason: `The API gave a fee of ${c.feeAmount} without a currency: it is in no row's fees.`,
        record: `charge:${c.id}`,
        created: dateCell(c.createdAt, tz),
        storeId: c.storeId,
        mode: c.mode,
        currency: normalizeCurrency(c.chargedCurrency),
        status: c.status,
      }),
    )
  }
  return { exceptions: rows, notReconciled }
}

/**
 * Audit entries about the period: marks, notes and reconfirmations of its records, its close and reopen
 * (all carry the period), plus entries without a period (restore) made during it. For one store, record
 * entries of other stores are left out.
 */
function auditOfPeriod(
  input: MonthWorkbookInput,
  range: { from: number; to: number },
  storeKeys: ReadonlySet<RecordKey>,
): AuditEntry[] {
  return input.audit
    .filter((e) => (e.period === null ? e.at >= range.from && e.at < range.to : e.period === input.period))
    .filter((e) => input.storeId === null || e.key === null || storeKeys.has(e.key))
    .sort((a, b) => a.at - b.at || (a.seq ?? 0) - (b.seq ?? 0) || (a.part ?? 0) - (b.part ?? 0))
}
