/**
 * The sandbox's payouts, derived from its charges and refunds (README.md, "Payouts"): one ledger per
 * successful live charge and refund, transfers per currency and period of the transfer schedule (monthly,
 * paid on the 15th of the next month moved past weekends, or weekly; payout-calendar.ts), manual ledgers, carry-over under the minimum, one failed
 * and one canceled transfer, and status changes that become visible as the payout clock passes them.
 * Everything is a pure function of the data, the seed, the readings and the clock: ids are hashes, so a
 * ledger or transfer keeps its id however often the book is rebuilt.
 */
import type { Dataset } from './dataset'
import {
  calendarOf,
  payoutDayMs,
  PAYOUT_DAY_OF_MONTH,
  tokyoDate,
  type PayoutCalendar,
  type TransferSchedule,
} from './payout-calendar'
import { lifecycle, type Outcome, type PeriodContext, type SandboxStatusChange } from './payout-lifecycle'
import { Prng } from './prng'

export { PAYOUT_DAY_OF_MONTH, payoutDayMs }
export { TRANSFER_SCHEDULES, type TransferSchedule } from './payout-calendar'
export type { SandboxStatusChange } from './payout-lifecycle'

export const LEDGER_AMOUNT_READINGS = ['net', 'gross'] as const
export const TRANSFER_FEE_READINGS = ['manual_ledger', 'bank_deducted'] as const
export const CARRY_OVER_READINGS = ['no_transfer', 'blank_transfer', 'open_ledgers'] as const
export type LedgerAmountReading = (typeof LEDGER_AMOUNT_READINGS)[number]
export type TransferFeeReading = (typeof TRANSFER_FEE_READINGS)[number]
export type CarryOverReading = (typeof CARRY_OVER_READINGS)[number]

export interface PayoutReadingOptions {
  ledgerAmounts?: LedgerAmountReading
  transferFee?: TransferFeeReading
  carryOver?: CarryOverReading
}

/**
 * The readings plus the contract: its minimum payout (JPY; two-decimal currencies half of it in minor
 * units) and its transfer schedule (monthly by default).
 */
export interface PayoutOptions extends PayoutReadingOptions {
  minTransferPayout?: number
  transferSchedule?: TransferSchedule
}

/** Percent units, as `/me` and the ledgers say: the same 3.24 % the charges' `fee_amount` is. */
export const PERCENT_FEE = 3.24
/** Flat fee per charge ledger in minor units: none on JPY, 30 on two-decimal currencies (java fixture). */
export const flatFeeOf = (currency: string): number => (currency === 'JPY' ? 0 : 30)
/** ¥400 + 10 % tax (UnivaPay's FAQ), on JPY transfers only. */
export const TRANSFER_FEE_JPY = 440
/** A payout below this is carried over: ¥10,000 (FAQ) by default; 50.00 in two-decimal currencies. */
export const DEFAULT_MIN_TRANSFER_PAYOUT = 10_000
export const minPayoutOf = (currency: string, jpy = DEFAULT_MIN_TRANSFER_PAYOUT): number =>
  currency === 'JPY' ? jpy : Math.round(jpy / 2)
/** The manual adjustment in the second JPY period. */
export const ADJUSTMENT_JPY = -1_500

export interface SandboxLedger {
  id: string
  storeId: string | null
  transferId: string | null
  amount: number
  currency: string
  percentFee: number
  flatFee: number
  exchangeRate: number
  origin: 'charge' | 'refund' | 'manual'
  note: string | null
  createdUs: number
  /** The charge or refund it stands for (the charge list's `ledger_id` points back). */
  sourceId: string | null
}

export interface SandboxTransfer {
  id: string
  bankAccountId: string
  amount: number
  currency: string
  status: string
  errorCode: string | null
  errorText: string | null
  note: string | null
  metadata: Record<string, string>
  from: string
  to: string
  createdUs: number
  /** Visible ones only (their time ≤ the payout clock), oldest first. */
  changes: SandboxStatusChange[]
}

