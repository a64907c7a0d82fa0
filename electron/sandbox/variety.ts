/**
 * The varied shape's model facts: how each charge was paid (payment type, brand, bank-transfer state) with
 * the statuses those payments really have (konbini and bank transfers wait for the customer, QR payments
 * are pending, cards may be authorized), and the queue of late changes to OLD records (captures, payments,
 * deposits, refunds succeeding) that the server applies as time advances. Everything is drawn from its own
 * seeded generator, so the seed shape's records (drawn before) stay byte for byte what they were.
 * Sources of every choice: README.md, "Shapes" and "Late changes".
 */
import type { Prng } from './prng'
import type { BankTransferStatus, PaymentType, SandboxCharge, SandboxPayment, SandboxRefund } from './model'

/** Shares of payment types (java SDK `PaymentTypeName`; `google_pay` is a value no SDK lists). */
const PAYMENT_TYPE_WEIGHTS: [PaymentType, number][] = [
  ['card', 55],
  ['apple_pay', 6],
  ['google_pay', 2],
  ['konbini', 10],
  ['paidy', 5],
  ['online', 8],
  ['qr_scan', 5],
  ['qr_merchant', 3],
  ['bank_transfer', 6],
]
/** univapay-node `CardBrand` values. */
const CARD_BRANDS: [string, number][] = [
  ['visa', 45],
  ['mastercard', 30],
  ['jcb', 15],
  ['american_express', 7],
  ['diners_club', 3],
]
/** univapay-node `ConvenienceStore`. */
const KONBINI_BRANDS = ['seven_eleven', 'family_mart', 'lawson', 'mini_stop', 'seico_mart', 'daily_yamazaki']
/** univapay-node `OnlineBrand`; null as the reference allows. */
const ONLINE_BRANDS: (string | null)[] = [
  'pay_pay_online',
  'alipay_online',
  'we_chat_online',
  'd_barai_online',
  null,
]
/** univapay-node `QRBrand` and the java fixture's `yucho_pay`. */
const QR_SCAN_BRANDS = ['pay_pay', 'yucho_pay', 'au_pay', 'd_barai', 'line_pay', 'merpay']
/** java fixture `sample-transaction-history-qr-code-mpm.json` and univapay-node `QRBrand`. */
const QR_MERCHANT_BRANDS = ['we_chat_mpm', 'alipay_connect_mpm']

const HOUR_US = 3_600_000_000

const feeOf = (amount: number) => Math.round(amount * 0.0324)

/** Sets the fee the way the generator does: on successful and authorized charges only. */
export function settleFee(charge: SandboxCharge): void {
  const hasFee = charge.status === 'successful' || charge.status === 'authorized'
  charge.feeAmount = hasFee ? feeOf(charge.chargedAmount) : null
  charge.feeCurrency = hasFee ? charge.chargedCurrency : null
}

/**
 * Gives a generated charge its payment type and brand, and moves its status to one that payment type has
 * (only among charges without refunds, so refunds stay on successful charges).
 */
