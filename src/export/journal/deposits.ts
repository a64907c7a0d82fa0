/**
 * The month's deposit entries (入金仕訳), one voucher per transfer paid in the month: Dr bank (what reached
 * the bank) + Dr fees (the transfer fee, taxable) / Cr receivable (what left the receivable from the
 * payment service). A transfer that failed after it was paid (its money went back) is the same entry
 * reversed. Dated by the day the transfer was paid (or taken back) in the accounting time zone, the day it
 * left the receivable, so the month's vouchers tie to the roll-forward's payouts; the bank's day, when a
 * deposit is matched, is named in the trace. Written by the same format writers as the month's entries.
 */
import { normalizeCurrency } from '../../domain/currency'
import { dayOf } from '../../domain/periods'
import type { CurrencyRollForward, PayoutMovement, RollForward } from '../../reconcile/payouts/rollforward'
import { isTransferFeeLedger, type TransferComposition } from '../../reconcile/payouts/composition'
import type { TieOut } from '../../reconcile/payouts/tie-out'
import type { JournalSettings } from './settings'
import {
  convertMinor,
  type JournalBuild,
  type JournalException,
  type JournalLine,
  type JournalSide,
  type Voucher,
} from './vouchers'

export interface DepositJournalInput {
  rollForward: RollForward
  /** The deposits tied to transfers: a matched deposit's bank day goes in the trace. Absent: none known. */
  tie?: TieOut
  settings: JournalSettings
}

export interface DepositJournalBuild extends JournalBuild {
  /** Per source currency: Σ credited to the receivable (signed), before any conversion. */
  receivableCredited: Map<string, number>
}

export interface DepositJournalTie {
  currency: string
  credited: number
  payouts: number
  /** Transfer fees inside the transfers paid (manual ledgers): they leave the receivable with the payout. */
  transferFeeLedgers: number
  /** credited − payouts − transferFeeLedgers: 0 when the entries tie to the roll-forward. */
  difference: number
}

interface Figures {
  deposit: number
  fee: number
}

/** What one movement posts: a paid transfer as it is, one taken back with the opposite sign. */
function figuresOf(m: PayoutMovement, c: TransferComposition): Figures {
  const sign = m.kind === 'paid' ? 1 : -1
  return { deposit: sign * c.expectedDeposit, fee: sign * c.transferFee }
}

export function buildDepositJournal(input: DepositJournalInput): DepositJournalBuild {
  const { settings, rollForward: rf } = input
  const accounting = normalizeCurrency(settings.accountingCurrency)
  const compositions = rf.compositions.byId
  const vouchers: Voucher[] = []
  const exceptions = new Map<string, JournalException>()
  const credited = new Map<string, number>()
  const entries: { m: PayoutMovement; c: TransferComposition; cur: CurrencyRollForward }[] = []
  for (const cur of rf.currencies)
    for (const m of cur.movements) {
      const c = compositions.get(m.transferId)
      if (c) entries.push({ m, c, cur })
    }
  entries.sort((a, b) => a.m.at - b.m.at || cmp(a.m.transferId, b.m.transferId))
  for (const { m, c } of entries) {
    const f = figuresOf(m, c)
    const currency = c.currency
    const rate = currency === accounting ? undefined : settings.rates[currency]
    if (currency !== accounting && rate === undefined) {
      const e = exceptions.get(currency) ?? { reason: 'currency_without_rate', currency, count: 0, sum: 0 }
      e.count++
      e.sum += f.deposit + f.fee
      exceptions.set(currency, e)
      continue
    }
    credited.set(currency, (credited.get(currency) ?? 0) + f.deposit + f.fee)
    const post = (minor: number) =>
      rate === undefined ? minor : convertMinor(minor, currency, accounting, rate)
    const lines = depositLines(settings, m, c, input.tie, { deposit: post(f.deposit), fee: post(f.fee) })
    if (lines.length === 0) continue
    vouchers.push({
      number: vouchers.length + 1,
      date: dayOf(m.at, rf.timeZone),
      currency: accounting,
      storeId: null,
      storeName: '',
      lines,
      convertedFrom: rate === undefined ? null : { currency, rate },
    })
  }
  return {
    period: rf.period,
    timeZone: rf.timeZone,
    accountingCurrency: accounting,
    vouchers,
    exceptions: [...exceptions.values()].sort((a, b) => cmp(a.currency, b.currency)),
    postedBySourceCurrency: new Map(),
    receivableCredited: credited,
  }
}

function depositLines(
  settings: JournalSettings,
  m: PayoutMovement,
  c: TransferComposition,
  tie: TieOut | undefined,
  f: Figures,
): JournalLine[] {
  const side = (account: string, taxClass: JournalSide['taxClass'], subAccount = ''): JournalSide => ({
    account,
    subAccount,
    department: settings.department,
    taxClass,
  })
  const a = settings.accounts
  const receivable = side(a.receivable, 'outOfScope', settings.receivableSubAccount)
  const bankDay = tie?.byTransfer.get(m.transferId)?.line.day
  const traced = {
    key: `transfer:${m.transferId}` as const,
    resourceId: bankDay ? `${m.transferId} (bank ${bankDay})` : m.transferId,
    type: 'transfer' as const,
    createdAt: m.at,
    storeId: '',
    currency: c.currency,
  }
  const lines: JournalLine[] = []
  const push = (kind: JournalLine['kind'], debit: JournalSide, amount: number, source: number) => {
    if (amount === 0) return
    const records = [{ ...traced, amount: source }]
    if (amount < 0) lines.push({ kind, debit: receivable, credit: debit, amount: -amount, sign: -1, records })
    else lines.push({ kind, debit, credit: receivable, amount, sign: 1, records })
  }
  const sign = m.kind === 'paid' ? 1 : -1
  push('deposit', side(a.bank, 'outOfScope'), f.deposit, sign * c.expectedDeposit)
  // The transfer fee is a taxable purchase (a bank transfer service), whatever the card fees' class.
  push('transferFee', side(a.fees, 'fee.taxable10'), f.fee, sign * c.transferFee)
  return lines
}

/**
 * The entries against the roll-forward, per currency: what they credit to the receivable must be the
 * month's payouts plus the transfer fees those transfers held as ledgers (a fee the bank deducts is part
 * of the payout already).
 */
export function depositJournalTie(build: DepositJournalBuild, rf: RollForward): DepositJournalTie[] {
  return rf.currencies
    .filter((cur) => build.receivableCredited.has(cur.currency))
    .map((cur) => {
      let feeLedgers = 0
      for (const m of cur.movements)
        for (const f of rf.compositions.byId.get(m.transferId)?.ledgers ?? [])
          if (isTransferFeeLedger(f, rf.transferFees)) feeLedgers += (m.kind === 'paid' ? 1 : -1) * -f.net
      const credited = build.receivableCredited.get(cur.currency) ?? 0
      return {
        currency: cur.currency,
        credited,
        payouts: cur.payouts,
        transferFeeLedgers: feeLedgers,
        difference: credited - cur.payouts - feeLedgers,
      }
    })
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * The month's entries followed by its deposit entries, numbered on from the last: one journal whose every
 * voucher balances, the exceptions of both kept.
 */
export function withDeposits(month: JournalBuild, deposits: DepositJournalBuild): JournalBuild {
  const offset = month.vouchers.length
  return {
    ...month,
    vouchers: [...month.vouchers, ...deposits.vouchers.map((v) => ({ ...v, number: offset + v.number }))],
    exceptions: [...month.exceptions, ...deposits.exceptions],
  }
}
