/**
 * Month summary of one accounting period: totals per store × currency × mode and a daily series for the
 * chart. Currencies are never mixed: every figure is an integer in the minor unit of its row's currency.
 */
import type { Mode } from '../../electron/shared/payment-api'
import type { ChargeRecord, HistoryRecord, MarkRecord, RecordDigest, RecordKey } from '../domain/records'
import { assertMinorUnits, normalizeCurrency } from '../domain/currency'
import { isSuccessful } from './cross-check'
import { fingerprintOf } from '../domain/fingerprint'
import { dayRange, daysOfPeriod, periodRange, type EpochRange } from '../domain/periods'

/** What the summary reads of a charge-list record (its fee): a whole charge has it, so has a ChargeDigest. */
export type FeeFacts = Pick<
  ChargeRecord,
  'id' | 'createdAt' | 'storeId' | 'status' | 'chargedCurrency' | 'feeAmount' | 'feeCurrency' | 'mode'
>

export interface MonthSummaryInput {
  history: readonly HistoryRecord[]
  charges: readonly FeeFacts[]
  marks: ReadonlyMap<RecordKey, MarkRecord>
  timeZone: string
  period: string
}

/** A day digest that carries its record's amount: all the summary reads of a record. */
export type AmountDigest = RecordDigest & { amount: number }

/** The summary's input from the day digests of the month instead of its whole records. */
export interface DigestSummaryInput extends Omit<MonthSummaryInput, 'history'> {
  digests: readonly AmountDigest[]
}

/** What the summary reads of each history record (a HistoryRecord and an AmountDigest both have it). */
type SummaryFacts = Pick<
  HistoryRecord,
  'key' | 'createdAt' | 'storeId' | 'type' | 'status' | 'currency' | 'mode' | 'amount'
>

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
  return summarize(input, input.history, fingerprintOf)
}

/**
 * The same summary from the month's day digests: figure for figure what summarizeMonth gives over the
 * records the digests were made from (the digest's fingerprint is fingerprintOf of its record).
 */
export function summarizeDigests(input: DigestSummaryInput): MonthSummary {
  return summarize(input, input.digests, (d) => d.fingerprint)
}

function summarize<R extends SummaryFacts>(
  input: Omit<MonthSummaryInput, 'history'>,
  records: readonly R[],
  fingerprint: (r: R) => string,
): MonthSummary {
  const month = new MonthTally(input.period, input.timeZone)
  for (const record of records) month.addRecord(record, input.marks.get(record.key), fingerprint)
  for (const charge of input.charges) month.addFee(charge)
  return month.summary()
}

interface Series {
  currency: string
  mode: Mode
  gross: number[]
  refunds: number[]
  fees: number[]
}

/** The rows and daily series of one period, a record and a fee at a time. */
class MonthTally {
  readonly range: EpochRange
  readonly #days: string[]
  readonly #starts: number[]
  /** Rows by store, then currency, then mode: three lookups cost less than building a joint key per record. */
  readonly #rows = new Map<string, Map<string, Partial<Record<Mode, MonthSummaryRow>>>>()
  readonly #daily = new Map<string, Partial<Record<Mode, Series>>>()

  constructor(
    readonly period: string,
    readonly timeZone: string,
  ) {
    this.range = periodRange(period, timeZone)
    this.#days = daysOfPeriod(period)
    this.#starts = this.#days.map((d) => dayRange(d, timeZone).from)
  }

