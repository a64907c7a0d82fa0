/**
 * Month summary of one accounting period: totals per store × currency × mode and a daily series for the
 * chart. Currencies are never mixed: every figure is an integer in the minor unit of its row's currency.
 */
import type { Mode } from '../../electron/shared/payment-api'
import type { ChargeRecord, HistoryRecord, MarkRecord, RecordKey } from '../domain/records'
import { assertMinorUnits, normalizeCurrency } from '../domain/currency'
import { isSuccessful } from './cross-check'
import { hasChangedSinceReconciled } from '../domain/fingerprint'
import { dayRange, daysOfPeriod, periodRange, type EpochRange } from '../domain/periods'

export interface MonthSummaryInput {
  history: readonly HistoryRecord[]
  charges: readonly ChargeRecord[]
  marks: ReadonlyMap<RecordKey, MarkRecord>
  timeZone: string
  period: string
}

export interface MonthSummaryRow {
  storeId: string
  currency: string
  mode: Mode
  /** Successful history charges and their charged amounts. */
  chargeCount: number
  chargeSum: number
  /** Successful history refunds (dated by the refund itself, not its charge). */
  refundCount: number
  refundSum: number
  /** Fees of successful charge-list charges whose fee is in this row's currency. */
  feeSum: number
  /** Fees that could not be placed: the API gave an amount without a currency. */
  feeUnknownCurrencyCount: number
  /** chargeSum − refundSum − feeSum. */
  net: number
  /** Counted records (successful charges and refunds) by mark; sums are signed: refunds negative. */
  reconciledCount: number
  reconciledSum: number
  unreconciledCount: number
  unreconciledSum: number
  /** Reconciled records whose data changed after the mark was made. */
  changedSinceReconciledCount: number
  /** History records of the period with a status other than successful: counted, never summed. */
  otherStatusCount: number
}

export interface DailyPoint {
  day: string
  currency: string
  mode: Mode
  /** Successful charges of the day. */
  gross: number
  /** Successful refunds of the day (positive). */
  refunds: number
  /** Fees of the day's successful charges in this currency (positive); net of the day = gross − refunds − fees. */
  fees: number
}

export interface MonthSummary {
  period: string
  timeZone: string
  range: EpochRange
  rows: MonthSummaryRow[]
  /** Every day of the period for each currency × mode that has counted records (zeros filled in). */
  daily: DailyPoint[]
}

function emptyRow(storeId: string, currency: string, mode: Mode): MonthSummaryRow {
  return {
    storeId,
    currency,
    mode,
    chargeCount: 0,
    chargeSum: 0,
    refundCount: 0,
    refundSum: 0,
    feeSum: 0,
    feeUnknownCurrencyCount: 0,
    net: 0,
    reconciledCount: 0,
    reconciledSum: 0,
    unreconciledCount: 0,
    unreconciledSum: 0,
    changedSinceReconciledCount: 0,
    otherStatusCount: 0,
  }
}

/** Index of the day whose [start, next start) holds t; starts are ascending. */
function dayIndex(starts: readonly number[], t: number): number {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if ((starts[mid] ?? Infinity) <= t) lo = mid
    else hi = mid - 1
  }
  return lo
}

/**
 * Only records whose createdAt falls in the period (accounting zone) count. Only `successful` charges and
 * refunds count toward sums: the seed names no other status, and a pending or failed one moved no money.
 * Other statuses are counted in `otherStatusCount`, so nothing disappears silently.
 */
