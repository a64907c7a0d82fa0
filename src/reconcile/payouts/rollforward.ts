/**
 * The receivable from the payment service rolled forward per currency over a month of the accounting
 * time zone: opening + sales − refunds − fees ± manual items − payouts = closing, and the closing balance
 * explained item by item (ledgers not yet in a transfer, transfers created / approved / processing,
 * failed transfers), as Stripe's payout reconciliation report's ending balance reconciliation does.
 *
 * The balance at an instant T is Σ net of the ledgers created before T − Σ amounts of the transfers paid
 * at T (a transfer leaves the receivable when its `paid` change comes, and returns to it if it fails
 * after). Opening and closing are that balance at the month's first and last instant, so this month's
 * opening is last month's closing by construction; a closing the user carried from a previous close that
 * differs is flagged. A ledger of a failed, canceled or blank transfer (or one carried over without a
 * transfer) is held, from the moment a later transfer that repays it exists, by that transfer
 * (repayments.ts says on what evidence). Every sum is in integers of one currency.
 */
import { periodRange, type EpochRange } from '../../domain/periods'
import { normalizeCurrency } from '../../domain/currency'
import type { TransferStatusChange } from '../../domain/payouts'
import {
  composeTransfers,
  isTransferFeeLedger,
  type CompositionInput,
  type Compositions,
} from './composition'
import type { LedgerFigures } from './ledger-figures'
import type { PayoutProblem } from './problems'
import { findRepayments, type Repayment, type Repayments } from './repayments'
import { isPaidAt, statusAt, transferTimelines, type TransferTimeline } from './timeline'

export interface RollForwardInput extends CompositionInput {
  /** `YYYY-MM` in the accounting time zone. */
  period: string
  timeZone: string
  statusChanges: readonly TransferStatusChange[]
  /** Per currency, the closing recorded when last month was closed; a different opening is flagged. */
  previousClosing?: Readonly<Record<string, number>>
  /**
   * Transfers paid before the month and still paid at its end that the input leaves out with their
   * ledgers (a bounded read): each one's Σ ledgers − amount as a previous close recorded it, which stays
   * in the opening and the closing as it would if they were given.
   */
  settled?: readonly SettledTransfer[]
}

export interface SettledTransfer {
  transferId: string
  currency: string
  difference: number
}

/**
 * Where a ledger of the closing balance sits at the month's end: in no transfer yet, in a transfer
 * created / approved / processing / failed, carried over in a blank or canceled transfer (a payout under
 * the minimum), or in a transfer of another status or not cached (other).
 */
export type OpenBucket =
  'notInTransfer' | 'created' | 'approved' | 'processing' | 'failed' | 'carriedOver' | 'other'
export const OPEN_BUCKETS: readonly OpenBucket[] = [
  'notInTransfer',
  'created',
  'approved',
  'processing',
  'failed',
  'carriedOver',
  'other',
]

export interface OpenItem {
  bucket: OpenBucket
  /** null: the ledgers not yet in any transfer (one item). */
  transferId: string | null
  /** The transfer's status at the month's end (null for ledgers not in a transfer). */
  status: string | null
  ledgerCount: number
  /** Σ net of its ledgers created before the month's end. */
  amount: number
}

export interface PayoutMovement {
  transferId: string
  /** `paid` (money out of the receivable) or `returned` (a paid transfer that failed: money back in). */
  kind: 'paid' | 'returned'
  at: number
  /** Positive for paid, negative for returned: what the payouts line sums. */
  amount: number
}

