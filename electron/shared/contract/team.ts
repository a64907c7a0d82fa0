/**
 * `team:*`: the optional team workspace on the firm's PostgreSQL, reached only by main. The login's password
 * goes in (configure) and never comes back out: the summary only says `hasPassword`. Every write carries the
 * idempotency key of its outbox entry; the server's answer (applied or refused, with the reason and the
 * current state) comes back as it is, never merged.
 */
import { z } from 'zod'
import { PEM_PROBLEM_MESSAGES, pemCertificateProblem } from '../pem'

const noControl = (s: string): boolean => ![...s].some((c) => c.charCodeAt(0) < 32 || c === '\u007f')

export const teamHostSchema = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .refine((s) => /^[A-Za-z0-9.:[\]-]+$/.test(s), 'expected a host name or IP address')
/** A private CA's certificate(s) as PEM; an error names the problem, never echoes the text. */
export const teamCaPemSchema = z
  .string()
  .superRefine((text, ctx) => {
    const problem = pemCertificateProblem(text)
    if (problem) ctx.addIssue({ code: 'custom', message: PEM_PROBLEM_MESSAGES[problem] })
  })
  .transform((text) => `${text.trim()}\n`)
export const teamConfigSchema = z.strictObject({
  host: teamHostSchema,
  port: z.number().int().min(1).max(65535),
  database: z.string().trim().min(1).max(63).refine(noControl, 'must not contain control characters'),
  user: z
    .string()
    .trim()
    .regex(/^[a-z_][a-z0-9_.@-]{0,62}$/, 'a PostgreSQL login: lowercase letters, digits, _ . @ -'),
  /** PEM of a private CA that signed the server's certificate (not secret); absent: the system's CAs. */
  caPem: teamCaPemSchema.optional(),
})
export type TeamConfigInput = z.infer<typeof teamConfigSchema>

export const teamSummarySchema = z.object({
  configured: z.boolean(),
  config: teamConfigSchema.nullable(),
  hasPassword: z.boolean(),
  /** True for a loopback host: the connection is plain (no TLS), said so on screen. */
  plain: z.boolean(),
})
export type TeamSummary = z.infer<typeof teamSummarySchema>

export const teamMerchantSchema = z.strictObject({
  merchantId: z.string().min(1).max(200),
  mode: z.enum(['live', 'test']),
})
export type TeamMerchant = z.infer<typeof teamMerchantSchema>

export const TEAM_FAILURE_CODES = [
  'not_configured',
  'no_password',
  'unreachable',
  'auth_failed',
  'tls',
  'no_database',
  'schema_missing',
  'schema_too_old',
  'schema_too_new',
  'missing_role',
  'no_grant',
  'invalid_input',
  'server_error',
] as const

export const teamTestResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    schemaVersion: z.number().int(),
    login: z.string(),
    plain: z.boolean(),
    merchants: z.array(
      z.object({ merchantId: z.string(), mode: z.string(), name: z.string(), role: z.string() }),
    ),
  }),
  z.object({ ok: z.literal(false), failure: z.enum(TEAM_FAILURE_CODES), message: z.string() }),
])
export type TeamTestResult = z.infer<typeof teamTestResultSchema>

const monthSchema = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
const keySchema = z.string().min(8).max(200)
const textSchema = z
  .string()
  .max(20_000)
  .refine((s) => !s.includes('\u0000'), 'contains a NUL character, which PostgreSQL text cannot hold')

/**
 * A month's payout closing as a close keeps it (PayoutCloseRecord): per currency the closing, per transfer
 * paid by the month's end its ledgers less its amount, and the transfers in a repayment. Integers only.
 */
const safeInteger = z.number().int().refine(Number.isSafeInteger, 'expected a safe integer')
export const payoutCloseSchema = z.strictObject({
  closing: z.record(z.string().max(16), safeInteger),
  paidDifferences: z.record(z.string().max(200), safeInteger),
  readInFull: z.array(z.string().max(200)).max(100_000).optional(),
})
export type TeamPayoutClose = z.infer<typeof payoutCloseSchema>

export const teamMarkSchema = z.strictObject({
  kind: z.enum(['charge', 'refund']),
  id: z.string().min(1).max(200),
  month: monthSchema,
  reconciled: z.boolean(),
  note: textSchema,
  baseVersion: z.number().int().nonnegative(),
})
export type TeamMark = z.infer<typeof teamMarkSchema>

const currentMarkSchema = z.object({
  version: z.number(),
  reconciled: z.boolean(),
  note: z.string(),
  month: z.string(),
  updatedBy: z.string(),
  updatedAt: z.string(),
})

export const teamMarkOutcomeSchema = z.object({
  kind: z.enum(['charge', 'refund']),
  id: z.string(),
  status: z.enum(['applied', 'refused']),
  reason: z.enum(['stale', 'month_closed', 'month_submitted', 'month_mismatch']).optional(),
  version: z.number().optional(),
  seq: z.number().optional(),
  monthState: z.string().optional(),
  current: currentMarkSchema.nullable().optional(),
})
export type TeamMarkOutcome = z.infer<typeof teamMarkOutcomeSchema>

const joinMarkSchema = teamMarkSchema.omit({ baseVersion: true })
export type TeamJoinMark = z.infer<typeof joinMarkSchema>

