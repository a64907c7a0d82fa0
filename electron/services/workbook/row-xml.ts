/**
 * Data rows as SpreadsheetML, written straight into the streaming worksheet. exceljs builds a Row and a
 * Cell object per cell and renders them through its generic XML writer, ~50 µs per 20-cell row; this is
 * the same markup for our few cell kinds at a fraction of that, which is what keeps a 200k-row month
 * within the export target. Preamble and header rows still go through exceljs (`writeCell`).
 */
import { neutralizeFormulaText, type ColumnKind, type ExportCell } from '../../shared/contract/export'
import { MAX_PACKED_TAG, PACKED_TAG, type PackedRows } from '../../shared/contract/export-packed'
import { amountFormat, DATE_FORMAT, DATETIME_FORMAT } from './cells'
import { CELL_TYPE, type StringTable, type StyleRegistry } from './exceljs-adapter'

const NUMBER_TYPE = CELL_TYPE.number
const STRING_TYPE = CELL_TYPE.string
const DATE_TYPE = CELL_TYPE.date

// Tags as plain constants: read per cell, and a module re-export can compile to a getter call.
const EMPTY = PACKED_TAG.empty
const TEXT = PACKED_TAG.text
const NUMBER = PACKED_TAG.number
const DATE = PACKED_TAG.date
const AMOUNT = PACKED_TAG.amount
/** One slot per tag a cell of a column can have: amounts take a tag per number of decimals. */
const SLOTS_PER_COLUMN = MAX_PACKED_TAG + 1

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
// Style 0 is the default a cell without `s` has, so it is left out (as exceljs and Excel do): of a text
// cell's markup, `s="0"` and an `xml:space` that has nothing to preserve were a third of the sheet XML, and
// every byte of it was encoded, checksummed and deflated again.
const styleAttr = (s: number): string => (s === 0 ? '' : ` s="${s}"`)

