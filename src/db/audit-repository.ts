/**
 * The audit log (DESIGN §4): append-only. This class deliberately has no update, put or delete, and
 * keeps the database in a private field so callers cannot reach the table through it.
 *
 * Stored one row per action (AuditRow): a bulk mark of 10k records is one row holding its 10k changes,
 * found by record or period through multi-entry tag indexes. Readers get one AuditEntry per change.
 */
import type { Table } from 'dexie'
import type { ClosebookDb } from './database'
import type { AuditEntry, RecordKey } from '../domain/records'
import type { AuditRow } from './storage-rows'
import { connectionBounds } from './repository-helpers'

/** A multi-entry index cannot be compound: its entries carry their connection in the string. */
export function auditTag(connectionId: string, keyOrPeriod: string): string {
  return `${connectionId}\u0001${keyOrPeriod}`
}

const sameAction = (a: AuditEntry, b: AuditEntry): boolean =>
  a.connectionId === b.connectionId &&
  a.at === b.at &&
  a.actor === b.actor &&
  a.action === b.action &&
  a.reason === b.reason

/** Groups entries into rows: consecutive entries of one action (same connection, time, actor, action, reason). */
export function auditRowsOf(entries: readonly AuditEntry[]): AuditRow[] {
  const rows: AuditRow[] = []
  let head: AuditEntry | undefined
  for (const e of entries) {
    let row = rows[rows.length - 1]
    if (!row || !head || !sameAction(head, e)) {
      head = e
      row = {
        connectionId: e.connectionId,
        at: e.at,
        actor: e.actor,
        action: e.action,
        changes: [],
        keyTags: [],
        periodTags: [],
      }
      if (e.reason !== undefined) row.reason = e.reason
      rows.push(row)
    }
    row.changes.push({ key: e.key, period: e.period, before: e.before, after: e.after })
  }
  for (const row of rows) {
    row.keyTags = [
      ...new Set(row.changes.flatMap((c) => (c.key === null ? [] : [auditTag(row.connectionId, c.key)]))),
    ]
    row.periodTags = [
      ...new Set(
        row.changes.flatMap((c) => (c.period === null ? [] : [auditTag(row.connectionId, c.period)])),
      ),
    ]
  }
  return rows
}

/** The entries a row stands for, in the order they were written. */
export function auditEntriesOf(row: AuditRow): AuditEntry[] {
  return row.changes.map((c, part) => {
    const entry: AuditEntry = {
      connectionId: row.connectionId,
      at: row.at,
      actor: row.actor,
      action: row.action,
      key: c.key,
      period: c.period,
      before: c.before,
      after: c.after,
      part,
    }
    if (row.seq !== undefined) entry.seq = row.seq
    if (row.reason !== undefined) entry.reason = row.reason
    return entry
  })
}

/**
 * Adds rows with fresh sequence numbers, one per action among the entries; returns their sequence
 * numbers. Any `seq` on the input is dropped so an entry can never overwrite an existing row. Call
 * inside a transaction that includes the audit table.
 */
export async function appendAuditEntries(
  table: Table<AuditRow, number>,
  entries: readonly AuditEntry[],
): Promise<number[]> {
  return table.bulkAdd(auditRowsOf(entries), { allKeys: true })
}

/** Oldest first: by time, then by sequence, then by place in the row. */
export function byTimeThenSeq(a: AuditEntry, b: AuditEntry): number {
  return a.at - b.at || (a.seq ?? 0) - (b.seq ?? 0) || (a.part ?? 0) - (b.part ?? 0)
}

export class AuditRepository {
  readonly #db: ClosebookDb

  constructor(db: ClosebookDb) {
    this.#db = db
  }

  /** Appends one entry and returns its sequence number. */
  async add(entry: AuditEntry): Promise<number> {
    const [seq] = await this.#db.transaction('rw', this.#db.audit, () =>
      appendAuditEntries(this.#db.audit, [entry]),
    )
    return seq as number
  }

  /** A connection's log, oldest first (by time, then by sequence). */
  async listByConnection(connectionId: string): Promise<AuditEntry[]> {
    const rows = await this.#db.audit
      .where('[connectionId+at]')
      .between(...connectionBounds(connectionId))
      .toArray()
    return rows.flatMap(auditEntriesOf)
  }

  async listByPeriod(connectionId: string, period: string): Promise<AuditEntry[]> {
    const rows = await this.#db.audit.where('periodTags').equals(auditTag(connectionId, period)).toArray()
    return rows
      .flatMap(auditEntriesOf)
      .filter((e) => e.period === period)
      .sort(byTimeThenSeq)
  }

  async listByKey(connectionId: string, key: RecordKey): Promise<AuditEntry[]> {
    const rows = await this.#db.audit.where('keyTags').equals(auditTag(connectionId, key)).toArray()
    return rows
      .flatMap(auditEntriesOf)
      .filter((e) => e.key === key)
      .sort(byTimeThenSeq)
  }

  /** How many entries (changes) the connection's log holds. */
  async count(connectionId: string): Promise<number> {
    let n = 0
    await this.#db.audit
      .where('[connectionId+at]')
      .between(...connectionBounds(connectionId))
      .each((row) => {
        n += row.changes.length
      })
    return n
  }
}
