/** Period locks (DESIGN §4): closing and reopening a period are each audited in the same transaction. */
import { appendAuditEntries } from './audit-repository'
import type { ClosebookDb } from './database'
import type { AuditEntry, PayoutCloseRecord, PeriodLock } from '../domain/records'
import { assertSameConnection, connectionBounds } from './repository-helpers'

export class LocksRepository {
  constructor(private readonly db: ClosebookDb) {}

  async get(connectionId: string, period: string): Promise<PeriodLock | undefined> {
    return this.db.locks.get([connectionId, period])
  }

  async isLocked(connectionId: string, period: string): Promise<boolean> {
    return (await this.get(connectionId, period)) !== undefined
  }

  /** A connection's locks, by period. */
  async list(connectionId: string): Promise<PeriodLock[]> {
    return this.db.locks
      .where('[connectionId+period]')
      .between(...connectionBounds(connectionId))
      .toArray()
  }

  /** Closes a period. Returns false (and audits nothing) when it was already closed. */
  async lock(lock: PeriodLock, audit: AuditEntry): Promise<boolean> {
    assertSameConnection(lock.connectionId, [audit], 'lock audit')
    const { db } = this
    return db.transaction('rw', db.locks, db.audit, async () => {
      if (await db.locks.get([lock.connectionId, lock.period])) return false
      await db.locks.add(lock)
      await appendAuditEntries(db.audit, [audit])
      return true
    })
  }

  /** Reopens a period. Returns false (and audits nothing) when it was not closed. */
  async unlock(connectionId: string, period: string, audit: AuditEntry): Promise<boolean> {
    assertSameConnection(connectionId, [audit], 'unlock audit')
    const { db } = this
    return db.transaction('rw', db.locks, db.audit, async () => {
      if (!(await db.locks.get([connectionId, period]))) return false
      await db.locks.delete([connectionId, period])
      await appendAuditEntries(db.audit, [audit])
      return true
    })
  }

  /**
   * The team server's decision on a month: signed off sets the lock (lockedBy the reviewer's login, at the
   * server's time), reopened lifts it; each change audited with reason `team_server`. Already as decided:
   * nothing is written. Returns whether anything changed.
   */
  async applyServerMonth(
    connectionId: string,
    change: { month: string; locked: boolean; by: string; at: string; payoutClose?: PayoutCloseRecord },
  ): Promise<boolean> {
    const parsed = Date.parse(change.at)
    const at = Number.isFinite(parsed) ? parsed : Date.now()
    const base = {
      connectionId,
      at,
      actor: change.by,
      key: null,
      period: change.month,
      reason: 'team_server',
    }
    if (!change.locked) {
      const before = await this.get(connectionId, change.month)
      return this.unlock(connectionId, change.month, {
        ...base,
        action: 'reopen-period',
        before: before ?? null,
        after: null,
      })
    }
    const lock: PeriodLock = {
      connectionId,
      period: change.month,
      lockedAt: at,
      lockedBy: change.by,
      ...(change.payoutClose ? { payoutClose: change.payoutClose } : {}),
    }
    return this.lock(lock, { ...base, action: 'close-period', before: null, after: lock })
  }
}
