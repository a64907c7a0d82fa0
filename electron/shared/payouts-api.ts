/**
 * The payment service's payout resources on the wire (shared/reference/real-service.md, "Payouts"): what
 * main validates and the renderer maps to `src/domain/payouts.ts`. Pure zod. As for the lists, each item
 * is strict in its accounting core (ids, amount, currency, status or origin, time, the transfer it belongs
 * to, its fees) and tolerant elsewhere; unknown fields are kept (`looseObject`).
 */
import { z } from 'zod'
import { currencyCodeSchema, isoTimestampSchema, pagingSchema, uuidSchema } from './payment-api'

function tolerant<T extends z.ZodType>(schema: T) {
  return schema.nullish().catch(undefined)
}

/** `YYYY-MM-DD` (a transfer's settlement period); anything else is dropped, not refused. */
const dateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}/)

/** ISO-8601 with a zone, or epoch milliseconds (one java fake sends a number). */
export const payoutTimeSchema = z.union([isoTimestampSchema, z.number().int().nonnegative()])

/** Epoch ms of a validated payout time. */
export function payoutTimeMs(value: string | number): number {
  return typeof value === 'number' ? value : Date.parse(value)
}

export const transferItemSchema = z.looseObject({
  id: uuidSchema,
  amount: z.number().int(),
  currency: currencyCodeSchema,
  status: z.string().min(1, 'expected a status'),
  created_on: payoutTimeSchema,
  merchant_id: tolerant(z.string()),
  bank_account_id: tolerant(z.string()),
  amount_formatted: tolerant(z.number()),
  error_code: tolerant(z.string()),
  error_text: tolerant(z.string()),
  metadata: tolerant(z.record(z.string(), z.unknown())),
  note: tolerant(z.string()),
  started_by: tolerant(z.string()),
  from: tolerant(dateSchema),
  to: tolerant(dateSchema),
  merchant_name: tolerant(z.string()),
})
export type TransferItem = z.infer<typeof transferItemSchema>

export const ledgerItemSchema = z
  .looseObject({
    id: uuidSchema,
    amount: z.number().int(),
    currency: currencyCodeSchema,
    origin: z.string().min(1, 'expected an origin'),
    created_on: payoutTimeSchema,
    // Money decided here: absent or null is fine, a value of the wrong type is not.
    transfer_id: uuidSchema.nullish(),
    percent_fee: z.number().nonnegative().nullish(),
    flat_fee_amount: z.number().int().nullish(),
    flat_fee: z.number().int().nullish(),
    exchange_rate: z.number().positive().nullish(),
    flat_fee_currency: currencyCodeSchema.nullish(),
    merchant_id: tolerant(z.string()),
    store_id: tolerant(z.string()),
    amount_formatted: tolerant(z.number()),
    flat_fee_formatted: tolerant(z.number()),
    note: tolerant(z.string()),
  })
  .superRefine((item, ctx) => {
    const a = item.flat_fee_amount
    const b = item.flat_fee
    if (a !== null && a !== undefined && b !== null && b !== undefined && a !== b)
      ctx.addIssue({ code: 'custom', path: ['flat_fee'], message: 'differs from flat_fee_amount' })
  })
export type LedgerItemWire = z.infer<typeof ledgerItemSchema>

/** The flat fee whichever spelling the server uses (`flat_fee_amount` java/php, `flat_fee` node). */
export function flatFeeOf(item: LedgerItemWire): number | null {
  return item.flat_fee_amount ?? item.flat_fee ?? null
}

export const statusChangeItemSchema = z.looseObject({
  id: uuidSchema,
  transfer_id: uuidSchema,
  new_status: z.string().min(1, 'expected a status'),
  old_status: z.string().nullish(),
  created_on: payoutTimeSchema,
  merchant_id: tolerant(z.string()),
  reason: tolerant(z.string()),
})
export type StatusChangeItem = z.infer<typeof statusChangeItemSchema>

export const bankAccountItemSchema = z.looseObject({
  id: uuidSchema,
  holder_name: tolerant(z.string()),
  bank_name: tolerant(z.string()),
  branch_name: tolerant(z.string()),
  country: tolerant(z.string()),
  currency: tolerant(z.string()),
  account_number: tolerant(z.string()),
  last_four: tolerant(z.string()),
  primary: tolerant(z.boolean()),
  status: tolerant(z.string()),
  account_type: tolerant(z.string()),
  created_on: tolerant(z.string()),
})
export type BankAccountItem = z.infer<typeof bankAccountItemSchema>

const moneySchema = z.looseObject({ amount: z.number().int(), currency: currencyCodeSchema })

/** `GET /me`: nothing here decides money on its own, so every field is tolerant. */
export const merchantConfigSchema = z.looseObject({
  id: tolerant(z.string()),
  name: tolerant(z.string()),
  percent_fee: tolerant(z.number()),
  card_brand_percent_fees: tolerant(z.record(z.string(), z.unknown())),
  flat_fees: tolerant(z.array(z.unknown())),
  min_transfer_payout: tolerant(moneySchema),
  transfer_schedule: tolerant(z.looseObject({})),
})
export type MerchantConfigItem = z.infer<typeof merchantConfigSchema>

/**
 * Keeps the last four characters of an account number and masks the rest, whatever the server sent: a full
 * number never leaves main.
 */
export function maskAccountNumber(value: string): string {
  const tail = value.slice(-4)
  return `${'X'.repeat(Math.max(0, Math.min(value.length, 12) - tail.length))}${tail}`
}

export const transferFiltersSchema = z.strictObject({
  currency: currencyCodeSchema.optional(),
  status: z.string().min(1).max(64).optional(),
  started_by: z.string().min(1).max(64).optional(),
})

export const ledgerFiltersSchema = z.strictObject({
  all: z.boolean().optional(),
  from: isoTimestampSchema.optional(),
  to: isoTimestampSchema.optional(),
  min: z.number().int().optional(),
  max: z.number().int().optional(),
  currency: currencyCodeSchema.optional(),
})

const paging = pagingSchema.strict().optional()

/** One payout request: a list page or one item by id. Ids are UUIDs, so no path can be built from them. */
export const payoutQuerySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('transfers'), filters: transferFiltersSchema.optional(), paging }),
  z.strictObject({ kind: z.literal('transfer'), transferId: uuidSchema }),
  z.strictObject({ kind: z.literal('transfer_status_changes'), transferId: uuidSchema, paging }),
  z.strictObject({
    kind: z.literal('transfer_ledgers'),
    transferId: uuidSchema,
    filters: ledgerFiltersSchema.optional(),
    paging,
  }),
  z.strictObject({ kind: z.literal('ledger'), ledgerId: uuidSchema }),
  z.strictObject({ kind: z.literal('bank_accounts'), paging }),
  z.strictObject({ kind: z.literal('me') }),
])
export type PayoutQuery = z.infer<typeof payoutQuerySchema>
export type PayoutKind = PayoutQuery['kind']

/** The item schema of each kind (a single GET is validated as a page of one). */
export const payoutItemSchemas = {
  transfers: transferItemSchema,
  transfer: transferItemSchema,
  transfer_status_changes: statusChangeItemSchema,
  transfer_ledgers: ledgerItemSchema,
  ledger: ledgerItemSchema,
  bank_accounts: bankAccountItemSchema,
  me: merchantConfigSchema,
} as const

/** Whether the kind is one item (`GET …/{id}`, `/me`) rather than a list envelope. */
export const SINGLE_PAYOUT_KINDS: ReadonlySet<PayoutKind> = new Set(['transfer', 'ledger', 'me'])
