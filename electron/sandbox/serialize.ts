/**
 * The sandbox's model as the API's items. Seed shape (seed §2.2, §2.3): every field with the seed's types.
 * Varied shape: what the real service sends (README.md, "Shapes"). Which optional form a record takes is a
 * hash of its id, so it is the same on every page, in every request and in `snapshot()`.
 */
import {
  DEFAULT_SHAPE,
  formatted,
  isoFromUs,
  isoFromUsWithOffset,
  type HistoryEntry,
  type SandboxCharge,
  type SandboxMerchant,
  type SandboxRefund,
  type SandboxShape,
} from './model'
import { hash32 } from './prng'
import { isCardLike, servedMetadata } from './variety'

export interface Names {
  merchant: SandboxMerchant
  storeName(storeId: string): string
}

function userDataRefund(refund: SandboxRefund): Record<string, unknown> {
  return {
    id: refund.id,
    amount: refund.amount,
    currency: refund.currency,
    amount_formatted: formatted(refund.amount, refund.currency),
    status: refund.status,
    reason: refund.reason,
    created_on: isoFromUs(refund.createdUs),
  }
}

/**
 * The fields of a history item that both shapes write, in the seed's order. What the shapes differ in
 * comes in `form`: the varied shape's `charge_id` on charge rows and its refund rows' own currency.
 */
function historyCore(
  entry: HistoryEntry,
  form: { chargeId: string | null; currency: string },
): Record<string, unknown> {
  const { charge } = entry
  const refund = entry.kind === 'refund' ? entry.refund : undefined
  const amount = refund ? refund.amount : charge.chargedAmount
  return {
    store_id: charge.storeId,
    resource_id: entry.id,
    charge_id: form.chargeId,
    amount,
    currency: form.currency,
    amount_formatted: formatted(amount, form.currency),
    type: entry.kind,
    status: refund ? refund.status : charge.status,
  }
}

export function historyItem(
  entry: HistoryEntry,
  names: Names,
  shape: SandboxShape = DEFAULT_SHAPE,
): Record<string, unknown> {
  if (shape === 'varied') return variedHistoryItem(entry, names)
  const { charge } = entry
  const test = charge.mode === 'test'
  return {
    ...historyCore(entry, {
      chargeId: entry.kind === 'refund' ? charge.id : null,
      currency: charge.chargedCurrency,
    }),
    metadata: entry.kind === 'refund' ? { ...entry.refund.metadata } : { ...charge.metadata },
    created_on: isoFromUs(entry.createdUs),
    mode: charge.mode,
    merchant_name: names.merchant.name,
    store_name: names.storeName(charge.storeId),
    payment_type: 'card',
    user_data: {
      type: entry.kind,
      cardholder_name: charge.card.name,
      cardholder_email_address: charge.card.email,
      brand: charge.card.brand,
      gateway: test ? 'test' : 'card_gateway',
      service_provider: test ? 'test' : 'card_acquirer',
      // On a charge record: every refund of the charge. A refund record stands for itself.
      refunds: entry.kind === 'charge' ? charge.refunds.map(userDataRefund) : [],
    },
    bank_transfer_payment_status: null,
    bank_transfer_latest_deposit_date: null,
  }
}

/**
 * The fields of a charge item that both shapes write, in the seed's order. What the shapes differ in comes
 * in `form`: the token type, whether anything is charged yet, and the metadata as served.
 */
function chargeCore(
  charge: SandboxCharge,
  form: { tokenType: string; charged: boolean; metadata: Record<string, unknown> },
): Record<string, unknown> {
  return {
    id: charge.id,
    store_id: charge.storeId,
    transaction_token_id: charge.transactionTokenId,
    transaction_token_type: form.tokenType,
    subscription_id: charge.subscriptionId,
    merchant_transaction_id: charge.merchantTransactionId,
    requested_amount: charge.requestedAmount,
    requested_currency: charge.requestedCurrency,
    requested_amount_formatted: formatted(charge.requestedAmount, charge.requestedCurrency),
    charged_amount: form.charged ? charge.chargedAmount : null,
    charged_currency: form.charged ? charge.chargedCurrency : null,
    charged_amount_formatted: form.charged ? formatted(charge.chargedAmount, charge.chargedCurrency) : null,
    fee_amount: charge.feeAmount,
    fee_currency: charge.feeCurrency,
    fee_amount_formatted:
      charge.feeAmount === null || charge.feeCurrency === null
        ? null
        : formatted(charge.feeAmount, charge.feeCurrency),
    only_direct_currency: false,
    capture_at: charge.captureAtUs === null ? null : isoFromUs(charge.captureAtUs),
    descriptor: charge.descriptor,
    descriptor_phone_number: charge.descriptor ? '03-0000-0000' : null,
    status: charge.status,
    error: charge.error ? { ...charge.error } : null,
    metadata: form.metadata,
    mode: charge.mode,
    created_on: isoFromUs(charge.createdUs),
    redirect: {},
  }
}

