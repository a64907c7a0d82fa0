/**
 * Pass one of a restore: the whole file read once and refused for the first problem its lines show on
 * their own or against the small tables, keeping nothing per record.
 */
import type { BackupSignature } from '../../electron/shared/contract/backup'
import { isValidTimeZone, periodOf } from '../domain/periods'
import { auditRowsOf } from './audit-repository'
import type { BackupTableName, TableCounts } from './backup'
import { BackupError, STREAM_TABLE_ORDER, type StreamProgress } from './backup-format'
import { checkedRow, itemsOf, type ReadOptions } from './backup-read'
import type { AuditEntry, CachedConnection, MarkRecord, PeriodLock } from '../domain/records'

const SMALL_KEY: Partial<Record<BackupTableName, (r: never) => string>> = {
  connections: (r: CachedConnection) => r.id,
  stores: (r: { connectionId: string; storeId: string }) => `${r.connectionId}\u0001${r.storeId}`,
  locks: (r: PeriodLock) => `${r.connectionId}\u0001${r.period}`,
  checkpoints: (r: { connectionId: string; partitionId: string }) =>
    `${r.connectionId}\u0001${r.partitionId}`,
  settings: (r: { key: string }) => r.key,
  imports: (r: { connectionId: string; id: string }) => `${r.connectionId}\u0001${r.id}`,
  payoutBankAccounts: (r: { connectionId: string; id: string }) => `${r.connectionId}\u0001${r.id}`,
  payoutConfig: (r: { connectionId: string }) => r.connectionId,
  payoutTransfers: (r: { connectionId: string; id: string }) => `${r.connectionId}\u0001${r.id}`,
}

export interface BackupCheck {
  exportedAt: string
  version: number
  counts: TableCounts
  /** The digest of the file's text (before its signature line): main checks the signature against it. */
  digest: string
  signature: BackupSignature | null
}

/**
 * The period a record has in its connection's zone when it contradicts `period`, else null (also when
 * the record is not in the file). A connection's zone can be changed after marks were made, so a period
 * the record has in some zone (UTC−12 to UTC+14) is accepted; one no zone gives it contradicts it.
 */
export function contradiction(
  createdAt: number | undefined,
  zone: string | undefined,
  period: string,
): string | null {
  if (createdAt === undefined) return null
  const possible = [periodOf(createdAt, 'Etc/GMT+12'), periodOf(createdAt, 'Etc/GMT-14')]
  if (possible.includes(period)) return null
  return zone === undefined ? (possible[0] ?? '') : periodOf(createdAt, zone)
}

/**
 * Pass one: reads the whole file and refuses it for the first problem its lines show on their own or
 * against the small tables (format, rows, time zones, closed months against marks and the audit log).
 * It holds the keys of the small tables and one audit action, never anything per record: what refers to
 * records (a record twice, marks and audit entries against their record's period) is checked by pass two
 * against the staged copy on disk, so memory does not grow with the cache. Charges and imported rows are
 * not checked for duplicates: restore writes them by key.
 */
