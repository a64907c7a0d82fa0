/**
 * Auto-matching of imported order / bank rows to history records (issue 12). Pure and index-based: every
 * rule looks candidates up in maps (by reference, by currency + amount + day, by currency + day), so 50k
 * rows against 50k records stay linear. Rules run in order; a row settled by one rule (proposal or
 * ambiguity) is not seen by the next, and a record proposed once is never proposed again.
 */
import { createDayResolver } from '../import/local-day'
import type { ImportedRow } from '../import/profiles'
import type { ChargeRecord, HistoryRecord, RecordKey } from '../db/records'
import { normalizeCurrency } from './currency'
import { isSuccessful } from './cross-check'

export type MatchRule = 'reference' | 'amount_date' | 'deposit_sum'

export interface MatchProposal {
  rowLine: number
  keys: RecordKey[]
  rule: MatchRule
  /** 0..1: 1 = reference and amount agree; the review screen can accept all above a threshold. */
  confidence: number
  reason: string
}

export interface AmbiguousMatch {
  rowLine: number
  /** Possible records (at most `MAX_CANDIDATES`); the accountant picks. */
  candidates: RecordKey[]
  rule: MatchRule
  reason: string
}

export interface MatchInput {
  rows: readonly ImportedRow[]
  history: readonly HistoryRecord[]
  charges: readonly ChargeRecord[]
  timeZone: string
  /** Rule b: ± days between row and record, counted in the accounting zone. */
  dateToleranceDays?: number
  /** Rule c: allowed |deposit − day net| in minor units. */
  amountTolerance?: number
  /** Rule c: a deposit covers one of the days [deposit day − lag, deposit day]. Default: dateToleranceDays. */
  depositLagDays?: number
}

export interface MatchResult {
  proposals: MatchProposal[]
  ambiguous: AmbiguousMatch[]
  /** Lines of rows with neither a proposal nor an ambiguity. */
  unmatchedRows: number[]
  /** Successful records no proposal uses (they may still be candidates of an ambiguity). */
  unmatchedRecords: RecordKey[]
}

export const MAX_CANDIDATES = 20
const DAY_MS = 86_400_000

/** Confidences: reference beats amount+date beats deposit sums; within a rule, closer is better. */
const CONFIDENCE = {
  reference: 1,
  referenceAmountDiffers: 0.6,
  amountDateBest: 0.9,
  amountDateWorst: 0.4,
  depositExact: 0.8,
  depositWorst: 0.5,
} as const

interface Candidate {
  record: HistoryRecord
  /** Signed: refunds negative, like imported refund rows. */
  signed: number
  currency: string
  dayNumber: number
}

interface Claim {
  row: ImportedRow
  keys: RecordKey[]
  rule: MatchRule
  confidence: number
  reason: string
}

/** Days since epoch of a `YYYY-MM-DD`: day distances without time-zone arithmetic. */
function dayNumberOf(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / DAY_MS
}

function normalizeRef(ref: string): string {
  // NFKC so a full-width "ＯＲＤ－１" equals "ORD-1"; skipped for printable ASCII, which it never changes.
  return /[^ -~]/.test(ref) ? ref.normalize('NFKC').trim() : ref.trim()
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

function formatMinor(amount: number, currency: string): string {
  return `${amount} ${currency}`
}

/**
 * Settles claims of one rule, highest confidence first: a claim whose records are free is accepted; claims
 * of equal confidence sharing a record are all ambiguous (and the record is held back from lower ones);
 * a claim on a record already taken loses (its row stays unmatched).
 */
function settle(claims: Claim[], taken: Set<RecordKey>, result: MatchResult, settled: Set<number>): void {
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
      if (claim.keys.some((k) => taken.has(k))) continue
      if (claim.keys.some((k) => (uses.get(k) ?? 0) > 1)) {
        result.ambiguous.push({
          rowLine: claim.row.line,
          candidates: claim.keys.slice(0, MAX_CANDIDATES),
          rule: claim.rule,
          reason: `${claim.reason}; another row claims the same record with equal confidence`,
        })
        contested.push(...claim.keys)
        continue
      }
      for (const key of claim.keys) taken.add(key)
      result.proposals.push({
        rowLine: claim.row.line,
        keys: claim.keys,
        rule: claim.rule,
        confidence: claim.confidence,
        reason: claim.reason,
      })
    }
    for (const key of contested) taken.add(key)
    i = j
  }
}

/**
 * Proposals for one imported file (row lines must be unique, so call once per file). Every row ends in
 * exactly one of proposals, ambiguous, unmatchedRows. Only successful records are candidates. Rule c uses
 * the records left after rules a and b, so an order file and a bank file are matched in separate calls.
 */
