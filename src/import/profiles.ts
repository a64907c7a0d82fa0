/**
 * Column-mapping profiles: which header of an order or bank export holds which field. The accountant maps
 * a file once; the profile is remembered per source and re-applied to the next month's file.
 */
import { z } from 'zod'
import { normalizeCurrency } from '../domain/currency'
import { isValidTimeZone } from '../domain/periods'
import { codeOfMessage, englishOf, type CodedError, type LineErrorCode } from './line-errors'
import { groupLines, toRow, type ReadLine } from './order-groups'
import { normalizeHeader } from './suggest'
import { withYear, yearReference, yearlessParts } from './yearless'
import { currencyOfSymbol, parseAmount, parseDateDay, type ParsedCsv, type ParsedDate } from './parse'

export const importSourceSchema = z.enum(['orders', 'bank'])
export type ImportSource = z.infer<typeof importSourceSchema>

const headerName = z.string().trim().min(1).max(200)

export const profileColumnsSchema = z.object({
  orderNumber: headerName.optional(),
  /** The shop system's own id of the order (Shopify `Id`): tried when the order number names nothing. */
  orderId: headerName.optional(),
  /** The payment's reference as the shop's gateway gave it (Shopify `Payment Reference`): tried last. */
  paymentReference: headerName.optional(),
  date: headerName,
  /** A date split over columns (PayPay Bank: year, month, day): `date` is then the year column. */
  dateMonth: headerName.optional(),
  dateDay: headerName.optional(),
  amount: headerName,
  /** Two-column statements: the withdrawal column; a row's amount is deposit − withdrawal. */
  withdrawal: headerName.optional(),
  currency: headerName.optional(),
  customer: headerName.optional(),
  description: headerName.optional(),
  /** How the order was paid (card, konbini, COD, bank transfer…): other methods never match a card charge. */
  paymentMethod: headerName.optional(),
  /** Amount refunded on the order (Shopify "Refunded Amount"), positive. */
  refunded: headerName.optional(),
  /** The order's shipping and fee (COD, payment) columns: they name a difference, never make a total. */
  shipping: headerName.optional(),
  fee: headerName.optional(),
})
export type ProfileColumns = z.infer<typeof profileColumnsSchema>
export type ProfileField = keyof ProfileColumns

/**
 * How rows of one order are combined: `none` (one row per order), `order-total` (each row repeats the
 * order's total, or continuation rows leave it empty: Shopify, BASE), `order-lines` (each row is a line
 * whose amounts add up to the order: EC-CUBE product, shipping and fee rows).
 */
export const groupingSchema = z.enum(['none', 'order-total', 'order-lines'])
export type Grouping = z.infer<typeof groupingSchema>

export const mappingProfileSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().trim().min(1).max(200),
  source: importSourceSchema,
  columns: profileColumnsSchema,
  /** Used when the file has no currency column or the cell is empty. */
  defaultCurrency: z.string().regex(/^[A-Z]{3}$/, 'an upper-case ISO-4217 code'),
  /** Accounting time zone: dates without an offset are read in it, days are counted in it. */
  timeZone: z.string().refine(isValidTimeZone, 'an IANA time zone'),
  grouping: groupingSchema.optional(),
})
export type MappingProfile = z.infer<typeof mappingProfileSchema>

/** An order's other number and the column it came from (the explanation names which number tied). */
export interface OtherRef {
  via: 'orderId' | 'paymentReference'
  ref: string
}

/** One usable line of an imported file. Refunds (and bank withdrawals) are negative amounts. */
export interface ImportedRow {
  /** 1-based line in the file (header = 1): the link a match keeps and errors cite. */
  line: number
  source: ImportSource
  orderNumber: string | null
  /** The order's other numbers (its shop id, its payment reference), each with its column; absent when none. */
  otherRefs?: OtherRef[]
  at: number
  /** `YYYY-MM-DD` in the profile's time zone. */
  day: string
  /** Minor units of `currency`. */
  amount: number
  currency: string
  customer: string | null
  description: string | null
  /** Every file line of a grouped order (first = `line`); absent for one-line rows. */
  lines?: number[]
  paymentMethod?: string
  /** Refunded on the order, minor units, positive. */
  refunded?: number
  /**
   * The sum of a grouped order's lines when it differs from `amount` (the total column repeated a line
   * figure on every line): the order's total if the payment says so.
   */
  linesTotal?: number
  /** The order's shipping and fee columns (minor units), to name a difference; never added on their own. */
  shipping?: number
  fee?: number
}

