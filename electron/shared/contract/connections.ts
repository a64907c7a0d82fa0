/**
 * `connections:*` and `vault:status`. A connection is a payment-service account: label, base URL, optional
 * store ids and the accounting time zone, plus credentials (secret + app token) that live only in the OS
 * keychain in main. Credentials go in (create, update) and never come back out: summaries only say
 * `hasCredentials`.
 */
import { z } from 'zod'
import { modeSchema, uuidSchema } from '../payment-api'

export const connectionIdSchema = uuidSchema

const hasControlChars = (s: string): boolean => [...s].some((c) => c.charCodeAt(0) < 32 || c === '\u007f')

export const connectionLabelSchema = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .refine((s) => !hasControlChars(s), 'must not contain control characters')

/** An IANA zone name that this runtime knows (Asia/Tokyo, Europe/London, UTC). */
export function isIanaTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(zone)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export const timeZoneSchema = z
  .string()
  .max(64)
  .refine(isIanaTimeZone, 'expected an IANA time zone such as Asia/Tokyo')

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase()
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host)
}

export type BaseUrlCheck = { ok: true; url: string } | { ok: false; message: string }

/**
 * The payment service's base URL, normalised (no trailing slash). https, or http on a loopback address
 * only (the demo sandbox); no user info, query or fragment, since the client appends paths to it.
 */
export function checkBaseUrl(raw: string): BaseUrlCheck {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return { ok: false, message: 'expected an absolute http(s) URL' }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, message: 'expected an http(s) URL' }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return {
      ok: false,
      message: 'http is only allowed for a loopback address (localhost, 127.0.0.1); use https',
    }
  if (url.username !== '' || url.password !== '')
    return { ok: false, message: 'must not contain a user name or password' }
  if (url.search !== '' || url.hash !== '' || raw.includes('?') || raw.includes('#'))
    return { ok: false, message: 'must not contain a query or fragment' }
  const path = url.pathname.replace(/\/+$/, '')
  return { ok: true, url: `${url.origin}${path}` }
}

export const baseUrlSchema = z
  .string()
  .min(1)
  .max(2048)
  .superRefine((raw, ctx) => {
    const check = checkBaseUrl(raw)
    if (!check.ok) ctx.addIssue({ code: 'custom', message: check.message })
  })

export const storeIdsSchema = z
  .array(uuidSchema)
  .max(200)
  .refine((ids) => new Set(ids.map((i) => i.toLowerCase())).size === ids.length, 'store ids must be unique')

/**
 * Write-only. The shape and expiry of the app token, and the secret's characters, are checked in main
 * (vault/credentials.ts) against the injected clock; here only sizes, so no value is ever echoed.
 */
export const credentialsInputSchema = z.strictObject({
  secret: z.string().min(1).max(1024),
  appToken: z.string().min(1).max(8192),
})
export type CredentialsInput = z.infer<typeof credentialsInputSchema>

export const connectionSummarySchema = z.object({
  id: connectionIdSchema,
  label: z.string(),
  baseUrl: z.string(),
  storeIds: z.array(z.string()),
  timeZone: z.string(),
  hasCredentials: z.boolean(),
  isDemo: z.boolean(),
  /** ISO-8601. */
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type ConnectionSummary = z.infer<typeof connectionSummarySchema>

export const createConnectionArgsSchema = z.strictObject({
  label: connectionLabelSchema,
  baseUrl: baseUrlSchema,
  secret: credentialsInputSchema.shape.secret,
  appToken: credentialsInputSchema.shape.appToken,
  storeIds: storeIdsSchema.optional(),
  timeZone: timeZoneSchema,
})
export type CreateConnectionArgs = z.infer<typeof createConnectionArgsSchema>

/** Changing `baseUrl` requires `credentials` too, so stored credentials are never sent to a new host. */
export const updateConnectionArgsSchema = z.strictObject({
  id: connectionIdSchema,
  label: connectionLabelSchema.optional(),
  baseUrl: baseUrlSchema.optional(),
  storeIds: storeIdsSchema.optional(),
  timeZone: timeZoneSchema.optional(),
  credentials: credentialsInputSchema.optional(),
})
export type UpdateConnectionArgs = z.infer<typeof updateConnectionArgsSchema>

/** What the connection test saw of one store (when the connection names its stores). */
export const storeTestResultSchema = z.discriminatedUnion('ok', [
  z.object({
    storeId: z.string(),
    ok: z.literal(true),
    storeName: z.string().nullable(),
    totalHits: z.number().int().nonnegative().optional(),
  }),
  z.object({
    storeId: z.string(),
    ok: z.literal(false),
    /** The error shape of the store's request: its code, message and details (status, reason). */
    error: z.object({
      code: z.string(),
      message: z.string(),
      reason: z.string().optional(),
      status: z.number().int().optional(),
    }),
  }),
])
export type StoreTestResult = z.infer<typeof storeTestResultSchema>

export const connectionTestResultSchema = z.object({
  ok: z.literal(true),
  /** From the records the test request returned; null when the account has no records yet. */
  merchantName: z.string().nullable(),
  storeNames: z.array(z.string()),
  modes: z.array(modeSchema),
  totalHits: z.number().int().nonnegative().optional(),
  /**
   * One entry per store id of the connection, each read on its own path (a store-scoped app token may not
   * read the all-stores path); empty when the connection uses the all-stores lists.
   */
  stores: z.array(storeTestResultSchema),
  /** ISO-8601 expiry of the app token (its `exp` claim), null when it has none. */
  appTokenExpiresAt: z.string().nullable(),
  testedAt: z.string(),
})
export type ConnectionTestResult = z.infer<typeof connectionTestResultSchema>

export const keychainStatusSchema = z.object({
  available: z.boolean(),
  reason: z.string().optional(),
  /**
   * Set when the saved connections file could not be read at start: what happened and where the
   * unreadable file was kept. Closebook then starts with no saved connections; nothing is deleted.
   */
  registryProblem: z.string().optional(),
})

export const connectionsContract = {
  'connections:list': { args: z.strictObject({}), result: z.array(connectionSummarySchema) },
  'connections:create': { args: createConnectionArgsSchema, result: connectionSummarySchema },
  'connections:update': { args: updateConnectionArgsSchema, result: connectionSummarySchema },
  /** Removes the connection and its keychain entry (`credentialsRemoved` false when none was there). */
  'connections:delete': {
    args: z.strictObject({ id: connectionIdSchema }),
    result: z.object({ deleted: z.boolean(), credentialsRemoved: z.boolean() }),
  },
  /**
   * One cheap request with the stored credentials (one per store when the connection names stores);
   * resolves with what it saw, store by store, or fails with a typed error when nothing could be read.
   */
  'connections:test': {
    args: z.strictObject({ id: connectionIdSchema }),
    result: connectionTestResultSchema,
  },
  'vault:status': {
    /** `refresh`: probe the keychain again (e.g. after the user started GNOME Keyring). */
    args: z.strictObject({ refresh: z.boolean().optional() }),
    result: keychainStatusSchema,
  },
  /**
   * Stops waiting for the keychain: every keychain operation still waiting (an unlock dialog nobody
   * answers) fails at once with `cancelled`, and the save it belonged to changes nothing further.
   */
  'vault:cancelWaits': {
    args: z.strictObject({}),
    result: z.object({ cancelled: z.number().int().nonnegative() }),
  },
} as const
