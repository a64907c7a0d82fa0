/**
 * Payment-method words of order files against the service's `payment_type`. A method rules a pair out
 * only when both sides are certain: the shop's word names one family without doubt (not "後払い", which
 * may be a deferred-payment company outside the service) and the record carries a `payment_type` this
 * app knows. Wallets inside a card form (Apple Pay, Google Pay under クレジットカード) are card payments.
 */
import type { HistoryRecord } from '../domain/records'

export type PaymentFamily = 'card' | 'konbini' | 'cod' | 'bank_transfer' | 'paidy' | 'online'

export interface PaymentMethod {
  family: PaymentFamily
  /** False when the word may mean a payment outside the family (then it never rules anything out). */
  certain: boolean
}

const METHOD_PATTERNS: readonly [PaymentFamily, boolean, RegExp][] = [
  ['cod', true, /cash on delivery|\bcod\b|代金引換|代引/i],
  ['paidy', true, /paidy|ペイディ/i],
  // "後払い" is also NP後払い, コンビニ後払い, atone, GMO後払い…: not certainly the service's Paidy.
  ['paidy', false, /後払い|あと払い|deferred/i],
  ['konbini', true, /konbini|コンビニ|convenience|ファミリーマート|ローソン|セブン/i],
  ['bank_transfer', true, /bank ?(deposit|transfer)|銀行振込|振込|bank_transfer/i],
  ['online', true, /paypay|alipay|wechat|楽天ペイ|d払い|au ?pay|line ?pay|qr/i],
  [
    'card',
    true,
    /card|クレジット|カード|visa|master|jcb|amex|diners|shopify payments|apple ?pay|google ?pay/i,
  ],
]

/** The family of an order's payment method text; null when the text says nothing we recognise. */
export function paymentMethodOf(method: string | undefined | null): PaymentMethod | null {
  if (!method) return null
  const text = method.normalize('NFKC')
  for (const [family, certain, re] of METHOD_PATTERNS) if (re.test(text)) return { family, certain }
  return null
}

/** The family of an order's payment method text; null when the text says nothing we recognise. */
export function paymentFamilyOf(method: string | undefined | null): PaymentFamily | null {
  return paymentMethodOf(method)?.family ?? null
}

/** Payment types (history `payment_type`) a family may be paid with; COD never goes through the service. */
const FAMILY_TYPES: Readonly<Record<PaymentFamily, readonly string[]>> = {
  card: ['card', 'apple_pay', 'google_pay'],
  konbini: ['konbini'],
  cod: [],
  bank_transfer: ['bank_transfer'],
  paidy: ['paidy'],
  online: ['online', 'qr_scan'],
}

const KNOWN_TYPES = new Set(Object.values(FAMILY_TYPES).flat())

/** The record's `payment_type` when it carries one this app knows; null otherwise (then it is uncertain). */
function certainTypeOf(record: HistoryRecord): string | null {
  const raw = record.raw as { payment_type?: unknown }
  return typeof raw.payment_type === 'string' && KNOWN_TYPES.has(raw.payment_type) ? raw.payment_type : null
}

/** Whether the method leaves the record possible: false only when both sides are certain and disagree. */
export function methodAllows(method: PaymentMethod | null, record: HistoryRecord): boolean {
  if (method === null || !method.certain) return true
  // Cash on delivery is paid to the carrier: no record of the service is ever its payment.
  if (method.family === 'cod') return false
  const type = certainTypeOf(record)
  return type === null || FAMILY_TYPES[method.family].includes(type)
}
