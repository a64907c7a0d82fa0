/**
 * The month-end workbook, streamed from the renderer to main: begin (sheet definitions) → appendRows
 * (chunks of ≤ 2,000 rows, sheet by sheet, in order) → finish (delivered file) or cancel. Main writes with
 * a streaming xlsx writer to a temporary file; only finish hands the whole file to the host's delivery.
 */
import { z } from 'zod'
import { packedRowsProblem, type PackedRows } from './export-packed'
import { deliveredFileSchema, FILE_EXTENSIONS, fileIdSchema, fileNameSchema } from './files'

export { packRows, packedRowCount, unpackRows, PACKED_TAG, type PackedRows } from './export-packed'

/** Excel's own limit for the text of one cell. */
export const MAX_CELL_TEXT = 32_767
export const MAX_ROWS_PER_CHUNK = 2_000
export const MAX_COLUMNS = 64
/** Rows above a sheet's header row (the Summary's header block). */
export const MAX_PREAMBLE_ROWS = 40
/** Rows below a sheet's table (the Summary's per-currency totals and control block). */
export const MAX_FOOTER_ROWS = 400

/**
 * Text that a spreadsheet would evaluate (or, after an edit, turn into a formula) if written as it is:
 * `= + - @`, tab and CR (OWASP), and the full-width `＝ ＋ － ＠` that Japanese Excel also takes as a formula.
 */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'])

/**
 * Characters a spreadsheet (or the XML writer, which drops control characters) may trim or not show
 * before a trigger: whitespace of every kind (space, NBSP, U+3000 and the other Unicode spaces), zero-width
 * characters and the BOM, and control characters such as NUL. `=` behind any run of them is still guarded.
 */
const IGNORABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000A-\u000C\u000E-\u0020\u007F-\u00A0\u00AD\u1680\u180E\u2000-\u200F\u2028-\u202F\u205F-\u206F\u3000\uFEFF]/

export function isFormulaLike(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i)
    if (FORMULA_TRIGGERS.has(c)) return true
    // Most text starts with a letter or digit: one test, no scan.
    if (!IGNORABLE.test(c)) return false
  }
  return false
}

/** OWASP's fix: a leading apostrophe makes the text plain text in every spreadsheet (xlsx and CSV). */
export function neutralizeFormulaText(text: string): string {
  return isFormulaLike(text) ? `'${text}` : text
}

/**
 * Functions the app's own formulas may use. Anything else (WEBSERVICE, HYPERLINK, DDE, external
 * workbooks) is refused, so a compromised renderer cannot plant a formula that reaches out.
 */
export const ALLOWED_FORMULA_FUNCTIONS: ReadonlySet<string> = new Set([
  'SUMIFS',
  'COUNTIFS',
  'SUMIF',
  'COUNTIF',
  'SUM',
  'ROUND',
  'IF',
  'IFERROR',
  'ABS',
])

export function isAllowedFormula(formula: string): boolean {
  if (formula.startsWith('=') || /[[\]|{}]/.test(formula)) return false
  // Function calls are a name directly followed by '('; quoted sheet names and strings cannot hide one,
  // because a quote inside them is doubled, so strip them first.
  const bare = formula.replace(/"(?:[^"]|"")*"|'(?:[^']|'')*'/g, '""')
  for (const match of bare.matchAll(/([A-Za-z_][A-Za-z0-9_.]*)\s*\(/g)) {
    if (!ALLOWED_FORMULA_FUNCTIONS.has((match[1] ?? '').toUpperCase())) return false
  }
  return true
}

const decimalsSchema = z.number().int().min(0).max(4)

/**
 * One cell. Strings are written as text (guarded with `neutralizeFormulaText`), numbers as numbers in
 * the column's format. `date` is the wall-clock time to show, encoded as if it were UTC epoch ms: Excel
 * dates have no zone, so the renderer shifts instants into the accounting time zone first.
 * `amount` is in major units, shown with `decimals` places (the currency's exponent).
 */
export const exportCellSchema = z.union([
  z.null(),
  z.string().max(MAX_CELL_TEXT),
  z.number(),
  z.strictObject({ date: z.number() }),
  z.strictObject({ amount: z.number(), decimals: decimalsSchema }),
  z.strictObject({
    formula: z.string().min(1).max(8_192).refine(isAllowedFormula, 'formula not allowed'),
    result: z.union([z.number(), z.string().max(MAX_CELL_TEXT)]).optional(),
    decimals: decimalsSchema.optional(),
  }),
])
export type ExportCell = z.infer<typeof exportCellSchema>

export type ExportRow = ExportCell[]

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isDecimals = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 4

function hasOnlyKeys(o: object, allowed: readonly string[]): boolean {
  for (const k in o) if (!allowed.includes(k)) return false
  return true
}

/**
 * The same rules as `exportCellSchema`, checked by hand: a workbook is millions of cells, and a zod union
 * per cell would cost seconds per export.
 */
