/**
 * Backup and restore of the whole cache (DESIGN §4). A backup is plain JSON: the synced copy plus the
 * accountant's marks, locks, settings and audit log. The cache holds no secret, so nor does a backup.
 * Restore replaces everything in one transaction: if anything fails, the old cache stays untouched.
 */
import { z } from 'zod'
import {
  chargeItemSchema,
  historyItemSchema,
  historyTypeSchema,
  modeSchema,
} from '../../electron/shared/payment-api'
import { appendAuditEntries, auditEntriesOf, auditRowsOf } from './audit-repository'
import { PAYOUT_BACKUP_TABLES, PAYOUT_ROW_SCHEMAS, type PayoutBackupTable } from './backup-payouts'
import type { ClosebookDb } from './database'
import { allHistory, countHistory } from './history-part-reads'
import { withoutDeadFields } from './history-record'
import { HistoryWriter } from './history-writer'
import { markDayOf, markDayRowsOf, putMarkDays } from './marks-repository'
import type {
  AuditEntry,
  CachedConnection,
  ChargeRecord,
  HistoryRecord,
  ImportedRowRecord,
  ImportRecord,
  MarkRecord,
  PeriodLock,
  StoreRecord,
  SyncCheckpoint,
} from '../domain/records'
import type { AuditRow, SettingRecord } from './storage-rows'

export const BACKUP_FORMAT = 'closebook-backup'
export const BACKUP_VERSION = 1

/**
 * A backup's tables: the cache's, with marks and the audit log as the app reads them (one row per mark,
 * one per change) rather than as the cache groups them (by day, by action), so the format is the same
 * whatever the storage. An audit entry's `seq` and `part` say which action it belongs to.
 */
export const BACKUP_TABLE_NAMES = [
  'connections',
  'stores',
  'history',
  'charges',
  'marks',
  'audit',
  'checkpoints',
  'locks',
  'settings',
  'imports',
  'importedRows',
  ...PAYOUT_BACKUP_TABLES,
] as const
export type BackupTableName = (typeof BACKUP_TABLE_NAMES)[number]

export interface BackupCoreTables {
  connections: CachedConnection[]
  stores: StoreRecord[]
  history: HistoryRecord[]
  charges: ChargeRecord[]
  marks: MarkRecord[]
  audit: AuditEntry[]
  checkpoints: SyncCheckpoint[]
  locks: PeriodLock[]
  settings: SettingRecord[]
  imports: ImportRecord[]
  importedRows: ImportedRowRecord[]
}
/** The payout rows as the cache stores them (backup-payouts.ts). */
export type BackupTables = BackupCoreTables & { [T in PayoutBackupTable]: unknown[] }

export interface Backup {
  format: typeof BACKUP_FORMAT
  version: typeof BACKUP_VERSION
  /** ISO-8601, UTC. */
  exportedAt: string
  tables: BackupTables
}

export type TableCounts = Record<BackupTableName, number>

export interface RestoreSummary {
  exportedAt: string
  /** Per table: rows now in the cache (all replaced) and rows the backup brings. */
  tables: Record<BackupTableName, { current: number; incoming: number }>
}

export class BackupValidationError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`Not a valid Closebook backup: ${issues.slice(0, 5).join('; ')}${issues.length > 5 ? '; …' : ''}`)
    this.name = 'BackupValidationError'
  }
}

// --- schemas: one per table, mirroring records.ts -------------------------------------------------

const ms = z.number().finite()
const period = z.string().regex(/^\d{4}-\d{2}$/, 'expected YYYY-MM')
const recordKey = z
  .string()
  .regex(/^(charge|refund):.+$/, 'expected charge:<id> or refund:<id>') as z.ZodType<HistoryRecord['key']>
const syncResource = z.enum(['transaction_history', 'charges'])

export const connectionSchema = z.object({
  id: z.string().min(1),
  label: z.string(),
  baseUrl: z.string(),
  timeZone: z.string(),
  storeIds: z.array(z.string()),
  isDemo: z.boolean(),
  lastSyncedAt: ms.nullable(),
  highWater: z.object({ transaction_history: ms.optional(), charges: ms.optional() }),
})

export const storeSchema = z.object({
  connectionId: z.string().min(1),
  storeId: z.string().min(1),
  storeName: z.string(),
  merchantName: z.string(),
  // Absent in backups made before the history writer kept the store list.
  seenAt: z.number().optional(),
})