export interface PayoutBook {
  transfers: SandboxTransfer[]
  transferById: Map<string, SandboxTransfer>
  /** Every ledger that exists at the clock, sorted by (created, id). */
  ledgers: SandboxLedger[]
  ledgerById: Map<string, SandboxLedger>
  /** Charge or refund id → its ledger id. */
  ledgerOfSource: Map<string, string>
  /** The first clock time (ms) after the book's clock at which it would change; Infinity: none. */
  nextEventMs: number
}

/** A UUID that is a pure function of `key`. */
export function uuidOf(key: string): string {
  return new Prng(key).uuid()
}

/** What the merchant receives for a ledger: its amount (net reading) or amount less fees (gross). */
export function netOf(ledger: SandboxLedger, reading: LedgerAmountReading): number {
  if (reading === 'net' || ledger.origin !== 'charge') return ledger.amount
  return ledger.amount - Math.round((ledger.amount * ledger.percentFee) / 100) - ledger.flatFee
}

function sourceLedgers(data: Dataset, seed: number, reading: LedgerAmountReading): SandboxLedger[] {
  const out: SandboxLedger[] = []
  for (const charge of data.charges) {
    if (charge.mode !== 'live') continue
    if (charge.status === 'successful' && charge.chargedAmount > 0) {
      const gross = charge.chargedAmount
      const currency = charge.chargedCurrency
      const flat = flatFeeOf(currency)
      const percentAmount = Math.round((gross * PERCENT_FEE) / 100)
      out.push({
        id: ledgerIdOf(seed, charge.id),
        storeId: charge.storeId,
        transferId: null,
        amount: reading === 'net' ? gross - percentAmount - flat : gross,
        currency,
        percentFee: PERCENT_FEE,
        flatFee: flat,
        exchangeRate: 1,
        origin: 'charge',
        note: null,
        // A charge that became successful late is booked when it did.
        createdUs: charge.updatedUs ?? charge.createdUs,
        sourceId: charge.id,
      })
    }
    for (const refund of charge.refunds) {
      if (refund.status !== 'successful') continue
      out.push({
        id: ledgerIdOf(seed, refund.id),
        storeId: refund.storeId,
        transferId: null,
        amount: -refund.amount,
        currency: refund.currency,
        percentFee: 0,
        flatFee: 0,
        exchangeRate: 1,
        origin: 'refund',
        note: null,
        createdUs: refund.updatedUs ?? refund.createdUs,
        sourceId: refund.id,
      })
    }
  }
  return out
}

function manualLedger(
  key: string,
  currency: string,
  amount: number,
  note: string,
  createdUs: number,
): SandboxLedger {
  return {
    id: uuidOf(key),
    storeId: null,
    transferId: null,
    amount,
    currency,
    percentFee: 0,
    flatFee: 0,
    exchangeRate: 1,
    origin: 'manual',
    note,
    createdUs,
    sourceId: null,
  }
}

export interface BuildOptions {
  seed: number
  fromUs: number
  readings: Required<PayoutReadingOptions>
  minTransferPayout: number
  transferSchedule: TransferSchedule
  /** The payout clock (ms): periods end, transfers appear and statuses change when it passes them. */
  clockMs: number
  bankAccountFor(currency: string): string
}

interface BookRun {
  options: BuildOptions
  calendar: PayoutCalendar
  firstIndex: number
  /** The currency whose first transfer is canceled (the busiest other than JPY). */
  cancelCurrency: string | undefined
  event: (ms: number) => void
}

/** Where a currency's periods stand: what is carried over, the last unpaid transfer, transfers made. */
interface CurrencyState {
  carried: SandboxLedger[]
  unpaid: SandboxTransfer | undefined
  made: number
}

