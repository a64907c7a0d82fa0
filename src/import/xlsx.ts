/**
 * Excel files (.xlsx) as imported tables: the first worksheet, first non-empty row as headers, each cell as
 * the text a user sees (dates as ISO, numbers as plain digits), so the same profile and parsers serve CSV
 * and Excel. exceljs is loaded only when an Excel file is chosen.
 */
import { checkXlsxArchive } from './limits'
import type { ParsedCsv } from './parse'

function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  // Excel dates carry no zone (exceljs gives their wall clock as UTC): written without one, they are read
  // in the profile's accounting time zone like any CSV date.
  if (value instanceof Date) {
    const iso = value.toISOString()
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ')
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value === 'string') return value
  if (typeof value === 'object') {
    const v = value as { text?: unknown; result?: unknown; richText?: { text: string }[] }
    if (Array.isArray(v.richText)) return v.richText.map((r) => r.text).join('')
    if (v.result !== undefined) return cellText(v.result) // a formula: its cached value
    if (typeof v.text === 'string') return v.text // a hyperlink
  }
  return ''
}

/** Reads the first sheet; a zip bomb or a broken archive is refused (ImportFileError) before exceljs. */
export async function readXlsx(bytes: Uint8Array): Promise<ParsedCsv> {
  await checkXlsxArchive(bytes)
  const { default: ExcelJS } = await import('exceljs')
  const book = new ExcelJS.Workbook()
  await book.xlsx.load(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  )
  const sheet = book.worksheets[0]
  if (!sheet) throw new Error('The Excel file has no worksheet.')
  const table: { cells: string[]; line: number }[] = []
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: string[] = []
    for (let c = 1; c <= row.cellCount; c++) cells.push(cellText(row.getCell(c).value).trim())
    if (cells.some((x) => x !== '')) table.push({ cells, line: rowNumber })
  })
  const [header, ...rest] = table
  if (!header) return { headers: [], rows: [], lines: [], errors: [] }
  return {
    headers: header.cells,
    // Trailing empty cells are not stored in the sheet: pad each row to the header's width.
    rows: rest.map((r) => [
      ...r.cells,
      ...Array<string>(Math.max(0, header.cells.length - r.cells.length)).fill(''),
    ]),
    lines: rest.map((r) => r.line),
    errors: [],
  }
}

export function isXlsx(fileName: string, bytes: Uint8Array): boolean {
  // A zip file (PK\x03\x04) named .xlsx.
  return /\.xlsx$/i.test(fileName) && bytes[0] === 0x50 && bytes[1] === 0x4b
}