// Text that is not plain needs escaping, or `xml:space="preserve"` so that applications keep its
// whitespace as it is (leading or trailing, line breaks, tabs, runs of spaces); plain text needs neither.
// eslint-disable-next-line no-control-regex
const NOT_PLAIN = /^\s|\s$|\s\s|[&<>"\u0000-\u001F\uFFFE\uFFFF]/
const KEEP_SPACE = /^\s|\s$|\s\s|[\t\n\r]/

/** `<t>` and the cell text, escaped, guarded against formulas, whitespace kept. */
export function textElement(text: string): string {
  const guarded = neutralizeFormulaText(text)
  if (!NOT_PLAIN.test(guarded)) return `<t>${guarded}</t>`
  return KEEP_SPACE.test(guarded)
    ? `<t xml:space="preserve">${xmlText(guarded)}</t>`
    : `<t>${xmlText(guarded)}</t>`
}

const textCell = (ref: string, s: number, text: string): string =>
  `<c r="${ref}"${styleAttr(s)} t="inlineStr"><is>${textElement(text)}</is></c>`
const valueCell = (ref: string, s: number, v: string): string =>
  `<c r="${ref}"${styleAttr(s)}><v>${v}</v></c>`

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
  if (value.result === undefined) return `<c r="${ref}"${styleAttr(s)}>${f}</c>`
  if (typeof value.result === 'string')
    return `<c r="${ref}"${styleAttr(s)} t="str">${f}<v>${xmlText(neutralizeFormulaText(value.result))}</v></c>`
  return `<c r="${ref}"${styleAttr(s)}>${f}<v>${numberText(value.result)}</v></c>`
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
 * Rows per piece handed to `emit`. Joined per chunk, the 2,000 rows' strings (cons trees until joined)
 * lived through several young-generation collections, were promoted and had to be found by a full mark of
 * the ~400 MB heap; a piece of 100 rows goes to the stream, and is bytes, before that.
 */
const PIECE_ROWS = 100

/** Texts longer than this stay inline: a table entry is kept in memory until the workbook is done. */
const MAX_SHARED_TEXT = 255
/** The table holds at most this many texts, so its memory stays bounded whatever the data. */
const MAX_SHARED_COUNT = 20_000
// exceljs writes the table's texts itself, escaping as `xmlText` does except for CR and DEL (and it keeps
// whitespace by its own rule): texts with those, or with any control character, stay inline.
// eslint-disable-next-line no-control-regex
const UNSHAREABLE = /[\u0000-\u001F\u007F\uFFFE\uFFFF]|^\s|\s$|\s\s/

/**
 * Repeated texts (types, statuses, stores, currencies, Yes/No…) written once in the shared-string table
 * and referenced by index: `<c t="s"><v>3</v></c>` instead of the whole text in every row. Only columns
 * that repeat (`repeatingColumns`) use it, and only up to a bounded number of texts; the rest stay inline.
 */
export class SharedTexts {
  private readonly index = new Map<string, number>()

  constructor(
    private readonly table: StringTable,
    private readonly maxCount = MAX_SHARED_COUNT,
  ) {}

  /** The table index of `text` (added on first use), or -1 when it is written inline. */
  indexOf(text: string): number {
    const known = this.index.get(text)
    if (known !== undefined) return known
    // An empty text stays inline too: readers take an empty inline string for an empty cell.
    if (
      this.index.size >= this.maxCount ||
      text.length === 0 ||
      text.length > MAX_SHARED_TEXT ||
      UNSHAREABLE.test(text)
    )
      return -1
    const added = this.table.add(neutralizeFormulaText(text))
    this.index.set(text, added)
    return added
  }
}

/**
 * Which columns of a sheet repeat their texts, judged on its first chunk: at most one distinct text in
 * eight. Ids, names and e-mails do not, and stay inline; nothing about the cells depends on the choice.
 */
export function repeatingColumns(packed: PackedRows): boolean[] {
  const { width, cells, text } = packed
  const seen = Array.from({ length: width }, () => new Set<string>())
  const counts = new Array<number>(width).fill(0)
  let at = 0
  for (let i = 0; i < cells.length; i += 2) {
    if (cells[i] !== TEXT) continue
    const c = (i / 2) % width
    const len = cells[i + 1] as number
    seen[c]?.add(text.slice(at, at + len))
    counts[c] = (counts[c] ?? 0) + 1
    at += len
  }
  return seen.map((distinct, c) => (counts[c] ?? 0) > 0 && distinct.size * 8 <= (counts[c] ?? 0))
}

/**
 * The constant parts of a chunk's cell markup: a cell is `<c r="` + column, its row number, the attributes
 * every cell of its column and kind shares, then its value. Built once per chunk instead of once per cell;
 * each style is still resolved on its first use (styles.xml lists them in that order), so the markup is
 * exactly what `cellXml` writes for the same cell.
 */
class ChunkMarkup {
  private readonly opens: string[]
  /** By column and tag: amounts take one tag per number of decimals, so a column may hold several. */
  private readonly values: (string | undefined)[] = []
  private inline: string | undefined
  private shared: string | undefined

  constructor(
    private readonly kinds: readonly ColumnKind[],
    columnNames: readonly string[],
    private readonly styles: RowStyles,
  ) {
    this.opens = kinds.map((_, c) => `<c r="${columnNames[c] ?? columnName(c + 1)}`)
  }

  open(c: number): string {
    return this.opens[c] ?? `<c r="${columnName(c + 1)}`
  }

  inlineText(): string {
    return (this.inline ??= `"${styleAttr(this.styles.plainStyle())} t="inlineStr"><is>`)
  }

  sharedText(): string {
    return (this.shared ??= `"${styleAttr(this.styles.plainStyle())} t="s"><v>`)
  }

  /** Up to the value of a number, date or amount cell (`tag`) in column `c`. */
  value(c: number, tag: number): string {
    const slot = c * SLOTS_PER_COLUMN + tag
    let markup = this.values[slot]
    if (markup === undefined) {
      const kind = this.kinds[c] ?? 'text'
      const s =
        tag === NUMBER
          ? kind === 'integer'
            ? this.styles.integer()
            : this.styles.plainStyle()
          : tag === DATE
            ? this.styles.date(kind)
            : this.styles.amount(tag - AMOUNT)
      markup = `"${styleAttr(s)}><v>`
      this.values[slot] = markup
    }
    return markup
  }
}

/**
 * The `<row>` elements of a packed chunk (already checked by the contract and `checkPacked`), numbered
 * from `firstRow`: the same cells `rowXml` writes, without building them. Texts of `shared` columns go
 * through the shared-string table when `texts` takes them. With `emit`, the XML goes to it a piece at a
 * time (in order; their concatenation is the whole) and the result is empty.
 */
export function packedRowsXml(
  packed: PackedRows,
  firstRow: number,
  kinds: readonly ColumnKind[],
  columnNames: readonly string[],
  styles: RowStyles,
  shared?: { columns: readonly boolean[]; texts: SharedTexts },
  emit?: (xml: string) => void,
): string {
  const { width, cells, text } = packed
  const rows: string[] = []
  const sharedColumns = shared?.columns ?? []
  const markup = new ChunkMarkup(kinds, columnNames, styles)
  let at = 0
  let i = 0
  for (let r = firstRow; i < cells.length; r++) {
    const rowNumber = String(r)
    let xml = `<row r="${rowNumber}">`
    for (let c = 0; c < width; c++, i += 2) {
      const tag = cells[i] as number
      if (tag === EMPTY) continue
      const value = cells[i + 1] as number
      const head = markup.open(c) + rowNumber
      if (tag === TEXT) {
        const cellText = text.slice(at, at + value)
        at += value
        const index = shared && sharedColumns[c] === true ? shared.texts.indexOf(cellText) : -1
        xml +=
          index < 0
            ? head + markup.inlineText() + textElement(cellText) + '</is></c>'
            : head + markup.sharedText() + String(index) + '</v></c>'
      } else
        xml +=
          head + markup.value(c, tag) + (tag === DATE ? excelDate(value) : numberText(value)) + '</v></c>'
    }
    rows.push(`${xml}</row>`)
    if (rows.length === PIECE_ROWS && emit) {
      emit(rows.join(''))
      rows.length = 0
    }
  }
  if (emit) {
    if (rows.length > 0) emit(rows.join(''))
    return ''
  }
  return rows.join('')
}
