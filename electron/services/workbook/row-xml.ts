/**
 * Data rows as SpreadsheetML, written straight into the streaming worksheet. exceljs builds a Row and a
 * Cell object per cell and renders them through its generic XML writer, ~50 µs per 20-cell row; this is
 * the same markup for our few cell kinds at a fraction of that, which is what keeps a 200k-row month
 * within the export target. Preamble and header rows still go through exceljs (`writeCell`).
 */
import type { Style } from 'exceljs'
import { neutralizeFormulaText, type ColumnKind, type ExportCell } from '../../shared/contract/export'
import { amountFormat, DATE_FORMAT, DATETIME_FORMAT } from './cells'

/** exceljs's style registry: a style object in, its index in styles.xml out. */
export interface StyleRegistry {
  addStyleModel(model: Partial<Style>, cellType?: number): number
}

// exceljs's ValueType numbers, as its style registry expects them.
const NUMBER_TYPE = 2
const STRING_TYPE = 3
const DATE_TYPE = 4

const MS_PER_DAY = 86_400_000
const EXCEL_EPOCH_OFFSET = 25_569 // days from 1899-12-30 to 1970-01-01

/** Characters XML 1.0 cannot carry at all: dropped, as Excel would never show them. */
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\r': '&#13;',
}

// eslint-disable-next-line no-control-regex
const NEEDS_WORK = /[&<>"\u0000-\u0008\u000B-\u001F\uFFFE\uFFFF]/

export function xmlText(text: string): string {
  if (!NEEDS_WORK.test(text)) return text // most ids, names and codes: no allocation at all
  return text.replace(INVALID_XML, '').replace(/[&<>"\r]/g, (c) => ESCAPES[c] ?? c)
}

export function columnName(n: number): string {
  let s = ''
  for (let x = n; x > 0; x = Math.floor((x - 1) / 26)) s = String.fromCharCode(65 + ((x - 1) % 26)) + s
  return s
}

/** Style indexes by number format, resolved once per workbook through exceljs's registry. */
export class RowStyles {
  private readonly byFormat = new Map<string, number>()
  private plain: number | undefined

  constructor(private readonly registry: StyleRegistry) {}

  format(numFmt: string, cellType: number): number {
    const key = `${cellType}|${numFmt}`
    let id = this.byFormat.get(key)
    if (id === undefined) {
      id = this.registry.addStyleModel({ numFmt }, cellType)
      this.byFormat.set(key, id)
    }
    return id
  }

  plainStyle(): number {
    this.plain ??= this.registry.addStyleModel({}, STRING_TYPE)
    return this.plain
  }
}

function numberText(n: number): string {
  return Number.isFinite(n) ? String(n) : '0'
}

function cellXml(ref: string, value: ExportCell, kind: ColumnKind, styles: RowStyles): string {
  if (value === null) return ''
  if (typeof value === 'string') {
    const s = styles.plainStyle()
    return `<c r="${ref}" s="${s}" t="inlineStr"><is><t xml:space="preserve">${xmlText(neutralizeFormulaText(value))}</t></is></c>`
  }
  if (typeof value === 'number') {
    const s = kind === 'integer' ? styles.format('#,##0', NUMBER_TYPE) : styles.plainStyle()
    return `<c r="${ref}" s="${s}"><v>${numberText(value)}</v></c>`
  }
  if ('date' in value) {
    const s = styles.format(kind === 'date' ? DATE_FORMAT : DATETIME_FORMAT, DATE_TYPE)
    return `<c r="${ref}" s="${s}"><v>${numberText(EXCEL_EPOCH_OFFSET + value.date / MS_PER_DAY)}</v></c>`
  }
  if ('amount' in value) {
    return `<c r="${ref}" s="${styles.format(amountFormat(value.decimals), NUMBER_TYPE)}"><v>${numberText(value.amount)}</v></c>`
  }
  const s =
    value.decimals !== undefined
      ? styles.format(amountFormat(value.decimals), NUMBER_TYPE)
      : kind === 'integer'
        ? styles.format('#,##0', NUMBER_TYPE)
        : styles.plainStyle()
  const f = `<f>${xmlText(value.formula)}</f>`
  if (value.result === undefined) return `<c r="${ref}" s="${s}">${f}</c>`
  if (typeof value.result === 'string')
    return `<c r="${ref}" s="${s}" t="str">${f}<v>${xmlText(neutralizeFormulaText(value.result))}</v></c>`
  return `<c r="${ref}" s="${s}">${f}<v>${numberText(value.result)}</v></c>`
}

/** One `<row>` element; empty cells are left out, as spreadsheets write them. */
export function rowXml(
  rowNumber: number,
  cells: readonly ExportCell[],
  kinds: readonly ColumnKind[],
  columnNames: readonly string[],
  styles: RowStyles,
): string {
  let xml = `<row r="${rowNumber}">`
  for (let c = 0; c < cells.length; c++) {
    const value = cells[c] ?? null
    if (value !== null)
      xml += cellXml(`${columnNames[c] ?? columnName(c + 1)}${rowNumber}`, value, kinds[c] ?? 'text', styles)
  }
  return `${xml}</row>`
}
