/**
 * Imported order and bank files and their rows. A file is remembered by the hash of its bytes, so importing
 * it again adds nothing. Accepting matches and removing an import change marks, so they are the marking
 * service's (marking-service.ts): the marks, their audit and the rows' links land in one transaction.
 */
import type { ClosebookDb } from './database'
import type { LinkedRow } from '../domain/mark-plan'
import type { ImportedRowRecord, ImportRecord } from '../domain/records'
import { assertSameConnection, connectionBounds } from './repository-helpers'

export type AddImportResult = { added: true; import: ImportRecord } | { added: false; existing: ImportRecord }

export class ImportsRepository {
  constructor(private readonly db: ClosebookDb) {}

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

  /** Every row of the connection with its file's name: what a mark's match links show. */
  async linkedRows(connectionId: string): Promise<LinkedRow[]> {
    const files = new Map((await this.list(connectionId)).map((f) => [f.id, f.fileName]))
    return (await this.rows(connectionId)).map((r) => ({
      importId: r.importId,
      line: r.line,
      source: r.source,
      fileName: files.get(r.importId) ?? r.importId,
      orderNumber: r.orderNumber,
      at: r.at,
      amount: r.amount,
      currency: r.currency,
      matchedKeys: r.matchedKeys,
    }))
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
}
