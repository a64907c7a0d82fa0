/**
 * `api:*`: the renderer asks main for one page of a list at a time; main holds the credentials, queues
 * the call through the rate-limit scheduler and returns the validated items. Never a secret in or out.
 */
import { z } from 'zod'
import {
  chargeFiltersSchema,
  chargeItemSchema,
  historyFiltersSchema,
  historyItemSchema,
  pagingSchema,
  uuidSchema,
} from '../payment-api'
import { parsedOnce } from '../parsed-items'

export const resourceSchema = z.enum(['transaction_history', 'charges'])
export type Resource = z.infer<typeof resourceSchema>

export const prioritySchema = z.enum(['interactive', 'background'])

/** Chosen by the renderer for a sync run; printable and short, since it is shown in progress displays. */
export const jobIdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'expected letters, digits and _ . : -')

/**
 * One list query (seed §4): the resource, optionally one store (else all stores), its filters (§4.1 for
 * history, §4.2 for charges, card group all-or-none) and paging. The API client checks it again before
 * sending, so a bad value is named by field and never reaches the server.
 */
export const listQuerySchema = z.discriminatedUnion('resource', [
  z.strictObject({
    resource: z.literal('transaction_history'),
    storeId: uuidSchema.optional(),
    filters: historyFiltersSchema.optional(),
    paging: pagingSchema.strict().optional(),
  }),
  z.strictObject({
    resource: z.literal('charges'),
    storeId: uuidSchema.optional(),
    filters: chargeFiltersSchema.optional(),
    paging: pagingSchema.strict().optional(),
  }),
])
export type ListQuery = z.infer<typeof listQuerySchema>

const callOptions = {
  connectionId: uuidSchema,
  /** `interactive` (default): a page the user asked for, served before background sync. */
  priority: prioritySchema.optional(),
  jobId: jobIdSchema.optional(),
}

export const listPageArgsSchema = z.discriminatedUnion('resource', [
  listQuerySchema.options[0].extend(callOptions),
  listQuerySchema.options[1].extend(callOptions),
])
export type ListPageArgs = z.infer<typeof listPageArgsSchema>

/**
 * An item of a page that failed its accounting core (payment-api.ts) or was dated outside the requested
 * window: kept aside with its payload (credentials scrubbed), the reason and the request it came from,
 * instead of refusing the page. The rest of the page is stored and the cursor moves past it.
 */
export const quarantinedItemSchema = z.object({
  resource: resourceSchema,
  /** `resource_id` (history) or `id` (charges) when the item has a readable one; else null. */
  itemId: z.string().nullable(),
  /** History `type` (`charge`, `refund`) when readable; null for charge-list items or when unreadable. */
  itemType: z.string().nullable(),
  storeId: z.string().nullable(),
  /** The item's `created_on` when it is a valid timestamp. */
  createdOn: z.string().nullable(),
  /** `outside_window` when only its date was wrong; `invalid` when its accounting core failed. */
  kind: z.enum(['invalid', 'outside_window']),
  /** One sentence naming every field at fault (path: message), never a value. */
  reason: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })),
  /** `GET <path>?<query>` of the request that returned it: no host, no credentials (they are headers). */
  request: z.string(),
  /** The window the request asked for (ISO-8601), so an undated item can still be placed in time. */
  requestedFrom: z.string().nullable(),
  requestedTo: z.string().nullable(),
  /** The item as the service sent it (strings holding a credential replaced). */
  raw: z.unknown(),
})
export type QuarantinedItem = z.infer<typeof quarantinedItemSchema>

const pageMeta = {
  hasMore: z.boolean(),
  /** Absent when the server does not send `total_hits`. */
  totalHits: z.number().int().nonnegative().optional(),
  /** ISO-8601, when main received the page. */
  fetchedAt: z.string(),
  /** Items of the page set aside (absent: none). */
  quarantined: z.array(quarantinedItemSchema).optional(),
  /**
   * Where the next page starts: the service's `next_cursor` when it sends a usable one, else the id of
   * the page's last item, quarantined items included. Absent when the page has no usable id.
   */
  cursorAfter: uuidSchema.optional(),
  /**
   * Requests per minute the service allows on this list's resource path (its Route limit, as main read it
   * from the rate-limit headers): what a sync's time left is worked out from. Absent when not known.
   */
  routePerMinute: z.number().positive().finite().optional(),
}

/** Items main's page validation already parsed pass as they are; any other list is parsed in full. */
export const listPageResultSchema = z.discriminatedUnion('resource', [
  z.object({
    resource: z.literal('transaction_history'),
    items: parsedOnce(historyItemSchema),
    ...pageMeta,
  }),
  z.object({ resource: z.literal('charges'), items: parsedOnce(chargeItemSchema), ...pageMeta }),
])
export type ListPageResult = z.infer<typeof listPageResultSchema>

export const jobStateSchema = z.object({
  jobId: z.string(),
  queued: z.number().int().nonnegative(),
  inFlight: z.number().int().nonnegative(),
  waitingUntil: z.number().nullable(),
})

export const queueStateSchema = z.object({
  queued: z.number().int().nonnegative(),
  inFlight: z.number().int().nonnegative(),
  /** Epoch ms until which every queued call waits for a rate limit (or a retry backoff); null otherwise. */
  waitingUntil: z.number().nullable(),
  byJob: z.array(jobStateSchema),
  /** Since the app started: requests sent, answered, failed, 429s met, retries, cancelled. */
  totals: z.object({
    sent: z.number().int().nonnegative(),
    succeeded: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    http429: z.number().int().nonnegative(),
    retries: z.number().int().nonnegative(),
    cancelled: z.number().int().nonnegative(),
  }),
})
export type QueueStateView = z.infer<typeof queueStateSchema>

export const apiContract = {
  'api:listPage': { args: listPageArgsSchema, result: listPageResultSchema },
  'api:queueState': { args: z.strictObject({}), result: queueStateSchema },
  /** Drops the job's queued calls and aborts those in flight (they fail with `cancelled`). */
  'api:cancelJob': {
    args: z.strictObject({ jobId: jobIdSchema }),
    result: z.object({ dropped: z.number().int().nonnegative() }),
  },
} as const