/** A transfer for the period's pool (its transfer fee ledger added to `manual`), with its outcome. */
function makeTransfer(
  run: BookRun,
  ctx: PeriodContext,
  pool: SandboxLedger[],
  state: CurrencyState,
  manual: SandboxLedger[],
): { transfer: SandboxTransfer; outcome: Outcome } {
  const { seed, readings } = run.options
  const { currency, index, calendar } = ctx
  const transferId = uuidOf(`transfer|${seed}|${currency}|${calendar.key(index)}`)
  const createdMs = calendar.periodStartMs(index + 1) + 3600_000
  const fee =
    currency === 'JPY' && readings.transferFee === 'manual_ledger'
      ? manualLedger(
          `transfer-fee|${seed}|${calendar.key(index)}`,
          currency,
          -TRANSFER_FEE_JPY,
          'Transfer fee (¥400 + tax)',
          createdMs * 1000,
        )
      : undefined
  if (fee) manual.push(fee)
  // open_ledgers: what was carried over is paid, but its ledgers never name the transfer.
  const keepOpen = new Set(readings.carryOver === 'open_ledgers' ? state.carried : [])
  for (const l of [...pool, ...(fee ? [fee] : [])]) if (!keepOpen.has(l)) l.transferId = transferId
  const outcome: Outcome =
    currency === 'JPY' && state.made === 1
      ? 'failed'
      : currency === run.cancelCurrency && state.made === 0
        ? 'canceled'
        : 'paid'
  const changes = lifecycle(ctx, transferId, outcome, run.event)
  const repays = state.unpaid
  const net = pool.reduce((s, l) => s + netOf(l, readings.ledgerAmounts), 0)
  const status = changes[changes.length - 1]?.newStatus ?? 'created'
  const transfer: SandboxTransfer = {
    ...periodFields(ctx, createdMs),
    id: transferId,
    amount: net + (fee?.amount ?? 0) + (repays?.amount ?? 0),
    status,
    errorCode: status === 'failed' ? 'BANK_ACCOUNT_CLOSED' : null,
    errorText: status === 'failed' ? 'The bank refused the transfer: account closed' : null,
    note: repays ? `Includes the unpaid transfer ${repays.id}` : null,
    metadata: repays ? { repays_transfer_id: repays.id } : {},
    changes,
  }
  return { transfer, outcome }
}

function periodFields(ctx: PeriodContext, createdMs: number) {
  return {
    bankAccountId: ctx.bankAccountId,
    currency: ctx.currency,
    from: tokyoDate(ctx.calendar.periodStartMs(ctx.index)),
    to: tokyoDate(ctx.calendar.periodStartMs(ctx.index + 1)),
    createdUs: createdMs * 1000,
  }
}

/** One currency's transfers, period by period up to the clock; the manual ledgers made go to `manual`. */
function currencyTransfers(
  run: BookRun,
  currency: string,
  list: readonly SandboxLedger[],
  manual: SandboxLedger[],
): SandboxTransfer[] {
  const { seed, readings, clockMs } = run.options
  const { calendar } = run
  const byPeriod = new Map<number, SandboxLedger[]>()
  for (const l of list) {
    const i = calendar.periodIndexOf(Math.floor(l.createdUs / 1000))
    const period = byPeriod.get(i)
    if (period) period.push(l)
    else byPeriod.set(i, [l])
  }
  const out: SandboxTransfer[] = []
  const state: CurrencyState = { carried: [], unpaid: undefined, made: 0 }
  run.event(calendar.periodStartMs(calendar.periodIndexOf(clockMs) + 1))
  for (let index = run.firstIndex; calendar.periodStartMs(index + 1) <= clockMs; index++) {
    const ctx: PeriodContext = {
      calendar,
      seed,
      currency,
      index,
      clockMs,
      bankAccountId: run.options.bankAccountFor(currency),
    }
    const pool = [...state.carried, ...(byPeriod.get(index) ?? [])]
    if (currency === 'JPY' && index === run.firstIndex + 1) {
      const at = (calendar.periodStartMs(index) + calendar.adjustmentOffsetMs) * 1000
      const adjustment = manualLedger(
        `adjustment|${seed}|${calendar.key(index)}`,
        currency,
        ADJUSTMENT_JPY,
        'Adjustment: chargeback handling fee',
        at,
      )
      pool.push(adjustment)
      manual.push(adjustment)
    }
    const net = pool.reduce((s, l) => s + netOf(l, readings.ledgerAmounts), 0)
    if (net + (state.unpaid?.amount ?? 0) < minPayoutOf(currency, run.options.minTransferPayout)) {
      const createdMs = calendar.periodStartMs(index + 1) + 3600_000
      const id = uuidOf(`transfer|${seed}|${currency}|${calendar.key(index)}`)
      if (readings.carryOver === 'blank_transfer' && createdMs <= clockMs)
        out.push({
          ...periodFields(ctx, createdMs),
          id,
          amount: 0,
          status: 'blank',
          errorCode: null,
          errorText: null,
          note: 'Carried over: under the minimum payout',
          metadata: {},
          changes: lifecycle(ctx, id, 'blank', run.event),
        })
      state.carried = pool
      continue
    }
    const { transfer, outcome } = makeTransfer(run, ctx, pool, state, manual)
    out.push(transfer)
    state.carried = []
    state.made++
    // Decided by plan, not by the clock: the next transfer repays it whatever the status shows yet.
    state.unpaid = outcome === 'paid' ? undefined : transfer
  }
  return out
}