export interface CurrencyRollForward {
  currency: string
  opening: number
  /** What last month's close recorded, when known; `openingDifference` = opening − carried. */
  carriedOpening: number | null
  openingDifference: number
  sales: number
  refunds: number
  fees: number
  /** Manual items, signed, the transfer fee ledgers included. */
  manual: number
  /** Of `manual`: transfer fees inside transfers (positive). */
  transferFeeLedgers: number
  /** Paid in the month less returned in the month. */
  payouts: number
  returned: number
  closing: number
  /** opening + sales − refunds − fees + manual − payouts − closing: 0 when the month adds up. */
  control: number
  /** Closing, item by item. */
  open: OpenItem[]
  explained: Record<OpenBucket, number>
  /** Paid transfers whose ledgers do not add up to their amount: the part of the closing nothing explains. */
  unexplained: number
  /**
   * What later transfers repay of earlier unpaid ones (or of ledgers carried without one), with the
   * evidence: those by a transfer that existed at the month's end and was not paid before it began.
   */
  repayments: Repayment[]
  paidDifferences: { transferId: string; difference: number }[]
  /** The month's ledgers (activity) and transfer movements, for the workbook's detail. */
  ledgers: LedgerFigures[]
  movements: PayoutMovement[]
  /** Left out of every sum (see problems): count and Σ amount as given. */
  excluded: { count: number; amount: number }
  /** Opening carried, control 0, nothing unexplained. */
  ties: boolean
}

export interface RollForward {
  period: string
  timeZone: string
  /** Every transfer's composition (the deposit entries and the views read it). */
  compositions: Compositions
  /** The transfer fees the input gave, per currency. */
  transferFees: Readonly<Record<string, number>>
  currencies: CurrencyRollForward[]
  problems: PayoutProblem[]
  /** Every transfer in a repayment read (repaying or repaid), lower-case ids, sorted. */
  inRepayment: string[]
  ties: boolean
}

function emptyCurrency(currency: string): CurrencyRollForward {
  return {
    currency,
    opening: 0,
    carriedOpening: null,
    openingDifference: 0,
    sales: 0,
    refunds: 0,
    fees: 0,
    manual: 0,
    transferFeeLedgers: 0,
    payouts: 0,
    returned: 0,
    closing: 0,
    control: 0,
    open: [],
    explained: {
      notInTransfer: 0,
      created: 0,
      approved: 0,
      processing: 0,
      failed: 0,
      carriedOver: 0,
      other: 0,
    },
    unexplained: 0,
    repayments: [],
    paidDifferences: [],
    ledgers: [],
    movements: [],
    excluded: { count: 0, amount: 0 },
    ties: true,
  }
}

function bucketOf(status: string | null): OpenBucket {
  if (status === null) return 'notInTransfer'
  if (status === 'created' || status === 'approved' || status === 'processing' || status === 'failed')
    return status
  if (status === 'blank' || status === 'canceled') return 'carriedOver'
  return 'other'
}

interface Held {
  count: number
  amount: number
  currency: string
}

/** Per transfer at the month's end: paid, or its open status (null: not made yet). */
interface EndState {
  tl: TransferTimeline
  paid: boolean
  status: string | null
}

type CurrencyOf = (code: string) => CurrencyRollForward

