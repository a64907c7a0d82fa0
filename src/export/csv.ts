/**
 * CSV of given rows (e.g. the ledger's current filter), for Excel: UTF-8 with a byte-order mark, CRLF line
 * ends, RFC 4180 quoting, and text that a spreadsheet would evaluate written with a leading apostrophe.
 * Cells are the workbook's: amounts keep their currency's decimals, dates are wall-clock text.
 */
import { neutralizeFormulaText, type ExportCell } from '../../electron/shared/contract/export'
import { formatWallClock } from './sheet-values'

export const UTF8_BOM = '\uFEFF'
const EOL = '\r\n'

/** One field, guarded and quoted. Numbers are written as numbers: a negative amount is not a formula. */
export function csvField(cell: ExportCell): string {
  let text: string
  if (cell === null) return ''
  if (typeof cell === 'string') text = neutralizeFormulaText(cell)
  else if (typeof cell === 'number') text = Number.isFinite(cell) ? String(cell) : ''
  else if ('date' in cell) text = formatWallClock(cell.date)
  else if ('amount' in cell) text = cell.amount.toFixed(cell.decimals)
  else if (cell.result === undefined) text = ''
  else if (typeof cell.result === 'number')
    text = cell.decimals === undefined ? String(cell.result) : cell.result.toFixed(cell.decimals)
  else text = neutralizeFormulaText(cell.result)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function csvLine(cells: readonly ExportCell[]): string {
  return cells.map(csvField).join(',') + EOL
}

/** The whole CSV as one string, BOM first. */
export function toCsv(header: readonly string[], rows: Iterable<readonly ExportCell[]>): string {
  return [...csvChunks(header, rows, Number.POSITIVE_INFINITY)].join('')
}

/** The same text in chunks of `rowsPerChunk` rows, for streaming a large file to the host. */
export function* csvChunks(
  header: readonly string[],
  rows: Iterable<readonly ExportCell[]>,
  rowsPerChunk = 5_000,
): Generator<string> {
  let chunk = UTF8_BOM + csvLine(header)
  let n = 0
  for (const row of rows) {
    chunk += csvLine(row)
    if (++n >= rowsPerChunk) {
      yield chunk
      chunk = ''
      n = 0
    }
  }
  if (chunk) yield chunk
}
