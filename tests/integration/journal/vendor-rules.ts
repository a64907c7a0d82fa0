/**
 * Independent readers of the three vendors' import files, applying each one's published rules (see
 * docs/reconciliation.md, "Journal entries"): they parse the bytes as the importer would and return the vouchers found,
 * throwing on anything the importer would refuse.
 */
import Papa from 'papaparse'

export interface ParsedVoucher {
  key: string
  date: string
  rows: {
    debit: string
    credit: string
    debitTax: string
    creditTax: string
    debitAmount: number
    creditAmount: number
  }[]
}

function csvRows(text: string): string[][] {
  const result = Papa.parse<string[]>(text, { skipEmptyLines: true })
  if (result.errors.length > 0) throw new Error(`CSV: ${result.errors[0]?.message}`)
  return result.data
}

function amount(cell: string | undefined, rule: string): number {
  if (cell === undefined || !/^\d+$/.test(cell))
    throw new Error(`${rule}: amount "${cell}" is not a non-negative integer`)
  return Number(cell)
}

function date(cell: string | undefined): string {
  const m = /^(\d{4})\/(\d{2})\/(\d{2})$/.exec(cell ?? '')
  if (!m) throw new Error(`date "${cell}" is not YYYY/MM/DD`)
  return `${m[1]}-${m[2]}-${m[3]}`
}

function balanced(v: ParsedVoucher, vendor: string): void {
  const d = v.rows.reduce((s, r) => s + r.debitAmount, 0)
  const c = v.rows.reduce((s, r) => s + r.creditAmount, 0)
  if (d !== c) throw new Error(`${vendor}: voucher ${v.key} does not balance (${d} ≠ ${c})`)
}

/** freee 仕訳インポート: header row; rows with the same 日付 and 伝票番号 are one entry. */
export function readFreee(bytes: Uint8Array, header: readonly string[]): ParsedVoucher[] {
  if (bytes.length > 5 * 1024 * 1024) throw new Error('freee: file over 5 MB')
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  const rows = csvRows(text.replace(/^\uFEFF/, ''))
  const [head, ...data] = rows
  if (JSON.stringify(head) !== JSON.stringify(header)) throw new Error('freee: header differs')
  if (data.length > 2000) throw new Error('freee: more than 2,000 rows')
  const col = (name: string) => header.indexOf(name)
  const vouchers = new Map<string, ParsedVoucher>()
  for (const r of data) {
    const d = date(r[col('日付')])
    const no = r[col('伝票番号')] ?? ''
    for (const required of ['借方勘定科目', '貸方勘定科目'])
      if (!r[col(required)]) throw new Error(`freee: ${required} is required`)
    const key = `${d}#${no}`
    const v = vouchers.get(key) ?? { key, date: d, rows: [] }
    v.rows.push({
      debit: r[col('借方勘定科目')] ?? '',
      credit: r[col('貸方勘定科目')] ?? '',
      debitTax: r[col('借方税区分')] ?? '',
      creditTax: r[col('貸方税区分')] ?? '',
      debitAmount: amount(r[col('借方金額')], 'freee'),
      creditAmount: amount(r[col('貸方金額')], 'freee'),
    })
    vouchers.set(key, v)
  }
  for (const v of vouchers.values()) balanced(v, 'freee')
  return [...vouchers.values()]
}

/** Money Forward 仕訳帳インポート: 27 columns A–AA; same 取引No + 取引日 + balanced = one compound entry. */
export function readMoneyForward(bytes: Uint8Array, header: readonly string[]): ParsedVoucher[] {
  const text = new TextDecoder('shift_jis', { fatal: true }).decode(bytes)
  const [head, ...data] = csvRows(text)
  if (head?.length !== 27 || JSON.stringify(head) !== JSON.stringify(header))
    throw new Error('MF: header differs')
  const vouchers = new Map<string, ParsedVoucher>()
  let lastNo = 0
  for (const r of data) {
    if (r.length !== 27) throw new Error('MF: row is not 27 columns')
    const no = Number(r[0])
    if (!Number.isInteger(no) || no < lastNo) throw new Error(`MF: 取引No "${r[0]}" not ascending integers`)
    lastNo = no
    const d = date(r[1])
    if (!r[2] || !r[10]) throw new Error('MF: 勘定科目 is required')
    const key = `${no}`
    const v = vouchers.get(key) ?? { key, date: d, rows: [] }
    if (v.date !== d) throw new Error(`MF: 取引No ${no} spans two dates`)
    v.rows.push({
      debit: r[2] ?? '',
      credit: r[10] ?? '',
      debitTax: r[6] ?? '',
      creditTax: r[14] ?? '',
      debitAmount: amount(r[8], 'MF'),
      creditAmount: amount(r[16], 'MF'),
    })
    vouchers.set(key, v)
  }
  for (const v of vouchers.values()) balanced(v, 'MF')
  return [...vouchers.values()]
}

function sjisBytes(s: string): number {
  // Half-width ASCII and half-width katakana are 1 byte, everything else 2 (Shift_JIS).
  let n = 0
  for (const ch of s) n += (ch.codePointAt(0) ?? 0) < 0x80 || /[\uff61-\uff9f]/.test(ch) ? 1 : 2
  return n
}

/** Yayoi インポート形式: no header, 25 columns, Shift_JIS; 2111 single row, 2110…2100…2101 multi-row. */
export function readYayoi(bytes: Uint8Array): ParsedVoucher[] {
  const text = new TextDecoder('shift_jis', { fatal: true }).decode(bytes)
  const vouchers: ParsedVoucher[] = []
  let open: ParsedVoucher | null = null
  for (const r of csvRows(text)) {
    if (r.length !== 25) throw new Error(`Yayoi: row has ${r.length} columns, not 25`)
    const flag = r[0]
    const d = date(r[3])
    for (const i of [4, 10]) {
      if (!r[i]) throw new Error('Yayoi: 勘定科目 is required')
      if (sjisBytes(r[i] ?? '') > 24) throw new Error('Yayoi: 勘定科目 over 24 bytes')
    }
    if (sjisBytes(r[16] ?? '') > 64) throw new Error('Yayoi: 摘要 over 64 bytes')
    const debitAmount = amount(r[8], 'Yayoi')
    const creditAmount = amount(r[14], 'Yayoi')
    if (debitAmount > 999_999_999 || creditAmount > 999_999_999)
      throw new Error('Yayoi: amount over 9 digits')
    const row = {
      debit: r[4] ?? '',
      credit: r[10] ?? '',
      debitTax: r[7] ?? '',
      creditTax: r[13] ?? '',
      debitAmount,
      creditAmount,
    }
    if (flag === '2111' || flag === '2000') {
      if (open) throw new Error('Yayoi: single-row voucher inside a multi-row one')
      vouchers.push({ key: r[1] ?? '', date: d, rows: [row] })
    } else if (flag === '2110') {
      if (open) throw new Error('Yayoi: 2110 before the previous voucher ended')
      open = { key: r[1] ?? '', date: d, rows: [row] }
    } else if (flag === '2100' || flag === '2101') {
      if (!open) throw new Error(`Yayoi: ${flag} without a 2110`)
      open.rows.push(row)
      if (flag === '2101') {
        vouchers.push(open)
        open = null
      }
    } else throw new Error(`Yayoi: unknown 識別フラグ "${flag}"`)
  }
  if (open) throw new Error('Yayoi: multi-row voucher without its 2101 row')
  for (const v of vouchers) balanced(v, 'Yayoi')
  return vouchers
}
