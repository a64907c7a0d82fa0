/**
 * Matching (消込) of imported order and bank rows to history records. Pure and index-based. The sales side
 * is in sales-matching.ts (order numbers: order-refs.ts, payment methods: payment-methods.ts), the shapes
 * both sides share in match-types.ts; the cash side (payouts) is here.
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
import type { ChargeRecord, RecordKey } from '../domain/records'
import { normalizeCurrency } from '../domain/currency'
import { isSuccessful } from './cross-check'
import {
  CONFIDENCE,
  DAY_MS,
  DEFAULT_PAYOUT_MODEL,
  MAX_CANDIDATES,
  MAX_PERIOD_DAYS,
  dayNumberOf,
  dayOfNumber,
  major,
  push,
  rejectionKey,
  type Candidate,
  type Claim,
  type Explanation,
  type MatchInput,
  type MatchResult,
  type PayoutModel,
  type PayoutOption,
} from './match-types'
import { RefIndex, metadataOrderRefs } from './order-refs'
import { matchSales } from './sales-matching'

export * from './match-types'
export { normalizeRef, type RefRule } from './order-refs'
export { paymentFamilyOf, type PaymentFamily } from './payment-methods'

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
  const refs = new RefIndex()
  const chargesWithRef = new Set<string>()
  const addRef = (ref: string | null, chargeId: string): void => {
    if (refs.add(ref, chargeId) !== null) chargesWithRef.add(chargeId)
  }
  const chargeRecords = new Map<string, ChargeRecord>()
  for (const charge of input.charges) {
    addRef(charge.merchantTransactionId, charge.id)
    chargeRecords.set(charge.id, charge)
  }
  for (const record of input.history) {
    if (record.type !== 'charge') continue
    addRef(record.orderRef, record.chargeId)
    for (const ref of metadataOrderRefs(record.raw)) addRef(ref, record.chargeId)
  }

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
      hasRef: chargesWithRef.has(record.chargeId),
    }
    candidates.push(candidate)
    if (record.type === 'refund') push(refundsByCharge, record.chargeId, candidate)
    else chargesById.set(record.chargeId, candidate)
  }

  const bankRows = rows.filter((r) => r.source === 'bank')
  const settled = new Set<number>()
  const lost = new Map<number, Explanation>()

  // ---- Sales side ----
  const salesTaken = new Set<RecordKey>(input.salesTaken ?? [])
  matchSales({
    rows: rows.filter((r) => r.source === 'orders'),
    candidates,
    chargesById,
    refundsByCharge,
    refs,
    salesTaken,
    rejected,
    tolerance,
    result,
    settled,
    reasons,
    settle: (claims, taken) => settle(claims, taken, result, settled, lost),
  })

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
