/**
 * The audit log (DESIGN §4): append-only. This class deliberately has no update, put or delete, and
 * keeps the database in a private field so callers cannot reach the table through it.
 *
 * Stored one row per action (AuditRow): a bulk mark of 10k records is one row holding its 10k changes,
 * found by record or period through multi-entry tag indexes. Readers get one AuditEntry per change.
 * A row of many changes whose records' days are known is tagged by those UTC days instead of by each
 * record (a 10k bulk mark writes a few dozen index entries, not 10k); a record's trail reads the rows
 * tagged with its key and those tagged with its day, and keeps only its own changes.
 */
import type { Table } from 'dexie'
import type { ClosebookDb } from './database'
import type { AuditEntry, MarkRef, RecordKey } from '../domain/records'
import { markDayOf } from './marks-repository'
import type { AuditRow } from './storage-rows'
import { connectionBounds } from './repository-helpers'

/** Above this many record changes, a row whose records' days are known is tagged by day (auditRowsOf). */
export const DAY_TAGGED_CHANGES = 100

/** A multi-entry index cannot be compound: its entries carry their connection in the string. */
export function auditTag(connectionId: string, keyOrPeriod: string): string {
  return `${connectionId}\u0001${keyOrPeriod}`
}

/** The key tag of a row that holds changes of records of a UTC day (never a record key: those are `type:id`). */
export function auditDayTag(connectionId: string, day: number): string {
  return auditTag(connectionId, `day:${day}`)
}

/** A row's key tags: its records' days when it holds many and `dayOf` knows each, else its records. */
function keyTagsOf(row: AuditRow, dayOf?: (key: RecordKey) => number | undefined): string[] {
  const keys = row.changes.flatMap((c) => (c.key === null ? [] : [c.key]))
  if (dayOf && keys.length > DAY_TAGGED_CHANGES) {
    const days = keys.map(dayOf)
    if (days.every((d) => d !== undefined))
      return [...new Set(days.map((d) => auditDayTag(row.connectionId, d)))]
  }
  return [...new Set(keys.map((k) => auditTag(row.connectionId, k)))]
}

const sameAction = (a: AuditEntry, b: AuditEntry): boolean =>
  a.connectionId === b.connectionId &&
  a.at === b.at &&
  a.actor === b.actor &&
  a.action === b.action &&
  a.reason === b.reason

/**
 * Groups entries into rows: consecutive entries of one action (same connection, time, actor, action,
 * reason). `dayOf` (the UTC day of a record's mark, markDayOf) lets a row of many changes be tagged by day.
 */
export function auditRowsOf(
  entries: readonly AuditEntry[],
  dayOf?: (key: RecordKey) => number | undefined,
): AuditRow[] {
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
    row.keyTags = keyTagsOf(row, dayOf)
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
 * numbers. Any `seq` on the input is dropped so an entry can never overwrite an existing row. `dayOf`:
 * as auditRowsOf. Call inside a transaction that includes the audit table.
 */
export async function appendAuditEntries(
  table: Table<AuditRow, number>,
  entries: readonly AuditEntry[],
  dayOf?: (key: RecordKey) => number | undefined,
): Promise<number[]> {
  return table.bulkAdd(auditRowsOf(entries, dayOf), { allKeys: true })
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

  /** A record's trail: the rows tagged with its key or its day (auditRowsOf), its own changes only. */
  async listByKey(connectionId: string, ref: MarkRef): Promise<AuditEntry[]> {
    const { key } = ref
    const rows = await this.#db.audit
      .where('keyTags')
      .anyOf([auditTag(connectionId, key), auditDayTag(connectionId, markDayOf(ref.createdAt))])
      .toArray()
    const bySeq = new Map(rows.map((r) => [r.seq, r]))
    return [...bySeq.values()]
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