  #inPeriod(t: number): boolean {
    return t >= this.range.from && t < this.range.to
  }

  #rowFor(storeId: string, currency: string, mode: Mode): MonthSummaryRow {
    let byCurrency = this.#rows.get(storeId)
    if (!byCurrency)
      this.#rows.set(storeId, (byCurrency = new Map<string, Partial<Record<Mode, MonthSummaryRow>>>()))
    let byMode = byCurrency.get(currency)
    if (!byMode) byCurrency.set(currency, (byMode = {}))
    return (byMode[mode] ??= emptyRow(storeId, currency, mode))
  }

  #seriesFor(currency: string, mode: Mode): Series {
    let byMode = this.#daily.get(currency)
    if (!byMode) this.#daily.set(currency, (byMode = {}))
    return (byMode[mode] ??= this.#newSeries(currency, mode))
  }

  #newSeries(currency: string, mode: Mode): Series {
    const zeros = () => this.#days.map(() => 0)
    return { currency, mode, gross: zeros(), refunds: zeros(), fees: zeros() }
  }

  /** `fingerprint` is asked only of a record reconciled by `mark`. */
  addRecord<R extends SummaryFacts>(
    record: R,
    mark: MarkRecord | undefined,
    fingerprint: (r: R) => string,
  ): void {
    if (!this.#inPeriod(record.createdAt)) return
    const currency = normalizeCurrency(record.currency)
    const row = this.#rowFor(record.storeId, currency, record.mode)
    if (!isSuccessful(record.status)) {
      row.otherStatusCount++
      return
    }
    if (!Number.isSafeInteger(record.amount)) assertMinorUnits(record.amount, `amount of ${record.key}`)
    const series = this.#seriesFor(currency, record.mode)
    const i = dayIndex(this.#starts, record.createdAt)
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
    if (mark?.state === 'reconciled') {
      row.reconciledCount++
      row.reconciledSum += signed
      // A reconciled mark without a fingerprint cannot prove it still matches: it counts as changed.
      if (mark.fingerprint === null || mark.fingerprint !== fingerprint(record))
        row.changedSinceReconciledCount++
    } else {
      row.unreconciledCount++
      row.unreconciledSum += signed
    }
  }

  addFee(charge: FeeFacts): void {
    if (!this.#inPeriod(charge.createdAt) || !isSuccessful(charge.status) || charge.feeAmount === null) return
    assertMinorUnits(charge.feeAmount, `fee of ${charge.id}`)
    if (charge.feeCurrency === null) {
      this.#rowFor(charge.storeId, normalizeCurrency(charge.chargedCurrency), charge.mode)
        .feeUnknownCurrencyCount++
      return
    }
    // A fee in another currency than the charge belongs to that currency's row, never converted.
    const feeCurrency = normalizeCurrency(charge.feeCurrency)
    this.#rowFor(charge.storeId, feeCurrency, charge.mode).feeSum += charge.feeAmount
    const fees = this.#seriesFor(feeCurrency, charge.mode).fees
    const day = dayIndex(this.#starts, charge.createdAt)
    fees[day] = (fees[day] ?? 0) + charge.feeAmount
  }

  summary(): MonthSummary {
    const out = [...this.#rows.values()].flatMap((byCurrency) =>
      [...byCurrency.values()].flatMap((byMode) => Object.values(byMode)),
    )
    for (const row of out) {
      row.net = row.chargeSum - row.refundSum - row.feeSum
      for (const n of [
        row.chargeSum,
        row.refundSum,
        row.feeSum,
        row.net,
        row.reconciledSum,
        row.unreconciledSum,
      ])
        assertMinorUnits(n, `sum of ${row.storeId} ${row.currency}`)
    }
    out.sort(
      (a, b) => compare(a.storeId, b.storeId) || compare(a.currency, b.currency) || compare(a.mode, b.mode),
    )
    const series = [...this.#daily.values()]
      .flatMap((byMode) => Object.values(byMode))
      .sort((a, b) => compare(a.currency, b.currency) || compare(a.mode, b.mode))
    const daily = series.flatMap((s) =>
      this.#days.map((day, i): DailyPoint => ({
        day,
        currency: s.currency,
        mode: s.mode,
        gross: s.gross[i] ?? 0,
        refunds: s.refunds[i] ?? 0,
        fees: s.fees[i] ?? 0,
      })),
    )
    return { period: this.period, timeZone: this.timeZone, range: this.range, rows: out, daily }
  }
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
