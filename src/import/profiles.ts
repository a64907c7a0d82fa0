/**
 * Column-mapping profiles: which header of an order or bank export holds which field. The accountant maps
 * a file once; the profile is remembered per source and re-applied to the next month's file.
 */
import { z } from 'zod'
import { normalizeCurrency } from '../domain/currency'
import { isValidTimeZone } from '../domain/periods'
import { currencyOfSymbol, parseAmount, parseDateDay, type ParsedCsv, type ParsedDate } from './parse'

export const importSourceSchema = z.enum(['orders', 'bank'])
export type ImportSource = z.infer<typeof importSourceSchema>

const headerName = z.string().trim().min(1).max(200)

export const profileColumnsSchema = z.object({
  orderNumber: headerName.optional(),
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

/** One usable line of an imported file. Refunds (and bank withdrawals) are negative amounts. */
export interface ImportedRow {
  /** 1-based line in the file (header = 1): the link a match keeps and errors cite. */
  line: number
  source: ImportSource
  orderNumber: string | null
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
  message: string
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

function normalizeHeader(header: string): string {
  return header
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_\-.()（）・/:]/g, '')
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

interface ReadLine {
  line: number
  order: string | null
  date: ParsedDate | null
  amount: number | null
  currency: string
  refunded: number | null
  customer: string | null
  description: string | null
  paymentMethod: string | null
}

const FIELDS: ProfileField[] = [
  'orderNumber',
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
]

/**
 * Rows of a parsed file as the profile maps them; a row with a bad cell is reported, not imported. With a
 * grouping, the lines of one order become one row (empty amounts on continuation lines are not errors).
 */
export function applyProfile(parsed: ParsedCsv, profile: MappingProfile): AppliedProfile {
  const errors: ImportError[] = []
  const skipped: SkippedLine[] = []
  const index = {} as Record<ProfileField, number>
  for (const field of FIELDS) {
    const name = profile.columns[field]
    index[field] = name === undefined ? -1 : columnIndex(parsed.headers, name)
    if (name !== undefined && index[field] < 0) {
      errors.push({ row: 1, column: name, message: `column "${name}" not found in the file` })
    }
  }
  const lineCount = parsed.rows.length
  // Without every mapped column the file is the wrong one (or the profile is): import nothing.
  if (errors.length > 0) return { rows: [], errors, skipped, lineCount }

  const grouping: Grouping =
    profile.grouping && profile.columns.orderNumber !== undefined ? profile.grouping : 'none'
  const defaultCurrency = normalizeCurrency(profile.defaultCurrency)
  const cols = profile.columns
  const read: ReadLine[] = []
  parsed.rows.forEach((cells, i) => {
    const line = parsed.lines[i] ?? i + 2
    const before = errors.length
    const cell = (field: ProfileField): string | null => optionalCell(cells, index[field])
    let currency = defaultCurrency
    const currencyText = cell('currency')
    if (currencyText !== null) {
      const code = currencyOfSymbol(currencyText)
      if (code === null) {
        errors.push({ row: line, column: cols.currency ?? '', message: `not a currency: ${currencyText}` })
      } else currency = code
    }
    let dateText = cell('date')
    if (dateText !== null && index.dateMonth >= 0) {
      dateText = `${dateText}/${cell('dateMonth') ?? ''}/${cell('dateDay') ?? ''}`
    }
    let date: ParsedDate | null = null
    if (dateText !== null) {
      const parsedDate = parseDateDay(dateText, profile.timeZone)
      if (parsedDate.ok) date = parsedDate.value
      else errors.push({ row: line, column: cols.date, message: parsedDate.error })
    }
    const amountOf = (field: 'amount' | 'withdrawal' | 'refunded'): number | null => {
      const text = cell(field)
      if (text === null) return null
      const result = parseAmount(text, currency)
      if (result.ok) return result.value
      errors.push({ row: line, column: cols[field] ?? '', message: result.error })
      return null
    }
    const deposit = amountOf('amount')
    const withdrawal = index.withdrawal >= 0 ? amountOf('withdrawal') : null
    const refunded = index.refunded >= 0 ? amountOf('refunded') : null
    if (errors.length > before) return
    const amount = deposit === null && withdrawal === null ? null : (deposit ?? 0) - Math.abs(withdrawal ?? 0)
    const order = cell('orderNumber')
    if (grouping === 'none') {
      if (date === null) {
        errors.push({ row: line, column: cols.date, message: 'empty date' })
        return
      }
      if (amount === null) {
        // A bank line with no deposit is a withdrawal the mapping leaves out, not an error.
        if (profile.source === 'bank') skipped.push({ row: line, reason: 'no_amount' })
        else errors.push({ row: line, column: cols.amount, message: 'empty amount' })
        return
      }
      if (amount === 0 && profile.source === 'bank') {
        skipped.push({ row: line, reason: 'zero_amount' })
        return
      }
    }
    read.push({
      line,
      order,
      date,
      amount,
      currency,
      refunded,
      customer: cell('customer'),
      description: cell('description'),
      paymentMethod: cell('paymentMethod'),
    })
  })
  const rows =
    grouping === 'none'
      ? read.map((r) => toRow(r, [r], profile.source, r.date as ParsedDate, r.amount as number))
      : groupLines(read, grouping, profile, errors)
  return { rows, errors, skipped, lineCount }
}

function toRow(
  first: ReadLine,
  lines: readonly ReadLine[],
  source: ImportSource,
  date: ParsedDate,
  amount: number,
): ImportedRow {
  const row: ImportedRow = {
    line: first.line,
    source,
    orderNumber: first.order,
    at: date.at,
    day: date.day,
    amount,
    currency: first.currency,
    customer: lines.find((l) => l.customer !== null)?.customer ?? null,
    description: first.description,
  }
  if (lines.length > 1) row.lines = lines.map((l) => l.line)
  const method = lines.find((l) => l.paymentMethod !== null)?.paymentMethod
  if (method) row.paymentMethod = method
  const refunded = lines.find((l) => l.refunded !== null)?.refunded
  if (refunded) row.refunded = Math.abs(refunded)
  return row
}

/** One row per order number, in the order of first appearance; lines without a number stand alone. */
function groupLines(
  read: readonly ReadLine[],
  grouping: Exclude<Grouping, 'none'>,
  profile: MappingProfile,
  errors: ImportError[],
): ImportedRow[] {
  const groups = new Map<string, ReadLine[]>()
  for (const r of read) {
    const key = r.order === null ? `\u0000${r.line}` : r.order
    const list = groups.get(key)
    if (list) list.push(r)
    else groups.set(key, [r])
  }
  const rows: ImportedRow[] = []
  for (const lines of groups.values()) {
    const first = lines[0]
    if (!first) continue
    const date = lines.find((l) => l.date !== null)?.date
    const amounts = lines.filter((l) => l.amount !== null).map((l) => l.amount as number)
    const currencies = new Set(lines.filter((l) => l.amount !== null).map((l) => l.currency))
    const label = first.order ?? String(first.line)
    if (!date) {
      errors.push({ row: first.line, column: profile.columns.date, message: `order ${label}: empty date` })
      continue
    }
    if (amounts.length === 0) {
      errors.push({
        row: first.line,
        column: profile.columns.amount,
        message: `order ${label}: empty amount`,
      })
      continue
    }
    if (currencies.size > 1) {
      errors.push({
        row: first.line,
        column: profile.columns.currency ?? profile.columns.amount,
        message: `order ${label}: lines in several currencies`,
      })
      continue
    }
    let amount: number
    if (grouping === 'order-lines') amount = amounts.reduce((a, b) => a + b, 0)
    else {
      amount = amounts[0] ?? 0
      if (amounts.some((a) => a !== amount)) {
        errors.push({
          row: first.line,
          column: profile.columns.amount,
          message: `order ${label}: lines give different totals (${amounts.join(', ')})`,
        })
        continue
      }
    }
    const withAmount = lines.find((l) => l.amount !== null) ?? first
    rows.push(toRow({ ...first, currency: withAmount.currency }, lines, profile.source, date, amount))
  }
  return rows
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

/** Header names seen in English and Japanese exports, by field, most specific first (normalized form). */
const SYNONYMS: Readonly<Record<ImportSource, Readonly<Partial<Record<ProfileField, readonly string[]>>>>> = {
  orders: {
    orderNumber: [
      '注文番号',
      '受注番号',
      '注文id',
      '注文no',
      'オーダー番号',
      '伝票番号',
      'ordernumber',
      'orderno',
      'orderid',
      'order',
      'merchanttransactionid',
      '番号',
    ],
    date: [
      '注文日',
      '注文日時',
      '受注日',
      '決済日',
      '日付',
      '日時',
      'orderdate',
      'date',
      'createdat',
      'created',
    ],
    amount: ['合計金額', '請求金額', '決済金額', '金額', '合計', 'total', 'amount', 'grandtotal', 'price'],
    currency: ['通貨', '通貨コード', 'currency', 'currencycode'],
    customer: [
      '顧客名',
      '顧客',
      '購入者',
      '購入者名',
      'お客様名',
      '氏名',
      '名前',
      'customer',
      'customername',
      'name',
    ],
    description: ['摘要', '備考', '内容', '商品名', 'description', 'memo', 'note', 'notes'],
    paymentMethod: [
      '決済方法',
      '支払方法',
      '支払方法名称',
      'お支払方法',
      '支払い方法',
      'paymentmethod',
      'paymentgateway',
    ],
    refunded: ['返金額', '返金金額', 'refundedamount'],
  },
  bank: {
    orderNumber: ['参照番号', 'reference', 'ref'],
    date: [
      '取引日',
      '入金日',
      '勘定日',
      '日付',
      '年月日',
      'date',
      'transactiondate',
      'valuedate',
      'bookingdate',
    ],
    amount: [
      '入金額',
      '入金金額',
      'お預り金額',
      'お預入金額',
      'お預入れ',
      '預かり金額',
      '預入金額',
      '入出金円',
      '入出金',
      '入金',
      '金額',
      'deposit',
      'credit',
      'amount',
    ],
    withdrawal: [
      '出金額',
      '出金金額',
      'お支払金額',
      '支払い金額',
      'お引出金額',
      'お引出し',
      '引出金額',
      'withdrawal',
      'debit',
    ],
    currency: ['通貨', 'currency'],
    customer: ['振込依頼人名', '振込依頼人', '依頼人名', '相手先', 'payer', 'counterparty', 'name'],
    description: [
      '摘要',
      'お取引内容',
      'お取り扱い内容',
      '入出金先内容',
      '入出金内容',
      '取引内容',
      '内容',
      '備考',
      'description',
      'memo',
      'details',
    ],
  },
}

const WITHDRAWAL_RE = /支払|支出|引出|出金(?!.*入)|withdraw|debit/

/** A first guess at the mapping from header names; fields with no plausible header are left out. */
export function suggestProfile(headers: readonly string[], source: ImportSource): Partial<ProfileColumns> {
  const normalized = headers.map(normalizeHeader)
  const used = new Set<number>()
  const columns: Partial<ProfileColumns> = {}
  // Required fields first so "date"/"amount" win a header another field could also claim.
  const order: ProfileField[] = [
    'date',
    'amount',
    'withdrawal',
    'orderNumber',
    'currency',
    'customer',
    'description',
    'paymentMethod',
    'refunded',
  ]
  for (const field of order) {
    const synonyms = SYNONYMS[source][field]
    if (!synonyms) continue
    let found = -1
    // Exact (normalized) names beat a header that merely contains a synonym ("注文日時" vs "日付").
    for (const synonym of synonyms) {
      found = normalized.findIndex((h, i) => !used.has(i) && h === synonym)
      if (found >= 0) break
    }
    if (found < 0) {
      for (const synonym of synonyms) {
        if (synonym.length < 2) continue
        // A deposit column is never one that names a withdrawal ("支払い金額" contains "金額").
        found = normalized.findIndex(
          (h, i) => !used.has(i) && h.includes(synonym) && !(field === 'amount' && WITHDRAWAL_RE.test(h)),
        )
        if (found >= 0) break
      }
    }
    const header = headers[found]
    if (found >= 0 && header !== undefined) {
      used.add(found)
      columns[field] = header
    }
  }
  return columns
}
