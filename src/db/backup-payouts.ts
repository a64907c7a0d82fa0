/**
 * The payout tables in a backup: the service's transfers, their status changes, ledgers, masked bank
 * accounts and payout configuration, and the links from ledger ids to the records that carry them. Each
 * row is checked on its own here (ids, amounts in integer minor units, times); that its connection is one
 * of the file's is checked with every other row. The payout sync's own state and quarantine are not
 * backed up: after a restore the next sync reads payouts again from where the cached transfers stand.
 */
import { z } from 'zod'

const ms = z.number().finite()
const id = z.string().min(1)
const text = z.string().nullable()
const raw = z.record(z.string(), z.unknown())
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}/, 'expected YYYY-MM-DD')
  .nullable()

export const PAYOUT_BACKUP_TABLES = [
  'payoutBankAccounts',
  'payoutConfig',
  'payoutTransfers',
  'payoutStatusChanges',
  'payoutLedgers',
  'ledgerLinks',
] as const
export type PayoutBackupTable = (typeof PAYOUT_BACKUP_TABLES)[number]

export const payoutTransferSchema = z.object({
  connectionId: id,
  id,
  merchantId: text,
  bankAccountId: text,
  amount: z.number().int(),
  currency: z.string().min(1),
  status: z.string().min(1),
  errorCode: text,
  errorText: text,
  note: text,
  startedBy: text,
  periodFrom: day,
  periodTo: day,
  createdAt: ms,
  raw,
  syncedAt: ms,
  detailsReadAt: text,
  ledgerCount: z.number().int().nonnegative(),
})

export const payoutStatusChangeSchema = z.object({
  connectionId: id,
  id,
  transferId: id,
  oldStatus: text,
  newStatus: z.string().min(1),
  reason: text,
  createdAt: ms,
})

export const payoutLedgerSchema = z.object({
  connectionId: id,
  id,
  storeId: text,
  transferId: text,
  // The transfer's id, or '' while the ledger waits for one: must agree with transferId.
  transferKey: z.string(),
  amount: z.number().int(),
  currency: z.string().min(1),
  percentFee: z.number().finite().nullable(),
  flatFee: z.number().int().nullable(),
  flatFeeCurrency: text,
  exchangeRate: z.number().finite().nullable(),
  origin: z.string().min(1),
  note: text,
  createdAt: ms,
  raw,
  syncedAt: ms,
})

export const payoutBankAccountSchema = z.object({
  connectionId: id,
  id,
  holderName: text,
  bankName: text,
  branchName: text,
  country: text,
  currency: text,
  // Only the service's masked form is stored: a value with more than four digits in a row is a full number.
  accountNumberMasked: z
    .string()
    .refine((s) => !/\d{5,}/.test(s), 'expected a masked account number')
    .nullable(),
  lastFour: z.string().max(4).nullable(),
  primary: z.boolean(),
  status: text,
  accountType: text,
})

const scheduleSchema = z.object({
  waitPeriod: text,
  period: text,
  fullPeriodRequired: z.boolean().nullable(),
  dayOfWeek: text,
  weekOfMonth: text,
  dayOfMonth: z.number().int().nullable(),
  weeklyClosingDay: text,
  weeklyPayoutDay: text,
})

export const payoutConfigSchema = z.object({
  connectionId: id,
  percentFee: z.number().finite().nullable(),
  minTransferPayout: z.object({ amount: z.number().int(), currency: z.string().min(1) }).nullable(),
  transferSchedule: scheduleSchema.nullable(),
  raw,
  syncedAt: ms,
})

export const ledgerLinkSchema = z.object({
  connectionId: id,
  ledgerId: id,
  kind: z.enum(['charge', 'refund']),
  recordId: id,
  createdAt: ms,
})

export const PAYOUT_ROW_SCHEMAS = {
  payoutBankAccounts: payoutBankAccountSchema,
  payoutConfig: payoutConfigSchema,
  payoutTransfers: payoutTransferSchema,
  payoutStatusChanges: payoutStatusChangeSchema,
  payoutLedgers: payoutLedgerSchema.refine((l) => l.transferKey === (l.transferId ?? ''), {
    message: 'transferKey must be the ledger’s transferId',
    path: ['transferKey'],
  }),
  ledgerLinks: ledgerLinkSchema,
} satisfies Record<PayoutBackupTable, z.ZodType>

const ID = 500
const NAME = 200
const NOTE = 2_000

/** The text fields of payout rows and their longest accepted length (see backup-bounds.ts). */
export const PAYOUT_FIELD_LIMITS: Readonly<Record<PayoutBackupTable, Readonly<Record<string, number>>>> = {
  payoutBankAccounts: {
    connectionId: ID,
    id: ID,
    holderName: NAME,
    bankName: NAME,
    branchName: NAME,
    country: 16,
    currency: 16,
    accountNumberMasked: 64,
    status: 64,
    accountType: 64,
  },
  payoutConfig: { connectionId: ID },
  payoutTransfers: {
    connectionId: ID,
    id: ID,
    merchantId: ID,
    bankAccountId: ID,
    currency: 16,
    status: 64,
    errorCode: NAME,
    errorText: NOTE,
    note: NOTE,
    startedBy: NAME,
    periodFrom: 64,
    periodTo: 64,
    detailsReadAt: 64,
  },
  payoutStatusChanges: {
    connectionId: ID,
    id: ID,
    transferId: ID,
    oldStatus: 64,
    newStatus: 64,
    reason: NOTE,
  },
  payoutLedgers: {
    connectionId: ID,
    id: ID,
    storeId: ID,
    transferId: ID,
    transferKey: ID,
    currency: 16,
    flatFeeCurrency: 16,
    origin: 64,
    note: NOTE,
  },
  ledgerLinks: { connectionId: ID, ledgerId: ID, recordId: ID },
}
