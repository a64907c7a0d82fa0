/**
 * The shapes matching works with (proposals, ambiguities, explanations, the payout model) and the small
 * helpers the sales and cash sides share. Pure.
 */
import type { ImportedRow } from '../import/profiles'
import type { ChargeRecord, HistoryRecord, RecordKey } from '../domain/records'

export type MatchRule = 'reference' | 'amount_date' | 'payout'
export type MatchSide = 'sales' | 'cash'

/** Why a row got its outcome: a code (i18n `match.explain.<code>`) and its parameters. */
export interface Explanation {
  code: ExplanationCode
  /** Amount parameters (`AMOUNT_PARAMS`) are minor units of `currency`. */
  params: Record<string, string | number>
}

export type ExplanationCode =
  | 'reference_exact'
  | 'reference_refunds'
  | 'reference_refund_missing'
  | 'reference_amount_differs'
  | 'reference_lines_summed'
  | 'reference_differs_shipping'
  | 'reference_differs_fee'
  | 'reference_differs_shipping_fee'
  | 'reference_several'
  | 'reference_unavailable'
  | 'amount_date'
  | 'amount_date_several'
  | 'payout'
  | 'payout_several'
  | 'payout_nearest'
  | 'contested'
  | 'no_candidate'
  | 'withdrawal'
  | 'method_excluded'
  | 'no_payout'

/** Parameters holding amounts in minor units (the view formats them in major units). */
export const AMOUNT_PARAMS = [
  'amount',
  'recordAmount',
  'refunded',
  'charged',
  'refundsTotal',
  'fees',
  'transferFee',
  'net',
  'difference',
  'extra',
] as const

export interface MatchProposal {
  rowLine: number
  keys: RecordKey[]
  rule: MatchRule
  side: MatchSide
  /** 0..1; only exact evidence reaches DEFAULT_THRESHOLD. */
  confidence: number
  /** English, for logs and tests; the view shows `explanation` in the user's language. */
  reason: string
  explanation: Explanation
}

/** One payout a deposit could be (cash side): the whole set of records, not truncated. */
export interface PayoutOption {
  from: string
  to: string
  store: string
  keys: RecordKey[]
  /** Expected deposit (minor units) and deposit − expected. */
  net: number
  difference: number
}

export interface AmbiguousMatch {
  rowLine: number
  /** Possible records (at most `MAX_CANDIDATES`); the accountant picks. */
  candidates: RecordKey[]
  rule: MatchRule
  side: MatchSide
  reason: string
  explanation: Explanation
  /** Cash side: the payouts to choose from, each complete (fitting ones, or the nearest by difference). */
  options?: PayoutOption[]
}

/**
 * How the payment service pays out (real-service.md "Payouts"): per period, net of fees, less a transfer
 * fee of ¥400 + tax, a payout under the minimum carried over to the next period.
 */
export interface PayoutModel {
  /** Days of the month that close a period (31 = month end); empty = any run of days ("any"). */
  cutoffDays: number[]
  /** One payout per store (true) or all stores merged. */
  perStore: boolean
  /** Transfer fee, minor units, before tax. */
  transferFee: number
  /** Consumption tax on the transfer fee, percent. */
  transferFeeTaxPercent: number
  /** A period netting less than this is carried over to the next (minor units). */
  minimumPayout: number
  /** Days between a period's last day and its deposit. */
  minLagDays: number
  maxLagDays: number
  /** Allowed |deposit − expected| in minor units; a difference is shown, and lowers confidence. */
  amountTolerance: number
}

export const DEFAULT_PAYOUT_MODEL: PayoutModel = {
  cutoffDays: [],
  perStore: true,
  transferFee: 400,
  transferFeeTaxPercent: 10,
  minimumPayout: 10_000,
  minLagDays: 1,
  maxLagDays: 10,
  amountTolerance: 0,
}

export interface MatchInput {
  rows: readonly ImportedRow[]
  history: readonly HistoryRecord[]
  charges: readonly ChargeRecord[]
  timeZone: string
  /** Amount + day rule: ± days between row and record, counted in the accounting zone. */
  dateToleranceDays?: number
  payout?: Partial<PayoutModel>
  /** Records already linked on the sales side (not offered to order rows again). */
  salesTaken?: ReadonlySet<RecordKey>
  /** Records already paid out by an accepted deposit (not offered to bank rows again). */
  cashTaken?: ReadonlySet<RecordKey>
  /** Pairs the accountant rejected, as `rejectionKey(line, keys)`: never proposed again. */
  rejected?: ReadonlySet<string>
}

export interface MatchResult {
  proposals: MatchProposal[]
  ambiguous: AmbiguousMatch[]
  /** Lines of rows with neither a proposal nor an ambiguity. */
  unmatchedRows: number[]
  /** Why each unmatched row is unmatched. */
  unmatchedReasons: Map<number, Explanation>
  /** Successful records no proposal uses (they may still be candidates of an ambiguity). */
  unmatchedRecords: RecordKey[]
}

export const MAX_CANDIDATES = 20
/** What "Accept all" uses by default; only exact evidence reaches it. */
export const DEFAULT_THRESHOLD = 0.9
export const DAY_MS = 86_400_000
/** Longest run of days one payout can cover when the schedule is "any". */
export const MAX_PERIOD_DAYS = 31

export const CONFIDENCE = {
  reference: 1,
  /** Same number once a known decoration is removed, or the lines' sum as the total: still exact. */
  referenceDecorated: 0.95,
  referenceAmountDiffers: 0.5,
  /** The difference is the order's shipping or fee column: named, and still for a person to accept. */
  referenceDiffersByColumn: 0.6,
  amountDateBest: 0.7,
  amountDateWorst: 0.4,
  /** The record carries an order number and the row none: weaker still. */
  amountDateRecordHasRef: 0.55,
  payoutScheduled: 0.95,
  // Exact to the yen, net of fees and the transfer fee, and the only run of days that is: exact evidence.
  payoutAnyWindow: 0.95,
  payoutWithinTolerance: 0.6,
} as const

export function rejectionKey(rowLine: number, keys: readonly RecordKey[]): string {
  return `${rowLine}|${[...keys].sort().join(',')}`
}

export interface Candidate {
  record: HistoryRecord
  /** Signed: refunds negative, like imported refund rows. */
  signed: number
  currency: string
  dayNumber: number
  hasRef: boolean
}

/** A proposal before it is settled against the other claims on its records. */
export type Claim = Omit<MatchProposal, 'rowLine'> & { row: ImportedRow }

/** Days since epoch of a `YYYY-MM-DD`: day distances without time-zone arithmetic. */

export function dayNumberOf(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / DAY_MS
}

export function dayOfNumber(n: number): string {
  return new Date(n * DAY_MS).toISOString().slice(0, 10)
}

export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

export function major(amount: number, currency: string): string {
  return `${amount} ${currency} (minor units)`
}

/** Index of the first candidate (sorted by day) on or after `dayNumber`. */
export function firstAtOrAfter(list: readonly Candidate[], dayNumber: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((list[mid]?.dayNumber ?? Infinity) < dayNumber) lo = mid + 1
    else hi = mid
  }
  return lo
}

export function round(confidence: number): number {
  return Math.round(confidence * 100) / 100
}
