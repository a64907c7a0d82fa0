/**
 * The one way the accountant's marks change: the ledger's marks, notes, reconfirmations and
 * undo, and matching's accepts and import removals all go through here. Each change reads the current
 * marks of its records and the connection's locks, plans (the caller hands in a pure planner of
 * src/reconcile/marking.ts, which src/db may not import, to turn them into a MarkPlan) and writes the marks with their audit row in ONE transaction, so:
 * - an audit entry's `before` is the mark as it was when the change was written, never an earlier read
 *   (another window's note or mark in between is neither lost nor misreported);
 * - a period closed meanwhile (even in another window) is refused, record by record, by the planner; and
 *   should a plan still touch a closed period the write throws PeriodLockedError and nothing lands.
 * Matching's links on imported rows (and an import's removal) land in that same transaction.
 */
import Dexie, { type Table } from 'dexie'
import { emptyPlan, type MarkPlan, type MatchLink } from '../domain/mark-plan'
import { planServerMarks, type ServerMarkInput } from '../domain/team-mark-plan'
import { appendAuditEntries } from './audit-repository'
import type { ClosebookDb } from './database'
import { historyByKeys } from './history-part-reads'
import { DayRows, PeriodLockedError, putMarkDays } from './marks-repository'
import type { HistoryRecord, MarkRecord, MarkRef, PeriodLock, RecordKey } from '../domain/records'
import { assertSameConnection, connectionBounds } from './repository-helpers'
import { queueTeamChanges } from './team-repository'

/** What a planner sees inside the transaction: the current marks of the records and the connection's locks. */
export interface MarkSnapshot {
  marks: ReadonlyMap<RecordKey, MarkRecord>
  locks: ReadonlyMap<string, PeriodLock>
}

export interface ApplyResult {
  put: number
  deleted: number
  /** Sequence numbers of the audit rows written (one per action). */
  auditSeqs: number[]
}

/** Who makes a change, when, and in which accounting zone its records' periods are counted. */
export interface MarkAuthor {
  actor: string
  now: number
  timeZone: string
}

/** One accepted match: an imported row and the records it is linked to. */
export interface AcceptedMatch {
  line: number
  keys: RecordKey[]
}

/** What a matching planner sees inside the transaction: the cached records, their marks and the locks. */
export interface MatchPlanInput extends MarkSnapshot {
  records: HistoryRecord[]
}

/** Plans accepted matches: `links` names each record's new link (reconcile/marking.ts planMarks). */
export type AcceptPlanner = (input: MatchPlanInput & { links: ReadonlyMap<RecordKey, MatchLink> }) => MarkPlan
/** Plans an import's removal: its links leave the marks (reconcile/marking.ts planUnlink). */
export type RemovalPlanner = (input: MatchPlanInput) => MarkPlan

export interface MatchWriteResult {
  plan: MarkPlan
  /** False when a closed period refused the change: then nothing at all was written. */
  written: boolean
}

export class MarkingService {
  constructor(private readonly db: ClosebookDb) {}

  /**
   * Read, plan and write in one transaction: the current marks of the records and the connection's locks
   * are read, `planner` (synchronous, pure) turns them into a MarkPlan, and it lands with its audit row.
   * The plan may only touch the records named in `refs` (their day rows are the ones read). Cancelling
   * through `signal` aborts the transaction, so nothing of it lands.
   */
  async planAndApply<P extends MarkPlan>(
    connectionId: string,
    refs: readonly MarkRef[],
    planner: (snapshot: MarkSnapshot) => P,
    options: { signal?: AbortSignal } = {},
  ): Promise<{ plan: P; result: ApplyResult }> {
    const { db } = this
    const { signal } = options
    signal?.throwIfAborted()
    return db.transaction('rw', [db.markDays, db.audit, db.locks, ...this.#teamTables()], async () => {
      const tx = Dexie.currentTransaction
      const abort = (): void => tx.abort()
      signal?.addEventListener('abort', abort, { once: true })
      try {
        return await this.#planAndWrite(connectionId, refs, planner, signal)
      } finally {
        signal?.removeEventListener('abort', abort)
      }
    })
  }

