/**
 * The accountant's marks. Every change goes through `apply`, which writes the marks and their audit
 * rows in one transaction and refuses, inside that same transaction, to touch a locked period — so a
 * lock taken concurrently can never be slipped past.
 */
import { appendAuditEntries } from './audit-repository'
import type { ClosebookDb } from './database'
import type { AuditEntry, MarkRecord, MarkState, RecordKey } from './records'
import { assertSameConnection } from './repository-helpers'

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
      const periods = new Set<string>(plan.puts.map((m) => m.period))
      for (const m of existing) if (m) periods.add(m.period)
      const locks = await db.locks.bulkGet([...periods].map((p): [string, string] => [connectionId, p]))
      const locked = locks.find((l) => l !== undefined)
      if (locked) throw new PeriodLockedError(connectionId, locked.period)

      await db.marks.bulkDelete(plan.deletes.map((k): MarkKey => [connectionId, k]))
      await db.marks.bulkPut(plan.puts)
      const auditSeqs = await appendAuditEntries(db.audit, plan.audit)
      return { put: plan.puts.length, deleted: plan.deletes.length, auditSeqs }
    })
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