export interface ImportError {
  /** File line (header = 1). */
  row: number
  column: string
  /** English, for logs and tests; the view words `code` in the user's language. */
  message: string
  code?: LineErrorCode
  params?: Record<string, string | number>
}

/** A line read but not imported on purpose (a withdrawal on a deposits-only mapping, a total line). */
export interface SkippedLine {
  row: number
  reason: 'no_amount' | 'zero_amount'
}

export interface AppliedProfile {
  rows: ImportedRow[]
  errors: ImportError[]
  skipped: SkippedLine[]
  /** Data lines of the file (header and preamble excluded). */
  lineCount: number
}

/** Index of a header: exact first, then ignoring case, width, spaces and punctuation. */
function columnIndex(headers: readonly string[], name: string): number {
  const exact = headers.indexOf(name)
  if (exact >= 0) return exact
  const wanted = normalizeHeader(name)
  return headers.findIndex((h) => normalizeHeader(h) === wanted)
}

function optionalCell(row: readonly string[], index: number): string | null {
  if (index < 0) return null
  const text = (row[index] ?? '').trim()
  return text === '' ? null : text
}

/** An error about a line, with its code for the view and its English wording. */
export function lineError(row: number, column: string, error: CodedError): ImportError {
  return { row, column, message: englishOf(error), code: error.code, params: error.params }
}

const FIELDS: ProfileField[] = [
  'orderNumber',
  'orderId',
  'paymentReference',
  'date',
  'dateMonth',
  'dateDay',
  'amount',
  'withdrawal',
  'currency',
  'customer',
  'description',
  'paymentMethod',
  'refunded',
  'shipping',
  'fee',
]

export interface ApplyOptions {
  /** The file's name: a year in it dates lines written without one when the file's own dates cannot. */
  fileName?: string
}

/**
 * Rows of a parsed file as the profile maps them; a row with a bad cell is reported, not imported. With a
 * grouping, the lines of one order become one row (empty amounts on continuation lines are not errors).
 */
export function applyProfile(
  parsed: ParsedCsv,
  profile: MappingProfile,
  options: ApplyOptions = {},
): AppliedProfile {
  const errors: ImportError[] = []
  const skipped: SkippedLine[] = []
  const index = {} as Record<ProfileField, number>
  for (const field of FIELDS) {
    const name = profile.columns[field]
    index[field] = name === undefined ? -1 : columnIndex(parsed.headers, name)
    if (name !== undefined && index[field] < 0) {
      errors.push(lineError(1, name, { code: 'column_missing', params: { column: name } }))
    }
  }
  const lineCount = parsed.rows.length
  // Without every mapped column the file is the wrong one (or the profile is): import nothing.
  if (errors.length > 0) return { rows: [], errors, skipped, lineCount }

  const grouping: Grouping =
    profile.grouping && profile.columns.orderNumber !== undefined ? profile.grouping : 'none'
  const yearOf = yearResolver(parsed, index.date, index.dateMonth >= 0, options.fileName)
  const read: ReadLine[] = []
  parsed.rows.forEach((cells, i) => {
    const line = parsed.lines[i] ?? i + 2
    const r = readLine(cells, line, index, profile, errors, yearOf)
    if (r === null) return
    if (grouping === 'none') {
      if (r.date === null) {
        errors.push(lineError(line, profile.columns.date, { code: 'empty_date', params: {} }))
        return
      }
      if (r.amount === null) {
        // A bank line with no deposit is a withdrawal the mapping leaves out, not an error.
        if (profile.source === 'bank') skipped.push({ row: line, reason: 'no_amount' })
        else errors.push(lineError(line, profile.columns.amount, { code: 'empty_amount', params: {} }))
        return
      }
      if (r.amount === 0 && profile.source === 'bank') {
        skipped.push({ row: line, reason: 'zero_amount' })
        return
      }
    }
    read.push(r)
  })
  const rows =
    grouping === 'none'
      ? read.map((r) => toRow(r, [r], profile.source, r.date as ParsedDate, r.amount as number))
      : groupLines(read, grouping, profile, (row, column, error) =>
          errors.push(lineError(row, column, error)),
        )
  return { rows, errors, skipped, lineCount }
}

