/**
 * The payment service's list resources, as the seed (shared/seed/payment-api.md §2, §4) describes them.
 * Pure zod: used by the API client to validate every response, by the sandbox to type what it serves,
 * and by the renderer's cache. Unknown extra fields are kept (`looseObject`), never rejected, because the
 * real service may add fields at any time.
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

const metadataSchema = z.record(z.string(), z.unknown())

/** Element of user_data.refunds: the seed does not show its shape, so it is kept as-is. */
export const userDataRefundSchema = z.looseObject({})

export const userDataSchema = z.looseObject({
  type: z.string(),
  cardholder_name: z.string(),
  cardholder_email_address: z.string(),
  brand: z.string(),
  gateway: z.string(),
  service_provider: z.string(),
  refunds: z.array(userDataRefundSchema),
})

/** Seed §2.2. */
export const historyItemSchema = z.looseObject({
  store_id: uuidSchema,
  resource_id: uuidSchema,
  charge_id: uuidSchema.nullable(),
  amount: z.number().int(),
  currency: currencyCodeSchema,
  amount_formatted: z.number(),
  type: historyTypeSchema,
  status: z.string(),
  metadata: metadataSchema,
  created_on: isoTimestampSchema,
  mode: modeSchema,
  merchant_name: z.string(),
  store_name: z.string(),
  payment_type: z.string(),
  user_data: userDataSchema,
  bank_transfer_payment_status: z.unknown().nullable(),
  bank_transfer_latest_deposit_date: z.unknown().nullable(),
})
export type HistoryItem = z.infer<typeof historyItemSchema>

/** Seed §2.3. */
export const chargeItemSchema = z.looseObject({
  id: uuidSchema,
  store_id: uuidSchema,
  transaction_token_id: uuidSchema,
  transaction_token_type: z.string(),
  subscription_id: uuidSchema.nullable(),
  merchant_transaction_id: z.string().nullable(),
  requested_amount: z.number().int(),
  requested_currency: currencyCodeSchema,
  requested_amount_formatted: z.number(),
  charged_amount: z.number().int(),
  charged_currency: currencyCodeSchema,
  charged_amount_formatted: z.number(),
  fee_amount: z.number().int().nullable(),
  fee_currency: currencyCodeSchema.nullable(),
  fee_amount_formatted: z.number().nullable(),
  only_direct_currency: z.boolean(),
  capture_at: isoTimestampSchema.nullable(),
  descriptor: z.string().nullable(),
  descriptor_phone_number: z.string().nullable(),
  status: z.string(),
  error: z.looseObject({}).nullable(),
  metadata: metadataSchema,
  mode: modeSchema,
  created_on: isoTimestampSchema,
  redirect: z.looseObject({}),
  merchant_name: z.string(),
  store_name: z.string(),
})
export type ChargeItem = z.infer<typeof chargeItemSchema>

/** Seed §2.1. `total_hits` is validated when present but not required: the client must cope without it. */
export function listEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    items: z.array(item),
    has_more: z.boolean(),
    total_hits: z.number().int().nonnegative().optional(),
  })
}
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
