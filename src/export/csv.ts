/**
 * CSV of given rows (e.g. the ledger's current filter), for Excel: UTF-8 with a byte-order mark, CRLF line
 * ends, RFC 4180 quoting, and text that a spreadsheet would evaluate written with a leading apostrophe.
 * Cells are the workbook's: amounts keep their currency's decimals, dates are wall-clock text.
 */
import { neutralizeFormulaText, type ExportCell } from '../../electron/shared/contract/export'
import { formatWallClock } from './sheet-values'

export const UTF8_BOM = '\uFEFF'
const EOL = '\r\n'

// Where a spreadsheet may start a new cell in a file it splits differently from how it was written: `;` in
// locales whose list separator it is (Excel there opens this comma file split on `;`, and a quote only
// counts at the start of a cell), tab, and line breaks (a quoted break is a row break to such a reader).
const OTHER_SEPARATOR = /[;\t\n\r]/

/**
 * Text guarded for any reader of the CSV: the whole value as a cell would be, and every part after another
 * separator too, so `x;=1+2` cannot become the cell `=1+2` in a `;` locale. Such a part gets the same
 * leading apostrophe (`x;'=1+2`): visible, but never evaluated.
 */
export function csvSafeText(text: string): string {
  const guarded = neutralizeFormulaText(text)
  if (!OTHER_SEPARATOR.test(guarded)) return guarded
  return guarded.replace(
    /([;\t\n\r])([^;\t\n\r]*)/g,
    (_, sep: string, part: string) =>
      // A tab or CR starting a part is itself a trigger; what follows it is checked as the part.
      sep + neutralizeFormulaText(part),
  )
}

/** One field, guarded and quoted. Numbers are written as numbers: a negative amount is not a formula. */
export function csvField(cell: ExportCell): string {
  let text: string
  if (cell === null) return ''
  if (typeof cell === 'string') text = csvSafeText(cell)
  else if (typeof cell === 'number') text = Number.isFinite(cell) ? String(cell) : ''
  else if ('date' in cell) text = formatWallClock(cell.date)
  else if ('amount' in cell) text = cell.amount.toFixed(cell.decimals)
  else if (cell.result === undefined) text = ''
  else if (typeof cell.result === 'number')
    text = cell.decimals === undefined ? String(cell.result) : cell.result.toFixed(cell.decimals)
  else text = csvSafeText(cell.result)
  return /[",;\t\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
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