/** Turns a date cell without a year into one with the year the file gives; null when it gives none. */
function yearResolver(
  parsed: ParsedCsv,
  dateIndex: number,
  split: boolean,
  fileName: string | undefined,
): (text: string) => string | null {
  let reference: number | null | undefined
  return (text) => {
    const parts = split ? null : yearlessParts(text)
    if (parts === null) return text
    if (reference === undefined) {
      reference = yearReference(
        parsed.rows.map((cells) => (cells[dateIndex] ?? '').trim()).filter((t) => t !== ''),
        fileName,
      )
    }
    return reference === null ? null : withYear(parts, reference)
  }
}

/** One file line's cells read; null when a cell is bad (its error recorded). */
function readLine(
  cells: readonly string[],
  line: number,
  index: Record<ProfileField, number>,
  profile: MappingProfile,
  errors: ImportError[],
  yearOf: (text: string) => string | null,
): ReadLine | null {
  const cols = profile.columns
  const before = errors.length
  const cell = (field: ProfileField): string | null => optionalCell(cells, index[field])
  const fail = (column: string, message: string): void => {
    errors.push(lineError(line, column, codeOfMessage(message)))
  }
  let currency = normalizeCurrency(profile.defaultCurrency)
  const currencyText = cell('currency')
  if (currencyText !== null) {
    const code = currencyOfSymbol(currencyText)
    if (code === null) {
      errors.push(
        lineError(line, cols.currency ?? '', { code: 'not_a_currency', params: { text: currencyText } }),
      )
    } else currency = code
  }
  let dateText = cell('date')
  if (dateText !== null && index.dateMonth >= 0) {
    dateText = `${dateText}/${cell('dateMonth') ?? ''}/${cell('dateDay') ?? ''}`
  }
  let date: ParsedDate | null = null
  if (dateText !== null) {
    const dated = yearOf(dateText)
    if (dated === null) {
      errors.push(lineError(line, cols.date, { code: 'date_no_year', params: { text: dateText } }))
    } else {
      const parsedDate = parseDateDay(dated, profile.timeZone)
      if (parsedDate.ok) date = parsedDate.value
      else fail(cols.date, parsedDate.error.replace(dated, dateText))
    }
  }
  const amountOf = (field: 'amount' | 'withdrawal' | 'refunded' | 'shipping' | 'fee'): number | null => {
    const text = index[field] >= 0 ? cell(field) : null
    if (text === null) return null
    const result = parseAmount(text, currency)
    if (result.ok) return result.value
    fail(cols[field] ?? '', result.error)
    return null
  }
  const deposit = amountOf('amount')
  const withdrawal = amountOf('withdrawal')
  const refunded = amountOf('refunded')
  const shipping = amountOf('shipping')
  const fee = amountOf('fee')
  if (errors.length > before) return null
  return {
    line,
    order: cell('orderNumber'),
    otherRefs: (['orderId', 'paymentReference'] as const).flatMap((via): OtherRef[] => {
      const ref = cell(via)
      return ref === null ? [] : [{ via, ref }]
    }),
    date,
    amount: deposit === null && withdrawal === null ? null : (deposit ?? 0) - Math.abs(withdrawal ?? 0),
    currency,
    refunded,
    shipping,
    fee,
    customer: cell('customer'),
    description: cell('description'),
    paymentMethod: cell('paymentMethod'),
  }
}

/**
 * SHA-256 (hex) of a file's bytes: the same file imported twice has the same hash, so the second import
 * is recognised and adds nothing. Web Crypto exists in Chromium, Electron and Node 20.
 */
export async function fileHash(bytes: Uint8Array): Promise<string> {
  // Copy into a fresh ArrayBuffer: digest() rejects views over SharedArrayBuffer.
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new Uint8Array(bytes))
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('')
}

export { suggestProfile } from './suggest'
