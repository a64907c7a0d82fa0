/** The ledger's current filter as CSV lines: the Transactions sheet's columns, same values and guard. */
import type { HistoryRecord, MarkRecord, RecordKey } from '../domain/records'
import { csvChunks } from './csv'
import { TRANSACTION_HEADERS, transactionRow } from './month-workbook'

export function ledgerCsvChunks(
  records: Iterable<HistoryRecord>,
  marks: ReadonlyMap<RecordKey, MarkRecord>,
  timeZone: string,
  rowsPerChunk?: number,
): Generator<string> {
  const rows = function* () {
    for (const r of records) yield transactionRow(r, marks.get(r.key), timeZone, r.raw.store_name || null)
  }
  return csvChunks(TRANSACTION_HEADERS, rows(), rowsPerChunk)
}