export function chargeItem(
  charge: SandboxCharge,
  names: Names,
  shape: SandboxShape = DEFAULT_SHAPE,
): Record<string, unknown> {
  if (shape === 'varied') return variedChargeItem(charge, names)
  return {
    ...chargeCore(charge, { tokenType: 'one_time', charged: true, metadata: { ...charge.metadata } }),
    merchant_name: names.merchant.name,
    store_name: names.storeName(charge.storeId),
  }
}

// ---- the varied shape ----

const kindSalts = new Map<string, number>()

/**
 * Stable shares in [0, 1) for the optional forms of one record: the same answer for the same id and kind,
 * every time. The id is hashed once per item and mixed per kind (a snapshot of 500k rows asks ~10 each).
 */
function quirksOf(id: string): (kind: string) => number {
  const base = hash32(`shape:${id}`)
  return (kind) => {
    let salt = kindSalts.get(kind)
    if (salt === undefined) kindSalts.set(kind, (salt = hash32(kind)))
    let h = (base ^ salt) >>> 0
    // murmur3's finalizer: neighbouring inputs spread over the whole range.
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
    return ((h ^ (h >>> 16)) >>> 0) / 4294967296
  }
}

/** A fixed platform id (the service sends the platform the merchant belongs to). */
const PLATFORM_ID = '6c9e1d2a-5b0f-4c1e-9d7a-2f3b4c5d6e7f'

const OPEN_STATUSES: ReadonlySet<string> = new Set(['pending', 'awaiting'])

/**
 * `user_data.refunds` elements (java SDK `RefundDetails`, fixtures): `refund_id`, never `id`, no
 * `created_on`; `reason` and `status` each sometimes absent.
 */
function variedRefundElement(refund: SandboxRefund): Record<string, unknown> {
  const form = quirksOf(refund.id)('refund-element')
  return {
    refund_id: refund.id,
    amount: refund.amount,
    currency: refund.currency,
    amount_formatted: formatted(refund.amount, refund.currency),
    ...(form < 0.9 ? { reason: refund.reason } : {}),
    ...(form < 0.7 || form >= 0.9 ? { status: refund.status } : {}),
  }
}

/** The charge row's `user_data` by payment type (java SDK `TransactionUserData` and its fixtures). */
function chargeUserData(charge: SandboxCharge): Record<string, unknown> {
  const payment = charge.payment ?? { type: 'card' as const, brand: charge.card.brand }
  const refunds = charge.refunds.map(variedRefundElement)
  const q = quirksOf(charge.id)
  const test = charge.mode === 'test'
  switch (payment.type) {
    case 'card':
    case 'apple_pay':
    case 'google_pay': {
      const email = q('email')
      return {
        type: 'charge',
        cardholder_name: charge.card.name,
        // Sometimes null, sometimes absent.
        ...(email < 0.1 ? {} : { cardholder_email_address: email < 0.2 ? null : charge.card.email }),
        // One fixture names the brand `card_brand`.
        [q('card-brand-key') < 0.05 ? 'card_brand' : 'brand']: payment.brand,
        // Announced for removal: absent on some rows; `service_provider` may be null.
        ...(q('gateway') < 0.4 ? {} : { gateway: test ? 'test' : 'card_gateway' }),
        ...(payment.type === 'card'
          ? { service_provider: q('provider') < 0.3 ? null : 'card_acquirer' }
          : {}),
        refunds,
      }
    }
    case 'konbini':
      return {
        type: 'charge',
        customer_name: charge.card.name,
        [q('konbini-brand-key') < 0.3 ? 'convenience_store' : 'brand']: payment.brand,
        refunds,
      }
    case 'paidy':
      return {
        type: 'charge',
        cardholder_email_address: charge.card.email,
        cardholder_phone_number: `81${charge.card.phone.slice(1)}`,
        brand: 'paidy',
        refunds,
      }
    case 'online':
      return { type: 'charge', cardholder_email_address: charge.card.email, brand: payment.brand, refunds }
    case 'qr_scan':
    case 'qr_merchant':
      return { type: 'charge', cardholder_email_address: null, brand: payment.brand, refunds }
    case 'bank_transfer':
      return { type: 'charge', cardholder_email_address: charge.card.email, brand: payment.brand, refunds }
  }
}

