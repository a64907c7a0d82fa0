/**
 * Each ledger item as money the receivable moves by: its gross (the sale or refund), its fee (percent +
 * flat) and its net (what the merchant is owed), under the reading the data follows. Ledgers that cannot
 * be summed (not minor units, another currency than their transfer, an exchange rate, a flat fee in
 * another currency, a second copy of an id) are left out of every sum and kept as problems.
 */
import { normalizeCurrency } from '../../domain/currency'
import type { LedgerItem, PayoutReadings, Transfer } from '../../domain/payouts'
import type { RecordKey } from '../../domain/records'
import { problem, type PayoutProblem } from './problems'

/** What the roll-forward needs of a cached charge or refund record (a HistoryRecord is one). */
export interface RecordAmount {
  amount: number
  currency: string
  type: 'charge' | 'refund'
}

export type LedgerKind = 'sale' | 'refund' | 'manual'

export interface LedgerFigures {
  ledger: LedgerItem
  /** Upper-case currency code. */
  currency: string
  kind: LedgerKind
  /** Signed minor units: refunds negative. */
  gross: number
  /** Percent + flat fee; signed like the service gives it (a refund's fee may come back). */
  fee: number
  percentFee: number
  flatFee: number
  /** gross − fee: what the ledger adds to the receivable. Manual items are net as given. */
  net: number
  /** Where the gross came from: the amount (gross reading, manual), the linked records, or back-solved. */
  grossSource: 'amount' | 'records' | 'back_solved'
}

export interface LedgerBook {
  /** Valid ledgers, each id once, in the order given. */
  counted: LedgerFigures[]
  byId: Map<string, LedgerFigures>
  /** Ledgers by transfer id (counted ones only). */
  byTransfer: Map<string, LedgerFigures[]>
  problems: PayoutProblem[]
}

export interface LedgerBookInput {
  ledgers: readonly LedgerItem[]
  transfers: readonly Transfer[]
  readings: PayoutReadings
  /** ledger id → the cached records whose `ledger_id` names it. Absent: links not known (no check). */
  ledgerRecords?: ReadonlyMap<string, readonly RecordKey[]>
  records?: ReadonlyMap<RecordKey, RecordAmount>
  /**
   * Records are looked up (for the gross, and to say a ledger has none) only for ledgers created at or
   * after this instant: a month's roll-forward checks its own month. Earlier ones are back-solved; their
   * net, all a roll-forward sums of them, is the same either way.
   */
  lookupFrom?: number
}

/** Half away from zero, so a refund's fee mirrors its charge's. */
export function roundHalfAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x)
}

export function kindOf(origin: string): LedgerKind {
  if (origin === 'charge') return 'sale'
  if (origin === 'refund' || origin === 'cancel') return 'refund'
  return 'manual'
}

/** gross × (1 − percent/100) − flat: the net reading's rule (back-solves the public java fixture). */
export function netOfGross(gross: number, percent: number, flat: number): number {
  return gross - roundHalfAway((gross * percent) / 100) - flat
}

const isInt = (v: number | null): boolean => v === null || Number.isSafeInteger(v)

function invalidReason(l: LedgerItem, transferCurrency: string | undefined): PayoutProblem | null {
  const currency = normalizeCurrency(String(l.currency ?? ''))
  const at = { ledgerId: l.id, transferId: l.transferId, currency, amount: l.amount, excluded: true }
  if (!Number.isSafeInteger(l.amount) || !isInt(l.flatFee))
    return problem('ledger_not_minor_units', `Ledger ${l.id}: amount or flat fee is not in minor units.`, at)
  if (l.percentFee !== null && !(Number.isFinite(l.percentFee) && l.percentFee >= 0 && l.percentFee < 100))
    return problem('ledger_not_minor_units', `Ledger ${l.id}: percent fee ${l.percentFee} is not a rate.`, at)
  if (l.exchangeRate !== null && l.exchangeRate !== 1)
    return problem(
      'ledger_exchange_rate',
      `Ledger ${l.id}: exchange rate ${l.exchangeRate}, not 1: its amount is not in ${currency} as given.`,
      at,
    )
  if (transferCurrency !== undefined && currency !== transferCurrency)
    return problem(
      'ledger_other_currency',
      `Ledger ${l.id} is in ${currency}, its transfer ${l.transferId ?? ''} in ${transferCurrency}.`,
      at,
    )
  if (l.flatFee && l.flatFeeCurrency !== null && normalizeCurrency(l.flatFeeCurrency) !== currency)
    return problem(
      'ledger_flat_fee_currency',
      `Ledger ${l.id}: flat fee in ${l.flatFeeCurrency}, the ledger in ${currency}.`,
      at,
    )
  return null
}