export const teamJoinOutcomeSchema = z.object({
  kind: z.enum(['charge', 'refund']),
  id: z.string(),
  status: z.enum(['applied', 'same', 'refused']),
  reason: z.enum(['month_closed', 'month_submitted', 'month_mismatch', 'conflict']).optional(),
  version: z.number().optional(),
  seq: z.number().optional(),
  monthState: z.string().optional(),
  current: currentMarkSchema.nullable().optional(),
})
export type TeamJoinOutcome = z.infer<typeof teamJoinOutcomeSchema>

export const teamGrantSchema = z.object({
  merchantId: z.string(),
  mode: z.enum(['live', 'test']),
  name: z.string(),
  role: z.enum(['preparer', 'reviewer', 'admin']),
  stores: z.array(z.object({ storeId: z.string(), name: z.string() })),
})
export type TeamGrant = z.infer<typeof teamGrantSchema>

export const teamMarksResultSchema = z.object({
  key: z.string(),
  replayed: z.boolean(),
  auditHead: z.number(),
  outcomes: z.array(teamMarkOutcomeSchema),
})

export const teamMonthStateSchema = z.object({
  month: z.string(),
  state: z.enum(['open', 'submitted', 'signed_off']),
  version: z.number(),
  submittedBy: z.string().nullable(),
  submittedAt: z.string().nullable(),
  signedOffBy: z.string().nullable(),
  signedOffAt: z.string().nullable(),
  note: z.string(),
})
export type TeamMonthState = z.infer<typeof teamMonthStateSchema>

export const teamMonthResultSchema = z.object({
  key: z.string(),
  replayed: z.boolean(),
  auditHead: z.number(),
  status: z.enum(['applied', 'refused']),
  reason: z.string().nullable(),
  month: teamMonthStateSchema,
})
export type TeamMonthResult = z.infer<typeof teamMonthResultSchema>

export const teamAuditRowSchema = z.object({
  merchantKey: z.string(),
  seq: z.number().int().positive(),
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  month: z.string().nullable(),
  payload: z.string(),
  prevHash: z.string(),
  hash: z.string(),
})

export const teamContract = {
  'team:get': { args: z.strictObject({}), result: teamSummarySchema },
  /** Saves host, port, database and user; a given password goes to the keychain (write-only). */
  'team:configure': {
    args: z.strictObject({ config: teamConfigSchema, password: z.string().min(1).max(1024).optional() }),
    result: teamSummarySchema,
  },
  /** Leaves the workspace on this desktop: settings and keychain entry go; the local cache stays. */
  'team:forget': { args: z.strictObject({}), result: teamSummarySchema },
  'team:test': { args: z.strictObject({}), result: teamTestResultSchema },
  'team:pushMarks': {
    args: z.strictObject({
      merchant: teamMerchantSchema,
      key: keySchema,
      marks: z.array(teamMarkSchema).max(5000),
    }),
    result: teamMarksResultSchema,
  },
  /**
   * Uploads the marks this desktop held before it joined, once, under its join key (one per desktop and
   * merchant; a retried join gets the first answer). What contradicts the server comes back refused.
   */
  'team:joinMarks': {
    args: z.strictObject({
      merchant: teamMerchantSchema,
      key: keySchema,
      marks: z.array(joinMarkSchema).max(100_000),
    }),
    result: z.object({
      key: z.string(),
      replayed: z.boolean(),
      auditHead: z.number(),
      outcomes: z.array(teamJoinOutcomeSchema),
    }),
  },
  /** The merchants granted to the login, with mode, role and stores: what a connection may be shared with. */
  'team:grants': { args: z.strictObject({}), result: z.array(teamGrantSchema) },
  /**
   * Waits until the server announces new audit rows (NOTIFY; the count passes `after`) or `timeoutMs`
   * passes. `listening` is false when no wake can come (nothing configured, LISTEN not set up): poll then.
   */
  'team:waitWake': {
    args: z.strictObject({
      after: z.number().int().nonnegative(),
      timeoutMs: z.number().int().min(10).max(60_000),
    }),
    result: z.object({ wakeCount: z.number().int(), listening: z.boolean() }),
  },
  'team:changeMonth': {
    args: z.strictObject({
      merchant: teamMerchantSchema,
      key: keySchema,
      month: monthSchema,
      action: z.enum(['submit', 'sign_off', 'send_back', 'reopen']),
      baseVersion: z.number().int().nonnegative().nullable(),
      note: textSchema,
      /** A sign-off's payout closing, kept in its audit row for every desktop (ignored by other actions). */
      payoutClose: payoutCloseSchema.optional(),
    }),
    result: teamMonthResultSchema,
  },
  'team:months': {
    args: z.strictObject({ merchant: teamMerchantSchema }),
    result: z.array(teamMonthStateSchema),
  },
  /** Audit rows after `afterSeq`, oldest first; `wakeCount` rises with every NOTIFY main has heard. */
  'team:pullAudit': {
    args: z.strictObject({
      merchant: teamMerchantSchema,
      afterSeq: z.number().int().nonnegative(),
      limit: z.number().int().min(1).max(5000).optional(),
    }),
    result: z.object({ rows: z.array(teamAuditRowSchema), wakeCount: z.number().int() }),
  },
} as const