/** A refund row's `user_data`: the reason plus at most an e-mail or phone; no card fields, no `refunds`. */
function refundUserData(charge: SandboxCharge, refund: SandboxRefund): Record<string, unknown> {
  const type = charge.payment?.type ?? 'card'
  const base = { type: 'refund', reason: refund.reason }
  if (type === 'paidy')
    return {
      ...base,
      brand: 'paidy',
      cardholder_email_address: charge.card.email,
      cardholder_phone_number: `81${charge.card.phone.slice(1)}`,
    }
  if (type === 'online' || type === 'qr_scan' || type === 'bank_transfer')
    return { ...base, cardholder_email_address: charge.card.email }
  return base
}

function variedHistoryItem(entry: HistoryEntry, names: Names): Record<string, unknown> {
  const { charge } = entry
  const q = quirksOf(entry.id)
  const refund = entry.kind === 'refund' ? entry.refund : undefined
  const bank = charge.payment?.bankTransfer
  // Optional fields are added by assignment so their absence is plain to read.
  const item = historyCore(entry, {
    // On charge rows null, or (SDK fixtures) the charge's own id.
    chargeId: refund ? charge.id : q('charge-id') < 0.3 ? charge.id : null,
    currency: refund ? refund.currency : charge.chargedCurrency,
  })
  if (q('metadata') >= 0.1) item['metadata'] = refund ? { ...refund.metadata } : servedMetadata(charge)
  // The same instant, written in Tokyo time on some rows.
  item['created_on'] = isoFromUsWithOffset(entry.createdUs, q('offset') < 0.3 ? 540 : 0)
  item['mode'] = charge.mode
  item['merchant_name'] = names.merchant.name
  if (q('store-name') >= 0.1) item['store_name'] = names.storeName(charge.storeId)
  item['payment_type'] = charge.payment?.type ?? 'card'
  item['user_data'] = refund ? refundUserData(charge, refund) : chargeUserData(charge)
  // A refund row stands for the refund: the deposit state belongs to its charge's row.
  if (bank && !refund) {
    item['bank_transfer_payment_status'] = bank.status
    item['bank_transfer_latest_deposit_date'] =
      bank.latestDepositUs === null ? null : isoFromUs(bank.latestDepositUs)
  } else if (q('bank-fields') >= 0.5) {
    item['bank_transfer_payment_status'] = null
    item['bank_transfer_latest_deposit_date'] = null
  }
  if (q('extras') < 0.3) {
    item['updated_on'] = isoFromUs((refund ? refund.updatedUs : charge.updatedUs) ?? entry.createdUs)
    item['merchant_id'] = names.merchant.id
    item['charge_type'] = refund ? null : 'normal'
  }
  return item
}

function variedChargeItem(charge: SandboxCharge, names: Names): Record<string, unknown> {
  const q = quirksOf(charge.id)
  const open = OPEN_STATUSES.has(charge.status)
  const tokenType = charge.subscriptionId ? 'subscription' : q('token-type') < 0.15 ? 'recurring' : 'one_time'
  return {
    // Nothing is charged yet while the charge is pending or awaiting.
    ...chargeCore(charge, { tokenType, charged: !open, metadata: servedMetadata(charge) }),
    // The SDK fixtures of single charges carry no names.
    ...(q('names') < 0.15
      ? {}
      : { merchant_name: names.merchant.name, store_name: names.storeName(charge.storeId) }),
    ...(q('extras') < 0.5
      ? {
          three_ds: {
            redirect_endpoint: null,
            redirect_id: null,
            mode: isCardLike(charge) ? 'normal' : 'skip',
          },
          platform_id: PLATFORM_ID,
          merchant_id: names.merchant.id,
          ledger_id: null,
          client_metadata_id: null,
          updated_on: isoFromUs(charge.updatedUs ?? charge.createdUs),
          type: 'normal',
        }
      : {}),
  }
}