// Search fields are derived from `raw` (searchTokensOf) and no longer stored: a backup's `searchText`
// (written until they were dropped) is accepted and left out, and `searchTokens`, like any unknown
// field, is stripped, so a file cannot bring tokens that disagree with its records.
const historySchema = z
  .object({
    connectionId: z.string().min(1),
    key: recordKey,
    resourceId: z.string(),
    type: historyTypeSchema,
    chargeId: z.string(),
    storeId: z.string(),
    createdAt: ms,
    amount: z.number().int(),
    currency: z.string(),
    status: z.string(),
    mode: modeSchema,
    brand: z.string(),
    cardholderName: z.string(),
    cardholderEmail: z.string(),
    orderRef: z.string().nullable(),
    searchText: z.string().optional(),
    raw: historyItemSchema,
    syncedAt: ms,
  })
  .transform(({ searchText: _dropped, ...r }): HistoryRecord => r)

const chargeSchema = z.object({
  connectionId: z.string().min(1),
  id: z.string().min(1),
  storeId: z.string(),
  createdAt: ms,
  chargedAmount: z.number().int(),
  chargedCurrency: z.string(),
  feeAmount: z.number().int().nullable(),
  feeCurrency: z.string().nullable(),
  status: z.string(),
  mode: modeSchema,
  merchantTransactionId: z.string().nullable(),
  raw: chargeItemSchema,
  syncedAt: ms,
})

export const markSchema = z.object({
  connectionId: z.string().min(1),
  key: recordKey,
  state: z.enum(['reconciled', 'unreconciled']),
  note: z.string(),
  fingerprint: z.string().nullable(),
  changedSinceReconciled: z.union([z.literal(0), z.literal(1)]),
  period,
  updatedAt: ms,
  updatedBy: z.string(),
  matchRef: z.string().optional(),
})

export const auditSchema = z.object({
  seq: z.number().int().positive(),
  part: z.number().int().nonnegative().optional(),
  connectionId: z.string().min(1),
  at: ms,
  actor: z.string(),
  action: z.enum(['mark', 'unmark', 'note', 'reconfirm', 'close-period', 'reopen-period', 'restore']),
  key: recordKey.nullable(),
  period: period.nullable(),
  before: z.unknown(),
  after: z.unknown(),
  reason: z.string().optional(),
})

export const checkpointSchema = z.object({
  connectionId: z.string().min(1),
  partitionId: z.string().min(1),
  resource: syncResource,
  storeId: z.string().nullable(),
  from: ms,
  to: ms,
  cursor: z.string().nullable(),
  done: z.boolean(),
  records: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  updatedAt: ms,
})

export const lockSchema = z.object({
  connectionId: z.string().min(1),
  period,
  lockedAt: ms,
  lockedBy: z.string(),
  note: z.string().max(2_000).optional(),
  snapshot: z.record(z.string(), z.string().max(64)).optional(),
  payoutClose: z
    .object({
      closing: z.record(z.string(), z.number().int().refine(Number.isSafeInteger)),
      paidDifferences: z.record(z.string(), z.number().int().refine(Number.isSafeInteger)),
      readInFull: z.array(z.string().max(200)).max(100_000).optional(),
    })
    .optional(),
})

export const settingSchema = z.object({ key: z.string().min(1), value: z.unknown() })

const importSource = z.enum(['orders', 'bank'])

export const importSchema = z.object({
  connectionId: z.string().min(1),
  id: z.string().min(1),
  source: importSource,
  fileName: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  importedAt: ms,
  rowCount: z.number().int().nonnegative(),
  profileName: z.string(),
  encoding: z.string(),
})

export const importedRowSchema = z.object({
  connectionId: z.string().min(1),
  importId: z.string().min(1),
  line: z.number().int().positive(),
  source: importSource,
  orderNumber: z.string().nullable(),
  at: ms,
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  amount: z.number().int(),
  currency: z.string(),
  customer: z.string().nullable(),
  description: z.string().nullable(),
  matchedKeys: z.array(recordKey),
  lines: z.array(z.number().int().positive()).optional(),
  paymentMethod: z.string().optional(),
  refunded: z.number().int().nonnegative().optional(),
  linesTotal: z.number().int().optional(),
  shipping: z.number().int().nonnegative().optional(),
  fee: z.number().int().nonnegative().optional(),
})

const backupSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  exportedAt: z.string(),
  tables: z.object({
    connections: z.array(connectionSchema),
    stores: z.array(storeSchema),
    history: z.array(historySchema),
    charges: z.array(chargeSchema),
    marks: z.array(markSchema),
    audit: z.array(auditSchema),
    checkpoints: z.array(checkpointSchema),
    locks: z.array(lockSchema),
    settings: z.array(settingSchema),
    // Absent in backups made before imports existed.
    imports: z.array(importSchema).default([]),
    importedRows: z.array(importedRowSchema).default([]),
    // Absent in backups made before payouts were backed up.
    payoutBankAccounts: z.array(PAYOUT_ROW_SCHEMAS.payoutBankAccounts).default([]),
    payoutConfig: z.array(PAYOUT_ROW_SCHEMAS.payoutConfig).default([]),
    payoutTransfers: z.array(PAYOUT_ROW_SCHEMAS.payoutTransfers).default([]),
    payoutStatusChanges: z.array(PAYOUT_ROW_SCHEMAS.payoutStatusChanges).default([]),
    payoutLedgers: z.array(PAYOUT_ROW_SCHEMAS.payoutLedgers).default([]),
    ledgerLinks: z.array(PAYOUT_ROW_SCHEMAS.ledgerLinks).default([]),
  }),
})