/** The month's roll-forward per currency: the entry point (see RollForwardInput for what it reads). */
export function rollForwardOfMonth(input: RollForwardInput): RollForward {
  const range = periodRange(input.period, input.timeZone)
  const compositions = composeTransfers({ ...input, lookupFrom: range.from })
  const timelines = transferTimelines(input.transfers, input.statusChanges)
  const byCurrency = new Map<string, CurrencyRollForward>()
  const cur: CurrencyOf = (code) => {
    let c = byCurrency.get(code)
    if (!c) byCurrency.set(code, (c = emptyCurrency(code)))
    return c
  }
  const endState = new Map<string, EndState>()
  for (const [id, tl] of timelines.byId)
    endState.set(id, { tl, paid: isPaidAt(tl, range.to), status: statusAt(tl, range.to) })

  const repayments = findRepayments(compositions)
  // The month's: by a transfer that existed at its end and was not paid before it began.
  for (const r of repayments.list) {
    const by = endState.get(r.byTransferId)
    if (by && by.status !== null && !isPaidAt(by.tl, range.from)) cur(r.currency).repayments.push(r)
  }
  const holder = holderAt(endState, repayments)
  const held = addLedgers(compositions.book.counted, range, holder, cur, input.transferFees)
  for (const p of compositions.problems)
    if (p.excluded && p.currency !== null) {
      const c = cur(normalizeCurrency(p.currency))
      c.excluded.count++
      // An amount that is not minor units is counted, never added: sums stay integers.
      if (Number.isSafeInteger(p.amount)) c.excluded.amount += p.amount ?? 0
    }
  addTransfers(endState, held.byTransfer, range.from, cur)
  addUnheldItems(held, endState, cur)
  for (const s of input.settled ?? []) {
    const c = cur(normalizeCurrency(s.currency))
    c.opening += s.difference
    c.closing += s.difference
    if (s.difference !== 0) c.paidDifferences.push({ transferId: s.transferId, difference: s.difference })
  }

  for (const c of byCurrency.values())
    finish(c, held.closingLedgers.get(c.currency) ?? 0, input.previousClosing)
  const currencies = [...byCurrency.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1))
  return {
    period: input.period,
    timeZone: input.timeZone,
    compositions,
    transferFees: input.transferFees,
    currencies,
    problems: [...compositions.problems, ...timelines.problems, ...repayments.problems],
    inRepayment: [
      ...new Set(
        repayments.list.flatMap((r) =>
          [r.transferId, r.byTransferId].flatMap((id) => (id === null ? [] : [id.toLowerCase()])),
        ),
      ),
    ].sort(),
    ties: currencies.every((c) => c.ties),
  }
}

/**
 * The transfer holding a ledger as the month ended: its own (null if made only after the end; an
 * unknown one is kept, to be its own item), then the transfer repaying that one, and so on, as far as
 * those repaying transfers existed by the end. A ledger carried without a transfer is held by the
 * transfer that pays it once that exists.
 */
function holderAt(
  endState: ReadonlyMap<string, EndState>,
  repayments: Repayments,
): (ledger: LedgerFigures['ledger']) => string | null {
  const exists = (id: string) => (endState.get(id)?.status ?? null) !== null
  return (ledger) => {
    let id = ledger.transferId
    if (id !== null && endState.has(id) && !exists(id)) id = null
    if (id === null) {
      const by = repayments.ledgerPaidBy.get(ledger.id)
      if (by !== undefined && exists(by)) id = by
    }
    // Repayment only runs from an earlier transfer to a later one: the chain ends.
    let by = id === null ? undefined : repayments.repaidBy.get(id)
    while (by !== undefined && exists(by)) {
      id = by
      by = repayments.repaidBy.get(by)
    }
    return id
  }
}

/**
 * Each ledger created before the month's end: into the opening (before the month) or the month's
 * activity, and held by its transfer as the month ended (or by none: not yet in a transfer).
 */
function addLedgers(
  ledgers: readonly LedgerFigures[],
  range: EpochRange,
  holder: (ledger: LedgerFigures['ledger']) => string | null,
  cur: CurrencyOf,
  transferFees: Readonly<Record<string, number>>,
) {
  const byTransfer = new Map<string, Held>()
  const notInTransfer = new Map<string, Held>()
  const closingLedgers = new Map<string, number>()
  for (const f of ledgers) {
    const t = f.ledger.createdAt
    if (t >= range.to) continue
    const c = cur(f.currency)
    if (t < range.from) c.opening += f.net
    else {
      c.ledgers.push(f)
      if (f.kind === 'sale') c.sales += f.gross
      else if (f.kind === 'refund') c.refunds -= f.gross
      if (f.kind === 'manual') {
        c.manual += f.net
        if (isTransferFeeLedger(f, transferFees)) c.transferFeeLedgers -= f.net
      } else c.fees += f.fee
    }
    closingLedgers.set(f.currency, (closingLedgers.get(f.currency) ?? 0) + f.net)
    const transferId = holder(f.ledger)
    const target = transferId === null ? notInTransfer : byTransfer
    const key = transferId ?? f.currency
    const h = target.get(key) ?? { count: 0, amount: 0, currency: f.currency }
    h.count++
    h.amount += f.net
    target.set(key, h)
  }
  return { byTransfer, notInTransfer, closingLedgers }
}

