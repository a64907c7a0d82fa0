/**
 * A backup file's rows checked against their tables' schemas: history and charges rebuilt from their API
 * payload (rowOf, pass two) or checked alone (checkedRow, pass one), the hand-written check first
 * (backup-fast-rows.ts) and zod for anything it cannot say.
 */
import { z } from 'zod'
import { chargeItemSchema, historyItemSchema } from '../../electron/shared/payment-api'
import {
  auditSchema,
  checkpointSchema,
  connectionSchema,
  importedRowSchema,
  importSchema,
  lockSchema,
  markSchema,
  settingSchema,
  storeSchema,
  type BackupTableName,
} from './backup'
import { BackupError } from './backup-format'
import { checkTextBounds } from './backup-bounds'
import { fastChargeRow, fastHistoryRow } from './backup-fast-rows'
import { PAYOUT_ROW_SCHEMAS } from './backup-payouts'
import { chargeRecordOf } from './charge-record'
import { historyRecordOf } from './history-record'
import type { ChargeRecord, HistoryRecord } from '../domain/records'

/** A row of the file: its table, its parsed line, and the line's number (for the errors that name it). */
export interface RowItem {
  kind: 'row'
  table: BackupTableName
  value: unknown
  line: number
}

/** The schemas of a history and a charge row (the fast check's reference: backup-fast-rows.ts). */
export const historyRowSchema = z.object({
  connectionId: z.string().min(1),
  syncedAt: z.number().finite(),
  raw: historyItemSchema,
})
export const chargeRowSchema = z.object({
  connectionId: z.string().min(1),
  syncedAt: z.number().finite(),
  raw: chargeItemSchema,
})

const ROW_SCHEMAS = {
  connections: connectionSchema,
  stores: storeSchema,
  locks: lockSchema,
  history: historyRowSchema,
  charges: chargeRowSchema,
  marks: markSchema,
  audit: auditSchema,
  checkpoints: checkpointSchema,
  settings: settingSchema,
  imports: importSchema,
  importedRows: importedRowSchema,
  ...PAYOUT_ROW_SCHEMAS,
} satisfies Record<BackupTableName, z.ZodType>

export type Row =
  | { table: 'history'; record: HistoryRecord }
  | { table: 'charges'; record: ChargeRecord }
  | { table: Exclude<BackupTableName, 'history' | 'charges'>; record: unknown }

/**
 * A row's schema output: history and charge rows in the writer's shape from the fast check (which
 * accepts only what the schema accepts, with the same output), anything else from zod, whose first issue
 * the error names.
 */
function parsedRow(item: RowItem): unknown {
  const fast =
    item.table === 'history'
      ? fastHistoryRow(item.value)
      : item.table === 'charges'
        ? fastChargeRow(item.value)
        : null
  if (fast) return fast
  const parsed = ROW_SCHEMAS[item.table].safeParse(item.value)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new BackupError('invalid_row', {
    table: item.table,
    line: item.line,
    issue: `${(issue?.path ?? []).join('.')}: ${issue?.message ?? ''}`.slice(0, 200),
  })
}

/** Refuses a history or charge row whose time is no time (the record is filed by it). */
function assertTimed(item: RowItem, createdAt: number): void {
  if (!Number.isFinite(createdAt))
    throw new BackupError('invalid_row', { table: item.table, line: item.line, issue: 'raw.created_on' })
}

/** A checked row; history and charges rebuilt from their API payload, whatever else the line says. */
export function rowOf(item: RowItem): Row {
  checkTextBounds(item.table, item.value, item.line)
  const data = parsedRow(item)
  if (item.table === 'history') {
    const r = data as z.infer<typeof historyRowSchema>
    const record = historyRecordOf(r.connectionId, r.raw, r.syncedAt)
    assertTimed(item, record.createdAt)
    return { table: 'history', record }
  }
  if (item.table === 'charges') {
    const r = data as z.infer<typeof chargeRowSchema>
    const record = chargeRecordOf(r.connectionId, r.raw, r.syncedAt)
    assertTimed(item, record.createdAt)
    return { table: 'charges', record }
  }
  return { table: item.table, record: data }
}

/**
 * A row checked exactly as rowOf checks it (the same refusals), for pass one: a history or charge row
 * gives only its connection, with no record built, since pass one keeps nothing per record.
 */
export function checkedRow(item: RowItem): {
  table: BackupTableName
  record: unknown
} {
  checkTextBounds(item.table, item.value, item.line)
  const data = parsedRow(item)
  if (item.table !== 'history' && item.table !== 'charges') return { table: item.table, record: data }
  const r = data as { connectionId: string; raw: { created_on: string } }
  assertTimed(item, Date.parse(r.raw.created_on))
  return { table: item.table, record: { connectionId: r.connectionId } }
}