export function proposeMatches(input: MatchInput): MatchResult {
  const { rows, timeZone } = input
  const tolerance = Math.max(0, Math.floor(input.dateToleranceDays ?? 3))
  const amountTolerance = Math.max(0, input.amountTolerance ?? 0)
  const lag = Math.max(0, Math.floor(input.depositLagDays ?? tolerance))
  const result: MatchResult = { proposals: [], ambiguous: [], unmatchedRows: [], unmatchedRecords: [] }
  const dayOfInstant = createDayResolver(timeZone)

  // Candidates: successful charges and refunds only.
  const candidates: Candidate[] = []
  // A charge record's chargeId is its own id, so one charge per id; refunds are many per charge.
  const chargesById = new Map<string, Candidate>()
  const refundsByCharge = new Map<string, Candidate[]>()
  for (const record of input.history) {
    if (!isSuccessful(record.status)) continue
    const currency = normalizeCurrency(record.currency)
    const signed = record.type === 'refund' ? -record.amount : record.amount
    const candidate: Candidate = {
      record,
      signed,
      currency,
      dayNumber: dayNumberOf(dayOfInstant(record.createdAt)),
    }
    candidates.push(candidate)
    if (record.type === 'refund') push(refundsByCharge, record.chargeId, candidate)
    else chargesById.set(record.chargeId, candidate)
  }

  // References: merchant_transaction_id of the charge list, order numbers in history metadata.
  // Arrays, not Sets: nearly every reference names one charge, and 50k Sets cost more than they save.
  const chargeIdsByRef = new Map<string, string[]>()
  const addRef = (ref: string | null, chargeId: string): void => {
    if (ref === null) return
    const key = normalizeRef(ref)
    if (key === '') return
    const ids = chargeIdsByRef.get(key)
    if (!ids) chargeIdsByRef.set(key, [chargeId])
    else if (!ids.includes(chargeId)) ids.push(chargeId)
  }
  const chargeRecords = new Map<string, ChargeRecord>()
  for (const charge of input.charges) {
    addRef(charge.merchantTransactionId, charge.id)
    chargeRecords.set(charge.id, charge)
  }
  for (const record of input.history) addRef(record.orderRef, record.chargeId)

  const taken = new Set<RecordKey>()
  const settled = new Set<number>()

  // (a) Exact reference.
  const referenceClaims: Claim[] = []
  for (const row of rows) {
    if (row.orderNumber === null) continue
    const ref = normalizeRef(row.orderNumber)
    const chargeIds = chargeIdsByRef.get(ref)
    if (!chargeIds) continue
    const currency = normalizeCurrency(row.currency)
    const isRefund = row.amount < 0
    const pool: Candidate[] = []
    for (const id of chargeIds) {
      if (isRefund) pool.push(...(refundsByCharge.get(id) ?? []))
      else {
        const c = chargesById.get(id)
        if (c) pool.push(c)
      }
    }
    const exact = pool.filter((c) => c.signed === row.amount && c.currency === currency)
    const what = isRefund ? 'refund' : 'charge'
    if (exact.length === 1 && exact[0]) {
      referenceClaims.push({
        row,
        keys: [exact[0].record.key],
        rule: 'reference',
        confidence: CONFIDENCE.reference,
        reason: `order number ${ref} and amount ${formatMinor(row.amount, currency)} match the ${what}`,
      })
    } else if (exact.length === 0 && pool.length === 1 && pool[0]) {
      // Same order, different amount: proposed, but below "accept all" thresholds so a person looks.
      const c = pool[0]
      referenceClaims.push({
        row,
        keys: [c.record.key],
        rule: 'reference',
        confidence: CONFIDENCE.referenceAmountDiffers,
        reason: `order number ${ref} matches the ${what}, but the amount differs: ${formatMinor(row.amount, currency)} vs ${formatMinor(c.signed, c.currency)}`,
      })
    } else {
      // Known order but several (or no successful) records fit: never guessed, never passed to rule b.
      settled.add(row.line)
      const list = exact.length > 1 ? exact : pool
      if (list.length === 0) continue
      result.ambiguous.push({
        rowLine: row.line,
        candidates: list.slice(0, MAX_CANDIDATES).map((c) => c.record.key),
        rule: 'reference',
        reason: `order number ${ref} matches ${list.length} ${what}s`,
      })
    }
  }
  settle(referenceClaims, taken, result, settled)

  // (b) Amount + currency + day within ± tolerance: per currency+amount, records sorted by day, so a row
  // finds its window by binary search however many records share the amount.
  const byAmount = new Map<string, Candidate[]>()
  for (const c of candidates) {
    if (!taken.has(c.record.key)) push(byAmount, `${c.currency}|${c.signed}`, c)
  }
  for (const list of byAmount.values()) list.sort((a, b) => a.dayNumber - b.dayNumber)
  const amountClaims: Claim[] = []
  for (const row of rows) {
    if (settled.has(row.line)) continue
    const currency = normalizeCurrency(row.currency)
    const list = byAmount.get(`${currency}|${row.amount}`)
    if (!list) continue
    const rowDay = dayNumberOf(row.day)
    const found = list.slice(
      firstAtOrAfter(list, rowDay - tolerance),
      firstAtOrAfter(list, rowDay + tolerance + 1),
    )
    if (found.length === 0) continue
    const amount = formatMinor(row.amount, currency)
    if (found.length > 1) {
      settled.add(row.line)
      found.sort((a, b) => Math.abs(a.dayNumber - rowDay) - Math.abs(b.dayNumber - rowDay))
      result.ambiguous.push({
        rowLine: row.line,
        candidates: found.slice(0, MAX_CANDIDATES).map((c) => c.record.key),
        rule: 'amount_date',
        reason: `${found.length} records of ${amount} within ±${tolerance} days`,
      })
      continue
    }
    const c = found[0]
    if (!c) continue
    const distance = Math.abs(c.dayNumber - rowDay)
    const span = CONFIDENCE.amountDateBest - CONFIDENCE.amountDateWorst
    amountClaims.push({
      row,
      keys: [c.record.key],
      rule: 'amount_date',
      confidence: round(CONFIDENCE.amountDateBest - (tolerance === 0 ? 0 : (span * distance) / tolerance)),
      reason: `amount ${amount}, ${distance === 0 ? 'same day' : `${distance} day${distance > 1 ? 's' : ''} apart`}`,
    })
  }
  settle(amountClaims, taken, result, settled)

  // (c) One bank deposit = one day's successful charges − refunds − fees, same currency.
  const dayNets = new Map<
    string,
    { net: number; keys: RecordKey[]; charged: number; refunded: number; fees: number }
  >()
  for (const c of candidates) {
    if (taken.has(c.record.key)) continue
    const groupKey = `${c.currency}|${c.dayNumber}`
    let day = dayNets.get(groupKey)
    if (!day) dayNets.set(groupKey, (day = { net: 0, keys: [], charged: 0, refunded: 0, fees: 0 }))
    day.keys.push(c.record.key)
    if (c.record.type === 'refund') day.refunded -= c.signed
    else {
      day.charged += c.signed
      const fee = chargeRecords.get(c.record.chargeId)
      // A fee in another currency is not subtracted: sums never cross currencies.
      if (
        fee?.feeAmount != null &&
        fee.feeCurrency !== null &&
        normalizeCurrency(fee.feeCurrency) === c.currency
      ) {
        day.fees += fee.feeAmount
      }
    }
    day.net = day.charged - day.refunded - day.fees
  }
  const depositClaims: Claim[] = []
  for (const row of rows) {
    if (row.source !== 'bank' || settled.has(row.line) || row.amount <= 0) continue
    const currency = normalizeCurrency(row.currency)
    const rowDay = dayNumberOf(row.day)
    const fits: { dayNumber: number; diff: number; keys: RecordKey[]; text: string }[] = []
    for (let d = rowDay - lag; d <= rowDay; d++) {
      const day = dayNets.get(`${currency}|${d}`)
      if (!day) continue
      const diff = Math.abs(day.net - row.amount)
      if (diff > amountTolerance) continue
      const date = new Date(d * DAY_MS).toISOString().slice(0, 10)
      fits.push({
        dayNumber: d,
        diff,
        keys: day.keys,
        text: `${date}: charges ${day.charged} − refunds ${day.refunded} − fees ${day.fees} = ${formatMinor(day.net, currency)}`,
      })
    }
    if (fits.length === 0) continue
    if (fits.length > 1) {
      settled.add(row.line)
      result.ambiguous.push({
        rowLine: row.line,
        candidates: fits.flatMap((f) => f.keys).slice(0, MAX_CANDIDATES),
        rule: 'deposit_sum',
        reason: `deposit ${formatMinor(row.amount, currency)} fits ${fits.length} days: ${fits.map((f) => f.text.slice(0, 10)).join(', ')}`,
      })
      continue
    }
    const fit = fits[0]
    if (!fit) continue
    const span = CONFIDENCE.depositExact - CONFIDENCE.depositWorst
    depositClaims.push({
      row,
      keys: fit.keys,
      rule: 'deposit_sum',
      confidence: round(
        CONFIDENCE.depositExact - (amountTolerance === 0 ? 0 : (span * fit.diff) / amountTolerance),
      ),
      reason: `deposit ${formatMinor(row.amount, currency)} = net of ${fit.text}`,
    })
  }
  settle(depositClaims, taken, result, settled)

  const proposed = new Set<RecordKey>()
  for (const p of result.proposals) for (const key of p.keys) proposed.add(key)
  const ambiguousRows = new Set(result.ambiguous.map((a) => a.rowLine))
  const proposedRows = new Set(result.proposals.map((p) => p.rowLine))
  result.unmatchedRows = rows.map((r) => r.line).filter((l) => !proposedRows.has(l) && !ambiguousRows.has(l))
  result.unmatchedRecords = candidates.map((c) => c.record.key).filter((k) => !proposed.has(k))
  result.proposals.sort((a, b) => a.rowLine - b.rowLine)
  result.ambiguous.sort((a, b) => a.rowLine - b.rowLine)
  return result
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
