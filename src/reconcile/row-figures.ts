/**
 * The ledger's per-row fee and net, consistent with the month summary (net = charged − fee − refunds, per
 * currency): a charge row nets its amount less its fee, a refund row nets minus its amount, so the net
 * column of a month's successful rows sums to the summary's net. A fee is only shown beside the amount when
 * it is in the same currency — a fee in another currency is never converted, so the net stays unknown.
 * Net (and fee) are shown only where money moved, as in the month summary and the workbook: a failed,
 * canceled, pending or authorized charge has no net, rather than its full amount.
 */
import type { HistoryRecord } from '../domain/records'
import { isSuccessful } from './cross-check'
import { assertMinorUnits, normalizeCurrency } from '../domain/currency'

/** The charge-list facts a ledger row needs: the fee of its charge. */
export interface ChargeFee {
  feeAmount: number | null
  feeCurrency: string | null
}

export interface RowFigures {
  /** Fee in the row's currency, in minor units; null when none is known or it is in another currency. */
  fee: number | null
  /** Signed net in minor units; null when the fee is known to exist but cannot be placed in this currency. */
  net: number | null
  /** The fee's own currency when it differs from the row's (shown as a hint, never converted). */
  foreignFeeCurrency: string | null
  /** False when the record's status says no money moved (not successful): fee and net are then null. */
  moneyMoved: boolean
}

type RowFacts = Pick<HistoryRecord, 'type' | 'amount' | 'currency' | 'status'>

export function rowFigures(record: RowFacts, charge: ChargeFee | undefined): RowFigures {
  assertMinorUnits(record.amount, 'row amount')
  if (!isSuccessful(record.status))
    return { fee: null, net: null, foreignFeeCurrency: null, moneyMoved: false }
  return { ...movedFigures(record, charge), moneyMoved: true }
}

function movedFigures(record: RowFacts, charge: ChargeFee | undefined): Omit<RowFigures, 'moneyMoved'> {
  if (record.type === 'refund') return { fee: null, net: -record.amount, foreignFeeCurrency: null }
  if (!charge || charge.feeAmount === null) return { fee: null, net: record.amount, foreignFeeCurrency: null }
  assertMinorUnits(charge.feeAmount, 'fee')
  const feeCurrency = charge.feeCurrency === null ? null : normalizeCurrency(charge.feeCurrency)
  if (feeCurrency !== normalizeCurrency(record.currency))
    return { fee: null, net: null, foreignFeeCurrency: feeCurrency ?? '?' }
  return { fee: charge.feeAmount, net: record.amount - charge.feeAmount, foreignFeeCurrency: null }
}