/** The gross of a charge or refund ledger under the net reading: its records' amounts, else back-solved. */
function grossUnderNet(
  l: LedgerItem,
  kind: LedgerKind,
  currency: string,
  percent: number,
  flat: number,
  input: LedgerBookInput,
  keys: readonly RecordKey[] | undefined,
): { gross: number; source: LedgerFigures['grossSource'] } {
  if (keys && keys.length > 0 && input.records) {
    let gross = 0
    let found = 0
    for (const key of keys) {
      const r = input.records.get(key)
      if (!r || normalizeCurrency(r.currency) !== currency) continue
      gross += r.type === 'refund' ? -r.amount : r.amount
      found++
    }
    if (found === keys.length) return { gross, source: 'records' }
  }
  if (percent === 0 && flat === 0) return { gross: l.amount, source: 'amount' }
  if (kind === 'manual') return { gross: l.amount, source: 'amount' }
  return { gross: roundHalfAway((l.amount + flat) / (1 - percent / 100)), source: 'back_solved' }
}

export function ledgerBook(input: LedgerBookInput): LedgerBook {
  const transferCurrency = new Map(input.transfers.map((t) => [t.id, normalizeCurrency(t.currency)]))
  const book: LedgerBook = { counted: [], byId: new Map(), byTransfer: new Map(), problems: [] }
  for (const l of input.ledgers) {
    if (book.byId.has(l.id)) {
      book.problems.push(
        problem('ledger_duplicate', `Ledger ${l.id} was given twice: counted once.`, {
          ledgerId: l.id,
          transferId: l.transferId,
          amount: l.amount,
          excluded: true,
        }),
      )
      continue
    }
    const tc = l.transferId === null ? undefined : transferCurrency.get(l.transferId)
    const invalid = invalidReason(l, tc)
    if (invalid) {
      book.problems.push(invalid)
      continue
    }
    const looked = l.createdAt >= (input.lookupFrom ?? -Infinity)
    const keys = looked ? input.ledgerRecords?.get(l.id) : undefined
    const f = figuresOf(l, input, keys)
    book.counted.push(f)
    book.byId.set(l.id, f)
    if (l.transferId !== null) {
      if (tc === undefined)
        book.problems.push(
          problem('ledger_unknown_transfer', `Ledger ${l.id} names transfer ${l.transferId}, not cached.`, {
            ledgerId: l.id,
            transferId: l.transferId,
            currency: f.currency,
            amount: f.net,
          }),
        )
      const list = book.byTransfer.get(l.transferId)
      if (list) list.push(f)
      else book.byTransfer.set(l.transferId, [f])
    }
    if (looked && f.kind !== 'manual' && input.ledgerRecords && !(keys?.length ?? 0))
      book.problems.push(
        problem('ledger_without_record', `Ledger ${l.id} (${l.origin}): no cached record names it.`, {
          ledgerId: l.id,
          transferId: l.transferId,
          currency: f.currency,
          amount: l.amount,
        }),
      )
  }
  return book
}

function figuresOf(
  l: LedgerItem,
  input: LedgerBookInput,
  keys: readonly RecordKey[] | undefined,
): LedgerFigures {
  const currency = normalizeCurrency(l.currency)
  const kind = kindOf(l.origin)
  const percent = l.percentFee ?? 0
  const flat = l.flatFee ?? 0
  if (kind === 'manual')
    return {
      ledger: l,
      currency,
      kind,
      gross: l.amount,
      fee: 0,
      percentFee: 0,
      flatFee: 0,
      net: l.amount,
      grossSource: 'amount',
    }
  if (input.readings.ledgerAmounts === 'gross') {
    const percentFee = roundHalfAway((l.amount * percent) / 100)
    const fee = percentFee + flat
    return {
      ledger: l,
      currency,
      kind,
      gross: l.amount,
      fee,
      percentFee,
      flatFee: flat,
      net: l.amount - fee,
      grossSource: 'amount',
    }
  }
  const { gross, source } = grossUnderNet(l, kind, currency, percent, flat, input, keys)
  const fee = gross - l.amount
  return {
    ledger: l,
    currency,
    kind,
    gross,
    fee,
    percentFee: fee - flat,
    flatFee: flat,
    net: l.amount,
    grossSource: source,
  }
}