/**
 * Each transfer: paid before the month (out of the opening), paid in it or taken back in it (a payout
 * movement), paid at its end (out of the closing; its ledgers should add up to it) or open (an item).
 */
function addTransfers(
  endState: ReadonlyMap<string, EndState>,
  byTransfer: ReadonlyMap<string, Held>,
  from: number,
  cur: CurrencyOf,
): void {
  for (const [id, { tl, paid, status }] of endState) {
    const amount = tl.transfer.amount
    if (!Number.isSafeInteger(amount)) continue
    const c = cur(normalizeCurrency(tl.transfer.currency))
    const paidBefore = isPaidAt(tl, from)
    if (paidBefore) c.opening -= amount
    if (paid && !paidBefore) c.movements.push({ transferId: id, kind: 'paid', at: tl.paidAt ?? from, amount })
    if (!paid && paidBefore) {
      c.returned += amount
      const at = tl.changes.find((x) => x.createdAt >= from && x.newStatus !== 'paid')?.createdAt ?? from
      c.movements.push({ transferId: id, kind: 'returned', at, amount: -amount })
    }
    const h = byTransfer.get(id) ?? { count: 0, amount: 0 }
    if (paid) {
      c.closing -= amount
      if (h.amount !== amount) c.paidDifferences.push({ transferId: id, difference: h.amount - amount })
    } else if (status !== null && h.count > 0)
      c.open.push({
        bucket: bucketOf(status),
        transferId: id,
        status,
        ledgerCount: h.count,
        amount: h.amount,
      })
  }
}

/** Ledgers in no transfer at the month's end (one item per currency), and those of unknown transfers. */
function addUnheldItems(
  held: { byTransfer: ReadonlyMap<string, Held>; notInTransfer: ReadonlyMap<string, Held> },
  endState: ReadonlyMap<string, EndState>,
  cur: CurrencyOf,
): void {
  for (const [id, h] of held.byTransfer)
    if (!endState.has(id))
      cur(h.currency).open.push({
        bucket: 'other',
        transferId: id,
        status: null,
        ledgerCount: h.count,
        amount: h.amount,
      })
  for (const [currency, h] of held.notInTransfer)
    cur(currency).open.push({
      bucket: 'notInTransfer',
      transferId: null,
      status: null,
      ledgerCount: h.count,
      amount: h.amount,
    })
}

function finish(
  c: CurrencyRollForward,
  ledgersBeforeEnd: number,
  previous?: Readonly<Record<string, number>>,
): void {
  c.closing += ledgersBeforeEnd
  c.payouts = c.movements.reduce((s, m) => s + m.amount, 0)
  c.movements.sort((a, b) => a.at - b.at || (a.transferId < b.transferId ? -1 : 1))
  c.open.sort(
    (a, b) =>
      OPEN_BUCKETS.indexOf(a.bucket) - OPEN_BUCKETS.indexOf(b.bucket) ||
      (a.transferId ?? '').localeCompare(b.transferId ?? ''),
  )
  for (const item of c.open) c.explained[item.bucket] += item.amount
  const explained = OPEN_BUCKETS.reduce((s, b) => s + c.explained[b], 0)
  c.unexplained = c.closing - explained
  c.control = c.opening + c.sales - c.refunds - c.fees + c.manual - c.payouts - c.closing
  const carried = previous?.[c.currency]
  c.carriedOpening = carried ?? null
  c.openingDifference = carried === undefined ? 0 : c.opening - carried
  c.ties = c.openingDifference === 0 && c.control === 0 && c.unexplained === 0
}
