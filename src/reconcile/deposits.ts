/**
 * A deposit line of a bank file against the records it pays: what the records net to
 * (successful charges − refunds − their fees, in the deposit's currency only), the difference, and what
 * explains it. The payout model's transfer fee (¥400 + tax by default) is the usual difference.
 */
import type { ChargeRecord, HistoryRecord, RecordKey } from '../domain/records'
import { isSuccessful } from './cross-check'
import { normalizeCurrency } from '../domain/currency'

export type DepositExplanation =
  | { code: 'unmatched' }
  | { code: 'exact' }
  | { code: 'transfer_fee'; fee: number }
  | { code: 'unexplained'; difference: number }

export interface DepositFigures {
  /** Records found in the cache, in the deposit's currency and successful (the ones summed). */
  counted: RecordKey[]
  /** Linked records the cache no longer holds, or in another currency, or not successful. */
  notCounted: RecordKey[]
  charged: number
  refunded: number
  fees: number
  net: number
  /** deposit − net (minor units); a transfer fee shows as −fee. */
  difference: number
  explanation: DepositExplanation
}

export interface DepositInput {
  amount: number
  currency: string
  keys: readonly RecordKey[]
}

/** The transfer fee the payout model deducts, tax included (minor units). */
export function transferFeeWithTax(fee: number, taxPercent: number): number {
  return Math.round((fee * (100 + taxPercent)) / 100)
}

export function depositFigures(
  deposit: DepositInput,
  records: ReadonlyMap<RecordKey, HistoryRecord>,
  charges: ReadonlyMap<string, ChargeRecord>,
  transferFee: number,
): DepositFigures {
  const currency = normalizeCurrency(deposit.currency)
  const f: DepositFigures = {
    counted: [],
    notCounted: [],
    charged: 0,
    refunded: 0,
    fees: 0,
    net: 0,
    difference: 0,
    explanation: { code: 'unmatched' },
  }
  for (const key of deposit.keys) {
    const r = records.get(key)
    if (!r || normalizeCurrency(r.currency) !== currency || !isSuccessful(r.status)) {
      f.notCounted.push(key)
      continue
    }
    f.counted.push(key)
    if (r.type === 'refund') {
      f.refunded += r.amount
      continue
    }
    f.charged += r.amount
    const c = charges.get(r.chargeId)
    // A fee in another currency is never subtracted: sums never cross currencies.
    if (c?.feeAmount != null && c.feeCurrency !== null && normalizeCurrency(c.feeCurrency) === currency)
      f.fees += c.feeAmount
  }
  f.net = f.charged - f.refunded - f.fees
  f.difference = deposit.amount - f.net
  if (deposit.keys.length === 0) f.explanation = { code: 'unmatched' }
  else if (f.difference === 0) f.explanation = { code: 'exact' }
  else if (transferFee > 0 && f.difference === -transferFee)
    f.explanation = { code: 'transfer_fee', fee: transferFee }
  else f.explanation = { code: 'unexplained', difference: f.difference }
  return f
}
