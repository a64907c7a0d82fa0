/**
 * The accountant's marks. Every change goes through `apply`, which writes the marks and their audit
 * rows in one transaction and refuses, inside that same transaction, to touch a locked period — so a
 * lock taken concurrently can never be slipped past.
 */
import Dexie from 'dexie'
import { appendAuditEntries } from './audit-repository'
import type { ClosebookDb } from './database'
import type { AuditEntry, MarkRecord, MarkState, PeriodLock, RecordKey } from './records'
import { assertSameConnection, connectionBounds } from './repository-helpers'

export interface MarkPlan {
  connectionId: string
  puts: readonly MarkRecord[]
  /** Marks to remove (back to unreconciled with no note). */
  deletes: readonly RecordKey[]
  audit: readonly AuditEntry[]
}

export interface ApplyResult {
  put: number
  deleted: number
  auditSeqs: number[]
}

export class PeriodLockedError extends Error {
  constructor(
    readonly connectionId: string,
    readonly period: string,
  ) {
    super(`Period ${period} is closed: reopen it before changing its marks`)
    this.name = 'PeriodLockedError'
  }
}

type MarkKey = [string, RecordKey]

/** From this many keys on, planAndApply may read a connection's marks by range instead of key by key. */
const BULK_READ_MIN = 1000

/** What a planner sees inside the transaction: the current marks of the keys and the connection's locks. */
export interface MarkSnapshot {
  marks: ReadonlyMap<RecordKey, MarkRecord>
  locks: ReadonlyMap<string, PeriodLock>
}

/** The writes a planner returns; anything else it returns (e.g. its refusals) is handed back untouched. */
export interface PlannedWrites {
  puts: readonly MarkRecord[]
  deletes: readonly RecordKey[]
  audit: readonly AuditEntry[]
}

export class MarksRepository {
  constructor(private readonly db: ClosebookDb) {}

  async get(connectionId: string, key: RecordKey): Promise<MarkRecord | undefined> {
    return this.db.marks.get([connectionId, key])
  }

  async getMany(connectionId: string, keys: readonly RecordKey[]): Promise<(MarkRecord | undefined)[]> {
    return this.db.marks.bulkGet(keys.map((k): MarkKey => [connectionId, k]))
  }

  /** Applies a plan atomically: all marks, deletes and audit rows land, or none does. */
  async apply(plan: MarkPlan): Promise<ApplyResult> {
    const { connectionId } = plan
    assertSameConnection(connectionId, plan.puts, 'mark plan')
    assertSameConnection(connectionId, plan.audit, 'mark plan audit')
    const { db } = this
    return db.transaction('rw', db.marks, db.audit, db.locks, async () => {
      const touched = [...plan.puts.map((m) => m.key), ...plan.deletes]
      const existing = await db.marks.bulkGet(touched.map((k): MarkKey => [connectionId, k]))
      const locks = await this.#locks(connectionId)
      return this.#write(plan, existing, locks)
    })
  }

  /**
   * Read, plan and write in one transaction: the current marks of `keys` and the connection's locks are
   * read, `planner` (synchronous, pure) turns them into writes, and those land with their audit rows.
   * Nothing can change the marks between the read and the write, and the marks are read once (a 10k bulk
   * mark spends most of its time in IndexedDB requests, so a second read of the same rows is costly).
   */
  async planAndApply<P extends PlannedWrites>(
    connectionId: string,
    keys: readonly RecordKey[],
    planner: (snapshot: MarkSnapshot) => P,
    options: { signal?: AbortSignal } = {},
  ): Promise<{ plan: P; result: ApplyResult }> {
    const { db } = this
    const { signal } = options
    signal?.throwIfAborted()
    return db.transaction('rw', db.marks, db.audit, db.locks, async () => {
      // Cancelling aborts the transaction: whatever was written so far is rolled back, nothing lands.
      const tx = Dexie.currentTransaction
      const abort = (): void => tx.abort()
      signal?.addEventListener('abort', abort, { once: true })
      try {
        return await this.#planAndWrite(connectionId, keys, planner, signal)
      } finally {
        signal?.removeEventListener('abort', abort)
      }
    })
  }

