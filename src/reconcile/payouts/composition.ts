/**
 * What each transfer is made of: its ledgers' sum against its amount (the difference), its fees (percent
 * and flat per ledger, the transfer fee) and what should reach the bank. Every transfer is listed, every
 * bad input with its reason: a transfer whose ledgers could not be read, ledgers in another currency or
 * at an exchange rate, a negative transfer, a ledger no cached record names.
 */
import { normalizeCurrency } from '../../domain/currency'
import type { PayoutReadings, Transfer } from '../../domain/payouts'
import { ledgerBook, type LedgerBook, type LedgerBookInput, type LedgerFigures } from './ledger-figures'
import { problem, type PayoutProblem } from './problems'

export interface TransferComposition {
  transfer: Transfer
  currency: string
  ledgers: LedgerFigures[]
  /** Σ ledger amounts as the service gives them. */
  ledgerAmountSum: number
  /** Σ of what the ledgers add to the receivable (net of their fees): what the amount should be. */
  ledgerNetSum: number
  /** amount − ledgerNetSum; 0 when the transfer adds up. Not known (null) when its ledgers were not read. */
  difference: number | null
  gross: number
  percentFees: number
  flatFees: number
  /** The transfer fee: a manual ledger of −fee inside it, or the configured fee the bank deducts. */
  transferFee: number
  /** Manual ledgers other than the transfer fee (signed). */
  manual: number
  /** What the bank should receive: the amount, less the fee where the bank deducts it. */
  expectedDeposit: number
  problems: PayoutProblem[]
}

export interface CompositionInput extends LedgerBookInput {
  readings: PayoutReadings
  /** The transfer fee with tax, per currency (minor units). */
  transferFees: Readonly<Record<string, number>>
  /** Transfers whose ledgers could not be read, with why (sync's quarantine). */
  unreadLedgers?: ReadonlyMap<string, string>
}

export interface Compositions {
  transfers: TransferComposition[]
  byId: Map<string, TransferComposition>
  book: LedgerBook
  /** Every problem: the ledgers' and the transfers'. */
  problems: PayoutProblem[]
}

/** A manual ledger of exactly −fee is the transfer fee (the manual-ledger reading). */
export function isTransferFeeLedger(
  f: LedgerFigures,
  transferFees: Readonly<Record<string, number>>,
): boolean {
  const fee = transferFees[f.currency] ?? 0
  return f.kind === 'manual' && fee > 0 && f.net === -fee
}

export function composeTransfers(
  input: CompositionInput,
  book: LedgerBook = ledgerBook(input),
): Compositions {
  const transfers: TransferComposition[] = []
  const problems = [...book.problems]
  for (const t of input.transfers) {
    const c = composeOne(t, book.byTransfer.get(t.id) ?? [], input)
    problems.push(...c.problems)
    transfers.push(c)
  }
  return { transfers, byId: new Map(transfers.map((c) => [c.transfer.id, c])), book, problems }
}

function composeOne(t: Transfer, ledgers: LedgerFigures[], input: CompositionInput): TransferComposition {
  const currency = normalizeCurrency(t.currency)
  const c: TransferComposition = {
    transfer: t,
    currency,
    ledgers,
    ledgerAmountSum: 0,
    ledgerNetSum: 0,
    difference: 0,
    gross: 0,
    percentFees: 0,
    flatFees: 0,
    transferFee: 0,
    manual: 0,
    expectedDeposit: t.amount,
    problems: [],
  }
  const at = { transferId: t.id, currency, amount: t.amount }
  if (!Number.isSafeInteger(t.amount)) {
    c.problems.push(
      problem('transfer_not_minor_units', `Transfer ${t.id}: amount is not in minor units.`, {
        ...at,
        excluded: true,
      }),
    )
    c.difference = null
    return c
  }
  if (t.amount < 0)
    c.problems.push(
      problem('transfer_negative', `Transfer ${t.id} is negative (${t.amount}): the merchant owes it.`, at),
    )
  let feeInside = 0
  for (const f of ledgers) {
    c.ledgerAmountSum += f.ledger.amount
    c.ledgerNetSum += f.net
    if (isTransferFeeLedger(f, input.transferFees)) {
      feeInside += -f.net
      continue
    }
    if (f.kind === 'manual') c.manual += f.net
    else {
      c.gross += f.gross
      c.percentFees += f.percentFee
      c.flatFees += f.flatFee
    }
  }
  const configured = input.transferFees[currency] ?? 0
  const deducted = input.readings.transferFee === 'bank_deducted' && t.amount > 0 ? configured : 0
  c.transferFee = feeInside + deducted
  c.expectedDeposit = t.amount - deducted
  const unread = input.unreadLedgers?.get(t.id)
  if (unread !== undefined) {
    c.difference = null
    c.problems.push(
      problem('transfer_ledgers_unread', `Transfer ${t.id}: ledgers could not be read (${unread}).`, at),
    )
  } else c.difference = t.amount - c.ledgerNetSum
  return c
}
