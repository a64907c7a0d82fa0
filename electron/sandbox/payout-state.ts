/**
 * The sandbox's payouts as its clock has them: the payout book (transfers, ledgers, status changes), built
 * from the data and rebuilt only when the data changed or the payout clock passed its next event, and the
 * ledger id a charge carries once it has a ledger (varied shape).
 */
import type { Dataset } from './dataset'
import type { SandboxCharge, SandboxShape } from './model'
import type { BankAccountSpec, PayoutContext } from './payout-routes'
import { buildPayouts, ledgerIdOf, uuidOf, type PayoutBook } from './payouts'
import type { PayoutSettings } from './server-options'

export interface PayoutStateSettings extends PayoutSettings {
  seed: number
  shape: SandboxShape
  fromUs: number
  toUs: number
  now: () => number
  /** Default: `now()`, but never before 20 days after `toUs`, so the last generated month is paid. */
  payoutClock?: () => number
}

export interface PayoutState {
  payoutBook: () => PayoutBook
  payoutContext: () => PayoutContext
  /** Varied shape: a charge's item with the id of its ledger once it has one. */
  withLedgerId: (item: Record<string, unknown>, charge: SandboxCharge) => Record<string, unknown>
}

export function payoutState(data: Dataset, settings: PayoutStateSettings): PayoutState {
  const { seed, shape, fromUs, toUs, now, readings, minTransferPayout, transferSchedule } = settings
  const lastPaidMs = Math.floor(toUs / 1000) + 20 * 86_400_000
  const payoutClock = settings.payoutClock ?? (() => Math.max(now(), lastPaidMs))
  const payoutFromUs = fromUs
  const fxAccountId = uuidOf(`bank|${seed}|FX`)
  const bankAccounts: BankAccountSpec[] = [
    { id: uuidOf(`bank|${seed}|JPY`), currency: 'JPY', primary: true },
    { id: fxAccountId, currency: 'USD', primary: false },
  ]
  let book: { version: number; value: PayoutBook; builtAt: number } | undefined
  /** Rebuilt only when the data changed or the clock passed the book's next event. */
  function payoutBook(): PayoutBook {
    const clockMs = payoutClock()
    if (book && book.version === data.version && clockMs < book.value.nextEventMs && clockMs >= book.builtAt)
      return book.value
    const value = buildPayouts(data, {
      seed,
      fromUs: payoutFromUs,
      readings,
      minTransferPayout,
      transferSchedule,
      clockMs,
      bankAccountFor: (currency) => bankAccounts.find((b) => b.currency === currency)?.id ?? fxAccountId,
    })
    book = { version: data.version, value, builtAt: clockMs }
    return value
  }
  const payoutContext = (): PayoutContext => ({
    book: payoutBook(),
    merchant: data.merchant,
    bankAccounts,
    createdUs: payoutFromUs,
    minTransferPayout,
    transferSchedule,
  })
  /** Varied shape: a charge carries the id of its ledger once it has one. */
  function withLedgerId(item: Record<string, unknown>, charge: SandboxCharge): Record<string, unknown> {
    if (shape !== 'varied') return item
    const hasLedger =
      charge.mode === 'live' &&
      charge.status === 'successful' &&
      (charge.updatedUs ?? charge.createdUs) <= payoutClock() * 1000
    if (hasLedger) item['ledger_id'] = ledgerIdOf(seed, charge.id)
    return item
  }
  return { payoutBook, payoutContext, withLedgerId }
}
