/**
 * Bank deposits tied to the service's own transfers, one to one: a deposit line matches a paid transfer of
 * its currency when its amount is what the transfer should bring (net of the transfer fee where the bank
 * deducts it) and its day is near the `paid` status change (one business day before to `depositDays`
 * after; weekends and listed holidays skipped). The nearest pairs are taken first. What does not tie is an
 * exception: a deposit with no transfer, a paid transfer with no deposit, a failed transfer whose money
 * came in and went back (or came in and stayed).
 */
import { normalizeCurrency } from '../../domain/currency'
import { dayOf } from '../../domain/periods'
import type { RecordKey } from '../../domain/records'
import { businessDaysBetween, type BankLine } from './business-days'
import type { Compositions } from './composition'
import type { LedgerBook } from './ledger-figures'
import { transferTimelines, type TransferTimeline } from './timeline'
import type { Transfer, TransferStatusChange } from '../../domain/payouts'

export interface TieInput {
  transfers: readonly Transfer[]
  statusChanges: readonly TransferStatusChange[]
  /** The transfers' compositions (their expected deposits). */
  compositions: Compositions
  bankLines: readonly BankLine[]
  timeZone: string
  /** Business days a deposit may follow the paid day (default 3). */
  depositDays?: number
  holidays?: ReadonlySet<string>
  /** Last day the bank lines cover: a transfer whose deposit may still come after it is not an exception. */
  statementTo?: string
}

export interface DepositMatch {
  transferId: string
  line: BankLine
  /** The paid status change's day, accounting time zone. */
  paidDay: string
  /** Business days from the paid day to the deposit (−1 … depositDays). */
  days: number
  amount: number
  currency: string
}

export type TieException =
  | { code: 'deposit_without_transfer'; line: BankLine }
  | {
      code: 'transfer_without_deposit'
      transferId: string
      paidDay: string
      expected: number
      currency: string
    }
  | { code: 'failed_returned'; transferId: string; deposit: BankLine; returned: BankLine }
  | { code: 'failed_deposit_kept'; transferId: string; deposit: BankLine }

export interface TieOut {
  matches: DepositMatch[]
  exceptions: TieException[]
  /** Paid transfers whose deposit may still come after the statement's last day. */
  notYetDue: string[]
  /** Transfer id → its matched deposit. */
  byTransfer: Map<string, DepositMatch>
}

/** How long after a failed transfer's deposit its return may come (business days). */
const RETURN_DAYS = 20

const lineOrder = (a: BankLine, b: BankLine) =>
  a.day < b.day
    ? -1
    : a.day > b.day
      ? 1
      : a.importId < b.importId
        ? -1
        : a.importId > b.importId
          ? 1
          : a.line - b.line

