/**
 * Cross-check of the two views of a charge the API gives: the transaction history (charges with their
 * refunds) and the charge list (fees, merchant_transaction_id). Both come from sync; a difference means one
 * of them is stale or incomplete, and the accountant should see it before closing a period.
 */
import type { ChargeRecord, HistoryRecord } from '../domain/records'
import { assertMinorUnits, normalizeCurrency } from '../domain/currency'

/** The one status value the seed shows; everything else (pending, failed, …) is not money that moved. */
export const SUCCESSFUL = 'successful'

export function isSuccessful(status: string): boolean {
  return status.trim().toLowerCase() === SUCCESSFUL
}

export type DifferenceKind = 'missing_in_charges' | 'missing_in_history' | 'amount' | 'currency' | 'status'

/** What the cross-check reads of a history record (a whole record has it; so has a month's digest). */
export type CrossCheckedRecord = Pick<HistoryRecord, 'type' | 'resourceId' | 'amount' | 'currency' | 'status'>

/** What the cross-check reads of a charge-list record (a whole charge has it; so has a ChargeDigest). */
export type CrossCheckedCharge = Pick<ChargeRecord, 'id' | 'chargedAmount' | 'chargedCurrency' | 'status'>

export interface Difference<
  H extends CrossCheckedRecord = HistoryRecord,
  C extends CrossCheckedCharge = ChargeRecord,
> {
  kind: DifferenceKind
  chargeId: string
  history?: H
  charge?: C
}

const KIND_ORDER: readonly DifferenceKind[] = [
  'missing_in_charges',
  'missing_in_history',
  'currency',
  'amount',
  'status',
]

/**
 * Compares history charge records (refund records are ignored) with charge-list records by charge id.
 * The amount is compared only when the currencies agree: amounts in different currencies are not
 * comparable, so that case is reported once, as `currency`. Sorted by charge id, then kind.
 */
export function crossCheck<
  H extends CrossCheckedRecord = HistoryRecord,
  C extends CrossCheckedCharge = ChargeRecord,
>(historyCharges: readonly H[], charges: readonly C[]): Difference<H, C>[] {
  // Each charge's index (the last of an id, as a map of the charges would keep), and which ids history
  // named: a byte per charge rather than a second map of a month's ids.
  const indexOf = new Map<string, number>()
  for (let i = 0; i < charges.length; i++) indexOf.set((charges[i] as C).id, i)
  const seen = new Uint8Array(charges.length)
  const out: Difference<H, C>[] = []
  for (const history of historyCharges) {
    if (history.type !== 'charge') continue
    const chargeId = history.resourceId
    const i = indexOf.get(chargeId)
    if (i === undefined) {
      out.push({ kind: 'missing_in_charges', chargeId, history })
      continue
    }
    seen[i] = 1
    const charge = charges[i] as C
    if (normalizeCurrency(history.currency) !== normalizeCurrency(charge.chargedCurrency)) {
      out.push({ kind: 'currency', chargeId, history, charge })
    } else if (history.amount !== charge.chargedAmount) {
      out.push({ kind: 'amount', chargeId, history, charge })
    }
    if (history.status.trim().toLowerCase() !== charge.status.trim().toLowerCase()) {
      out.push({ kind: 'status', chargeId, history, charge })
    }
  }
  for (const charge of charges)
    if (seen[indexOf.get(charge.id) as number] === 0)
      out.push({ kind: 'missing_in_history', chargeId: charge.id, charge })
  return out.sort((a, b) =>
    a.chargeId === b.chargeId
      ? KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind)
      : a.chargeId < b.chargeId
        ? -1
        : 1,
  )
}

/** A refund as far as net maths needs it: a history refund record fits, so does a user_data refund. */
export interface RefundLike {
  amount: number
  currency: string
  status: string
}

/** An amount that could not be netted against the charge because its currency differs (or is unknown). */
export interface SeparateAmount {
  kind: 'fee' | 'refund'
  amount: number
  /** null: the API gave a fee without a fee currency. */
  currency: string | null
}

export interface NetResult {
  currency: string
  charged: number
  /** The fee subtracted: only a fee in the charged currency. */
  fee: number
  /** Successful refunds in the charged currency. */
  refunded: number
  /** charged − fee − refunded, in minor units of `currency`. */
  net: number
  /** Fees and refunds in another currency: reported, never converted or subtracted. */
  separate: SeparateAmount[]
}

/**
 * Net of one charge: charged − fee − successful refunds, all in the charged currency's minor units. The
 * charge's own status is not looked at: callers decide which charges count (month summary: successful).
 */
export function netOf(charge: ChargeRecord, refunds: readonly RefundLike[]): NetResult {
  const currency = normalizeCurrency(charge.chargedCurrency)
  assertMinorUnits(charge.chargedAmount, 'charged amount')
  const separate: SeparateAmount[] = []
  let fee = 0
  if (charge.feeAmount !== null) {
    assertMinorUnits(charge.feeAmount, 'fee amount')
    const feeCurrency = charge.feeCurrency === null ? null : normalizeCurrency(charge.feeCurrency)
    if (feeCurrency === currency) fee = charge.feeAmount
    else separate.push({ kind: 'fee', amount: charge.feeAmount, currency: feeCurrency })
  }
  let refunded = 0
  for (const refund of refunds) {
    if (!isSuccessful(refund.status)) continue
    assertMinorUnits(refund.amount, 'refund amount')
    const refundCurrency = normalizeCurrency(refund.currency)
    if (refundCurrency === currency) refunded += refund.amount
    else separate.push({ kind: 'refund', amount: refund.amount, currency: refundCurrency })
  }
  const net = charge.chargedAmount - fee - refunded
  assertMinorUnits(net, 'net')
  return { currency, charged: charge.chargedAmount, fee, refunded, net, separate }
}