/** The whole payout book at the clock. */
export function buildPayouts(data: Dataset, options: BuildOptions): PayoutBook {
  const { seed, readings, clockMs } = options
  const clockUs = clockMs * 1000
  let nextEventMs = Infinity
  const event = (ms: number) => {
    if (ms > clockMs && ms < nextEventMs) nextEventMs = ms
  }
  const all = sourceLedgers(data, seed, readings.ledgerAmounts).filter((l) => {
    event(Math.ceil(l.createdUs / 1000))
    return l.createdUs <= clockUs
  })
  const byCurrency = new Map<string, SandboxLedger[]>()
  for (const l of all) {
    const list = byCurrency.get(l.currency)
    if (list) list.push(l)
    else byCurrency.set(l.currency, [l])
  }
  // The canceled transfer is the first one of the busiest other currency; the failed one JPY's second.
  const others = [...byCurrency.entries()]
    .filter(([c]) => c !== 'JPY')
    .sort((a, b) => b[1].length - a[1].length)
  const calendar = calendarOf(options.transferSchedule)
  const run: BookRun = {
    options,
    calendar,
    firstIndex: calendar.periodIndexOf(Math.floor(options.fromUs / 1000)),
    cancelCurrency: others[0]?.[0],
    event,
  }
  const ledgers: SandboxLedger[] = [...all]
  const transfers = [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .flatMap(([currency, list]) => currencyTransfers(run, currency, list, ledgers))
  transfers.sort((a, b) => a.createdUs - b.createdUs || (a.id < b.id ? -1 : 1))
  const visible = transfers.filter((t) => t.createdUs <= clockUs)
  const shown = new Set(visible.map((t) => t.id))
  for (const l of ledgers) if (l.transferId !== null && !shown.has(l.transferId)) l.transferId = null
  ledgers.sort((a, b) => a.createdUs - b.createdUs || (a.id < b.id ? -1 : 1))
  const ledgerOfSource = new Map<string, string>()
  for (const l of ledgers) if (l.sourceId) ledgerOfSource.set(l.sourceId, l.id)
  return {
    transfers: visible,
    transferById: new Map(visible.map((t) => [t.id, t])),
    ledgers,
    ledgerById: new Map(ledgers.map((l) => [l.id, l])),
    ledgerOfSource,
    nextEventMs,
  }
}

/** The ledger id a charge or refund carries once it has a ledger (a pure function of seed and id). */
export function ledgerIdOf(seed: number, sourceId: string): string {
  return uuidOf(`ledger|${seed}|${sourceId}`)
}