export function tieDeposits(input: TieInput): TieOut {
  const window = input.depositDays ?? 3
  const tl = transferTimelines(input.transfers, input.statusChanges).byId
  const days = (from: string, to: string) => businessDaysBetween(from, to, input.holidays)
  const lines = [...input.bankLines].sort(lineOrder)
  const used = new Set<BankLine>()
  const out: TieOut = { matches: [], exceptions: [], notYetDue: [], byTransfer: new Map() }

  const paid: { t: Transfer; day: string; expected: number; currency: string }[] = []
  for (const t of input.transfers) {
    const paidAt = tl.get(t.id)?.paidAt ?? null
    const c = input.compositions.byId.get(t.id)
    if (t.status !== 'paid' || paidAt === null || !c || !(c.expectedDeposit > 0)) continue
    paid.push({ t, day: dayOf(paidAt, input.timeZone), expected: c.expectedDeposit, currency: c.currency })
  }
  const pairs: { p: (typeof paid)[number]; line: BankLine; d: number }[] = []
  for (const p of paid)
    for (const line of lines) {
      if (line.amount !== p.expected || normalizeCurrency(line.currency) !== p.currency) continue
      const d = days(p.day, line.day)
      if (d >= -1 && d <= window) pairs.push({ p, line, d })
    }
  // Nearest first; on a tie a deposit after the paid day before one before it, then the earlier transfer.
  pairs.sort(
    (a, b) =>
      Math.abs(a.d) - Math.abs(b.d) ||
      Number(a.d < 0) - Number(b.d < 0) ||
      a.p.t.createdAt - b.p.t.createdAt ||
      lineOrder(a.line, b.line),
  )
  for (const { p, line, d } of pairs) {
    if (used.has(line) || out.byTransfer.has(p.t.id)) continue
    used.add(line)
    const m = { transferId: p.t.id, line, paidDay: p.day, days: d, amount: p.expected, currency: p.currency }
    out.matches.push(m)
    out.byTransfer.set(p.t.id, m)
  }
  for (const p of paid) {
    if (out.byTransfer.has(p.t.id)) continue
    if (input.statementTo !== undefined && days(p.day, input.statementTo) < window) out.notYetDue.push(p.t.id)
    else
      out.exceptions.push({
        code: 'transfer_without_deposit',
        transferId: p.t.id,
        paidDay: p.day,
        expected: p.expected,
        currency: p.currency,
      })
  }
  tieFailed(input, tl, lines, used, out, days)
  for (const line of lines)
    if (!used.has(line) && line.amount > 0) out.exceptions.push({ code: 'deposit_without_transfer', line })
  return out
}

/** A failed transfer's money that came in anyway: with its return, or still kept. */
function tieFailed(
  input: TieInput,
  tl: ReadonlyMap<string, TransferTimeline>,
  lines: BankLine[],
  used: Set<BankLine>,
  out: TieOut,
  days: (from: string, to: string) => number,
): void {
  const window = input.depositDays ?? 3
  for (const t of input.transfers) {
    const c = input.compositions.byId.get(t.id)
    const timeline = tl.get(t.id)
    if (t.status !== 'failed' || !c || !timeline || !(c.expectedDeposit > 0)) continue
    const ref =
      timeline.paidAt ?? timeline.changes.find((x) => x.newStatus === 'failed')?.createdAt ?? t.createdAt
    const refDay = dayOf(ref, input.timeZone)
    const same = (l: BankLine) => !used.has(l) && normalizeCurrency(l.currency) === c.currency
    const deposit = lines.find(
      (l) => same(l) && l.amount === c.expectedDeposit && Math.abs(days(refDay, l.day)) <= window,
    )
    if (!deposit) continue
    used.add(deposit)
    const back = lines.find((l) => {
      if (!same(l) || (l.amount !== -c.expectedDeposit && l.amount !== -t.amount)) return false
      const d = days(deposit.day, l.day)
      return d >= 0 && d <= RETURN_DAYS
    })
    if (back) {
      used.add(back)
      out.exceptions.push({ code: 'failed_returned', transferId: t.id, deposit, returned: back })
    } else out.exceptions.push({ code: 'failed_deposit_kept', transferId: t.id, deposit })
  }
}

/**
 * Records settled: their ledger is in a paid transfer whose deposit is matched. `ledgerRecords` maps a
 * ledger id to the records whose `ledger_id` names it.
 */
export function settledRecords(
  tie: TieOut,
  book: LedgerBook,
  ledgerRecords: ReadonlyMap<string, readonly RecordKey[]>,
): Set<RecordKey> {
  const settled = new Set<RecordKey>()
  for (const transferId of tie.byTransfer.keys())
    for (const f of book.byTransfer.get(transferId) ?? [])
      for (const key of ledgerRecords.get(f.ledger.id) ?? []) settled.add(key)
  return settled
}

/** A record is settled when its ledger is in a paid transfer whose deposit is matched. */
export function isSettled(key: RecordKey, settled: ReadonlySet<RecordKey>): boolean {
  return settled.has(key)
}