/** Primary key of each row, to reject a backup that would collide with itself on restore. */
const PRIMARY_KEY: { [T in BackupTableName]: (row: BackupTables[T][number]) => string } = {
  connections: (r) => r.id,
  stores: (r) => JSON.stringify([r.connectionId, r.storeId]),
  history: (r) => JSON.stringify([r.connectionId, r.key]),
  charges: (r) => JSON.stringify([r.connectionId, r.id]),
  marks: (r) => JSON.stringify([r.connectionId, r.key]),
  audit: (r) => `${r.seq}.${r.part ?? 0}`,
  checkpoints: (r) => JSON.stringify([r.connectionId, r.partitionId]),
  locks: (r) => JSON.stringify([r.connectionId, r.period]),
  settings: (r) => r.key,
  imports: (r) => JSON.stringify([r.connectionId, r.id]),
  importedRows: (r) => JSON.stringify([r.connectionId, r.importId, r.line]),
  payoutBankAccounts: (r) => payoutKey(r, 'id'),
  payoutConfig: (r) => payoutKey(r),
  payoutTransfers: (r) => payoutKey(r, 'id'),
  payoutStatusChanges: (r) => payoutKey(r, 'id'),
  payoutLedgers: (r) => payoutKey(r, 'id'),
  ledgerLinks: (r) => payoutKey(r, 'ledgerId'),
}

/** A payout row's key: its connection and, but for the configuration, its id field. */
function payoutKey(row: unknown, field?: string): string {
  const r = row as Record<string, unknown>
  return JSON.stringify(field === undefined ? [r['connectionId']] : [r['connectionId'], r[field]])
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = 'backup'
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `.${String(p)}`
  return out
}

// --- API -----------------------------------------------------------------------------------------

/** Reads every table in one read transaction, so the backup is a consistent snapshot. */
export async function exportBackup(db: ClosebookDb, now: Date = new Date()): Promise<Backup> {
  return db.transaction('r', db.allRecordTables(), async () => {
    const [
      connections,
      stores,
      history,
      charges,
      marks,
      audit,
      checkpoints,
      locks,
      settings,
      imports,
      importedRows,
      ...payouts
    ] = await Promise.all([
      db.connections.toArray(),
      db.stores.toArray(),
      allHistory(db).then((rows) => rows.map(withoutDeadFields)),
      // Charges cached before schema v10, then the day parts (charge-days.ts).
      Promise.all([db.charges.toArray(), db.chargeParts.toArray()]).then(([older, parts]) => [
        ...older,
        ...parts.flatMap((p) => p.charges),
      ]),
      db.markDays.toArray().then((rows) => rows.flatMap((r) => r.marks)),
      db.audit.toArray().then((rows) => rows.flatMap(auditEntriesOf)),
      db.checkpoints.toArray(),
      db.locks.toArray(),
      db.settings.toArray(),
      db.imports.toArray(),
      db.importedRows.toArray(),
      ...PAYOUT_BACKUP_TABLES.map((t) => db.table(t).toArray()),
    ])
    return {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      exportedAt: now.toISOString(),
      tables: {
        connections,
        stores,
        history,
        charges,
        marks,
        audit,
        checkpoints,
        locks,
        settings,
        imports,
        importedRows,
        ...(Object.fromEntries(PAYOUT_BACKUP_TABLES.map((t, i) => [t, payouts[i] ?? []])) as Record<
          PayoutBackupTable,
          unknown[]
        >),
      },
    }
  })
}

