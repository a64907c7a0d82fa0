/**
 * The sales side of matching: an order row ↔ its charge (and the refunds the order names).
 *
 * (a) Order number: tied under a named rule (order-refs.ts); with the same amount, exact evidence. The
 *     sum of an order's lines counts as its total when the file's total column repeats a line figure. A
 *     different amount is proposed below the threshold, and when the difference is the order's shipping
 *     or fee column, the explanation names it.
 * (b) Amount + currency + day within ± tolerance: never against a record with another order number or of
 *     another payment method, and never confident enough for "accept all".
 */
import type { ImportedRow } from '../import/profiles'
import type { RecordKey } from '../domain/records'
import { normalizeCurrency } from '../domain/currency'
import {
  CONFIDENCE,
  MAX_CANDIDATES,
  dayNumberOf,
  firstAtOrAfter,
  major,
  push,
  rejectionKey,
  round,
  type Candidate,
  type Claim,
  type Explanation,
  type ExplanationCode,
  type MatchResult,
} from './match-types'
import { decorationsOf, normalizeRef, type RefIndex, type RefTie } from './order-refs'
import { methodAllows, paymentMethodOf } from './payment-methods'

export interface SalesInput {
  rows: readonly ImportedRow[]
  candidates: readonly Candidate[]
  chargesById: ReadonlyMap<string, Candidate>
  refundsByCharge: ReadonlyMap<string, Candidate[]>
  refs: RefIndex
  salesTaken: Set<RecordKey>
  rejected: ReadonlySet<string>
  tolerance: number
  result: MatchResult
  settled: Set<number>
  reasons: Map<number, Explanation>
  settle: (claims: Claim[], taken: Set<RecordKey>) => void
}

/** Proposals, ambiguities and reasons for the order rows; settled claims take their records. */
export function matchSales(input: SalesInput): void {
  const unknownRef = referenceClaims(input)
  amountDateClaims(input, unknownRef)
}

/** The order's own shipping or fee column (or both) when the amounts differ by exactly that. */
function differsBy(row: ImportedRow, difference: number): { code: ExplanationCode; extra: number } | null {
  const shipping = row.shipping ?? 0
  const fee = row.fee ?? 0
  if (shipping > 0 && Math.abs(difference) === shipping)
    return { code: 'reference_differs_shipping', extra: shipping }
  if (fee > 0 && Math.abs(difference) === fee) return { code: 'reference_differs_fee', extra: fee }
  if (shipping > 0 && fee > 0 && Math.abs(difference) === shipping + fee)
    return { code: 'reference_differs_shipping_fee', extra: shipping + fee }
  return null
}

/**
 * What names the row's charges: its order number, else its shop id, else its payment reference (an
 * integration may have sent either as the charge's reference). The other numbers tie only as given.
 */
function lookupRow(
  refs: RefIndex,
  row: ImportedRow,
  fileDecorations: ReadonlyMap<string, number>,
): RefTie | null {
  const found = row.orderNumber === null ? null : refs.lookup(row.orderNumber, fileDecorations)
  if (found) return found
  for (const { via, ref } of row.otherRefs ?? []) {
    const tie = refs.lookup(ref)
    if (tie && tie.rule === 'exact') return { ...tie, via }
  }
  return null
}

/** Claims of the rows whose order number the service knows; returns the rows it does not know. */
function referenceClaims(input: SalesInput): Set<number> {
  const fileDecorations = decorationsOf(input.rows.map((r) => r.orderNumber))
  const claims: Claim[] = []
  const unknownRef = new Set<number>()
  for (const row of input.rows) {
    const found = lookupRow(input.refs, row, fileDecorations)
    if (!found) {
      if (row.orderNumber !== null && normalizeRef(row.orderNumber) !== '') unknownRef.add(row.line)
      continue
    }
    input.settled.add(row.line)
    const claim = referenceClaim(input, row, found)
    if (claim) claims.push(claim)
  }
  input.settle(claims, input.salesTaken)
  return unknownRef
}

