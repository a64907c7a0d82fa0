/**
 * Matching (消込) of imported order and bank rows to history records (issues 12, 21). Pure and index-based.
 *
 * Two kinds of link, which coexist on one record:
 * - sales side: an order (all the lines of one order number) ↔ its charge (and the refunds the order
 *   names). Only exact evidence — order number and amount — reaches the default acceptance threshold
 *   (0.9); amount and day alone stay below it, and any conflicting evidence (another order number, a
 *   payment method other than the charge's, test mode, another currency) rules a pair out.
 * - cash side: a bank deposit ↔ the records of the payout it is: the successful live charges − refunds −
 *   fees of one or more days (per store or merged), less the transfer fee, under a payout model.
 *
 * Ambiguity is never guessed: a row with several equally good candidates is listed with them, and every
 * row that ends unmatched says why (`explanation`), in codes the view translates.
 */
import { createDayResolver } from '../domain/local-day'
import type { ImportedRow } from '../import/profiles'
import type { ChargeRecord, HistoryRecord, RecordKey } from '../domain/records'
import { normalizeCurrency } from '../domain/currency'
import { isSuccessful } from './cross-check'

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
const DAY_MS = 86_400_000
/** Longest run of days one payout can cover when the schedule is "any". */
const MAX_PERIOD_DAYS = 31

