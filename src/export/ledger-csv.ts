/** The ledger's current filter as CSV lines: the Transactions sheet's columns, same values and guard. */
import type { HistoryRecord, MarkRecord, RecordKey } from '../domain/records'
import { csvLine, UTF8_BOM } from './csv'
import { LedgerCsvLines } from './ledger-csv-line'
import { TRANSACTION_HEADERS } from './month-workbook'

/** One page of the ledger's records with their marks. */
export interface LedgerCsvPage {
  records: readonly HistoryRecord[]
  marks: ReadonlyMap<RecordKey, MarkRecord>
}

/**
 * The CSV text (BOM, header, one line per record), one chunk per page as the pages arrive: only one
 * page's records and text are held at a time, whatever the filter's size.
 */
export async function* ledgerCsvPages(
  pages: AsyncIterable<LedgerCsvPage>,
  timeZone: string,
): AsyncGenerator<string> {
  const lines = new LedgerCsvLines(timeZone)
  let head = UTF8_BOM + csvLine(TRANSACTION_HEADERS)
  for await (const { records, marks } of pages) {
    let text = head
    for (const r of records) text += lines.line(r, marks.get(r.key), r.raw.store_name || null)
    head = ''
    if (text) yield text
  }
  if (head) yield head
}
