/**
 * Column-mapping profiles: which header of an order or bank export holds which field. The accountant maps
 * a file once; the profile is remembered per source and re-applied to the next month's file.
 */
import { z } from 'zod'
import { normalizeCurrency } from '../reconcile/currency'
import { isValidTimeZone } from '../reconcile/periods'
import { currencyOfSymbol, parseAmount, parseDateDay, type ParsedCsv } from './parse'

export const importSourceSchema = z.enum(['orders', 'bank'])
export type ImportSource = z.infer<typeof importSourceSchema>

const headerName = z.string().trim().min(1).max(200)

export const profileColumnsSchema = z.object({
  orderNumber: headerName.optional(),
  date: headerName,
  amount: headerName,
  currency: headerName.optional(),
  customer: headerName.optional(),
  description: headerName.optional(),
})
export type ProfileColumns = z.infer<typeof profileColumnsSchema>
export type ProfileField = keyof ProfileColumns

export const mappingProfileSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().trim().min(1).max(200),
  source: importSourceSchema,
  columns: profileColumnsSchema,
  /** Used when the file has no currency column or the cell is empty. */
  defaultCurrency: z.string().regex(/^[A-Z]{3}$/, 'an upper-case ISO-4217 code'),
  /** Accounting time zone: dates without an offset are read in it, days are counted in it. */
  timeZone: z.string().refine(isValidTimeZone, 'an IANA time zone'),
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
}

export interface ImportError {
  /** File line (header = 1). */
  row: number
  column: string
  message: string
}

export interface AppliedProfile {
  rows: ImportedRow[]
  errors: ImportError[]
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

/** Rows of a parsed file as the profile maps them; a row with any bad cell is reported, not imported. */
export function applyProfile(parsed: ParsedCsv, profile: MappingProfile): AppliedProfile {
  const errors: ImportError[] = []
  const index = {} as Record<ProfileField, number>
  const fields: ProfileField[] = ['orderNumber', 'date', 'amount', 'currency', 'customer', 'description']
  for (const field of fields) {
    const name = profile.columns[field]
    index[field] = name === undefined ? -1 : columnIndex(parsed.headers, name)
    if (name !== undefined && index[field] < 0) {
      errors.push({ row: 1, column: name, message: `column "${name}" not found in the file` })
    }
  }
  // Without every mapped column the file is the wrong one (or the profile is): import nothing.
  if (errors.length > 0) return { rows: [], errors }

  const rows: ImportedRow[] = []
  const defaultCurrency = normalizeCurrency(profile.defaultCurrency)
  parsed.rows.forEach((cells, i) => {
    const line = parsed.lines[i] ?? i + 2
    const before = errors.length
    let currency = defaultCurrency
    const currencyText = optionalCell(cells, index.currency)
    if (currencyText !== null) {
      const code = currencyOfSymbol(currencyText)
      if (code === null) {
        errors.push({
          row: line,
          column: profile.columns.currency ?? '',
          message: `not a currency: ${currencyText}`,
        })
      } else currency = code
    }
    const date = parseDateDay(cells[index.date] ?? '', profile.timeZone)
    if (!date.ok) errors.push({ row: line, column: profile.columns.date, message: date.error })
    const amount = parseAmount(cells[index.amount] ?? '', currency)
    if (!amount.ok) errors.push({ row: line, column: profile.columns.amount, message: amount.error })
    if (errors.length > before || !date.ok || !amount.ok) return
    rows.push({
      line,
      source: profile.source,
      orderNumber: optionalCell(cells, index.orderNumber),
      at: date.value.at,
      day: date.value.day,
      amount: amount.value,
      currency,
      customer: optionalCell(cells, index.customer),
      description: optionalCell(cells, index.description),
    })
  })
  return { rows, errors }
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
const SYNONYMS: Readonly<Record<ImportSource, Readonly<Record<ProfileField, readonly string[]>>>> = {
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
      'reference',
      'ref',
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
    amount: ['入金額', '入金金額', 'お預り金額', 'お預入金額', '入金', '金額', 'deposit', 'credit', 'amount'],
    currency: ['通貨', 'currency'],
    customer: ['振込依頼人名', '振込依頼人', '依頼人名', '相手先', 'payer', 'counterparty', 'name'],
    description: ['摘要', 'お取引内容', '取引内容', '内容', '備考', 'description', 'memo', 'details'],
  },
}

/** A first guess at the mapping from header names; fields with no plausible header are left out. */
export function suggestProfile(headers: readonly string[], source: ImportSource): Partial<ProfileColumns> {
  const normalized = headers.map(normalizeHeader)
  const used = new Set<number>()
  const columns: Partial<ProfileColumns> = {}
  // Required fields first so "date"/"amount" win a header another field could also claim.
  const order: ProfileField[] = ['date', 'amount', 'orderNumber', 'currency', 'customer', 'description']
  for (const field of order) {
    const synonyms = SYNONYMS[source][field]
    let found = -1
    // Exact (normalized) names beat a header that merely contains a synonym ("注文日時" vs "日付").
    for (const synonym of synonyms) {
      found = normalized.findIndex((h, i) => !used.has(i) && h === synonym)
      if (found >= 0) break
    }
    if (found < 0) {
      for (const synonym of synonyms) {
        if (synonym.length < 2) continue
        found = normalized.findIndex((h, i) => !used.has(i) && h.includes(synonym))
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
