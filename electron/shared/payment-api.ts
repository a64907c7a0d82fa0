/**
 * The payment service's list resources, as the seed (shared/seed/payment-api.md §2, §4) describes them.
 * Pure zod: used by the API client to validate every response, by the sandbox to type what it serves,
 * and by the renderer's cache. Unknown extra fields are kept (`looseObject`), never rejected, because the
 * real service may add fields at any time. Items are strict only in their accounting core (DESIGN §4);
 * the variety of the real service is in shared/reference/real-service.md.
 */
import { z } from 'zod'

export const uuidSchema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'expected a UUID')

/** ISO-8601 timestamp with an explicit offset or Z, e.g. 2026-10-31T16:30:00.123456Z. */
export const isoTimestampSchema = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/,
    'expected an ISO-8601 timestamp with a time zone',
  )
  .refine((s) => !Number.isNaN(Date.parse(s)), 'expected a real date')

export const modeSchema = z.enum(['live', 'test'])
export type Mode = z.infer<typeof modeSchema>

export const historyTypeSchema = z.enum(['charge', 'refund'])
export type HistoryType = z.infer<typeof historyTypeSchema>

/** ISO-4217 alphabetic code. */
export const currencyCodeSchema = z.string().regex(/^[A-Za-z]{3}$/, 'expected a 3-letter currency code')

/**
 * A field outside the accounting core: optional, nullable, and never a reason to refuse an item. A value
 * of an unexpected type is dropped from the typed item (it decides no money); every other field of the
 * item is kept as it came.
 */
function tolerant<T extends z.ZodType>(schema: T) {
  return schema.nullish().catch(undefined)
}

const metadataSchema = z.record(z.string(), z.unknown())

/**
 * Element of a charge row's user_data.refunds. The real service names the id `refund_id` (java SDK
 * fixtures); the seed left the shape open, so `id` is read too. Nothing here decides money on its own.
 */
export const userDataRefundSchema = z.looseObject({
  refund_id: tolerant(z.string()),
  id: tolerant(z.string()),
  amount: tolerant(z.number()),
  currency: tolerant(z.string()),
  amount_formatted: tolerant(z.unknown()),
  reason: tolerant(z.unknown()),
  status: tolerant(z.string()),
})
export type UserDataRefund = z.infer<typeof userDataRefundSchema>

/** The id of a user_data.refunds element: `refund_id` (real service) or `id` (seed-era sandbox). */
export function refundElementId(refund: UserDataRefund): string | undefined {
  return refund.refund_id ?? refund.id ?? undefined
}

/**
 * `user_data` depends on the payment type (real-service.md): card/apple_pay/google_pay carry cardholder and
 * brand fields (`brand` or `card_brand`), konbini `customer_name` and a store chain, paidy an e-mail and a
 * phone number, online/QR a brand that may be null, bank transfers an e-mail; refund rows only
 * `{ type, reason }` and at most an e-mail or phone, no `refunds`. Every field is optional and kept.
 */
export const userDataSchema = z.looseObject({
  type: tolerant(z.string()),
  cardholder_name: tolerant(z.string()),
  cardholder_email_address: tolerant(z.string()),
  cardholder_phone_number: tolerant(z.string()),
  customer_name: tolerant(z.string()),
  brand: tolerant(z.string()),
  card_brand: tolerant(z.string()),
  convenience_store: tolerant(z.string()),
  gateway: tolerant(z.string()),
  service_provider: tolerant(z.string()),
  reason: tolerant(z.unknown()),
  refunds: tolerant(z.array(userDataRefundSchema)),
})
export type UserData = z.infer<typeof userDataSchema>

/** What search and display take from user_data, whatever the payment type. */
export function userDataFacts(userData: UserData | null | undefined): {
  brand: string
  name: string
  email: string
  phone: string
  refunds: UserDataRefund[]
} {
  const u = userData ?? {}
  return {
    brand: u.brand ?? u.card_brand ?? u.convenience_store ?? '',
    name: u.cardholder_name ?? u.customer_name ?? '',
    email: u.cardholder_email_address ?? '',
    phone: u.cardholder_phone_number ?? '',
    refunds: u.refunds ?? [],
  }
}

