/**
 * Contract cells → exceljs cell values and styles, for the few rows that go through exceljs's own Row
 * objects (Summary header block, header rows); data rows are written by `row-xml.ts`. Styles are shared
 * frozen objects: exceljs's style manager recognises an object it has seen (WeakMap).
 */
import type { Cell, Style } from 'exceljs'
import { neutralizeFormulaText, type ColumnKind, type ExportCell } from '../../shared/contract/export'

export const DATE_FORMAT = 'yyyy-mm-dd'
export const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm:ss'

const styleCache = new Map<string, Partial<Style>>()

function numFmtStyle(numFmt: string): Partial<Style> {
  let style = styleCache.get(numFmt)
  if (!style) {
    style = Object.freeze({ numFmt })
    styleCache.set(numFmt, style)
  }
  return style
}

/**
 * The style of a plain cell. exceljs gives every new cell a fresh `{}` style, which its style manager must
 * serialise to find; one shared object is looked up once.
 */
const PLAIN_STYLE: Partial<Style> = Object.freeze({})

export const HEADER_STYLE: Partial<Style> = Object.freeze({
  font: { bold: true },
  fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8EEF4' } },
  border: { bottom: { style: 'thin', color: { argb: 'FF8899AA' } } },
}) as Partial<Style>

/** `#,##0` for 0 decimals, `#,##0.00` for 2, … */
export function amountFormat(decimals: number): string {
  return decimals > 0 ? `#,##0.${'0'.repeat(decimals)}` : '#,##0'
}

function defaultNumberFormat(kind: ColumnKind): string | null {
  switch (kind) {
    case 'integer':
      return '#,##0'
    case 'date':
      return DATE_FORMAT
    case 'datetime':
      return DATETIME_FORMAT
    default:
      return null
  }
}

function dateFormat(kind: ColumnKind): string {
  return kind === 'date' ? DATE_FORMAT : DATETIME_FORMAT
}

/** Writes one contract cell into an exceljs cell: value, plus a number format where one applies. */
export function writeCell(cell: Cell, value: ExportCell, kind: ColumnKind): void {
  if (value === null) return
  if (typeof value === 'string') {
    // Every string is guarded, whoever built it: the renderer cannot forget to.
    cell.value = neutralizeFormulaText(value)
    cell.style = PLAIN_STYLE
    return
  }
  if (typeof value === 'number') {
    cell.value = value
    const fmt = defaultNumberFormat(kind)
    cell.style = fmt && kind !== 'date' && kind !== 'datetime' ? numFmtStyle(fmt) : PLAIN_STYLE
    return
  }
  if ('date' in value) {
    cell.value = new Date(value.date)
    cell.style = numFmtStyle(dateFormat(kind))
    return
  }
  if ('amount' in value) {
    cell.value = value.amount
    cell.style = numFmtStyle(amountFormat(value.decimals))
    return
  }
  cell.value = {
    formula: value.formula,
    ...(value.result === undefined ? {} : { result: value.result }),
  }
  if (value.decimals !== undefined) cell.style = numFmtStyle(amountFormat(value.decimals))
  else cell.style = kind === 'integer' ? numFmtStyle('#,##0') : PLAIN_STYLE
}

// Excel's calendar runs from 1900 to 9999; anything outside it is not a date Excel can show.
const EXCEL_FIRST_DAY = Date.UTC(1900, 0, 1)
const EXCEL_LAST_DAY = Date.UTC(10000, 0, 1)

export function isWritableDate(wallMs: number): boolean {
  return wallMs >= EXCEL_FIRST_DAY && wallMs < EXCEL_LAST_DAY
}

/** Cells that are not finite numbers would corrupt the file: refused before anything is written. */
export function isWritableCell(value: ExportCell): boolean {
  if (value === null || typeof value === 'string') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if ('date' in value) return isWritableDate(value.date)
  if ('amount' in value) return Number.isFinite(value.amount)
  return value.result === undefined || typeof value.result === 'string' || Number.isFinite(value.result)
}