export function summarizeMonth(input: MonthSummaryInput): MonthSummary {
  const range = periodRange(input.period, input.timeZone)
  const days = daysOfPeriod(input.period)
  const starts = days.map((d) => dayRange(d, input.timeZone).from)
  const inPeriod = (t: number): boolean => t >= range.from && t < range.to

  const rows = new Map<string, MonthSummaryRow>()
  const rowFor = (storeId: string, currency: string, mode: Mode): MonthSummaryRow => {
    const key = JSON.stringify([storeId, currency, mode])
    let row = rows.get(key)
    if (!row) {
      row = emptyRow(storeId, currency, mode)
      rows.set(key, row)
    }
    return row
  }
  const daily = new Map<
    string,
    { currency: string; mode: Mode; gross: number[]; refunds: number[]; fees: number[] }
  >()
  const seriesFor = (currency: string, mode: Mode) => {
    const key = JSON.stringify([currency, mode])
    let series = daily.get(key)
    if (!series) {
      series = {
        currency,
        mode,
        gross: days.map(() => 0),
        refunds: days.map(() => 0),
        fees: days.map(() => 0),
      }
      daily.set(key, series)
    }
    return series
  }

  for (const record of input.history) {
    if (!inPeriod(record.createdAt)) continue
    const currency = normalizeCurrency(record.currency)
    const row = rowFor(record.storeId, currency, record.mode)
    if (!isSuccessful(record.status)) {
      row.otherStatusCount++
      continue
    }
    assertMinorUnits(record.amount, `amount of ${record.key}`)
    const series = seriesFor(currency, record.mode)
    const i = dayIndex(starts, record.createdAt)
    let signed: number
    if (record.type === 'refund') {
      row.refundCount++
      row.refundSum += record.amount
      series.refunds[i] = (series.refunds[i] ?? 0) + record.amount
      signed = -record.amount
    } else {
      row.chargeCount++
      row.chargeSum += record.amount
      series.gross[i] = (series.gross[i] ?? 0) + record.amount
      signed = record.amount
    }
    const mark = input.marks.get(record.key)
    if (mark?.state === 'reconciled') {
      row.reconciledCount++
      row.reconciledSum += signed
      if (hasChangedSinceReconciled(mark, record)) row.changedSinceReconciledCount++
    } else {
      row.unreconciledCount++
      row.unreconciledSum += signed
    }
  }

  for (const charge of input.charges) {
    if (!inPeriod(charge.createdAt) || !isSuccessful(charge.status) || charge.feeAmount === null) continue
    assertMinorUnits(charge.feeAmount, `fee of ${charge.id}`)
    if (charge.feeCurrency === null) {
      rowFor(charge.storeId, normalizeCurrency(charge.chargedCurrency), charge.mode).feeUnknownCurrencyCount++
      continue
    }
    // A fee in another currency than the charge belongs to that currency's row, never converted.
    const feeCurrency = normalizeCurrency(charge.feeCurrency)
    rowFor(charge.storeId, feeCurrency, charge.mode).feeSum += charge.feeAmount
    const fees = seriesFor(feeCurrency, charge.mode).fees
    const day = dayIndex(starts, charge.createdAt)
    fees[day] = (fees[day] ?? 0) + charge.feeAmount
  }

  const out = [...rows.values()]
  for (const row of out) {
    row.net = row.chargeSum - row.refundSum - row.feeSum
    for (const n of [
      row.chargeSum,
      row.refundSum,
      row.feeSum,
      row.net,
      row.reconciledSum,
      row.unreconciledSum,
    ]) {
      assertMinorUnits(n, `sum of ${row.storeId} ${row.currency}`)
    }
  }
  out.sort(
    (a, b) => compare(a.storeId, b.storeId) || compare(a.currency, b.currency) || compare(a.mode, b.mode),
  )

  const points: DailyPoint[] = []
  const series = [...daily.values()].sort(
    (a, b) => compare(a.currency, b.currency) || compare(a.mode, b.mode),
  )
  for (const s of series) {
    days.forEach((day, i) => {
      points.push({
        day,
        currency: s.currency,
        mode: s.mode,
        gross: s.gross[i] ?? 0,
        refunds: s.refunds[i] ?? 0,
        fees: s.fees[i] ?? 0,
      })
    })
  }
  return { period: input.period, timeZone: input.timeZone, range, rows: out, daily: points }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The figures of a summary row that add up across stores (all but the row's identity). */
export type SummaryFigures = Omit<MonthSummaryRow, 'storeId' | 'currency' | 'mode'>

export interface CurrencyTotal extends SummaryFigures {
  currency: string
  mode: Mode
}

/**
 * The month's totals per currency × mode, summed over stores: what the Month-end screen, the checklist
 * and the workbook's "Totals per currency" show. Live and test stay apart (test money is not money), and a
 * currency is never added to another. Live first, then by currency.
 */
export function totalsByCurrency(rows: readonly MonthSummaryRow[]): CurrencyTotal[] {
  const totals = new Map<string, CurrencyTotal>()
  for (const row of rows) {
    const key = JSON.stringify([row.currency, row.mode])
    let total = totals.get(key)
    if (!total) {
      total = { ...emptyRow('', row.currency, row.mode) }
      delete (total as Partial<MonthSummaryRow>).storeId
      totals.set(key, total)
    }
    for (const field of FIGURE_FIELDS) total[field] += row[field]
  }
  for (const t of totals.values()) for (const field of FIGURE_FIELDS) assertMinorUnits(t[field], field)
  return [...totals.values()].sort(
    (a, b) => compare(a.mode, b.mode) || compare(a.currency, b.currency), // 'live' < 'test': live first
  )
}

/** Every additive figure of a summary row, in the workbook's column order. */
export const FIGURE_FIELDS = [
  'chargeCount',
  'chargeSum',
  'refundCount',
  'refundSum',
  'feeSum',
  'feeUnknownCurrencyCount',
  'net',
  'reconciledCount',
  'reconciledSum',
  'unreconciledCount',
  'unreconciledSum',
  'changedSinceReconciledCount',
  'otherStatusCount',
] as const satisfies readonly (keyof SummaryFigures)[]