/** Whether a record is still free for the row: not linked on the sales side, not rejected for it. */
function openFor(input: SalesInput, row: ImportedRow): (c: Candidate) => boolean {
  const { salesTaken, rejected } = input
  return (c) =>
    !salesTaken.has(c.record.key) &&
    !(rejected.size > 0 && rejected.has(rejectionKey(row.line, [c.record.key])))
}

/**
 * The records an order number names for the row (its charges, or their refunds for a refund row), those
 * still possible (free, same currency, method allowed) and those of the same amount: the total, else the
 * lines' sum (`summed`).
 */
function candidatesOf(
  input: SalesInput,
  row: ImportedRow,
  found: RefTie,
  isOpen: (c: Candidate) => boolean,
): { all: Candidate[]; pool: Candidate[]; exact: Candidate[]; summed: boolean } {
  const currency = normalizeCurrency(row.currency)
  const method = paymentMethodOf(row.paymentMethod)
  const isRefund = row.amount < 0
  const all: Candidate[] = []
  for (const id of found.chargeIds) {
    if (isRefund) all.push(...(input.refundsByCharge.get(id) ?? []))
    else {
      const c = input.chargesById.get(id)
      if (c) all.push(c)
    }
  }
  const pool = all.filter((c) => isOpen(c) && c.currency === currency && methodAllows(method, c.record))
  const exact = pool.filter((c) => c.signed === row.amount)
  if (exact.length > 0 || isRefund || row.linesTotal === undefined) return { all, pool, exact, summed: false }
  const summed = pool.filter((c) => c.signed === row.linesTotal)
  return { all, pool, exact: summed, summed: summed.length > 0 }
}

/**
 * The order names what was refunded (Shopify "Refunded Amount"): the charge's free refunds of that sum
 * join the link; otherwise the explanation says the refund was not found.
 */
function withRefunds(
  input: SalesInput,
  row: ImportedRow,
  charge: Candidate,
  explanation: Explanation,
  isOpen: (c: Candidate) => boolean,
): { keys: RecordKey[]; explained: Explanation } {
  const keys: RecordKey[] = [charge.record.key]
  if (row.amount < 0 || !row.refunded) return { keys, explained: explanation }
  const refunds = (input.refundsByCharge.get(charge.record.chargeId) ?? []).filter(isOpen)
  const sum = refunds.reduce((a, r) => a - r.signed, 0)
  const params = { ...explanation.params, refunded: row.refunded }
  if (refunds.length > 0 && sum === row.refunded) {
    keys.push(...refunds.map((r) => r.record.key))
    return { keys, explained: { code: 'reference_refunds', params } }
  }
  return { keys, explained: { code: 'reference_refund_missing', params } }
}