export function isExportCell(v: unknown): v is ExportCell {
  if (v === null) return true
  if (typeof v === 'string') return v.length <= MAX_CELL_TEXT
  if (typeof v === 'number') return Number.isFinite(v)
  if (typeof v !== 'object' || Array.isArray(v)) return false
  const o = v as Record<string, unknown>
  if ('date' in o) return isNumber(o['date']) && hasOnlyKeys(o, ['date'])
  if ('amount' in o)
    return isNumber(o['amount']) && isDecimals(o['decimals']) && hasOnlyKeys(o, ['amount', 'decimals'])
  const { formula, result, decimals } = o
  return (
    typeof formula === 'string' &&
    formula.length >= 1 &&
    formula.length <= 8_192 &&
    isAllowedFormula(formula) &&
    (result === undefined ||
      isNumber(result) ||
      (typeof result === 'string' && result.length <= MAX_CELL_TEXT)) &&
    (decimals === undefined || isDecimals(decimals)) &&
    hasOnlyKeys(o, ['formula', 'result', 'decimals'])
  )
}

export const exportRowSchema = z.custom<ExportRow>(
  (v) => Array.isArray(v) && v.length <= MAX_COLUMNS && v.every(isExportCell),
  `expected a row of at most ${MAX_COLUMNS} cells: text, number, {date}, {amount, decimals}, {formula} or null`,
)

/** Valid in Excel: 1–31 characters, none of : \ / ? * [ ], no leading or trailing apostrophe. */
export const sheetNameSchema = z
  .string()
  .min(1)
  .max(31)
  .refine((n) => !/[:\\/?*[\]]/.test(n) && !n.startsWith("'") && !n.endsWith("'"), {
    message: 'expected a sheet name valid in Excel',
  })
  .refine((n) => n.toLowerCase() !== 'history', "'History' is reserved by Excel")
  // A sheet name is shown, copied into formulas and tab lists; one that looks like a formula is refused.
  .refine((n) => !isFormulaLike(n), 'a sheet name must not start like a formula')

/** A column's default display: plain numbers get `integer`/`number`, `{date}` cells get date(time). */
export const columnKindSchema = z.enum(['text', 'integer', 'number', 'amount', 'date', 'datetime'])
export type ColumnKind = z.infer<typeof columnKindSchema>

export const exportColumnSchema = z.strictObject({
  header: z.string().min(1).max(255),
  kind: columnKindSchema,
  width: z.number().min(3).max(120),
})
export type ExportColumn = z.infer<typeof exportColumnSchema>

export const exportSheetSchema = z.strictObject({
  name: sheetNameSchema,
  columns: z.array(exportColumnSchema).min(1).max(MAX_COLUMNS),
  /** Rows written above the header row; the header row is frozen and carries the autofilter. */
  preamble: z.array(exportRowSchema).max(MAX_PREAMBLE_ROWS).optional(),
  /**
   * Rows written after the last appended row, outside the autofilter (the header's table ends above them).
   * The renderer knows the sheet's row count before it begins, so footer formulas can address the table.
   */
  footer: z.array(exportRowSchema).max(MAX_FOOTER_ROWS).optional(),
})
export type ExportSheet = z.infer<typeof exportSheetSchema>

export const workbookFileNameSchema = fileNameSchema(
  FILE_EXTENSIONS['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
)

export const exportBeginArgsSchema = z
  .strictObject({
    suggestedName: workbookFileNameSchema,
    /** Document properties (title); never a secret. */
    title: z.string().max(255).optional(),
    sheets: z.array(exportSheetSchema).min(1).max(16),
  })
  .refine(
    ({ sheets }) => new Set(sheets.map((s) => s.name.toLowerCase())).size === sheets.length,
    'sheet names must be unique (Excel ignores case)',
  )
export type ExportBeginArgs = z.infer<typeof exportBeginArgsSchema>

export const PACKED_ROWS_LIMITS = {
  maxRows: MAX_ROWS_PER_CHUNK,
  maxColumns: MAX_COLUMNS,
  maxCellText: MAX_CELL_TEXT,
} as const

/** A chunk in the packed form (`export-packed.ts`), checked cell by cell without a zod parse per cell. */
export const packedRowsSchema = z.custom<PackedRows>().superRefine((v, ctx) => {
  const problem = packedRowsProblem(v, PACKED_ROWS_LIMITS)
  if (problem) ctx.addIssue({ code: 'custom', message: `packed rows: ${problem}` })
})

export const exportContract = {
  'export:begin': {
    args: exportBeginArgsSchema,
    result: z.object({ exportId: fileIdSchema }),
  },
  /** Rows of one sheet, in order, as `rows` or `packed` (exactly one). Sheets are written one after
   * another: once rows go to a later sheet, the earlier ones are closed (that is what keeps memory bounded). */
  'export:appendRows': {
    args: z
      .strictObject({
        exportId: fileIdSchema,
        sheet: sheetNameSchema,
        rows: z.array(exportRowSchema).min(1).max(MAX_ROWS_PER_CHUNK).optional(),
        packed: packedRowsSchema.optional(),
      })
      .refine((a) => (a.rows === undefined) !== (a.packed === undefined), 'expected either rows or packed'),
    result: z.object({ rowsWritten: z.number().int().nonnegative() }),
  },
  'export:finish': { args: z.strictObject({ exportId: fileIdSchema }), result: deliveredFileSchema },
  'export:cancel': {
    args: z.strictObject({ exportId: fileIdSchema }),
    result: z.object({ cancelled: z.boolean() }),
  },
} as const
