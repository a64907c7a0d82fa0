/** Test data for the cache: valid API items (per the shared schemas) and fresh fake-indexeddb databases. */
import Dexie from 'dexie'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import type { ChargeItem, HistoryItem } from '../../../../electron/shared/payment-api'
import { auditEntriesOf } from '../../../../src/db/audit-repository'
import { ClosebookDb, SCHEMA_V6, type IndexedDbDeps } from '../../../../src/db/database'
import { MarkingService, type ApplyResult } from '../../../../src/db/marking-service'
import { markDayOf, markDayRowsOf } from '../../../../src/db/marks-repository'
import type { AuditEntry, MarkRecord, MarkRef, RecordKey, SyncCheckpoint } from '../../../../src/db/records'

export const CONN = 'conn-a'
export const STORE_1 = '11111111-1111-4111-8111-111111111111'
export const STORE_2 = '22222222-2222-4222-8222-222222222222'
export const T0 = Date.parse('2026-10-01T00:00:00Z')
export const HOUR = 3_600_000

/** A fresh, isolated IndexedDB per call, so tests never share state. */
export function freshDeps(): IndexedDbDeps {
  return { indexedDB: new IDBFactory(), IDBKeyRange }
}

/** Leaves an empty cache of schema v6 under `name`, as an older app version would have. */
export async function createV6Cache(deps: IndexedDbDeps, name = 'closebook'): Promise<void> {
  const v6 = new Dexie(name, deps)
  v6.version(6).stores(SCHEMA_V6)
  await v6.open()
  v6.close()
}

export function openDb(name = 'closebook-test', deps: IndexedDbDeps = freshDeps()): ClosebookDb {
  return new ClosebookDb(name, deps)
}

export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
}

export function historyItem(n: number, over: Partial<HistoryItem> = {}): HistoryItem {
  return {
    store_id: STORE_1,
    resource_id: uuid(n),
    charge_id: null,
    amount: 1000 + n,
    currency: 'JPY',
    amount_formatted: 1000 + n,
    type: 'charge',
    status: 'successful',
    metadata: { order_id: `ORD-${n}` },
    created_on: new Date(T0 + n * HOUR).toISOString(),
    mode: 'live',
    merchant_name: 'Merchant',
    store_name: 'Store',
    payment_type: 'card',
    user_data: {
      type: 'card',
      cardholder_name: `Holder ${n}`,
      cardholder_email_address: `holder${n}@example.com`,
      brand: 'visa',
      gateway: 'gw',
      service_provider: 'sp',
      refunds: [],
    },
    bank_transfer_payment_status: null,
    bank_transfer_latest_deposit_date: null,
    ...over,
  }
}

export function chargeItem(n: number, over: Partial<ChargeItem> = {}): ChargeItem {
  return {
    id: uuid(n),
    store_id: STORE_1,
    transaction_token_id: uuid(10_000 + n),
    transaction_token_type: 'one_time',
    subscription_id: null,
    merchant_transaction_id: `ORD-${n}`,
    requested_amount: 1000,
    requested_currency: 'JPY',
    requested_amount_formatted: 1000,
    charged_amount: 1000,
    charged_currency: 'JPY',
    charged_amount_formatted: 1000,
    fee_amount: 36,
    fee_currency: 'JPY',
    fee_amount_formatted: 36,
    only_direct_currency: false,
    capture_at: null,
    descriptor: null,
    descriptor_phone_number: null,
    status: 'successful',
    error: null,
    metadata: {},
    mode: 'live',
    created_on: new Date(T0 + n * HOUR).toISOString(),
    redirect: {},
    merchant_name: 'Merchant',
    store_name: 'Store',
    ...over,
  }
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

/** Writes fixed marks and audit entries through the marking service (a planner that ignores the snapshot). */
export async function applyPlan(
  db: ClosebookDb,
  plan: { connectionId: string; puts: MarkRecord[]; deletes: RecordKey[]; audit: AuditEntry[] },
  refs: readonly MarkRef[],
): Promise<ApplyResult> {
  const { connectionId, puts, deletes, audit } = plan
  const done = await new MarkingService(db).planAndApply(connectionId, refs, () => ({
    puts,
    deletes,
    audit,
    refused: [],
  }))
  return done.result
}