/** Charge statuses that have no charged amount yet (java SDK awaiting fixture; php SDK Charge.php). */
const NOT_YET_CHARGED = new Set(['pending', 'awaiting'])

/**
 * Seed §2.2, split: the accounting core (ids, type, payment type, amount, currency, status, time, mode,
 * store) must be valid, or the item is quarantined; the rest is tolerant. Unknown fields are kept.
 */
export const historyItemSchema = z
  .looseObject({
    // Accounting core.
    store_id: uuidSchema,
    resource_id: uuidSchema,
    charge_id: uuidSchema.nullable(),
    amount: z.number().int(),
    currency: currencyCodeSchema,
    type: historyTypeSchema,
    status: z.string().min(1, 'expected a status'),
    created_on: isoTimestampSchema,
    mode: modeSchema,
    payment_type: z.string().min(1, 'expected a payment type'),
    // Tolerant.
    amount_formatted: tolerant(z.number()),
    metadata: tolerant(metadataSchema),
    merchant_name: tolerant(z.string()),
    store_name: tolerant(z.string()),
    user_data: tolerant(userDataSchema),
    bank_transfer_payment_status: tolerant(z.string()),
    bank_transfer_latest_deposit_date: tolerant(z.string()),
  })
  .superRefine((item, ctx) => {
    // A refund is money against a charge: without the charge's id it cannot be booked.
    if (item.type === 'refund' && item.charge_id === null)
      ctx.addIssue({ code: 'custom', path: ['charge_id'], message: 'a refund must name its charge' })
  })
export type HistoryItem = z.infer<typeof historyItemSchema>

/**
 * Seed §2.3, split like the history item. `charged_*` are null while a charge is pending or awaiting;
 * a successful charge must say what it charged. Fees are money too: absent, null, or valid.
 */
export const chargeItemSchema = z
  .looseObject({
    // Accounting core.
    id: uuidSchema,
    store_id: uuidSchema,
    requested_amount: z.number().int(),
    requested_currency: currencyCodeSchema,
    charged_amount: z.number().int().nullable(),
    charged_currency: currencyCodeSchema.nullable(),
    fee_amount: z.number().int().nullish(),
    fee_currency: currencyCodeSchema.nullish(),
    status: z.string().min(1, 'expected a status'),
    mode: modeSchema,
    created_on: isoTimestampSchema,
    // Tolerant.
    transaction_token_id: tolerant(z.string()),
    transaction_token_type: tolerant(z.string()),
    subscription_id: tolerant(z.string()),
    merchant_transaction_id: tolerant(z.string()),
    requested_amount_formatted: tolerant(z.number()),
    charged_amount_formatted: tolerant(z.number()),
    fee_amount_formatted: tolerant(z.number()),
    only_direct_currency: tolerant(z.boolean()),
    capture_at: tolerant(z.string()),
    descriptor: tolerant(z.string()),
    descriptor_phone_number: tolerant(z.string()),
    error: tolerant(z.looseObject({})),
    metadata: tolerant(metadataSchema),
    redirect: tolerant(z.looseObject({})),
    merchant_name: tolerant(z.string()),
    store_name: tolerant(z.string()),
  })
  .superRefine((item, ctx) => {
    if (NOT_YET_CHARGED.has(item.status)) return
    if (item.status === 'successful') {
      if (item.charged_amount === null)
        ctx.addIssue({ code: 'custom', path: ['charged_amount'], message: 'a successful charge needs it' })
      if (item.charged_currency === null)
        ctx.addIssue({ code: 'custom', path: ['charged_currency'], message: 'a successful charge needs it' })
    }
  })
export type ChargeItem = z.infer<typeof chargeItemSchema>

/**
 * A `total_hits` above this is not taken as a count: 50 times the 2 million records the cache is built
 * for, far beyond a merchant's history in one list.
 */
export const MAX_PLAUSIBLE_TOTAL = 100_000_000

