/**
 * A chunk of workbook rows in a compact form for the trip from renderer to main. Rows as arrays of cells
 * cost one object per cell to copy at every hop (contextBridge, IPC's structured clone, the web host's
 * body): ~60k values per chunk. Packed, a chunk is one string and one `Float64Array`, which IPC copies as
 * bytes and the web host carries as a raw part of the body (`binary-call.ts`), with no number written as
 * text or parsed again. Same cells, same meaning as `ExportCell`:
 *
 * - `cells` holds two numbers per cell, row after row, `width` cells per row: a tag, then a value.
 * - `text` holds the characters of every text cell, one after another; a text cell's value is its length.
 *
 * Formula cells have no packed form: a chunk holding one goes as plain rows (only the Summary does).
 */
import type { ExportCell, ExportRow } from './export'

export const PACKED_TAG = {
  empty: 0,
  /** value: the number of UTF-16 code units the cell takes from `text` */
  text: 1,
  /** value: the number, shown in the column's format */
  number: 2,
  /** value: wall-clock ms encoded as UTC, as `{ date }` */
  date: 3,
  /** `amount + decimals`: value is the amount in major units, as `{ amount, decimals }` */
  amount: 4,
} as const

/** Amounts carry 0–4 decimals, so tags run up to `amount + 4`. */
export const MAX_PACKED_TAG = PACKED_TAG.amount + 4

export interface PackedRows {
  width: number
  cells: Float64Array
  text: string
}

/** The packed form of `rows`, `width` cells each; null when a row is wider or holds a formula. */
export function packRows(rows: readonly ExportRow[], width: number): PackedRows | null {
  // Sized once: every row takes `width` cells (empty ones too), two numbers each.
  const cells = new Float64Array(rows.length * width * 2)
  const texts: string[] = []
  let i = 0
  for (const row of rows) {
    if (row.length > width) return null
    for (let c = 0; c < width; c++, i += 2) {
      const v: ExportCell | undefined = row[c]
      if (v === null || v === undefined) continue // tag and value stay 0: empty
      if (typeof v === 'string') {
        texts.push(v)
        cells[i] = PACKED_TAG.text
        cells[i + 1] = v.length
      } else if (typeof v === 'number') {
        cells[i] = PACKED_TAG.number
        cells[i + 1] = v
      } else if ('date' in v) {
        cells[i] = PACKED_TAG.date
        cells[i + 1] = v.date
      } else if ('amount' in v) {
        cells[i] = PACKED_TAG.amount + v.decimals
        cells[i + 1] = v.amount
      } else return null
    }
  }
  return { width, cells, text: texts.join('') }
}

export function packedRowCount(packed: PackedRows): number {
  return packed.cells.length / (2 * packed.width)
}

/**
 * What is wrong with a packed chunk, or null: the same rules as `exportCellSchema` for each cell (finite
 * numbers, 0–4 decimals, text within a cell's limit), plus a shape that adds up.
 */
export function packedRowsProblem(
  v: unknown,
  limits: { maxRows: number; maxColumns: number; maxCellText: number },
): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'expected { width, cells, text }'
  for (const k in v) if (k !== 'width' && k !== 'cells' && k !== 'text') return `unexpected key "${k}"`
  const { width, cells, text } = v as Record<string, unknown>
  if (!Number.isInteger(width) || (width as number) < 1 || (width as number) > limits.maxColumns)
    return `width must be 1–${limits.maxColumns} cells`
  if (typeof text !== 'string') return 'text must be a string'
  if (!(cells instanceof Float64Array)) return 'cells must be a Float64Array'
  const rows = cells.length / (2 * (width as number))
  if (!Number.isInteger(rows) || rows < 1 || rows > limits.maxRows)
    return `cells must hold 1–${limits.maxRows} rows of ${String(width)} (tag, value) pairs`
  let used = 0
  for (let i = 0; i < cells.length; i += 2) {
    const tag = cells[i] as number
    const value = cells[i + 1] as number
    if (!Number.isFinite(value)) return `cell ${i / 2}: value is not a finite number`
    if (tag === PACKED_TAG.text) {
      if (!Number.isInteger(value) || value < 0 || value > limits.maxCellText)
        return `cell ${i / 2}: text longer than ${limits.maxCellText} characters`
      used += value
    } else if (!Number.isInteger(tag) || tag < 0 || tag > MAX_PACKED_TAG)
      return `cell ${i / 2}: unknown cell tag`
  }
  if (used !== text.length) return 'the text cells do not add up to the text'
  return null
}

/** Back to rows of cells (tests, and anything that wants the plain form). */
export function unpackRows(packed: PackedRows): ExportRow[] {
  const rows: ExportRow[] = []
  const { width, cells, text } = packed
  let at = 0
  for (let i = 0; i < cells.length;) {
    const row: ExportCell[] = []
    for (let c = 0; c < width; c++, i += 2) {
      const tag = cells[i] as number
      const value = cells[i + 1] as number
      if (tag === PACKED_TAG.empty) row.push(null)
      else if (tag === PACKED_TAG.text) {
        row.push(text.slice(at, at + value))
        at += value
      } else if (tag === PACKED_TAG.number) row.push(value)
      else if (tag === PACKED_TAG.date) row.push({ date: value })
      else row.push({ amount: value, decimals: tag - PACKED_TAG.amount })
    }
    rows.push(row)
  }
  return rows
}