const CONFIDENCE = {
  reference: 1,
  referenceAmountDiffers: 0.5,
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

interface Candidate {
  record: HistoryRecord
  /** Signed: refunds negative, like imported refund rows. */
  signed: number
  currency: string
  dayNumber: number
  hasRef: boolean
}

interface Claim {
  row: ImportedRow
  keys: RecordKey[]
  rule: MatchRule
  side: MatchSide
  confidence: number
  reason: string
  explanation: Explanation
}

/** Days since epoch of a `YYYY-MM-DD`: day distances without time-zone arithmetic. */
function dayNumberOf(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / DAY_MS
}

function dayOfNumber(n: number): string {
  return new Date(n * DAY_MS).toISOString().slice(0, 10)
}

/**
 * An order number as compared: width-folded (NFKC), upper case, every dash-like mark ("ー", "‐", "−", "–")
 * a hyphen, no "#" or spaces, and an all-digit number without leading zeros ("0004918" = "4918").
 */
export function normalizeRef(ref: string): string {
  const folded = /[^ -~]/.test(ref) ? ref.normalize('NFKC') : ref
  const key = folded
    .toUpperCase()
    .replace(/[\u2010-\u2015\u2212\u30fc\uff0d\u2043\ufe63]/g, '-')
    .replace(/[#\s]/g, '')
  return /^\d+$/.test(key) ? key.replace(/^0+(?=\d)/, '') : key
}

export type PaymentFamily = 'card' | 'konbini' | 'cod' | 'bank_transfer' | 'paidy' | 'online'

const METHOD_PATTERNS: readonly [PaymentFamily, RegExp][] = [
  ['cod', /cash on delivery|\bcod\b|代金引換|代引/i],
  ['konbini', /konbini|コンビニ|convenience|ファミリーマート|ローソン|セブン/i],
  ['bank_transfer', /bank ?(deposit|transfer)|銀行振込|振込|bank_transfer/i],
  ['paidy', /paidy|後払い|あと払い/i],
  ['online', /paypay|alipay|wechat|楽天ペイ|d払い|au ?pay|line ?pay|qr/i],
  ['card', /card|クレジット|カード|visa|master|jcb|amex|shopify payments|apple ?pay|google ?pay/i],
]

/** The family of an order's payment method text; null when the text says nothing we recognise. */
export function paymentFamilyOf(method: string | undefined | null): PaymentFamily | null {
  if (!method) return null
  const text = method.normalize('NFKC')
  for (const [family, re] of METHOD_PATTERNS) if (re.test(text)) return family
  return null
}

/** Payment types (history `payment_type`) a family may be paid with; COD never goes through the service. */
const FAMILY_TYPES: Readonly<Record<PaymentFamily, readonly string[]>> = {
  card: ['card', 'apple_pay'],
  konbini: ['konbini'],
  cod: [],
  bank_transfer: ['bank_transfer'],
  paidy: ['paidy'],
  online: ['online', 'qr_scan'],
}

function paymentTypeOf(record: HistoryRecord): string {
  const raw = record.raw as { payment_type?: unknown }
  return typeof raw.payment_type === 'string' ? raw.payment_type : 'card'
}

function methodAllows(family: PaymentFamily | null, record: HistoryRecord): boolean {
  return family === null || FAMILY_TYPES[family].includes(paymentTypeOf(record))
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

function major(amount: number, currency: string): string {
  return `${amount} ${currency} (minor units)`
}

/**
 * Settles claims of one rule, highest confidence first: a claim whose records are free is accepted; claims
 * of equal confidence sharing a record are all ambiguous (and the record is held back from lower ones);
 * a claim on a record already taken loses (its row stays unmatched, explained).
 */
function settle(
  claims: Claim[],
  taken: Set<RecordKey>,
  result: MatchResult,
  settled: Set<number>,
  lost: Map<number, Explanation>,
): void {
  claims.sort((a, b) => b.confidence - a.confidence || a.row.line - b.row.line)
  let i = 0
  while (i < claims.length) {
    let j = i
    const confidence = claims[i]?.confidence
    while (j < claims.length && claims[j]?.confidence === confidence) j++
    const group = claims.slice(i, j)
    const uses = new Map<RecordKey, number>()
    for (const claim of group) {
      if (claim.keys.some((k) => taken.has(k))) continue
      for (const key of claim.keys) uses.set(key, (uses.get(key) ?? 0) + 1)
    }
    const contested: RecordKey[] = []
    for (const claim of group) {
      settled.add(claim.row.line)
      if (claim.keys.some((k) => taken.has(k))) {
        lost.set(claim.row.line, { code: 'contested', params: {} })
        continue
      }
      if (claim.keys.some((k) => (uses.get(k) ?? 0) > 1)) {
        result.ambiguous.push({
          rowLine: claim.row.line,
          candidates: claim.keys.slice(0, MAX_CANDIDATES),
          rule: claim.rule,
          side: claim.side,
          reason: `${claim.reason}; another row claims the same record with equal confidence`,
          explanation: { code: 'contested', params: {} },
        })
        contested.push(...claim.keys)
        continue
      }
      for (const key of claim.keys) taken.add(key)
      result.proposals.push({
        rowLine: claim.row.line,
        keys: claim.keys,
        rule: claim.rule,
        side: claim.side,
        confidence: claim.confidence,
        reason: claim.reason,
        explanation: claim.explanation,
      })
    }
    for (const key of contested) taken.add(key)
    i = j
  }
}

/**
 * Proposals for one imported file (row lines must be unique, so call once per file). Every row ends in
 * exactly one of proposals, ambiguous, unmatchedRows. Order rows are matched on the sales side, bank rows
 * on the cash side; each side has its own "taken" records, so an order match never hides a deposit.
 */
export function proposeMatches(input: MatchInput): MatchResult {
  const { rows, timeZone } = input
  const tolerance = Math.max(0, Math.floor(input.dateToleranceDays ?? 3))
  const model: PayoutModel = { ...DEFAULT_PAYOUT_MODEL, ...input.payout }
  const rejected = input.rejected ?? new Set<string>()
  const result: MatchResult = {
    proposals: [],
    ambiguous: [],
    unmatchedRows: [],
    unmatchedReasons: new Map(),
    unmatchedRecords: [],
  }
  const reasons = result.unmatchedReasons
  const dayOfInstant = createDayResolver(timeZone)

  // References: merchant_transaction_id of the charge list, order numbers in history metadata.
  const chargeIdsByRef = new Map<string, string[]>()
  const refsOfCharge = new Map<string, string[]>()
  const addRef = (ref: string | null, chargeId: string): void => {
    if (ref === null) return
    const key = normalizeRef(ref)
    if (key === '') return
    const ids = chargeIdsByRef.get(key)
    if (!ids) chargeIdsByRef.set(key, [chargeId])
    else if (!ids.includes(chargeId)) ids.push(chargeId)
    push(refsOfCharge, chargeId, key)
  }
  const chargeRecords = new Map<string, ChargeRecord>()
  for (const charge of input.charges) {
    addRef(charge.merchantTransactionId, charge.id)
    chargeRecords.set(charge.id, charge)
  }
  for (const record of input.history) if (record.type === 'charge') addRef(record.orderRef, record.chargeId)

  // Candidates: successful live charges and refunds. Test-mode records never pay out and never match.
  const candidates: Candidate[] = []
  const chargesById = new Map<string, Candidate>()
  const refundsByCharge = new Map<string, Candidate[]>()
  for (const record of input.history) {
    if (!isSuccessful(record.status) || record.mode !== 'live') continue
    const currency = normalizeCurrency(record.currency)
    const candidate: Candidate = {
      record,
      signed: record.type === 'refund' ? -record.amount : record.amount,
      currency,
      dayNumber: dayNumberOf(dayOfInstant(record.createdAt)),
      hasRef: refsOfCharge.has(record.chargeId),
    }
    candidates.push(candidate)
    if (record.type === 'refund') push(refundsByCharge, record.chargeId, candidate)
    else chargesById.set(record.chargeId, candidate)
  }

  const orderRows = rows.filter((r) => r.source === 'orders')
  const bankRows = rows.filter((r) => r.source === 'bank')
  const settled = new Set<number>()
  const lost = new Map<number, Explanation>()

  // ---- Sales side ----
  const salesTaken = new Set<RecordKey>(input.salesTaken ?? [])
  // Rejection keys are strings: built only when something was rejected (50k rows stay cheap).
  const isRejected = (line: number, keys: readonly RecordKey[]): boolean =>
    rejected.size > 0 && rejected.has(rejectionKey(line, keys))
  const isOpen = (c: Candidate, row: ImportedRow): boolean =>
    !salesTaken.has(c.record.key) && !isRejected(row.line, [c.record.key])

  // (a) Order number.
  const referenceClaims: Claim[] = []
  const unknownRef = new Set<number>()
  for (const row of orderRows) {
    const ref = row.orderNumber === null ? '' : normalizeRef(row.orderNumber)
    const chargeIds = ref === '' ? undefined : chargeIdsByRef.get(ref)
    if (!chargeIds) {
      if (ref !== '') unknownRef.add(row.line)
      continue
    }
    settled.add(row.line)
    const currency = normalizeCurrency(row.currency)
    const family = paymentFamilyOf(row.paymentMethod)
    const isRefund = row.amount < 0
    const what = isRefund ? 'refund' : 'charge'
    const all: Candidate[] = []
    for (const id of chargeIds) {
      if (isRefund) all.push(...(refundsByCharge.get(id) ?? []))
      else {
        const c = chargesById.get(id)
        if (c) all.push(c)
      }
    }
    const pool = all.filter(
      (c) => isOpen(c, row) && c.currency === currency && methodAllows(family, c.record),
    )
    const exact = pool.filter((c) => c.signed === row.amount)
    const params = { ref, amount: row.amount, currency }
    if (exact.length === 1 && exact[0]) {
      const c = exact[0]
      const keys: RecordKey[] = [c.record.key]
      let explanation: Explanation = { code: 'reference_exact', params }
      // The order names what was refunded (Shopify "Refunded Amount"): the charge's refunds of that sum.
      if (!isRefund && row.refunded) {
        const refunds = (refundsByCharge.get(c.record.chargeId) ?? []).filter((r) => isOpen(r, row))
        const sum = refunds.reduce((a, r) => a - r.signed, 0)
        if (refunds.length > 0 && sum === row.refunded) {
          keys.push(...refunds.map((r) => r.record.key))
          explanation = { code: 'reference_refunds', params: { ...params, refunded: row.refunded } }
        } else {
          explanation = { code: 'reference_refund_missing', params: { ...params, refunded: row.refunded } }
        }
      }
      referenceClaims.push({
        row,
        keys,
        rule: 'reference',
        side: 'sales',
        confidence: CONFIDENCE.reference,
        reason: `order number ${ref} and amount ${major(row.amount, currency)} match the ${what}`,
        explanation,
      })
    } else if (exact.length === 0 && pool.length === 1 && pool[0]) {
      // Same order, different amount: proposed below the threshold, so a person looks.
      const c = pool[0]
      referenceClaims.push({
        row,
        keys: [c.record.key],
        rule: 'reference',
        side: 'sales',
        confidence: CONFIDENCE.referenceAmountDiffers,
        reason: `order number ${ref} matches the ${what}, but the amount differs: ${major(row.amount, currency)} vs ${major(c.signed, c.currency)}`,
        explanation: {
          code: 'reference_amount_differs',
          params: { ...params, recordAmount: c.signed, difference: row.amount - c.signed },
        },
      })
    } else if (exact.length > 1 || pool.length > 1) {
      const list = exact.length > 1 ? exact : pool
      result.ambiguous.push({
        rowLine: row.line,
        candidates: list.slice(0, MAX_CANDIDATES).map((c) => c.record.key),
        rule: 'reference',
        side: 'sales',
        reason: `order number ${ref} matches ${list.length} ${what}s`,
        explanation: { code: 'reference_several', params: { ...params, count: list.length } },
      })
    } else {
      // Known order, but its records are taken, rejected, of another method, mode or currency.
      const excludedByMethod = all.some((c) => c.currency === currency && !methodAllows(family, c.record))
      reasons.set(
        row.line,
        excludedByMethod
          ? { code: 'method_excluded', params: { ...params, method: row.paymentMethod ?? '' } }
          : { code: 'reference_unavailable', params },
      )
    }
  }
  settle(referenceClaims, salesTaken, result, settled, lost)

  // (b) Amount + currency + day within ± tolerance, never against a record with another order number,
  // of another payment method, and never confident enough for "accept all".
  const byAmount = new Map<string, Candidate[]>()
  for (const c of candidates) {
    if (!salesTaken.has(c.record.key)) push(byAmount, `${c.currency}|${c.signed}`, c)
  }
  for (const list of byAmount.values()) list.sort((a, b) => a.dayNumber - b.dayNumber)
  const amountClaims: Claim[] = []
  for (const row of orderRows) {
    if (settled.has(row.line)) continue
    const currency = normalizeCurrency(row.currency)
    const family = paymentFamilyOf(row.paymentMethod)
    if (family === 'cod') {
      reasons.set(row.line, { code: 'method_excluded', params: { method: row.paymentMethod ?? '' } })
      continue
    }
    const list = byAmount.get(`${currency}|${row.amount}`) ?? []
    const rowDay = dayNumberOf(row.day)
    const window = list.slice(
      firstAtOrAfter(list, rowDay - tolerance),
      firstAtOrAfter(list, rowDay + tolerance + 1),
    )
    const found = window.filter(
      (c) =>
        // A row whose order number the service does not know cannot be a record that has one.
        !(unknownRef.has(row.line) && c.hasRef) &&
        methodAllows(family, c.record) &&
        !isRejected(row.line, [c.record.key]),
    )
    const params = { amount: row.amount, currency, days: tolerance }
    if (found.length === 0) {
      const excluded = window.length > 0 && window.every((c) => !methodAllows(family, c.record))
      reasons.set(
        row.line,
        excluded
          ? { code: 'method_excluded', params: { method: row.paymentMethod ?? '' } }
          : { code: 'no_candidate', params },
      )
      continue
    }
    if (found.length > 1) {
      settled.add(row.line)
      found.sort((a, b) => Math.abs(a.dayNumber - rowDay) - Math.abs(b.dayNumber - rowDay))
      result.ambiguous.push({
        rowLine: row.line,
        candidates: found.slice(0, MAX_CANDIDATES).map((c) => c.record.key),
        rule: 'amount_date',
        side: 'sales',
        reason: `${found.length} records of ${major(row.amount, currency)} within ±${tolerance} days`,
        explanation: { code: 'amount_date_several', params: { ...params, count: found.length } },
      })
      continue
    }
    const c = found[0]
    if (!c) continue
    const distance = Math.abs(c.dayNumber - rowDay)
    const best = c.hasRef ? CONFIDENCE.amountDateRecordHasRef : CONFIDENCE.amountDateBest
    const span = best - CONFIDENCE.amountDateWorst
    amountClaims.push({
      row,
      keys: [c.record.key],
      rule: 'amount_date',
      side: 'sales',
      confidence: round(best - (tolerance === 0 ? 0 : (span * distance) / tolerance)),
      reason: `amount ${major(row.amount, currency)}, ${distance} day(s) apart, no order number to confirm`,
      explanation: { code: 'amount_date', params: { amount: row.amount, currency, distance } },
    })
  }
  settle(amountClaims, salesTaken, result, settled, lost)

  // ---- Cash side: deposits are payouts ----
  const cashTaken = new Set<RecordKey>(input.cashTaken ?? [])
  const payoutClaims = proposePayouts(
    bankRows,
    candidates,
    chargeRecords,
    model,
    cashTaken,
    rejected,
    result,
    settled,
    reasons,
  )
  settle(payoutClaims, cashTaken, result, settled, lost)

  const proposed = new Set<RecordKey>()
  for (const p of result.proposals) for (const key of p.keys) proposed.add(key)
  const ambiguousRows = new Set(result.ambiguous.map((a) => a.rowLine))
  const proposedRows = new Set(result.proposals.map((p) => p.rowLine))
  result.unmatchedRows = rows.map((r) => r.line).filter((l) => !proposedRows.has(l) && !ambiguousRows.has(l))
  for (const line of result.unmatchedRows) {
    if (!reasons.has(line)) reasons.set(line, lost.get(line) ?? { code: 'no_candidate', params: {} })
  }
  for (const line of [...reasons.keys()])
    if (proposedRows.has(line) || ambiguousRows.has(line)) reasons.delete(line)
  result.unmatchedRecords = candidates.map((c) => c.record.key).filter((k) => !proposed.has(k))
  result.proposals.sort((a, b) => a.rowLine - b.rowLine)
  result.ambiguous.sort((a, b) => a.rowLine - b.rowLine)
  return result
}

interface DayTotals {
  keys: RecordKey[]
  charged: number
  refunded: number
  fees: number
}

interface PayoutWindow {
  from: number
  to: number
  group: string
  keys: RecordKey[]
  charged: number
  refunded: number
  fees: number
  net: number
}

/** Per group (store or all) × currency, the day totals of the records not paid out yet. */
function dayTotals(
  candidates: readonly Candidate[],
  chargeRecords: ReadonlyMap<string, ChargeRecord>,
  model: PayoutModel,
  cashTaken: ReadonlySet<RecordKey>,
): Map<string, Map<number, DayTotals>> {
  const groups = new Map<string, Map<number, DayTotals>>()
  for (const c of candidates) {
    if (cashTaken.has(c.record.key)) continue
    const group = `${model.perStore ? c.record.storeId : '*'}|${c.currency}`
    let days = groups.get(group)
    if (!days) groups.set(group, (days = new Map<number, DayTotals>()))
    let day = days.get(c.dayNumber)
    if (!day) days.set(c.dayNumber, (day = { keys: [], charged: 0, refunded: 0, fees: 0 }))
    day.keys.push(c.record.key)
    if (c.record.type === 'refund') day.refunded -= c.signed
    else {
      day.charged += c.signed
      const charge = chargeRecords.get(c.record.chargeId)
      // A fee in another currency is not subtracted: sums never cross currencies.
      if (
        charge?.feeAmount != null &&
        charge.feeCurrency !== null &&
        normalizeCurrency(charge.feeCurrency) === c.currency
      ) {
        day.fees += charge.feeAmount
      }
    }
  }
  return groups
}

function windowOf(
  days: ReadonlyMap<number, DayTotals>,
  group: string,
  from: number,
  to: number,
  fee: number,
): PayoutWindow {
  const w: PayoutWindow = { from, to, group, keys: [], charged: 0, refunded: 0, fees: 0, net: 0 }
  for (let d = from; d <= to; d++) {
    const day = days.get(d)
    if (!day) continue
    w.keys.push(...day.keys)
    w.charged += day.charged
    w.refunded += day.refunded
    w.fees += day.fees
  }
  w.net = w.charged - w.refunded - w.fees - fee
  return w
}

/** Periods [from, to] (day numbers) of a cutoff schedule that end within [fromDay, toDay]. */
function scheduledPeriodsEnding(
  cutoffs: readonly number[],
  fromDay: number,
  toDay: number,
): [number, number][] {
  const sorted = [...new Set(cutoffs.map((c) => Math.min(31, Math.max(1, Math.floor(c)))))].sort(
    (a, b) => a - b,
  )
  const ends: number[] = []
  for (let d = fromDay; d <= toDay; d++) {
    const date = new Date(d * DAY_MS)
    const lastOfMonth = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate()
    const dom = date.getUTCDate()
    if (sorted.some((c) => Math.min(c, lastOfMonth) === dom)) ends.push(d)
  }
  return ends.map((end) => [previousCutoff(sorted, end) + 1, end])
}

function previousCutoff(sorted: readonly number[], end: number): number {
  for (let d = end - 1; d > end - 62; d--) {
    const date = new Date(d * DAY_MS)
    const lastOfMonth = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate()
    if (sorted.some((c) => Math.min(c, lastOfMonth) === date.getUTCDate())) return d
  }
  return end - MAX_PERIOD_DAYS
}

function optionOf(w: PayoutWindow, deposit: number): PayoutOption {
  return {
    from: dayOfNumber(w.from),
    to: dayOfNumber(w.to),
    store: w.group.split('|')[0] ?? '',
    keys: w.keys,
    net: w.net,
    difference: deposit - w.net,
  }
}

/** The first day with records after `after` (undefined: none known). */
function firstDayAfter(
  days: ReadonlyMap<number, DayTotals> | undefined,
  after: number | undefined,
): number | undefined {
  if (!days || after === undefined) return undefined
  let first: number | undefined
  for (const d of days.keys()) if (d > after && (first === undefined || d < first)) first = d
  return first
}

function proposePayouts(
  bankRows: readonly ImportedRow[],
  candidates: readonly Candidate[],
  chargeRecords: ReadonlyMap<string, ChargeRecord>,
  model: PayoutModel,
  cashTaken: ReadonlySet<RecordKey>,
  rejected: ReadonlySet<string>,
  result: MatchResult,
  settled: Set<number>,
  reasons: Map<number, Explanation>,
): Claim[] {
  const claims: Claim[] = []
  if (bankRows.length === 0) return claims
  const groups = dayTotals(candidates, chargeRecords, model, cashTaken)
  const transferFee = Math.round((model.transferFee * (100 + model.transferFeeTaxPercent)) / 100)
  const scheduled = model.cutoffDays.length > 0
  // Payouts follow one another: once a deposit is known to pay a store up to a day, that store's next
  // payout starts the day after. Known from accepted deposits (cashTaken) and from this file, in date order.
  const paidThrough = new Map<string, number>()
  for (const c of candidates) {
    if (!cashTaken.has(c.record.key)) continue
    const group = `${model.perStore ? c.record.storeId : '*'}|${c.currency}`
    paidThrough.set(group, Math.max(paidThrough.get(group) ?? -Infinity, c.dayNumber))
  }
  const byDay = [...bankRows].sort((a, b) => a.day.localeCompare(b.day) || a.line - b.line)
  for (const row of byDay) {
    const currency = normalizeCurrency(row.currency)
    if (row.amount <= 0) {
      reasons.set(row.line, { code: 'withdrawal', params: { amount: row.amount, currency } })
      continue
    }
    const depositDay = dayNumberOf(row.day)
    const lastFrom = depositDay - model.maxLagDays
    const lastTo = depositDay - model.minLagDays
    const windows: PayoutWindow[] = []
    for (const [group, days] of groups) {
      if (!group.endsWith(`|${currency}`)) continue
      if (scheduled) {
        for (const [from, to] of scheduledPeriodsEnding(model.cutoffDays, lastFrom, lastTo)) {
          // The period alone, then with earlier periods carried over (each under the minimum).
          let start = from
          let carried = windowOf(days, group, from, to, transferFee)
          windows.push(carried)
          for (let k = 0; k < 3; k++) {
            const prevEnd = start - 1
            const prevStart =
              previousCutoff(
                [...new Set(model.cutoffDays)].sort((a, b) => a - b),
                prevEnd,
              ) + 1
            const prev = windowOf(days, group, prevStart, prevEnd, 0)
            if (prev.keys.length === 0 || prev.charged - prev.refunded - prev.fees >= model.minimumPayout)
              break
            start = prevStart
            carried = windowOf(days, group, start, to, transferFee)
            windows.push(carried)
          }
        }
      } else {
        // "any": every run of days ending in the lag window, starting and ending on a day with records.
        for (let to = lastTo; to >= lastFrom; to--) {
          if (!days.has(to)) continue
          for (let from = to; from > to - MAX_PERIOD_DAYS; from--) {
            if (days.has(from)) windows.push(windowOf(days, group, from, to, transferFee))
          }
        }
      }
    }
    const usable = windows.filter(
      (w) =>
        w.from > (paidThrough.get(w.group) ?? -Infinity) &&
        w.keys.length > 0 &&
        !w.keys.some((k) => cashTaken.has(k)) &&
        !(rejected.size > 0 && rejected.has(rejectionKey(row.line, w.keys))),
    )
    const fits = usable.filter((w) => Math.abs(w.net - row.amount) <= model.amountTolerance)
    // Windows differing only by empty days are the same payout.
    const distinct = new Map<string, PayoutWindow>()
    for (const w of fits) distinct.set(`${w.group}|${[...w.keys].sort().join(',')}`, w)
    const params = (w: PayoutWindow): Record<string, string | number> => ({
      amount: row.amount,
      currency,
      from: dayOfNumber(w.from),
      to: dayOfNumber(w.to),
      store: w.group.split('|')[0] ?? '',
      count: w.keys.length,
      charged: w.charged,
      refundsTotal: w.refunded,
      fees: w.fees,
      transferFee,
      net: w.net,
      difference: row.amount - w.net,
    })
    let list = [...distinct.values()]
    // Several fit: the one that starts right after its store's last payout is the payout.
    const anchored = list.filter(
      (w) => firstDayAfter(groups.get(w.group), paidThrough.get(w.group)) === w.from,
    )
    if (list.length > 1 && anchored.length === 1) list = anchored
    if (list.length === 1 && list[0]) {
      const w = list[0]
      paidThrough.set(w.group, Math.max(paidThrough.get(w.group) ?? -Infinity, w.to))
      const exact = w.net === row.amount
      claims.push({
        row,
        keys: w.keys,
        rule: 'payout',
        side: 'cash',
        confidence: !exact
          ? CONFIDENCE.payoutWithinTolerance
          : scheduled
            ? CONFIDENCE.payoutScheduled
            : CONFIDENCE.payoutAnyWindow,
        reason: `deposit ${major(row.amount, currency)} = payout ${dayOfNumber(w.from)}..${dayOfNumber(w.to)}: charges ${w.charged} − refunds ${w.refunded} − fees ${w.fees} − transfer fee ${transferFee} = ${w.net}`,
        explanation: { code: 'payout', params: params(w) },
      })
      continue
    }
    if (list.length > 1) {
      settled.add(row.line)
      result.ambiguous.push({
        rowLine: row.line,
        candidates: [...new Set(list.flatMap((w) => w.keys))].slice(0, MAX_CANDIDATES),
        rule: 'payout',
        side: 'cash',
        reason: `deposit ${major(row.amount, currency)} fits ${list.length} payouts`,
        options: list.slice(0, 5).map((w) => optionOf(w, row.amount)),
        explanation: {
          code: 'payout_several',
          params: {
            amount: row.amount,
            currency,
            count: list.length,
            periods: list
              .map((w) => `${dayOfNumber(w.from)}..${dayOfNumber(w.to)}`)
              .slice(0, 5)
              .join(', '),
          },
        },
      })
      continue
    }
    // No payout fits: the nearest candidates with their differences, for the accountant.
    const seen = new Set<string>()
    const nearest = usable
      .map((w) => ({ w, diff: Math.abs(w.net - row.amount) }))
      .sort((a, b) => a.diff - b.diff)
      .filter(({ w }) => {
        const id = `${w.group}|${w.keys.length}|${w.net}|${w.keys[0] ?? ''}`
        if (seen.has(id)) return false
        seen.add(id)
        return true
      })
      .slice(0, 3)
    if (nearest.length === 0) {
      reasons.set(row.line, { code: 'no_payout', params: { amount: row.amount, currency } })
      continue
    }
    settled.add(row.line)
    const best = nearest[0]?.w as PayoutWindow
    result.ambiguous.push({
      rowLine: row.line,
      candidates: best.keys.slice(0, MAX_CANDIDATES),
      rule: 'payout',
      side: 'cash',
      reason: `no payout equals the deposit; nearest differ by ${nearest.map((n) => n.diff).join(', ')}`,
      explanation: { code: 'payout_nearest', params: params(best) },
      options: nearest.map(({ w }) => optionOf(w, row.amount)),
    })
  }
  return claims
}

/** Index of the first candidate (sorted by day) on or after `dayNumber`. */
function firstAtOrAfter(list: readonly Candidate[], dayNumber: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((list[mid]?.dayNumber ?? Infinity) < dayNumber) lo = mid + 1
    else hi = mid
  }
  return lo
}

function round(confidence: number): number {
  return Math.round(confidence * 100) / 100
}
