/**
 * The sandbox's payouts, derived from its charges and refunds (README.md, "Payouts"): one ledger per
 * successful live charge and refund, monthly transfers per currency closed in Asia/Tokyo and paid on the
 * 15th of the next month (moved past weekends), manual ledgers, carry-over under the minimum, one failed
 * and one canceled transfer, and status changes that become visible as the payout clock passes them.
 * Everything is a pure function of the data, the seed, the readings and the clock: ids are hashes, so a
 * ledger or transfer keeps its id however often the book is rebuilt.
 */
import type { Dataset } from './dataset'
import { Prng } from './prng'

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

/** The readings plus the contract's minimum payout (JPY; two-decimal currencies half of it in minor units). */
export interface PayoutOptions extends PayoutReadingOptions {
  minTransferPayout?: number
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
export const PAYOUT_DAY_OF_MONTH = 15
/** Asia/Tokyo has no daylight saving time: a fixed offset is exact. */
const JST_OFFSET_MS = 9 * 3600_000
const DAY_MS = 86_400_000

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

export interface SandboxStatusChange {
  id: string
  transferId: string
  oldStatus: string | null
  newStatus: string
  reason: string | null
  createdUs: number
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

/** First instant (ms, UTC) of the Tokyo month `index` months after 1970-01. */
function monthStartMs(index: number): number {
  const year = 1970 + Math.floor(index / 12)
  const month = ((index % 12) + 12) % 12
  return Date.UTC(year, month, 1) - JST_OFFSET_MS
}

function monthIndexOf(ms: number): number {
  const d = new Date(ms + JST_OFFSET_MS)
  return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth()
}

function tokyoDate(ms: number): string {
  return new Date(ms + JST_OFFSET_MS).toISOString().slice(0, 10)
}

/** The 15th of the month after period `index`, Tokyo, moved past a weekend to Monday; 10:00 JST. */
export function payoutDayMs(index: number): number {
  const start = monthStartMs(index + 1) + (PAYOUT_DAY_OF_MONTH - 1) * DAY_MS
  const weekday = new Date(start + JST_OFFSET_MS).getUTCDay()
  const shift = weekday === 6 ? 2 : weekday === 0 ? 1 : 0
  return start + shift * DAY_MS + 10 * 3600_000
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

interface PeriodContext {
  seed: number
  currency: string
  index: number
  clockMs: number
  bankAccountId: string
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

type Outcome = 'paid' | 'failed' | 'canceled'

/** Status changes of a transfer over its life; only those the clock has reached are kept. */
function lifecycle(
  ctx: PeriodContext,
  transferId: string,
  outcome: Outcome | 'blank',
  event: (ms: number) => void,
): SandboxStatusChange[] {
  const created = monthStartMs(ctx.index + 1) + 3600_000
  const payMs = payoutDayMs(ctx.index)
  const steps: [string, string, string | null, number][] =
    outcome === 'blank'
      ? [['created', 'blank', 'under the minimum payout: carried over', created + 60_000]]
      : outcome === 'canceled'
        ? [
            ['created', 'approved', null, created + DAY_MS],
            [
              'approved',
              'canceled',
              'canceled by the service: paid with the next transfer',
              created + 2 * DAY_MS,
            ],
          ]
        : [
            ['created', 'approved', null, created + DAY_MS],
            ['approved', 'processing', null, payMs - DAY_MS],
            outcome === 'failed'
              ? ['processing', 'failed', 'the bank refused the transfer: account closed', payMs]
              : ['processing', 'paid', null, payMs],
          ]
  event(created)
  for (const [, , , at] of steps) event(at)
  return steps
    .filter(([, , , at]) => at <= ctx.clockMs)
    .map(([oldStatus, newStatus, reason, at], i) => ({
      id: uuidOf(`status|${ctx.seed}|${transferId}|${i}`),
      transferId,
      oldStatus,
      newStatus,
      reason,
      createdUs: at * 1000,
    }))
}

export interface BuildOptions {
  seed: number
  fromUs: number
  readings: Required<PayoutReadingOptions>
  minTransferPayout: number
  /** The payout clock (ms): periods end, transfers appear and statuses change when it passes them. */
  clockMs: number
  bankAccountFor(currency: string): string
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
  const firstIndex = monthIndexOf(Math.floor(options.fromUs / 1000))
  const byCurrency = new Map<string, SandboxLedger[]>()
  for (const l of all) {
    const list = byCurrency.get(l.currency) ?? []
    list.push(l)
    byCurrency.set(l.currency, list)
  }
  // The canceled transfer is the first one of the busiest other currency; the failed one JPY's second.
  const others = [...byCurrency.entries()]
    .filter(([c]) => c !== 'JPY')
    .sort((a, b) => b[1].length - a[1].length)
  const cancelCurrency = others[0]?.[0]
  const transfers: SandboxTransfer[] = []
  const ledgers: SandboxLedger[] = [...all]
  for (const [currency, list] of [...byCurrency.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const byPeriod = new Map<number, SandboxLedger[]>()
    for (const l of list) {
      const i = monthIndexOf(Math.floor(l.createdUs / 1000))
      byPeriod.set(i, [...(byPeriod.get(i) ?? []), l])
    }
    let carried: SandboxLedger[] = []
    let unpaid: SandboxTransfer | undefined
    let made = 0
    event(monthStartMs(monthIndexOf(clockMs) + 1))
    for (let index = firstIndex; monthStartMs(index + 1) <= clockMs; index++) {
      const ctx: PeriodContext = {
        seed,
        currency,
        index,
        clockMs,
        bankAccountId: options.bankAccountFor(currency),
      }
      const pool = [...carried, ...(byPeriod.get(index) ?? [])]
      if (currency === 'JPY' && index === firstIndex + 1) {
        const adjustment = manualLedger(
          `adjustment|${seed}|${index}`,
          currency,
          ADJUSTMENT_JPY,
          'Adjustment: chargeback handling fee',
          (monthStartMs(index) + 10 * DAY_MS) * 1000,
        )
        pool.push(adjustment)
        ledgers.push(adjustment)
      }
      const net = pool.reduce((s, l) => s + netOf(l, readings.ledgerAmounts), 0)
      const transferId = uuidOf(`transfer|${seed}|${currency}|${index}`)
      const createdMs = monthStartMs(index + 1) + 3600_000
      const base = {
        bankAccountId: ctx.bankAccountId,
        currency,
        errorCode: null,
        errorText: null,
        from: tokyoDate(monthStartMs(index)),
        to: tokyoDate(monthStartMs(index + 1)),
        createdUs: createdMs * 1000,
      }
      if (net + (unpaid?.amount ?? 0) < minPayoutOf(currency, options.minTransferPayout)) {
        if (readings.carryOver === 'blank_transfer' && createdMs <= clockMs)
          transfers.push({
            ...base,
            id: transferId,
            amount: 0,
            status: 'blank',
            note: 'Carried over: under the minimum payout',
            metadata: {},
            changes: lifecycle(ctx, transferId, 'blank', event),
          })
        carried = pool
        continue
      }
      const fee =
        currency === 'JPY' && readings.transferFee === 'manual_ledger'
          ? manualLedger(
              `transfer-fee|${seed}|${index}`,
              currency,
              -TRANSFER_FEE_JPY,
              'Transfer fee (¥400 + tax)',
              createdMs * 1000,
            )
          : undefined
      if (fee) {
        pool.push(fee)
        ledgers.push(fee)
      }
      // open_ledgers: what was carried over is paid, but its ledgers never name the transfer.
      for (const l of pool)
        if (!(readings.carryOver === 'open_ledgers' && carried.includes(l))) l.transferId = transferId
      carried = []
      const outcome: Outcome =
        currency === 'JPY' && made === 1
          ? 'failed'
          : currency === cancelCurrency && made === 0
            ? 'canceled'
            : 'paid'
      const changes = lifecycle(ctx, transferId, outcome, event)
      const repays = unpaid
      const transfer: SandboxTransfer = {
        ...base,
        id: transferId,
        amount: net + (fee?.amount ?? 0) + (repays?.amount ?? 0),
        status: changes[changes.length - 1]?.newStatus ?? 'created',
        note: repays ? `Includes the unpaid transfer ${repays.id}` : null,
        metadata: repays ? { repays_transfer_id: repays.id } : {},
        changes,
      }
      if (transfer.status === 'failed') {
        transfer.errorCode = 'BANK_ACCOUNT_CLOSED'
        transfer.errorText = 'The bank refused the transfer: account closed'
      }
      transfers.push(transfer)
      made++
      unpaid = outcome === 'paid' ? undefined : transfer
    }
  }
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
