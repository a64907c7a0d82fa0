/**
 * The version-2 backup file's constants and the error a refused backup raises: shared by the writer,
 * the reader (backup-read.ts), the check (backup-check.ts) and the restore (backup-stream.ts).
 */
import type { BackupTableName } from './backup'
import { PAYOUT_BACKUP_TABLES } from './backup-payouts'

export const STREAM_BACKUP_VERSION = 2

/**
 * Tables in file order: locks before marks and audit, records before what refers to them. The payout
 * tables came last, so a version-2 file made before them (no such sections) still reads, as holding none.
 */
export const STREAM_TABLE_ORDER = [
  'connections',
  'stores',
  'locks',
  'history',
  'charges',
  'marks',
  'audit',
  'checkpoints',
  'settings',
  'imports',
  'importedRows',
  ...PAYOUT_BACKUP_TABLES,
] as const satisfies readonly BackupTableName[]

/** A version-1 file is one JSON document: read whole, so only up to this many characters. */
export const LEGACY_MAX_CHARS = 256 * 1024 * 1024
/** No row of a version-2 file comes near this; a longer line is not a backup. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024
/** Setting present while a restore is writing; a cache that still has it is incomplete. */
export const RESTORE_MARKER_KEY = 'restoreInProgress'

/**
 * What a gzip backup may inflate to: RATIO times its compressed size (line-delimited JSON compresses
 * 5–20 times), and never less than FLOOR, so a small backup is never refused for compressing well.
 * Inflating stops as soon as the output passes it (bounded-inflate.ts).
 */
export const BACKUP_INFLATE_LIMITS = { floorBytes: 256 * 1024 * 1024, ratio: 100 } as const

/** The most a gzip file of `size` bytes may inflate to. */
export const maxInflatedBytes = (
  size: number,
  limits: { floorBytes: number; ratio: number } = BACKUP_INFLATE_LIMITS,
): number => Math.max(limits.floorBytes, size * limits.ratio)

export type BackupErrorCode =
  | 'not_a_backup'
  | 'unsupported_version'
  | 'legacy_too_large'
  | 'inflated_too_large'
  | 'line_too_long'
  | 'invalid_line'
  | 'invalid_row'
  | 'duplicate_key'
  | 'truncated'
  | 'unknown_time_zone'
  | 'mark_contradicts_record'
  | 'mark_after_lock'
  | 'audit_contradicts_record'
  | 'lock_contradicts_audit'
  | 'audit_split_action'
  | 'changed_during_backup'
  | 'restore_interrupted'
  | 'restore_failed'
  | 'text_too_long'
  | 'unknown_connection'
  | 'mark_without_record'
  | 'audit_without_record'
  | 'lock_without_record'
  | 'changed_since_check'
  | 'payout_without_transfer'

/** A backup refused (or a backup that could not be made), with a code the UI words and its details. */
export class BackupError extends Error {
  constructor(
    readonly code: BackupErrorCode,
    readonly params: Readonly<Record<string, string | number>> = {},
  ) {
    super(`Backup ${code}: ${JSON.stringify(params)}`)
    this.name = 'BackupError'
  }
}

export interface StreamProgress {
  /** Bytes of the file read (restore) or characters written (backup); records or rows in later phases. */
  done: number
  total: number | null
  /**
   * A restore's phase: reading the file into the staging tables, filing the day rows (records), then
   * switching the staged rows in (rows), then committing them (all `total` rows copied, the transaction
   * being written). Absent: reading.
   */
  phase?: 'read' | 'index' | 'switch' | 'commit'
}