  /**
   * Accepting matches of one import: the records are read, their marks linked (sales or cash side, by the
   * import's kind; the other side's link stays) and reconciled, and the rows remember their records, all
   * in one transaction. A closed period refuses the whole batch: nothing is written.
   */
  async acceptMatches(
    connectionId: string,
    importId: string,
    matches: readonly AcceptedMatch[],
    planner: AcceptPlanner,
  ): Promise<MatchWriteResult> {
    const { db } = this
    return db.transaction('rw', this.#importTables(), async () => {
      const file = await db.imports.get([connectionId, importId])
      if (!file) throw new Error(`accept: import ${importId} is not in the cache`)
      const keys = [...new Set(matches.flatMap((m) => m.keys))]
      const records = await this.#records(connectionId, keys)
      const links = new Map<RecordKey, MatchLink>()
      for (const m of matches)
        for (const k of m.keys) links.set(k, { source: file.source, importId, line: m.line })
      const { plan } = await this.#planAndWrite(connectionId, records, ({ marks, locks }) => {
        const planned = planner({ records, marks, locks, links })
        return planned.refused.length > 0 ? { ...emptyPlan(), refused: planned.refused } : planned
      })
      if (plan.refused.length > 0) return { plan, written: false }
      for (const m of matches)
        await db.importedRows.update([connectionId, importId, m.line], { matchedKeys: [...m.keys] })
      return { plan, written: true }
    })
  }

  /**
   * Removing an import and what it did, in one transaction: its links leave the marks (a mark only its
   * matches reconciled is unmarked; its note stays), audited, and the file and its rows are forgotten.
   * A closed period refuses the whole removal: nothing is written, the file stays.
   */
  async removeImport(
    connectionId: string,
    importId: string,
    planner: RemovalPlanner,
  ): Promise<MatchWriteResult> {
    const { db } = this
    return db.transaction('rw', this.#importTables(), async () => {
      const rows = await db.importedRows
        .where('[connectionId+importId]')
        .equals([connectionId, importId])
        .toArray()
      const keys = [...new Set(rows.flatMap((r) => r.matchedKeys))]
      const records = await this.#records(connectionId, keys)
      const { plan } = await this.#planAndWrite(connectionId, records, ({ marks, locks }) => {
        const planned = planner({ records, marks, locks })
        return planned.refused.length > 0 ? { ...emptyPlan(), refused: planned.refused } : planned
      })
      if (plan.refused.length > 0) return { plan, written: false }
      await db.importedRows.where('[connectionId+importId]').equals([connectionId, importId]).delete()
      await db.imports.delete([connectionId, importId])
      return { plan, written: true }
    })
  }

  /**
   * The team server's marks made local: each cached record's mark becomes what the server holds, audited
   * under the server's login and time, in one transaction. These changes came from the server, so they do
   * not join the outbox; records not cached here and months closed here are left as they are.
   */
  async applyServerMarks(connectionId: string, server: readonly ServerMarkInput[]): Promise<ApplyResult> {
    const { db } = this
    if (server.length === 0) return { put: 0, deleted: 0, auditSeqs: [] }
    return db.transaction('rw', [db.markDays, db.audit, db.locks, ...db.historyRecordTables()], async () => {
      const records = await this.#records(connectionId, [...new Set(server.map((s) => s.key))])
      const { result } = await this.#planAndWrite(
        connectionId,
        records,
        ({ marks, locks }) => planServerMarks({ records, marks, locks, server }),
        undefined,
        false,
      )
      return result
    })
  }

  /** The cached records of `keys` (a record no longer cached has no day row to find its mark in). */
  async #records(connectionId: string, keys: readonly RecordKey[]): Promise<HistoryRecord[]> {
    const found = await historyByKeys(this.db, connectionId, keys)
    return found.filter((r): r is HistoryRecord => r !== undefined)
  }

  /** Inside a transaction over markDays, audit and locks (at least). */
  async #planAndWrite<P extends MarkPlan>(
    connectionId: string,
    refs: readonly MarkRef[],
    planner: (snapshot: MarkSnapshot) => P,
    signal?: AbortSignal,
    toTeam = true,
  ): Promise<{ plan: P; result: ApplyResult }> {
    const { db } = this
    const rows = new DayRows(connectionId, refs)
    const [, locks] = await Promise.all([rows.read(db.markDays), this.#locks(connectionId)])
    signal?.throwIfAborted()
    const marks = rows.marks()
    const plan = planner({ marks, locks })
    signal?.throwIfAborted()
    assertSameConnection(connectionId, plan.puts, 'mark plan')
    assertSameConnection(connectionId, plan.audit, 'mark plan audit')
    // A touched mark's new and stored periods must both be open.
    const periods = new Set<string>(plan.puts.map((m) => m.period))
    for (const k of [...plan.puts.map((m) => m.key), ...plan.deletes]) {
      const stored = marks.get(k)
      if (stored) periods.add(stored.period)
    }
    for (const p of periods) if (locks.has(p)) throw new PeriodLockedError(connectionId, p)
    const changed = rows.change(plan.puts, plan.deletes)
    if (changed.length > 0) await putMarkDays(db.markDays, changed)
    // Tagged by the records' days when the action is large (audit-repository.ts): their days are known here.
    const auditSeqs =
      plan.audit.length > 0
        ? await appendAuditEntries(db.audit, plan.audit, (key) => rows.dayOfKey.get(key))
        : []
    if (!toTeam) return { plan, result: { put: plan.puts.length, deleted: plan.deletes.length, auditSeqs } }
    const now = plan.puts[0]?.updatedAt ?? Date.now()
    await queueTeamChanges(
      db,
      connectionId,
      [
        ...plan.puts.map((m) => ({
          key: m.key,
          period: m.period,
          reconciled: m.state === 'reconciled',
          note: m.note,
        })),
        ...plan.deletes.flatMap((k) => {
          const stored = marks.get(k)
          return stored ? [{ key: k, period: stored.period, reconciled: false, note: '' }] : []
        }),
      ],
      now,
    )
    return { plan, result: { put: plan.puts.length, deleted: plan.deletes.length, auditSeqs } }
  }

  /** The tables a shared connection's outbox entry needs inside the marking transaction. */
  #teamTables(): Table[] {
    const { db } = this
    return [db.settings, db.teamOutbox, db.teamState]
  }

  /** What accepting or removing an import writes: marks and audit, the records, the file and its rows. */
  #importTables(): Table[] {
    const { db } = this
    return [
      db.markDays,
      db.audit,
      db.locks,
      db.history,
      db.historyParts,
      db.imports,
      db.importedRows,
      ...this.#teamTables(),
    ]
  }

  async #locks(connectionId: string): Promise<Map<string, PeriodLock>> {
    // The locks table holds a row per closed month: reading the connection's rows is one small request.
    const rows = await this.db.locks
      .where('[connectionId+period]')
      .between(...connectionBounds(connectionId))
      .toArray()
    return new Map(rows.map((l) => [l.period, l]))
  }
}