  async #planAndWrite<P extends PlannedWrites>(
    connectionId: string,
    keys: readonly RecordKey[],
    planner: (snapshot: MarkSnapshot) => P,
    signal: AbortSignal | undefined,
  ): Promise<{ plan: P; result: ApplyResult }> {
    const { db } = this
    const [marks, locks] = await Promise.all([this.#current(connectionId, keys), this.#locks(connectionId)])
    signal?.throwIfAborted()
    const plan = planner({ marks, locks })
    signal?.throwIfAborted()
    assertSameConnection(connectionId, plan.puts, 'mark plan')
    assertSameConnection(connectionId, plan.audit, 'mark plan audit')
    // Only the touched marks' stored periods matter to the lock check; a planner may touch a key it
    // was not given, so read what the snapshot lacks.
    const touched = [...plan.puts.map((m) => m.key), ...plan.deletes]
    const given = new Set(keys)
    const unread = touched.filter((k) => !given.has(k))
    const read =
      unread.length > 0 ? await db.marks.bulkGet(unread.map((k): MarkKey => [connectionId, k])) : []
    const existing = [...touched.map((k) => marks.get(k)), ...read]
    const result = await this.#write({ connectionId, ...plan }, existing, locks)
    return { plan, result }
  }

  /**
   * The current marks of `keys`. A get per key costs an IndexedDB request each; when the connection has
   * no more marks than there are keys (a first bulk mark, a sparsely marked cache) one range read of all
   * its marks returns fewer rows for a fraction of the requests. Below BULK_READ_MIN keys the count
   * would not pay for itself.
   */
  async #current(connectionId: string, keys: readonly RecordKey[]): Promise<Map<RecordKey, MarkRecord>> {
    const marks = new Map<RecordKey, MarkRecord>()
    const range = this.db.marks.where('[connectionId+key]').between(...connectionBounds(connectionId))
    if (keys.length >= BULK_READ_MIN && (await range.count()) <= keys.length) {
      const wanted = new Set(keys)
      for (const m of await range.toArray()) if (wanted.has(m.key)) marks.set(m.key, m)
      return marks
    }
    const found = await this.db.marks.bulkGet(keys.map((k): MarkKey => [connectionId, k]))
    for (const m of found) if (m) marks.set(m.key, m)
    return marks
  }

  async #locks(connectionId: string): Promise<Map<string, PeriodLock>> {
    // The locks table holds a row per closed month: reading the connection's rows is one small request.
    const rows = await this.db.locks
      .where('[connectionId+period]')
      .between(...connectionBounds(connectionId))
      .toArray()
    return new Map(rows.map((l) => [l.period, l]))
  }

  /** Refuses a plan touching a locked period (its new or its stored period), else writes it. In a transaction. */
  async #write(
    plan: MarkPlan,
    existing: readonly (MarkRecord | undefined)[],
    locks: ReadonlyMap<string, PeriodLock>,
  ): Promise<ApplyResult> {
    const { db } = this
    const { connectionId } = plan
    const periods = new Set<string>(plan.puts.map((m) => m.period))
    for (const m of existing) if (m) periods.add(m.period)
    for (const p of periods) if (locks.has(p)) throw new PeriodLockedError(connectionId, p)
    if (plan.deletes.length > 0)
      await db.marks.bulkDelete(plan.deletes.map((k): MarkKey => [connectionId, k]))
    if (plan.puts.length > 0) await db.marks.bulkPut(plan.puts)
    const auditSeqs = plan.audit.length > 0 ? await appendAuditEntries(db.audit, plan.audit) : []
    return { put: plan.puts.length, deleted: plan.deletes.length, auditSeqs }
  }

  /** Reconciled marks whose record changed at a later sync. */
  async listChangedSinceReconciled(connectionId: string): Promise<MarkRecord[]> {
    const rows = await this.db.marks
      .where('[connectionId+changedSinceReconciled]')
      .equals([connectionId, 1])
      .toArray()
    return rows.filter((m) => m.state === 'reconciled')
  }

  async listByPeriod(connectionId: string, period: string): Promise<MarkRecord[]> {
    return this.db.marks.where('[connectionId+period]').equals([connectionId, period]).toArray()
  }

  async countByState(connectionId: string, state: MarkState): Promise<number> {
    return this.db.marks.where('[connectionId+state]').equals([connectionId, state]).count()
  }
}