/** One row's claim by order number; an ambiguity or a reason instead when there is no single record. */
function referenceClaim(input: SalesInput, row: ImportedRow, found: RefTie): Claim | null {
  const isOpen = openFor(input, row)
  const ref = found.key
  const currency = normalizeCurrency(row.currency)
  const method = paymentMethodOf(row.paymentMethod)
  const isRefund = row.amount < 0
  const what = isRefund ? 'refund' : 'charge'
  const { all, pool, exact, summed } = candidatesOf(input, row, found, isOpen)
  const tie: Record<string, string> = found.via
    ? { tie: found.via }
    : found.rule === 'exact'
      ? {}
      : { tie: found.rule, ...(found.decoration ? { decoration: found.decoration } : {}) }
  const params = { ref, amount: summed ? (row.linesTotal ?? row.amount) : row.amount, currency, ...tie }
  const base = { row, rule: 'reference', side: 'sales' } as const
  if (exact.length === 1 && exact[0]) {
    const explanation: Explanation = {
      code: summed ? 'reference_lines_summed' : 'reference_exact',
      params: summed ? { ...params, lines: row.lines?.length ?? 1 } : params,
    }
    const { keys, explained } = withRefunds(input, row, exact[0], explanation, isOpen)
    const rule = found.via ? ` (${found.via})` : found.rule === 'exact' ? '' : ` (${found.rule})`
    return {
      ...base,
      keys,
      confidence:
        found.rule === 'decoration' || summed ? CONFIDENCE.referenceDecorated : CONFIDENCE.reference,
      reason: `order number ${ref}${rule} and amount ${major(params.amount, currency)} match the ${what}`,
      explanation: explained,
    }
  }
  if (exact.length === 0 && pool.length === 1 && pool[0]) {
    // Same order, different amount: proposed below the threshold, so a person looks.
    const c = pool[0]
    const difference = row.amount - c.signed
    const named = differsBy(row, difference)
    return {
      ...base,
      keys: [c.record.key],
      confidence: named ? CONFIDENCE.referenceDiffersByColumn : CONFIDENCE.referenceAmountDiffers,
      reason: `order number ${ref} matches the ${what}, but the amount differs: ${major(row.amount, currency)} vs ${major(c.signed, c.currency)}`,
      explanation: {
        code: named?.code ?? 'reference_amount_differs',
        params: { ...params, recordAmount: c.signed, difference, ...(named ? { extra: named.extra } : {}) },
      },
    }
  }
  if (exact.length > 1 || pool.length > 1) {
    const list = exact.length > 1 ? exact : pool
    input.result.ambiguous.push({
      rowLine: row.line,
      candidates: list.slice(0, MAX_CANDIDATES).map((c) => c.record.key),
      rule: 'reference',
      side: 'sales',
      reason: `order number ${ref} matches ${list.length} ${what}s`,
      explanation: { code: 'reference_several', params: { ...params, count: list.length } },
    })
    return null
  }
  // Known order, but its records are taken, rejected, of another method, mode or currency.
  const excludedByMethod = all.some((c) => c.currency === currency && !methodAllows(method, c.record))
  input.reasons.set(
    row.line,
    excludedByMethod
      ? { code: 'method_excluded', params: { ...params, method: row.paymentMethod ?? '' } }
      : { code: 'reference_unavailable', params },
  )
  return null
}

function amountDateClaims(input: SalesInput, unknownRef: ReadonlySet<number>): void {
  const { result, reasons, settled, salesTaken, rejected, tolerance } = input
  const isRejected = (line: number, key: RecordKey): boolean =>
    rejected.size > 0 && rejected.has(rejectionKey(line, [key]))
  const byAmount = new Map<string, Candidate[]>()
  for (const c of input.candidates) {
    if (!salesTaken.has(c.record.key)) push(byAmount, `${c.currency}|${c.signed}`, c)
  }
  for (const list of byAmount.values()) list.sort((a, b) => a.dayNumber - b.dayNumber)
  const claims: Claim[] = []
  for (const row of input.rows) {
    if (settled.has(row.line)) continue
    const currency = normalizeCurrency(row.currency)
    const method = paymentMethodOf(row.paymentMethod)
    if (method?.family === 'cod') {
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
        methodAllows(method, c.record) &&
        !isRejected(row.line, c.record.key),
    )
    const params = { amount: row.amount, currency, days: tolerance }
    if (found.length === 0) {
      const excluded = window.length > 0 && window.every((c) => !methodAllows(method, c.record))
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
    claims.push({
      row,
      keys: [c.record.key],
      rule: 'amount_date',
      side: 'sales',
      confidence: round(best - (tolerance === 0 ? 0 : (span * distance) / tolerance)),
      reason: `amount ${major(row.amount, currency)}, ${distance} day(s) apart, no order number to confirm`,
      explanation: { code: 'amount_date', params: { amount: row.amount, currency, distance } },
    })
  }
  input.settle(claims, salesTaken)
}
