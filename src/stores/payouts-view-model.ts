/**
 * What the Payouts view shows, built from the cached payouts: per currency, each transfer with its
 * period, status history, amount, fees and the records it settled; the difference when its ledgers do
 * not add up to its amount (and what explains it); open ledgers; and every piece of bad input with its
 * reason. Pure: the store reads the cache, this decides. Amounts are integers in minor units, summed per
 * currency only.
 */
import type { LedgerRow, PayoutQuarantineRow, TransferRow } from '../db/payout-rows'
import type { LedgerRecords } from '../db/payouts-repository'
import type { TransferStatusChange } from '../domain/payouts'
import type { Repayment, RepaymentEvidence } from '../reconcile/payouts'

export type LedgerAmountsReading = 'net' | 'gross' | 'unknown'

export type LedgerProblem =
  | { code: 'other_currency'; currency: string }
  | { code: 'exchange_rate'; rate: number }
  | { code: 'no_record' }

export interface LedgerLine {
  ledger: LedgerRow
  /** What the record is: a charge or refund (with its id), or a named manual item. */
  record: { kind: 'charge' | 'refund'; id: string; orderRef: string | null } | null
  /** The fee the ledger carries, when the reading lets it be known. */
  fee: number | null
  problems: LedgerProblem[]
}

export type TransferProblem =
  | { code: 'negative_amount' }
  | { code: 'details_unread' }
  | { code: 'unreadable_ledgers'; count: number; reason: string }

export interface TransferView {
  transfer: TransferRow
  history: TransferStatusChange[]
  lines: LedgerLine[]
  /** Σ what each ledger pays (its amount, less its fees when ledgers are gross). */
  ledgerTotal: number
  fees: number
  /** transfer amount − ledger total; 0 when they tie. */
  difference: number
  /**
   * The unpaid transfer whose amount this one also pays, if cached: as the roll-forward's rule found it
   * (by metadata, note or amount, `repaysEvidence`), else as metadata `repays_transfer_id` names it.
   */
  repays: TransferRow | null
  repaysEvidence: RepaymentEvidence | null
  problems: TransferProblem[]
}

export interface CurrencyView {
  currency: string
  transfers: TransferView[]
  open: LedgerLine[]
  openTotal: number
}

export interface PayoutsViewModel {
  currencies: CurrencyView[]
  reading: LedgerAmountsReading
  /** `data`: the cached charges show the reading; `setting`: they cannot tell, the setting decides. */
  readingSource: 'data' | 'setting'
}

export interface PayoutsInput {
  transfers: readonly TransferRow[]
  ledgersByTransfer: ReadonlyMap<string, readonly LedgerRow[]>
  changesByTransfer: ReadonlyMap<string, readonly TransferStatusChange[]>
  open: readonly LedgerRow[]
  records: ReadonlyMap<string, LedgerRecords>
  quarantined: readonly PayoutQuarantineRow[]
  /** The connection's setting: the reading followed when the cached charges cannot tell. */
  setting?: 'net' | 'gross'
  /** What later transfers repay, as the roll-forward's rule finds it (the deposit tie-out's). */
  repayments?: readonly Repayment[]
}

/**
 * Which reading the ledgers follow, from charge ledgers whose charge is cached: `gross` when their amount
 * is the charged amount, `net` when it is the charged amount less the charge's fees; `unknown` when no
 * charge tells (or they disagree).
 */
export function detectLedgerReading(
  ledgers: readonly LedgerRow[],
  records: ReadonlyMap<string, LedgerRecords>,
): LedgerAmountsReading {
  let gross = 0
  let net = 0
  for (const l of ledgers) {
    const charge = l.origin === 'charge' ? records.get(l.id)?.charge : undefined
    if (!charge || charge.chargedCurrency !== l.currency) continue
    const percent = Math.round((charge.chargedAmount * (l.percentFee ?? 0)) / 100)
    if (l.amount === charge.chargedAmount && (l.percentFee ?? 0) > 0) gross++
    else if (l.amount === charge.chargedAmount - percent - (l.flatFee ?? 0)) net++
  }
  if (gross > 0 && net === 0) return 'gross'
  if (net > 0 && gross === 0) return 'net'
  return 'unknown'
}