export async function checkBackupFile(
  file: Blob,
  options: {
    signal?: AbortSignal
    onProgress?: (p: StreamProgress) => void
    inflateLimits?: ReadOptions['inflateLimits']
  } = {},
): Promise<BackupCheck> {
  const onBytes = (done: number): void => options.onProgress?.({ done, total: file.size })
  const items = await itemsOf(file, { ...options, onBytes })
  const counts = Object.fromEntries(STREAM_TABLE_ORDER.map((t) => [t, 0])) as TableCounts
  const locks = new Map<string, PeriodLock>()
  const seen = new Map<BackupTableName, Set<string>>()
  // The last close/reopen of each (connection, period), by audit sequence.
  const lockActions = new Map<string, { seq: number; action: string }>()
  // The audit action being read (its entries are consecutive) and the parts seen of it.
  let head: { seq: number; entry: AuditEntry; parts: Set<number> } | null = null
  const seqsDone = new Set<number>()
  let header: { exportedAt: string; version: number } | null = null
  const connectionIds = new Set<string>()
  let trailer: { digest: string; signature: BackupSignature | null } = { digest: '', signature: null }

  for await (const item of items) {
    if (item.kind === 'header') {
      header = item
      continue
    }
    if (item.kind === 'trailer') {
      trailer = item
      continue
    }
    const row = checkedRow(item)
    counts[item.table]++
    // Every row belongs to a connection of the file (connections come first).
    const owner = (row.record as { connectionId?: unknown }).connectionId
    if (typeof owner === 'string' && !connectionIds.has(owner))
      throw new BackupError('unknown_connection', {
        table: item.table,
        line: item.line,
        connection: owner.slice(0, 80),
      })
    if (row.table === 'connections') connectionIds.add((row.record as CachedConnection).id)
    const keyOf = SMALL_KEY[item.table] as ((r: unknown) => string) | undefined
    if (keyOf) {
      let keys = seen.get(item.table)
      if (!keys) seen.set(item.table, (keys = new Set()))
      const key = keyOf(row.record)
      if (keys.has(key)) throw new BackupError('duplicate_key', { table: item.table, line: item.line, key })
      keys.add(key)
    }
    switch (row.table) {
      case 'connections': {
        const c = row.record as CachedConnection
        if (!isValidTimeZone(c.timeZone))
          throw new BackupError('unknown_time_zone', {
            connection: c.label || c.id,
            zone: c.timeZone.slice(0, 64),
          })
        break
      }
      case 'locks': {
        const l = row.record as PeriodLock
        locks.set(`${l.connectionId}\u0001${l.period}`, l)
        break
      }
      case 'marks': {
        const m = row.record as MarkRecord
        const lock = locks.get(`${m.connectionId}\u0001${m.period}`)
        if (lock && m.updatedAt > lock.lockedAt)
          throw new BackupError('mark_after_lock', { key: m.key, period: m.period })
        break
      }
      case 'audit': {
        const e = row.record as AuditEntry
        const seq = e.seq ?? 0
        // One action's entries are consecutive in the file, as the cache stores them in one row.
        if (head && head.seq === seq) {
          if (auditRowsOf([head.entry, e]).length > 1)
            throw new BackupError('audit_split_action', { seq, line: item.line })
        } else {
          if (seqsDone.has(seq)) throw new BackupError('audit_split_action', { seq, line: item.line })
          if (head) seqsDone.add(head.seq)
          head = { seq, entry: e, parts: new Set() }
        }
        const part = e.part ?? 0
        if (head.parts.has(part))
          throw new BackupError('duplicate_key', { table: 'audit', line: item.line, key: `${seq}.${part}` })
        head.parts.add(part)
        if ((e.action === 'close-period' || e.action === 'reopen-period') && e.period !== null) {
          const id = `${e.connectionId}\u0001${e.period}`
          const last = lockActions.get(id)
          if (!last || last.seq <= seq) lockActions.set(id, { seq, action: e.action })
        }
        break
      }
      case 'payoutStatusChanges':
      case 'payoutLedgers': {
        // A status change or ledger names a transfer of the file (transfers come first); an open ledger none.
        const r = row.record as { connectionId: string; transferId: string | null }
        const transfers = seen.get('payoutTransfers')
        if (r.transferId !== null && !transfers?.has(`${r.connectionId}\u0001${r.transferId}`))
          throw new BackupError('payout_without_transfer', {
            table: item.table,
            line: item.line,
            transfer: r.transferId.slice(0, 80),
          })
        break
      }
      default:
        break
    }
  }
  if (!header) throw new BackupError('not_a_backup', { reason: 'no Closebook header' })
  // A closed month has its closing in the audit log, and a month last reopened is not closed.
  for (const [id, lock] of locks) {
    const last = lockActions.get(id)
    if (last?.action !== 'close-period')
      throw new BackupError('lock_contradicts_audit', { period: lock.period, action: last?.action ?? 'none' })
  }
  for (const [id, last] of lockActions) {
    if (last.action === 'close-period' && !locks.has(id))
      throw new BackupError('lock_contradicts_audit', {
        period: id.split('\u0001')[1] ?? '',
        action: last.action,
      })
  }
  return {
    exportedAt: header.exportedAt,
    version: header.version,
    counts,
    digest: trailer.digest,
    signature: trailer.signature,
  }
}
