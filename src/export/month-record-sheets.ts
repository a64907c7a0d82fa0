/**
 * The month workbook's record sheets: Transactions (every history record of the period), Charges (the
 * charge list's records, with fees and net after refunds to date) and Refunds, one row per record. Their
 * text values ("Yes", "charge", "reconciled") are criteria of the Summary's formulas: they stay English.
 */
import type { ExportRow } from '../../electron/shared/contract/export'
import { normalizeCurrency } from '../domain/currency'
import { hasChangedSinceReconciled } from '../domain/fingerprint'
import {
  recordKeyOf,
  type ChargeRecord,
  type HistoryRecord,
  type MarkRecord,
  type RecordKey,
} from '../domain/records'
import { isSuccessful, netOf, type RefundLike } from '../reconcile/cross-check'
import { describeMatchRef, type LinkDescription, type LinkedRow } from '../reconcile/match-links'
import type { MonthScope } from './month-scope'
import { col, Columns } from './sheet-columns'
import {
  amountCell,
  amountText,
  clipText,
  dateCell,
  formatWallClock,
  jsonText,
  wallClockMs,
} from './sheet-values'

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

/** Fee currency written when the API gave a fee without one (counted in "Fees without currency"). */
export const UNKNOWN_FEE_CURRENCY = '(unknown)'

export const TX = new Columns([
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

export const CH = new Columns([
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

export const RF = new Columns([
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

export const yesNo = (b: boolean): string => (b ? 'Yes' : 'No')

/** A link in the workbook's words (English, as every sheet): "Order ORD-12 (orders.csv, line 2)". */
export function linkText(d: LinkDescription, tz: string): string {
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
  if (!mark?.matchRef) return null // no links: most records, and nothing to parse
  const described = describeMatchRef(mark.matchRef, rows)
  return described.length > 0 ? clipText(described.map((d) => linkText(d, tz)).join('; ')) : null
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

/**
 * What the Refunds sheet writes of a refund: its record without the raw payload, its mark as found when
 * the record was met (looked up once), and whether it changed since it was reconciled.
 */
export interface RefundFacts extends Pick<
  HistoryRecord,
  | 'key'
  | 'resourceId'
  | 'chargeId'
  | 'storeId'
  | 'createdAt'
  | 'mode'
  | 'status'
  | 'currency'
  | 'amount'
  | 'cardholderName'
  | 'orderRef'
> {
  mark: MarkRecord | undefined
  changed: boolean
}

function refundFactsOf(r: HistoryRecord, mark: MarkRecord | undefined): RefundFacts {
  return {
    key: r.key,
    resourceId: r.resourceId,
    chargeId: r.chargeId,
    storeId: r.storeId,
    createdAt: r.createdAt,
    mode: r.mode,
    status: r.status,
    currency: r.currency,
    amount: r.amount,
    cardholderName: r.cardholderName,
    orderRef: r.orderRef,
    mark,
    changed: hasChangedSinceReconciled(mark, r),
  }
}

/**
 * The period's refunds as the Transactions sheet's pass over the records meets them: `facts` is set once
 * that pass has gone through every record, and taken (emptied) by the Refunds sheet. A refund's facts are a
 * few short fields, so the month is read once for both sheets at the cost of holding its refunds' facts
 * (not their rows, nor their records) from one sheet to the other.
 */
export interface RefundsOnTheWay {
  facts: RefundFacts[] | null
}

/**
 * The Transactions sheet's rows: the period's records, read a batch at a time; each refund's facts are
 * noted on the way into `refunds`, so that the Refunds sheet need not read the month again.
 */
export async function* transactionRows(
  scope: MonthScope,
  refunds: RefundsOnTheWay = { facts: null },
): AsyncGenerator<ExportRow> {
  const seen: RefundFacts[] = []
  refunds.facts = null
  for await (const batch of scope.history())
    for (const r of batch) {
      const mark = scope.markOf(r)
      if (r.type === 'refund') seen.push(refundFactsOf(r, mark))
      yield transactionRow(r, mark, scope.tz, scope.storeName(r.storeId))
    }
  refunds.facts = seen
}

/** The Charges sheet's rows: the period's charge-list records, read a batch at a time. */
export async function* chargeRows(
  scope: MonthScope,
  marks: ReadonlyMap<RecordKey, MarkRecord>,
): AsyncGenerator<ExportRow> {
  const refundsByCharge = await scope.refundsByCharge()
  for await (const batch of scope.charges())
    for (const c of batch) yield chargeRow(scope, marks, c, refundsByCharge)
}

function chargeRow(
  scope: MonthScope,
  marks: ReadonlyMap<RecordKey, MarkRecord>,
  c: ChargeRecord,
  refundsByCharge: ReadonlyMap<string, readonly RefundLike[]>,
): ExportRow {
  const tz = scope.tz
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
      s.currency ? `${s.kind} ${amountText(s.amount, s.currency)}` : `${s.kind} ${s.amount} (no currency)`,
    )
    .join('; ')
  // While pending or awaiting the service has charged nothing (charged_amount null): Charged and the
  // net stay empty; what the charge asks for is in Requested, in its own currency.
  const chargedNothing = c.raw.charged_amount === null
  const requestedCurrency = normalizeCurrency(c.raw.requested_currency)
  return CH.row({
    created: dateCell(c.createdAt, tz),
    id: c.id,
    storeId: c.storeId,
    storeName: scope.storeName(c.storeId),
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
    matched: matchedText(marks.get(recordKeyOf('charge', c.id)), scope.linkedRows, tz),
  })
}

/**
 * The Refunds sheet's rows: from the facts the Transactions sheet's whole pass noted (taken, each let go as
 * its row is built), else from the period's records read again a batch at a time.
 */
export async function* refundRows(
  scope: MonthScope,
  refunds: RefundsOnTheWay = { facts: null },
): AsyncGenerator<ExportRow> {
  const facts = refunds.facts
  refunds.facts = null
  const tz = scope.tz
  if (facts) {
    for (let i = 0; i < facts.length; i++) {
      const f = facts[i] as RefundFacts
      facts[i] = HANDED_OUT
      yield refundRow(scope, f, tz)
    }
    return
  }
  for await (const batch of scope.history())
    for (const r of batch)
      if (r.type === 'refund') yield refundRow(scope, refundFactsOf(r, scope.markOf(r)), tz)
}

/** What a fact handed out is replaced by, so that the list no longer holds it. */
const HANDED_OUT = {} as RefundFacts

function refundRow(scope: MonthScope, r: RefundFacts, tz: string): ExportRow {
  const currency = normalizeCurrency(r.currency)
  const { mark } = r
  return RF.row({
    created: dateCell(r.createdAt, tz),
    id: r.resourceId,
    chargeId: r.chargeId,
    storeId: r.storeId,
    storeName: scope.storeName(r.storeId),
    mode: r.mode,
    status: r.status,
    currency,
    amount: amountCell(r.amount, currency),
    reconciliation: mark?.state === 'reconciled' ? 'reconciled' : 'unreconciled',
    changed: yesNo(r.changed),
    note: mark?.note ? clipText(mark.note) : null,
    cardholder: r.cardholderName || null,
    orderRef: r.orderRef,
    matched: matchedText(mark, scope.linkedRows, tz),
  })
}
