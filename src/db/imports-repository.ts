/**
 * Imported order and bank files and their rows. A file is remembered by the hash of its bytes, so importing
 * it again adds nothing; accepting matches marks the records and links the rows in one transaction.
 */
import type { ClosebookDb } from './database'
import { MarksRepository } from './marks-repository'
import type {
  AuditEntry,
  ImportedRowRecord,
  ImportRecord,
  MarkRecord,
  MarkRef,
  RecordKey,
} from '../domain/records'
import { assertSameConnection, connectionBounds } from './repository-helpers'

export type AddImportResult = { added: true; import: ImportRecord } | { added: false; existing: ImportRecord }

export interface AcceptedMatch {
  importId: string
  line: number
  keys: RecordKey[]
}

export class ImportsRepository {
  private readonly marks: MarksRepository

  constructor(private readonly db: ClosebookDb) {
    this.marks = new MarksRepository(db)
  }

  async findByHash(connectionId: string, hash: string): Promise<ImportRecord | undefined> {
    return this.db.imports.where('[connectionId+hash]').equals([connectionId, hash]).first()
  }

  /** Stores a file and its rows in one transaction, unless the same bytes were imported before. */
  async add(file: ImportRecord, rows: readonly ImportedRowRecord[]): Promise<AddImportResult> {
    assertSameConnection(file.connectionId, rows, 'imported rows')
    if (rows.some((r) => r.importId !== file.id)) throw new Error('imported rows belong to another import')
    const { db } = this
    return db.transaction('rw', db.imports, db.importedRows, async () => {
      const existing = await this.findByHash(file.connectionId, file.hash)
      if (existing) return { added: false as const, existing }
      await db.imports.add(file)
      await db.importedRows.bulkAdd([...rows])
      return { added: true as const, import: file }
    })
  }

  async list(connectionId: string): Promise<ImportRecord[]> {
    const rows = await this.db.imports
      .where('[connectionId+id]')
      .between(...connectionBounds(connectionId))
      .toArray()
    return rows.sort((a, b) => b.importedAt - a.importedAt)
  }

  async rows(connectionId: string, importId?: string): Promise<ImportedRowRecord[]> {
    const table = this.db.importedRows
    const rows = importId
      ? await table.where('[connectionId+importId]').equals([connectionId, importId]).toArray()
      : await table
          .where('[connectionId+importId+line]')
          .between([connectionId, '', -Infinity], [connectionId, '\uffff', Infinity])
          .toArray()
    return rows.sort((a, b) =>
      a.importId === b.importId ? a.line - b.line : a.importId < b.importId ? -1 : 1,
    )
  }

  /**
   * Accepting matches: the marks (with their audit entries) and the rows' links land together or not at
   * all. A closed month refuses the whole batch (MarksRepository checks the locks inside the transaction).
   * `records` are the marked records (their time files their marks).
   */
  async accept(
    connectionId: string,
    plan: { puts: MarkRecord[]; deletes: RecordKey[]; audit: AuditEntry[] },
    matches: readonly AcceptedMatch[],
    records: readonly MarkRef[],
  ): Promise<void> {
    const { db } = this
    await db.transaction('rw', [db.markDays, db.audit, db.locks, db.importedRows], async () => {
      if (plan.puts.length + plan.deletes.length > 0)
        await this.marks.apply({ connectionId, ...plan }, records)
      for (const m of matches) {
        await db.importedRows.update([connectionId, m.importId, m.line], { matchedKeys: [...m.keys] })
      }
    })
  }

  /** Rows of days [fromDay, toDay] (inclusive, `YYYY-MM-DD`) that no accepted match links to, with their file. */
  async unmatchedBetween(
    connectionId: string,
    fromDay: string,
    toDay: string,
  ): Promise<(ImportedRowRecord & { fileName: string })[]> {
    const rows = await this.db.importedRows
      .where('[connectionId+day]')
      .between([connectionId, fromDay], [connectionId, toDay], true, true)
      .filter((r) => r.matchedKeys.length === 0)
      .toArray()
    const files = new Map((await this.list(connectionId)).map((f) => [f.id, f.fileName]))
    return rows.map((r) => ({ ...r, fileName: files.get(r.importId) ?? r.importId }))
  }

  /** Forgets a file and its rows (the marks made from it stay, with their audit trail). */
  async remove(connectionId: string, importId: string): Promise<void> {
    const { db } = this
    await db.transaction('rw', db.imports, db.importedRows, async () => {
      await db.importedRows.where('[connectionId+importId]').equals([connectionId, importId]).delete()
      await db.imports.delete([connectionId, importId])
    })
  }
}