/**
 * Seed §2.1. `total_hits` is not required (the client must cope without it), and one that cannot be a
 * count (negative, fractional, beyond `MAX_PLAUSIBLE_TOTAL`, not a number) is read as absent: unknown,
 * never a reason to refuse the page nor a number to show.
 */
export function listEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    items: z.array(item),
    has_more: z.boolean(),
    total_hits: z.number().int().nonnegative().max(MAX_PLAUSIBLE_TOTAL).optional().catch(undefined),
    /** History answers may carry it while has_more is true (real-service.md). Ignored unless a UUID. */
    next_cursor: z.string().nullish(),
  })
}

/**
 * The envelope alone, items unread: the client checks it first (a broken envelope refuses the page
 * whole), then each item on its own (a bad item is quarantined, the others are stored).
 */
export const rawListEnvelopeSchema = listEnvelopeSchema(z.unknown())
export type RawListEnvelope = z.infer<typeof rawListEnvelopeSchema>
export const historyListSchema = listEnvelopeSchema(historyItemSchema)
export const chargeListSchema = listEnvelopeSchema(chargeItemSchema)
export type HistoryList = z.infer<typeof historyListSchema>
export type ChargeList = z.infer<typeof chargeListSchema>

/** Paging, as the service's public SDK does it (see electron/sandbox/README.md). */
export const cursorDirectionSchema = z.enum(['asc', 'desc'])
export type CursorDirection = z.infer<typeof cursorDirectionSchema>
export const MAX_PAGE_LIMIT = 100
export const DEFAULT_PAGE_LIMIT = 10

export const pagingSchema = z.object({
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).optional(),
  cursor: uuidSchema.optional(),
  cursor_direction: cursorDirectionSchema.optional(),
})
export type Paging = z.infer<typeof pagingSchema>

/** Seed §4.1. */
export const historyFiltersSchema = z.strictObject({
  from: isoTimestampSchema.optional(),
  to: isoTimestampSchema.optional(),
  search: z.string().min(1).max(200).optional(),
  type: historyTypeSchema.optional(),
  status: z.string().min(1).max(64).optional(),
  mode: modeSchema.optional(),
})
export type HistoryFilters = z.infer<typeof historyFiltersSchema>

const CARD_GROUP = ['last_four', 'name', 'exp_month', 'exp_year'] as const

/** Seed §4.2, with the card group all-or-none. */
export const chargeFiltersSchema = z
  .strictObject({
    last_four: z
      .string()
      .regex(/^\d{4}$/, 'expected 4 digits')
      .optional(),
    name: z.string().min(1).max(200).optional(),
    exp_month: z.number().int().min(1).max(12).optional(),
    exp_year: z.number().int().min(2000).max(2100).optional(),
    from: isoTimestampSchema.optional(),
    to: isoTimestampSchema.optional(),
    email: z.string().min(1).max(320).optional(),
    phone: z
      .string()
      .regex(/^\+?\d{4,20}$/, 'expected a telephone number of digits')
      .optional(),
    amount_from: z.number().int().nonnegative().optional(),
    amount_to: z.number().int().nonnegative().optional(),
    currency: currencyCodeSchema.optional(),
    mode: modeSchema.optional(),
    metadata: z.string().min(1).max(200).optional(),
    transaction_token_id: uuidSchema.optional(),
  })
  .superRefine((f, ctx) => {
    const given = CARD_GROUP.filter((k) => f[k] !== undefined)
    if (given.length > 0 && given.length < CARD_GROUP.length) {
      for (const k of CARD_GROUP.filter((k) => f[k] === undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: [k],
          message: `required when any of ${CARD_GROUP.join(', ')} is given`,
        })
      }
    }
    if (f.amount_from !== undefined && f.amount_to !== undefined && f.amount_from >= f.amount_to) {
      ctx.addIssue({ code: 'custom', path: ['amount_to'], message: 'must be greater than amount_from' })
    }
  })
export type ChargeFilters = z.infer<typeof chargeFiltersSchema>