export function assignPayment(charge: SandboxCharge, rng: Prng): void {
  const type = rng.weighted(PAYMENT_TYPE_WEIGHTS)
  const payment: SandboxPayment = { type, brand: null }
  const open = charge.refunds.length === 0
  const setStatus = (status: SandboxCharge['status']) => {
    charge.status = status
    charge.captureAtUs = status === 'authorized' ? charge.createdUs + 7 * 24 * HOUR_US : null
    settleFee(charge)
  }
  switch (type) {
    case 'card':
    case 'apple_pay':
    case 'google_pay':
      payment.brand = rng.weighted(type === 'google_pay' ? CARD_BRANDS.slice(0, 2) : CARD_BRANDS)
      break
    case 'konbini':
    case 'bank_transfer': {
      payment.brand = type === 'konbini' ? rng.pick(KONBINI_BRANDS) : 'aozora_bank'
      // Paid at a store or by a transfer later: not captured, and often still unpaid.
      if (charge.status === 'pending' || charge.status === 'authorized') setStatus('awaiting')
      else if (charge.status === 'successful' && open && rng.chance(0.2)) setStatus('awaiting')
      if (type === 'bank_transfer') {
        const paid = charge.status === 'successful'
        const depositUs = charge.createdUs + rng.int(1, 72) * HOUR_US
        payment.bankTransfer =
          charge.status === 'awaiting' && rng.chance(0.15)
            ? { status: 'insufficient', latestDepositUs: depositUs }
            : paid
              ? { status: rng.chance(0.85) ? 'exact' : 'exceeded', latestDepositUs: depositUs }
              : { status: 'unpaid', latestDepositUs: null }
      }
      break
    }
    case 'paidy':
      payment.brand = 'paidy'
      if (charge.status === 'awaiting') setStatus('authorized')
      break
    case 'online':
    case 'qr_scan':
    case 'qr_merchant':
      payment.brand =
        type === 'online'
          ? rng.pick(ONLINE_BRANDS)
          : rng.pick(type === 'qr_scan' ? QR_SCAN_BRANDS : QR_MERCHANT_BRANDS)
      // The consumer completes the payment in the provider's app: pending, never authorized.
      if (charge.status === 'authorized' || charge.status === 'awaiting') setStatus('pending')
      // WeChat merchant-presented QR settles in CNY (java fixture `…-qr-code-mpm.json`).
      if (
        payment.brand === 'we_chat_mpm' &&
        charge.requestedCurrency === charge.chargedCurrency &&
        rng.chance(0.5)
      ) {
        charge.requestedCurrency = 'CNY'
        charge.chargedCurrency = 'CNY'
        settleFee(charge)
        for (const refund of charge.refunds) refund.currency = 'CNY'
      }
      break
  }
  // Number-valued metadata as the java fixtures show it (`payment_id: 999`, `float: 10.3`).
  if (type === 'qr_scan')
    payment.providerMetadata = {
      payment_id: rng.int(1, 99999),
      internal_payments_terminal_id: rng.int(100, 999),
    }
  else if (payment.brand === 'we_chat_mpm')
    payment.providerMetadata = { internal_wechat_exchange_rate: Number((0.05 + rng.next() / 100).toFixed(6)) }
  else if (type === 'card' && rng.chance(0.05)) payment.providerMetadata = { float: rng.int(1, 999) / 10 }
  charge.payment = payment
}

/** A charge's metadata as served in the varied shape: the merchant's plus the provider's. */
export function servedMetadata(charge: SandboxCharge): Record<string, string | number> {
  const extra = charge.payment?.providerMetadata
  return extra ? { ...charge.metadata, ...extra } : { ...charge.metadata }
}

/** Card-like payments: the ones whose `user_data` has cardholder fields and that the card filter matches. */
export function isCardLike(charge: SandboxCharge): boolean {
  const type = charge.payment?.type ?? 'card'
  return type === 'card' || type === 'apple_pay' || type === 'google_pay'
}

export type LateChangeKind = 'capture' | 'paid' | 'deposit-insufficient' | 'refund-succeeded'

/** One queued change to an old record. */
export interface LateChange {
  kind: LateChangeKind
  /** Charge id, or refund id for `refund-succeeded`. */
  id: string
  /** `capture`: the captured amount (less than authorized for a partial capture). */
  captureAmount?: number
  /** `paid` of a bank transfer: how the deposit matched. */
  bankStatus?: BankTransferStatus
}

/** What a late change did, for tests and the control endpoint. */
export interface AppliedLateChange extends LateChange {
  atUs: number
  statusBefore: string
  statusAfter: string
  amountBefore: number
  amountAfter: number
}

/**
 * The queue of late changes: about 80 % of the records still open when the data is generated (authorized,
 * pending, awaiting charges; pending refunds), in a seeded order. The server applies them one by one as
 * its clock advances (README.md, "Late changes").
 */
