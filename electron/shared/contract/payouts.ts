/**
 * `api:payoutPage`: one page of a payout list, or one payout item, fetched by main through the same
 * gateway, scheduler, credential scrubbing and error model as `api:listPage`. Items are validated against
 * their accounting core (payouts-api.ts); a bad one is set aside with its reason, never the whole page.
 */
import { z } from 'zod'
import {
  bankAccountItemSchema,
  ledgerItemSchema,
  merchantConfigSchema,
  payoutQuerySchema,
  statusChangeItemSchema,
  transferItemSchema,
} from '../payouts-api'
import { uuidSchema } from '../payment-api'
import { jobIdSchema, prioritySchema } from './api'

export const payoutKindSchema = z.enum([
  'transfers',
  'transfer',
  'transfer_status_changes',
  'transfer_ledgers',
  'ledger',
  'bank_accounts',
  'me',
])

const callOptions = {
  connectionId: uuidSchema,
  priority: prioritySchema.optional(),
  jobId: jobIdSchema.optional(),
}

const [transfers, transfer, statusChanges, ledgers, ledger, bankAccounts, me] = payoutQuerySchema.options

export const payoutPageArgsSchema = z.discriminatedUnion('kind', [
  transfers.extend(callOptions),
  transfer.extend(callOptions),
  statusChanges.extend(callOptions),
  ledgers.extend(callOptions),
  ledger.extend(callOptions),
  bankAccounts.extend(callOptions),
  me.extend(callOptions),
])
export type PayoutPageArgs = z.infer<typeof payoutPageArgsSchema>

/** A payout item set aside: its id when readable, the fields at fault (never a value) and the payload. */
export const payoutQuarantinedSchema = z.object({
  kind: payoutKindSchema,
  itemId: z.string().nullable(),
  reason: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })),
  /** `GET <path>?<query>`: no host, no credentials. */
  request: z.string(),
  raw: z.unknown(),
})
export type PayoutQuarantined = z.infer<typeof payoutQuarantinedSchema>

const meta = {
  hasMore: z.boolean(),
  totalHits: z.number().int().nonnegative().optional(),
  fetchedAt: z.string(),
  quarantined: z.array(payoutQuarantinedSchema).optional(),
  /** The id the next page starts after: the page's last item's, quarantined items included. */
  cursorAfter: uuidSchema.optional(),
}

export const payoutPageResultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('transfers'), items: z.array(transferItemSchema), ...meta }),
  z.object({ kind: z.literal('transfer'), items: z.array(transferItemSchema), ...meta }),
  z.object({ kind: z.literal('transfer_status_changes'), items: z.array(statusChangeItemSchema), ...meta }),
  z.object({ kind: z.literal('transfer_ledgers'), items: z.array(ledgerItemSchema), ...meta }),
  z.object({ kind: z.literal('ledger'), items: z.array(ledgerItemSchema), ...meta }),
  z.object({ kind: z.literal('bank_accounts'), items: z.array(bankAccountItemSchema), ...meta }),
  z.object({ kind: z.literal('me'), items: z.array(merchantConfigSchema), ...meta }),
])
export type PayoutPageResult = z.infer<typeof payoutPageResultSchema>

export const payoutsContract = {
  'api:payoutPage': { args: payoutPageArgsSchema, result: payoutPageResultSchema },
} as const
