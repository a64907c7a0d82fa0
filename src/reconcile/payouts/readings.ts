/**
 * Which reading the data follows, with the evidence, so the app can always say it. Ledger amounts: a
 * charge or refund ledger with fees is checked against the records that name it (gross = their amount;
 * net = gross × (1 − percent/100) − flat fee, within 1 minor unit). Transfer fee: a transfer holding a
 * manual ledger of −fee has it inside; a paid transfer whose deposit is its amount less the fee had it
 * deducted by the bank. Where the data says nothing, or disagrees with itself, the setting decides.
 */
import { normalizeCurrency } from '../../domain/currency'
import type { LedgerItem, PayoutReadings, Transfer, TransferStatusChange } from '../../domain/payouts'
import type { RecordKey } from '../../domain/records'
import { businessDaysBetween, type BankLine } from './business-days'
import { kindOf, netOfGross, type RecordAmount } from './ledger-figures'
import { dayOf } from '../../domain/periods'
import { transferTimelines } from './timeline'

export interface ReadingEvidence<R extends string> {
  reading: R
  /** `data`: the data shows it; `setting`: the data could not tell (none, or both), the setting decides. */
  source: 'data' | 'setting'
  /** Items that agree with each reading. */
  support: Record<R, number>
  /** Items that could tell one reading from the other. */
  checked: number
}

export interface ReadingsReport {
  readings: PayoutReadings
  ledgerAmounts: ReadingEvidence<PayoutReadings['ledgerAmounts']>
  transferFee: ReadingEvidence<PayoutReadings['transferFee']>
}

export interface ReadingsInput {
  ledgers: readonly LedgerItem[]
  transfers: readonly Transfer[]
  statusChanges: readonly TransferStatusChange[]
  ledgerRecords: ReadonlyMap<string, readonly RecordKey[]>
  records: ReadonlyMap<RecordKey, RecordAmount>
  /** Bank lines to look for deposits in (any, or none). */
  bankLines?: readonly BankLine[]
  /** The transfer fee with tax, per currency (minor units). */
  transferFees: Readonly<Record<string, number>>
  timeZone: string
  /** The connection's setting: what is followed where the data cannot tell. */
  setting: PayoutReadings
  /** Business days a deposit may follow the paid status change. */
  depositDays?: number
}

function decide<R extends string>(a: R, b: R, support: Record<R, number>, setting: R): ReadingEvidence<R> {
  const checked = support[a] + support[b]
  if (support[a] > 0 && support[b] === 0) return { reading: a, source: 'data', support, checked }
  if (support[b] > 0 && support[a] === 0) return { reading: b, source: 'data', support, checked }
  return { reading: setting, source: 'setting', support, checked }
}

export function ledgerAmountEvidence(
  input: Pick<ReadingsInput, 'ledgers' | 'ledgerRecords' | 'records' | 'setting'>,
): ReadingEvidence<PayoutReadings['ledgerAmounts']> {
  const support = { net: 0, gross: 0 }
  for (const l of input.ledgers) {
    const percent = l.percentFee ?? 0
    const flat = l.flatFee ?? 0
    if (kindOf(l.origin) === 'manual' || (percent === 0 && flat === 0)) continue
    const keys = input.ledgerRecords.get(l.id)
    if (!keys || keys.length === 0) continue
    let gross = 0
    let complete = true
    for (const key of keys) {
      const r = input.records.get(key)
      if (!r || normalizeCurrency(r.currency) !== normalizeCurrency(l.currency)) complete = false
      else gross += r.type === 'refund' ? -r.amount : r.amount
    }
    if (!complete) continue
    if (l.amount === gross) support.gross++
    else if (Math.abs(l.amount - netOfGross(gross, percent, flat)) <= 1) support.net++
  }
  return decide('net', 'gross', support, input.setting.ledgerAmounts)
}

export function transferFeeEvidence(input: ReadingsInput): ReadingEvidence<PayoutReadings['transferFee']> {
  const support = { manual_ledger: 0, bank_deducted: 0 }
  const feeOf = (currency: string) => input.transferFees[normalizeCurrency(currency)] ?? 0
  const feeInside = new Set<string>()
  for (const l of input.ledgers) {
    if (l.transferId === null || kindOf(l.origin) !== 'manual') continue
    const fee = feeOf(l.currency)
    if (fee > 0 && l.amount === -fee) feeInside.add(l.transferId)
  }
  support.manual_ledger = feeInside.size
  const lines = input.bankLines ?? []
  if (lines.length > 0) {
    const timelines = transferTimelines(input.transfers, input.statusChanges).byId
    const days = input.depositDays ?? 3
    for (const t of input.transfers) {
      const paidAt = timelines.get(t.id)?.paidAt ?? null
      const fee = feeOf(t.currency)
      if (paidAt === null || fee === 0 || feeInside.has(t.id) || t.amount <= fee) continue
      const paidDay = dayOf(paidAt, input.timeZone)
      const near = (l: BankLine) =>
        normalizeCurrency(l.currency) === normalizeCurrency(t.currency) &&
        Math.abs(businessDaysBetween(paidDay, l.day)) <= days
      if (lines.some((l) => near(l) && l.amount === t.amount - fee)) support.bank_deducted++
      else if (lines.some((l) => near(l) && l.amount === t.amount)) support.manual_ledger++
    }
  }
  return decide('manual_ledger', 'bank_deducted', support, input.setting.transferFee)
}

/** Both readings with their evidence: the one entry point for "which reading does this data follow?". */
export function detectReadings(input: ReadingsInput): ReadingsReport {
  const ledgerAmounts = ledgerAmountEvidence(input)
  const transferFee = transferFeeEvidence(input)
  return {
    readings: { ledgerAmounts: ledgerAmounts.reading, transferFee: transferFee.reading },
    ledgerAmounts,
    transferFee,
  }
}
