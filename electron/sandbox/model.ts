/**
 * The sandbox's own model of a merchant's data. Times are integer microseconds since the epoch (UTC), so the
 * API's fractional seconds round-trip exactly and `from`/`to` edges can be tested to the microsecond.
 */
export const CHARGE_STATUSES = [
  'pending',
  'awaiting',
  'authorized',
  'successful',
  'failed',
  'error',
  'canceled',
] as const
export type ChargeStatus = (typeof CHARGE_STATUSES)[number]

export const REFUND_STATUSES = ['pending', 'successful', 'failed', 'error'] as const
export type RefundStatus = (typeof REFUND_STATUSES)[number]

/**
 * What the sandbox serves: `seed` is the seed document's single shape (every row a card payment with every
 * field); `varied` is the variety the real service sends (README.md, "Shapes").
 */
export const SANDBOX_SHAPES = ['seed', 'varied'] as const
export type SandboxShape = (typeof SANDBOX_SHAPES)[number]
/** The shape of a sandbox started without one: the CLI, tests, and the app's demo connection. */
export const DEFAULT_SHAPE: SandboxShape = 'varied'

/** `payment_type` values of the varied shape (java SDK `PaymentTypeName`, plus one the SDKs do not list). */
export const PAYMENT_TYPES = [
  'card',
  'apple_pay',
  'google_pay',
  'konbini',
  'paidy',
  'online',
  'qr_scan',
  'qr_merchant',
  'bank_transfer',
] as const
export type PaymentType = (typeof PAYMENT_TYPES)[number]

export const BANK_TRANSFER_STATUSES = ['unpaid', 'insufficient', 'exact', 'exceeded'] as const
export type BankTransferStatus = (typeof BANK_TRANSFER_STATUSES)[number]

/** How a charge was paid, in the varied shape only (seed-shaped charges have none: they are cards). */
export interface SandboxPayment {
  type: PaymentType
  /** Card brand, konbini chain, wallet or bank brand; null where the service sends null. */
  brand: string | null
  bankTransfer?: { status: BankTransferStatus; latestDepositUs: number | null }
  /** Metadata the provider adds, with number values (java fixtures: QR receipt numbers, WeChat rates). */
  providerMetadata?: Record<string, number>
}

export interface SandboxCard {
  name: string
  email: string
  phone: string
  brand: 'visa' | 'master'
  lastFour: string
  expMonth: number
  expYear: number
}

export interface SandboxRefund {
  id: string
  chargeId: string
  storeId: string
  amount: number
  currency: string
  status: RefundStatus
  reason: 'customer_request' | 'duplicate' | 'fraud'
  createdUs: number
  metadata: Record<string, string>
  /** Set when the refund changed after creation (varied shape: `updated_on`). */
  updatedUs?: number
}

export interface SandboxCharge {
  id: string
  storeId: string
  transactionTokenId: string
  subscriptionId: string | null
  merchantTransactionId: string | null
  requestedAmount: number
  requestedCurrency: string
  chargedAmount: number
  chargedCurrency: string
  feeAmount: number | null
  feeCurrency: string | null
  status: ChargeStatus
  error: { code: string; message: string; detail: string | null } | null
  metadata: Record<string, string>
  mode: 'live' | 'test'
  createdUs: number
  captureAtUs: number | null
  descriptor: string | null
  card: SandboxCard
  refunds: SandboxRefund[]
  /** Varied shape only; absent means a card payment as in the seed. */
  payment?: SandboxPayment
  /** Set when the charge changed after creation (varied shape: `updated_on`). */
  updatedUs?: number
}

export interface SandboxStore {
  id: string
  name: string
}

export interface SandboxMerchant {
  id: string
  name: string
}

/** One row of the transaction history: a charge or one of its refunds. */
export type HistoryEntry =
  | { kind: 'charge'; id: string; createdUs: number; storeId: string; charge: SandboxCharge }
  | {
      kind: 'refund'
      id: string
      createdUs: number
      storeId: string
      charge: SandboxCharge
      refund: SandboxRefund
    }

/** ISO-4217 minor-unit exponents of the currencies the sandbox uses. */
export const CURRENCY_EXPONENT: Record<string, number> = { JPY: 0, USD: 2, EUR: 2, CNY: 2 }

export function formatted(amount: number, currency: string): number {
  const exponent = CURRENCY_EXPONENT[currency] ?? 2
  return Number((amount / 10 ** exponent).toFixed(exponent))
}

/** `2026-10-31T16:30:00.123456Z`: always six fractional digits. */
export function isoFromUs(us: number): string {
  const ms = Math.floor(us / 1000)
  const micros = us - ms * 1000
  // toISOString ends in `.mmmZ` for every year the sandbox makes: append the microseconds before the Z.
  const iso = new Date(ms).toISOString()
  return `${iso.slice(0, -1)}${micros < 10 ? '00' : micros < 100 ? '0' : ''}${micros}Z`
}

/** The same instant written with a fixed offset, e.g. `2026-10-31T01:30:00.123456+09:00`. */
export function isoFromUsWithOffset(us: number, offsetMinutes: number): string {
  if (offsetMinutes === 0) return isoFromUs(us)
  const local = isoFromUs(us + offsetMinutes * 60_000_000).slice(0, -1)
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  const hh = String(Math.floor(abs / 60)).padStart(2, '0')
  const mm = String(abs % 60).padStart(2, '0')
  return `${local}${sign}${hh}:${mm}`
}

/**
 * Parses an ISO-8601 timestamp (with Z or an offset; fractions to the microsecond) or a plain date
 * (midnight UTC) into microseconds; undefined when it is not one.
 */
export function usFromIso(text: string): number | undefined {
  const m =
    /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2}))?$/.exec(text)
  if (!m) return undefined
  const [, date, hh, mm, ss, fraction, zone] = m
  const iso =
    hh === undefined
      ? `${date}T00:00:00Z`
      : `${date}T${hh}:${mm}:${ss ?? '00'}${zone === 'Z' ? 'Z' : normalizeOffset(zone ?? 'Z')}`
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) return undefined
  // Date.parse accepts 2026-02-31; a real calendar check keeps such dates out.
  if (new Date(Date.parse(`${date}T00:00:00Z`)).toISOString().slice(0, 10) !== date) return undefined
  const micros = fraction ? Number(fraction.padEnd(6, '0').slice(0, 6)) : 0
  return ms * 1000 + micros
}

function normalizeOffset(offset: string): string {
  return offset.length === 5 ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset
}