function lineOf(
  l: LedgerRow,
  currency: string,
  input: PayoutsInput,
  reading: LedgerAmountsReading,
): LedgerLine {
  const found = input.records.get(l.id)
  const problems: LedgerProblem[] = []
  if (l.currency !== currency) problems.push({ code: 'other_currency', currency: l.currency })
  if (l.exchangeRate !== null && l.exchangeRate !== 1)
    problems.push({ code: 'exchange_rate', rate: l.exchangeRate })
  const sourced = l.origin === 'charge' || l.origin === 'refund'
  if (sourced && !found) problems.push({ code: 'no_record' })
  const record = found
    ? {
        kind: found.link.kind,
        id: found.link.recordId,
        orderRef: found.charge?.merchantTransactionId ?? found.history?.orderRef ?? null,
      }
    : null
  let fee: number | null = null
  if (l.origin !== 'charge') fee = 0
  else if (reading === 'gross') fee = Math.round((l.amount * (l.percentFee ?? 0)) / 100) + (l.flatFee ?? 0)
  else if (reading === 'net' && found?.charge) fee = found.charge.chargedAmount - l.amount
  return { ledger: l, record, fee, problems }
}

/** What a ledger pays: its amount, less its fee when amounts are gross. */
function paysOf(line: LedgerLine, reading: LedgerAmountsReading): number {
  return reading === 'gross' ? line.ledger.amount - (line.fee ?? 0) : line.ledger.amount
}

/** The earlier transfer `t` repays: by the rule's finding when given, else by its metadata's link. */
function repaidBy(
  t: TransferRow,
  repayments: readonly Repayment[] | undefined,
): { repaysId: string | null; repaysEvidence: RepaymentEvidence | null } {
  if (repayments) {
    const found = repayments.find(
      (r) => r.transferId !== null && r.byTransferId.toLowerCase() === t.id.toLowerCase(),
    )
    return found
      ? { repaysId: found.transferId, repaysEvidence: found.evidence }
      : { repaysId: null, repaysEvidence: null }
  }
  const meta = t.raw['metadata']
  const linked =
    meta && typeof meta === 'object' ? (meta as Record<string, unknown>)['repays_transfer_id'] : undefined
  return typeof linked === 'string'
    ? { repaysId: linked, repaysEvidence: 'metadata' }
    : { repaysId: null, repaysEvidence: null }
}

export function buildPayoutsView(input: PayoutsInput): PayoutsViewModel {
  const allLedgers = [...[...input.ledgersByTransfer.values()].flat(), ...input.open]
  const detected = detectLedgerReading(allLedgers, input.records)
  const readingSource = detected === 'unknown' && input.setting ? 'setting' : 'data'
  const reading = detected === 'unknown' ? (input.setting ?? detected) : detected
  const byId = new Map(input.transfers.map((t) => [t.id, t]))
  const unreadable = new Map<string, PayoutQuarantineRow[]>()
  for (const q of input.quarantined)
    if (q.transferId) unreadable.set(q.transferId, [...(unreadable.get(q.transferId) ?? []), q])
  const currencies = new Map<string, CurrencyView>()
  const currencyView = (currency: string): CurrencyView => {
    let view = currencies.get(currency)
    if (!view) currencies.set(currency, (view = { currency, transfers: [], open: [], openTotal: 0 }))
    return view
  }
  for (const t of input.transfers) {
    const lines = (input.ledgersByTransfer.get(t.id) ?? []).map((l) => lineOf(l, t.currency, input, reading))
    const ledgerTotal = lines
      .filter((l) => l.ledger.currency === t.currency)
      .reduce((s, l) => s + paysOf(l, reading), 0)
    const fees = lines.reduce((s, l) => s + (l.fee ?? 0), 0)
    const { repaysId, repaysEvidence } = repaidBy(t, input.repayments)
    const problems: TransferProblem[] = []
    if (t.amount < 0) problems.push({ code: 'negative_amount' })
    if (t.detailsReadAt === null) problems.push({ code: 'details_unread' })
    const bad = unreadable.get(t.id)
    if (bad) problems.push({ code: 'unreadable_ledgers', count: bad.length, reason: bad[0]?.reason ?? '' })
    currencyView(t.currency).transfers.push({
      transfer: t,
      history: [...(input.changesByTransfer.get(t.id) ?? [])],
      lines,
      ledgerTotal,
      fees,
      difference: t.amount - ledgerTotal,
      repays: repaysId === null ? null : (byId.get(repaysId.toLowerCase()) ?? null),
      repaysEvidence,
      problems,
    })
  }
  for (const l of input.open) {
    const view = currencyView(l.currency)
    const line = lineOf(l, l.currency, input, reading)
    view.open.push(line)
    view.openTotal += paysOf(line, reading)
  }
  const sorted = [...currencies.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1))
  for (const c of sorted) c.transfers.sort((a, b) => b.transfer.createdAt - a.transfer.createdAt)
  return { currencies: sorted, reading, readingSource }
}
