/**
 * Data rows as SpreadsheetML, written straight into the streaming worksheet. exceljs builds a Row and a
 * Cell object per cell and renders them through its generic XML writer, ~50 µs per 20-cell row; this is
 * the same markup for our few cell kinds at a fraction of that, which is what keeps a 200k-row month
 * within the export target. Preamble and header rows still go through exceljs (`writeCell`).
 */
import type { Style } from 'exceljs'
import { neutralizeFormulaText, type ColumnKind, type ExportCell } from '../../shared/contract/export'
import { PACKED_TAG, type PackedRows } from '../../shared/contract/export-packed'
import { amountFormat, DATE_FORMAT, DATETIME_FORMAT } from './cells'

/** exceljs's style registry: a style object in, its index in styles.xml out. */
export interface StyleRegistry {
  addStyleModel(model: Partial<Style>, cellType?: number): number
}

// exceljs's ValueType numbers, as its style registry expects them.
const NUMBER_TYPE = 2
const STRING_TYPE = 3
const DATE_TYPE = 4

// Tags as plain constants: read per cell, and a module re-export can compile to a getter call.
const EMPTY = PACKED_TAG.empty
const TEXT = PACKED_TAG.text
const NUMBER = PACKED_TAG.number
const DATE = PACKED_TAG.date
const AMOUNT = PACKED_TAG.amount

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

/**
 * Style indexes, resolved through exceljs's registry the first time each is used (so styles.xml lists
 * them in order of first use, as before) and then read from a field or an array: no key string per cell.
 */
export class RowStyles {
  private readonly byFormat = new Map<string, number>()
  private readonly amounts: (number | undefined)[] = []
  private plain: number | undefined
  private integerId: number | undefined
  private dateId: number | undefined
  private datetimeId: number | undefined

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

  integer(): number {
    this.integerId ??= this.format('#,##0', NUMBER_TYPE)
    return this.integerId
  }

  amount(decimals: number): number {
    return (this.amounts[decimals] ??= this.format(amountFormat(decimals), NUMBER_TYPE))
  }

  date(kind: ColumnKind): number {
    if (kind === 'date') return (this.dateId ??= this.format(DATE_FORMAT, DATE_TYPE))
    return (this.datetimeId ??= this.format(DATETIME_FORMAT, DATE_TYPE))
  }
}

function numberText(n: number): string {
  return Number.isFinite(n) ? String(n) : '0'
}

const excelDate = (wallMs: number): string => numberText(EXCEL_EPOCH_OFFSET + wallMs / MS_PER_DAY)

// The markup of each kind of cell, shared by the plain and the packed path so both write the same file.
const textCell = (ref: string, s: number, text: string): string =>
  `<c r="${ref}" s="${s}" t="inlineStr"><is><t xml:space="preserve">${xmlText(neutralizeFormulaText(text))}</t></is></c>`
const valueCell = (ref: string, s: number, v: string): string => `<c r="${ref}" s="${s}"><v>${v}</v></c>`

function cellXml(ref: string, value: ExportCell, kind: ColumnKind, styles: RowStyles): string {
  if (value === null) return ''
  if (typeof value === 'string') return textCell(ref, styles.plainStyle(), value)
  if (typeof value === 'number')
    return valueCell(ref, kind === 'integer' ? styles.integer() : styles.plainStyle(), numberText(value))
  if ('date' in value) return valueCell(ref, styles.date(kind), excelDate(value.date))
  if ('amount' in value) return valueCell(ref, styles.amount(value.decimals), numberText(value.amount))
  const s =
    value.decimals !== undefined
      ? styles.amount(value.decimals)
      : kind === 'integer'
        ? styles.integer()
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

/**
 * The `<row>` elements of a packed chunk (already checked by the contract and `checkPacked`), numbered
 * from `firstRow`: the same markup `rowXml` writes for the same cells, without building the cells.
 */
export function packedRowsXml(
  packed: PackedRows,
  firstRow: number,
  kinds: readonly ColumnKind[],
  columnNames: readonly string[],
  styles: RowStyles,
): string {
  const { width, cells, text } = packed
  const rows: string[] = []
  let at = 0
  let i = 0
  for (let r = firstRow; i < cells.length; r++) {
    let xml = `<row r="${r}">`
    for (let c = 0; c < width; c++, i += 2) {
      const tag = cells[i] as number
      if (tag === EMPTY) continue
      const value = cells[i + 1] as number
      const ref = `${columnNames[c] ?? columnName(c + 1)}${r}`
      if (tag === TEXT) {
        xml += textCell(ref, styles.plainStyle(), text.slice(at, at + value))
        at += value
      } else if (tag === NUMBER)
        xml += valueCell(
          ref,
          kinds[c] === 'integer' ? styles.integer() : styles.plainStyle(),
          numberText(value),
        )
      else if (tag === DATE) xml += valueCell(ref, styles.date(kinds[c] ?? 'text'), excelDate(value))
      else xml += valueCell(ref, styles.amount(tag - AMOUNT), numberText(value))
    }
    rows.push(`${xml}</row>`)
  }
  return rows.join('')
}