/** Checks an untrusted value (a parsed file) is a backup; throws BackupValidationError naming each path. */
export function validateBackup(value: unknown): Backup {
  const parsed = backupSchema.safeParse(value)
  if (!parsed.success) {
    throw new BackupValidationError(parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`))
  }
  const backup = parsed.data as Backup
  const issues: string[] = []
  for (const table of BACKUP_TABLE_NAMES) {
    const keyOf = PRIMARY_KEY[table] as (row: unknown) => string
    const seen = new Set<string>()
    backup.tables[table].forEach((row: unknown, i: number) => {
      const key = keyOf(row)
      if (seen.has(key)) issues.push(`${formatPath(['tables', table, i])}: duplicate key ${key}`)
      seen.add(key)
    })
  }
  issues.push(...splitActions(backup.tables.audit))
  if (issues.length > 0) throw new BackupValidationError(issues)
  return backup
}

/** Entries sharing a sequence number are one action: they must agree on who, when, what and why. */
function splitActions(audit: readonly AuditEntry[]): string[] {
  const heads = new Map<number, AuditEntry>()
  const issues: string[] = []
  audit.forEach((e, i) => {
    const seq = e.seq ?? 0
    const head = heads.get(seq)
    if (!head) return void heads.set(seq, e)
    if (auditRowsOf([head, e]).length > 1)
      issues.push(
        `${formatPath(['tables', 'audit', i])}: seq ${seq} is shared by entries of different actions`,
      )
  })
  return issues
}

/** Rows per backup table (marks and audit entries counted one by one, as a backup holds them). */
export async function countTables(db: ClosebookDb): Promise<TableCounts> {
  return db.transaction('r', db.allRecordTables(), async () => {
    const counts = {} as TableCounts
    for (const t of BACKUP_TABLE_NAMES) counts[t] = await countBackupRows(db, t)
    return counts
  })
}

/** How many rows a backup holds of `name`: grouped tables count what their rows group. */
export async function countBackupRows(db: ClosebookDb, name: BackupTableName): Promise<number> {
  let n = 0
  if (name === 'marks') await db.markDays.each((r) => void (n += r.marks.length))
  else if (name === 'audit') await db.audit.each((r) => void (n += r.changes.length))
  else if (name === 'charges') {
    // Charges cached before schema v10, and those of the day parts, which their day rows list once each.
    n = await db.charges.count()
    await db.chargeDays.each((r) => void (n += r.ids.length))
  } else if (name === 'history') n = await countHistory(db)
  else n = await db.table(name).count()
  return n
}

/** What a restore would do, for the confirmation dialog: every current row is replaced. */
export function summarizeRestore(current: TableCounts, backup: Backup): RestoreSummary {
  const tables = Object.fromEntries(
    BACKUP_TABLE_NAMES.map((t) => [t, { current: current[t], incoming: backup.tables[t].length }]),
  ) as RestoreSummary['tables']
  return { exportedAt: backup.exportedAt, tables }
}

/**
 * Replaces the whole cache with a validated backup, all-or-nothing. `audit` rows keep their sequence
 * numbers; when `actor` is given, a `restore` entry per restored connection is appended after them.
 */
export async function restoreBackup(
  db: ClosebookDb,
  backup: Backup,
  options: { actor?: string; at?: number } = {},
): Promise<void> {
  await db.transaction('rw', db.allTables(), async () => {
    await Promise.all(db.allTables().map((t) => t.clear()))
    const t = backup.tables
    await db.connections.bulkAdd(t.connections)
    await db.stores.bulkAdd(t.stores)
    const writer = new HistoryWriter(db)
    await writer.addFresh(t.history)
    await writer.addFreshCharges(t.charges)
    // Marks go to their record's day row; the backup's history is what the cache will hold.
    const days = new Map(t.history.map((h) => [`${h.connectionId}\u0001${h.key}`, markDayOf(h.createdAt)]))
    await putMarkDays(
      db.markDays,
      markDayRowsOf(t.marks, (m) => days.get(`${m.connectionId}\u0001${m.key}`)),
    )
    await db.audit.bulkAdd(auditRowsBySeq(t.audit))
    await db.checkpoints.bulkAdd(t.checkpoints)
    await db.locks.bulkAdd(t.locks)
    await db.settings.bulkAdd(t.settings)
    await db.imports.bulkAdd(t.imports)
    await db.importedRows.bulkAdd(t.importedRows)
    for (const name of PAYOUT_BACKUP_TABLES) await db.table(name).bulkAdd(t[name])
    if (options.actor !== undefined) {
      const at = options.at ?? Date.now()
      const actor = options.actor
      await appendAuditEntries(
        db.audit,
        t.connections.map((c) => ({
          connectionId: c.id,
          at,
          actor,
          action: 'restore' as const,
          key: null,
          period: null,
          before: null,
          after: { exportedAt: backup.exportedAt },
        })),
      )
    }
  })
}

/** The stored rows of a backup's audit entries: one per sequence number, its changes in `part` order. */
function auditRowsBySeq(entries: readonly AuditEntry[]): AuditRow[] {
  const bySeq = new Map<number, AuditEntry[]>()
  for (const e of entries) {
    const seq = e.seq ?? 0
    const group = bySeq.get(seq)
    if (group) group.push(e)
    else bySeq.set(seq, [e])
  }
  const rows: AuditRow[] = []
  for (const [seq, group] of bySeq) {
    group.sort((a, b) => (a.part ?? 0) - (b.part ?? 0))
    // validateBackup checked that a sequence number's entries are one action: one row each.
    for (const row of auditRowsOf(group)) rows.push({ ...row, seq })
  }
  return rows
}