export function planLateChanges(charges: readonly SandboxCharge[], rng: Prng): LateChange[] {
  const plan: LateChange[] = []
  for (const charge of charges) {
    if (charge.status === 'authorized' && rng.chance(0.8)) {
      const partial = rng.chance(0.25)
      plan.push({
        kind: 'capture',
        id: charge.id,
        captureAmount: partial
          ? Math.max(1, Math.floor(charge.chargedAmount * (0.5 + rng.next() * 0.45)))
          : charge.chargedAmount,
      })
    } else if ((charge.status === 'pending' || charge.status === 'awaiting') && rng.chance(0.8)) {
      const bank = charge.payment?.bankTransfer
      if (bank?.status === 'unpaid' && rng.chance(0.3))
        plan.push({ kind: 'deposit-insufficient', id: charge.id })
      else
        plan.push({
          kind: 'paid',
          id: charge.id,
          ...(bank ? { bankStatus: rng.chance(0.8) ? 'exact' : 'exceeded' } : {}),
        })
    }
    for (const refund of charge.refunds)
      if (refund.status === 'pending' && rng.chance(0.8))
        plan.push({ kind: 'refund-succeeded', id: refund.id })
  }
  // Seeded order, so changes do not come oldest first (a sync must not assume that).
  for (let i = plan.length - 1; i > 0; i--) {
    const j = rng.int(0, i)
    const a = plan[i] as LateChange
    plan[i] = plan[j] as LateChange
    plan[j] = a
  }
  return plan
}

/**
 * Applies one late change at `atUs`. Returns what it did, the follow-up change to queue (a short deposit is
 * followed by the rest of the money), or nothing when the record moved on meanwhile (the control endpoint or
 * growth changed it).
 */
export function applyLateChange(
  change: LateChange,
  atUs: number,
  find: { charge(id: string): SandboxCharge | undefined; refund(id: string): SandboxRefund | undefined },
): { applied: AppliedLateChange; followUp?: LateChange } | undefined {
  if (change.kind === 'refund-succeeded') {
    const refund = find.refund(change.id)
    if (!refund || refund.status !== 'pending') return undefined
    refund.status = 'successful'
    refund.updatedUs = atUs
    return {
      applied: {
        ...change,
        atUs,
        statusBefore: 'pending',
        statusAfter: 'successful',
        amountBefore: refund.amount,
        amountAfter: refund.amount,
      },
    }
  }
  const charge = find.charge(change.id)
  if (!charge) return undefined
  const statusBefore = charge.status
  const amountBefore = charge.chargedAmount
  const bank = charge.payment?.bankTransfer
  let followUp: LateChange | undefined
  if (change.kind === 'capture') {
    if (charge.status !== 'authorized') return undefined
    charge.status = 'successful'
    // A partial capture lowers the charged amount; the requested amount stays what was asked.
    charge.chargedAmount = change.captureAmount ?? charge.chargedAmount
  } else if (change.kind === 'deposit-insufficient') {
    if (charge.status !== 'awaiting' || !bank || bank.status !== 'unpaid') return undefined
    bank.status = 'insufficient'
    bank.latestDepositUs = atUs
    followUp = { kind: 'paid', id: charge.id, bankStatus: 'exact' }
  } else {
    if (charge.status !== 'pending' && charge.status !== 'awaiting') return undefined
    charge.status = 'successful'
    if (bank) {
      bank.status = change.bankStatus ?? 'exact'
      bank.latestDepositUs = atUs
    }
  }
  settleFee(charge)
  charge.updatedUs = atUs
  return {
    applied: {
      ...change,
      atUs,
      statusBefore,
      statusAfter: charge.status,
      amountBefore,
      amountAfter: charge.chargedAmount,
    },
    ...(followUp ? { followUp } : {}),
  }
}
