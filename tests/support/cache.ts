/**
 * The one set of cache builders: records through the mappers sync uses, marks, audit entries, sync
 * checkpoints, connection rows, and seeding marks as the cache files them. No Dexie import (only src/db
 * may import it); fresh databases come from each suite's own setup.
 */
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'
import { auditEntriesOf } from '../../src/db/audit-repository'
import { chargeRecordOf } from '../../src/db/charge-record'
import type { ClosebookDb } from '../../src/db/database'
import { historyRecordOf } from '../../src/db/history-record'
import { markDayOf, markDayRowsOf } from '../../src/db/marks-repository'
import type { ChargePartRecord } from '../../src/db/storage-rows'
import type {
  AuditEntry,
  CachedConnection,
  ChargeRecord,
  HistoryRecord,
  MarkRecord,
  MarkRef,
  RecordKey,
  SyncCheckpoint,
} from '../../src/domain/records'
import { chargeItem, CONN, historyItem, HOUR, STORE_1, T0, uuid } from './api-items'

/** History record `n` (`historyItem(n, over)`) as sync stores it for `CONN`. */
export function historyRecord(
  n: number,
  over: Partial<HistoryItem> = {},
  connectionId = CONN,
): HistoryRecord {
  return historyRecordOf(connectionId, historyItem(n, over), 0)
}

/** Refund `n` of charge `chargeN`, as sync stores it. */
export function refundRecord(
  n: number,
  chargeN: number,
  over: Partial<HistoryItem> = {},
  connectionId = CONN,
): HistoryRecord {
  return historyRecord(n, { type: 'refund', charge_id: uuid(chargeN), ...over }, connectionId)
}

/** Charge record `n` (`chargeItem(n, over)`) as sync stores it for `CONN`. */
export function chargeRecord(n: number, over: Partial<ChargeItem> = {}, connectionId = CONN): ChargeRecord {
  return chargeRecordOf(connectionId, chargeItem(n, over), 0)
}

/** A connection row of the cache (Tokyo, one store, synced at T0). */
export function connectionRow(over: Partial<CachedConnection> = {}): CachedConnection {
  return {
    id: CONN,
    label: 'Shop',
    baseUrl: 'http://127.0.0.1:1',
    timeZone: 'Asia/Tokyo',
    storeIds: [STORE_1],
    isDemo: false,
    lastSyncedAt: T0,
    highWater: { transaction_history: T0 },
    ...over,
  }
}

/** The row the app puts in the cache for a connection main has just made: not synced yet. */
export function newConnectionRow(
  summary: Pick<CachedConnection, 'id' | 'label' | 'baseUrl' | 'timeZone' | 'storeIds'>,
  isDemo = true,
): CachedConnection {
  return connectionRow({
    id: summary.id,
    label: summary.label,
    baseUrl: summary.baseUrl,
    timeZone: summary.timeZone,
    storeIds: summary.storeIds,
    isDemo,
    lastSyncedAt: null,
    highWater: {},
  })
}

export function checkpoint(over: Partial<SyncCheckpoint> = {}): SyncCheckpoint {
  return {
    connectionId: CONN,
    partitionId: 'transaction_history:all:2026-10',
    resource: 'transaction_history',
    storeId: null,
    from: T0,
    to: T0 + 31 * 24 * HOUR,
    cursor: null,
    done: false,
    records: 0,
    requests: 1,
    updatedAt: T0,
    ...over,
  }
}

export function mark(key: RecordKey, over: Partial<MarkRecord> = {}): MarkRecord {
  return {
    connectionId: CONN,
    key,
    state: 'reconciled',
    note: '',
    fingerprint: 'fp',
    changedSinceReconciled: 0,
    period: '2026-10',
    updatedAt: T0,
    updatedBy: 'alice',
    ...over,
  }
}

export function auditEntry(over: Partial<AuditEntry> = {}): AuditEntry {
  return {
    connectionId: CONN,
    at: T0,
    actor: 'alice',
    action: 'mark',
    key: null,
    period: '2026-10',
    before: null,
    after: null,
    ...over,
  }
}

/** A record reference (key and time): marks are filed by their record's day, T0's unless told. */
export function ref(key: RecordKey, createdAt = T0): MarkRef {
  return { key, createdAt }
}

/**
 * Stores marks as the cache does (in their record's day row, merged with the marks already there), for
 * tests that set up marks directly. `createdAtOf` gives each mark's record time (T0 by default).
 */
export async function putMarks(
  db: ClosebookDb,
  marks: readonly MarkRecord[],
  createdAtOf: (mark: MarkRecord) => number = () => T0,
): Promise<void> {
  await db.transaction('rw', db.markDays, async () => {
    const id = (m: MarkRecord) => `${m.connectionId}\u0001${m.key}`
    const all = new Map<string, { mark: MarkRecord; day: number }>()
    for (const row of await db.markDays.toArray())
      for (const m of row.marks) all.set(id(m), { mark: m, day: row.day })
    for (const m of marks) all.set(id(m), { mark: m, day: markDayOf(createdAtOf(m)) })
    const days = new Map([...all.values()].map(({ mark, day }) => [mark, day]))
    await db.markDays.clear()
    await db.markDays.bulkPut(markDayRowsOf([...days.keys()], (m) => days.get(m)))
  })
}

/** Every stored mark, as the app reads them (one per record). */
export async function storedMarks(db: ClosebookDb): Promise<MarkRecord[]> {
  return (await db.markDays.toArray()).flatMap((r) => r.marks)
}

/** Every stored audit entry, in sequence order (one per change). */
export async function storedAudit(db: ClosebookDb): Promise<AuditEntry[]> {
  return (await db.audit.toArray()).flatMap(auditEntriesOf)
}

/**
 * Counts whole charge-list records read from `db` from now on: each charge a part holds as the part is
 * read, and each row of the table from before schema v10.
 */
export function countWholeChargeReads(db: ClosebookDb): { charges: number } {
  const counter = { charges: 0 }
  db.chargeParts.hook('reading', (part: ChargePartRecord) => {
    counter.charges += part.charges.length
    return part
  })
  db.charges.hook('reading', (c: ChargeRecord) => {
    counter.charges++
    return c
  })
  return counter
}
