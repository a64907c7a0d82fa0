/**
 * The audit log (DESIGN §4): append-only. This class deliberately has no update, put or delete, and
 * keeps the database in a private field so callers cannot reach the table through it.
 */
import type { Table } from 'dexie'
import type { ClosebookDb } from './database'
import type { AuditEntry, RecordKey } from './records'
import { connectionBounds } from './repository-helpers'

/**
 * Adds rows with fresh sequence numbers. Any `seq` on the input is dropped so an entry can never
 * overwrite an existing row. Call inside a transaction that includes the audit table.
 */
export async function appendAuditEntries(
  table: Table<AuditEntry, number>,
  entries: readonly AuditEntry[],
): Promise<number[]> {
  const rows = entries.map(({ seq: _seq, ...rest }) => rest)
  return table.bulkAdd(rows, { allKeys: true })
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
    return this.#db.audit
      .where('[connectionId+at]')
      .between(...connectionBounds(connectionId))
      .toArray()
  }

  async listByPeriod(connectionId: string, period: string): Promise<AuditEntry[]> {
    const rows = await this.#db.audit.where('[connectionId+period]').equals([connectionId, period]).toArray()
    return rows.sort(byTimeThenSeq)
  }

  async listByKey(connectionId: string, key: RecordKey): Promise<AuditEntry[]> {
    const rows = await this.#db.audit.where('[connectionId+key]').equals([connectionId, key]).toArray()
    return rows.sort(byTimeThenSeq)
  }

  async count(connectionId: string): Promise<number> {
    return this.#db.audit
      .where('[connectionId+at]')
      .between(...connectionBounds(connectionId))
      .count()
  }
}

function byTimeThenSeq(a: AuditEntry, b: AuditEntry): number {
  return a.at - b.at || (a.seq ?? 0) - (b.seq ?? 0)
}
