/**
 * Journal vouchers written as each accounting software imports them. One line of ours (a debit and a
 * credit of the same amount) is one row in every format; a voucher with several lines is a compound entry
 * (複合仕訳), told apart the way each importer documents it:
 * - freee (仕訳インポート, 汎用形式): rows with the same 日付 and 伝票番号 form one entry; header row.
 * - Money Forward Cloud Accounting (仕訳帳インポート template, columns A–AA): same 取引No and 取引日,
 *   balanced; header row as in the template.
 * - Yayoi Accounting (弥生インポート形式, 25 columns, no header, Shift_JIS): 識別フラグ 2111 for a
 *   one-row voucher, 2110 / 2100 / 2101 for the first / middle / last row of a longer one; amounts are
 *   integers of at most 9 digits and never negative.
 * - plain CSV: every field of the voucher, in the app's language, amounts in major units.
 */
import { encodeShiftJis, NotShiftJisError } from '../../../electron/shared/shift-jis'
import { csvField, UTF8_BOM } from '../csv'
import { formatWallClock, wallClockMs } from '../sheet-values'
import { currencyExponent, toMajorUnits } from '../../domain/currency'
import { taxClassName, type JournalFormat, type JournalSettings } from './settings'
import {
  JournalError,
  type JournalBuild,
  type JournalLine,
  type LineKind,
  type TracedRecord,
  type Voucher,
} from './vouchers'

export type FileEncoding = 'utf-8' | 'shift_jis'

export interface JournalFile {
  name: string
  encoding: FileEncoding
  /** The file's text; a UTF-8 file carries its byte-order mark. */
  text: string
}

/** Words the files are written with (Japanese for the three Japanese programs, the UI's for plain). */
export interface JournalLabels {
  kinds: Record<LineKind, string>
  /** e.g. "12件" / "12 records". */
  records: (count: number) => string
  /** Plain and trace CSV column headers. */
  plainHeader: readonly string[]
  traceHeader: readonly string[]
  traceTypes: Record<TracedRecord['type'], string>
}

/** freee documents a 5 MB limit for its CSV imports; we also keep each file to 2,000 rows, never splitting a voucher. */
export const FREEE_MAX_ROWS = 2_000
export const FREEE_MAX_BYTES = 5 * 1024 * 1024
/** Yayoi: 9-digit amounts. A larger line is written as several rows of the same voucher. */
export const YAYOI_MAX_AMOUNT = 999_999_999
const YAYOI_MAX_VOUCHER_NO = 999_999

export const FREEE_HEADER = [
  '日付',
  '伝票番号',
  '決算整理仕訳',
  '借方勘定科目',
  '借方税区分',
  '借方金額',
  '借方税額',
  '借方取引先',
  '借方部門',
  '貸方勘定科目',
  '貸方税区分',
  '貸方金額',
  '貸方税額',
  '貸方取引先',
  '貸方部門',
  '摘要',
] as const

export const MONEYFORWARD_HEADER = [
  '取引No',
  '取引日',
  '借方勘定科目',
  '借方補助科目',
  '借方部門',
  '借方取引先',
  '借方税区分',
  '借方インボイス',
  '借方金額(円)',
  '借方税額',
  '貸方勘定科目',
  '貸方補助科目',
  '貸方部門',
  '貸方取引先',
  '貸方税区分',
  '貸方インボイス',
  '貸方金額(円)',
  '貸方税額',
  '摘要',
  '仕訳メモ',
  'タグ',
  'MF仕訳タイプ',
  '決算整理仕訳',
  '作成日時',
  '作成者',
  '最終更新日時',
  '最終更新者',
] as const

export const YAYOI_COLUMNS = 25

const CRLF = '\r\n'

function line(cells: readonly (string | number)[]): string {
  return cells.map((c) => (typeof c === 'number' ? String(c) : csvField(c))).join(',') + CRLF
}

function slashDate(day: string): string {
  return day.replaceAll('-', '/')
}

function description(v: Voucher, l: JournalLine, labels: JournalLabels): string {
  const parts = [labels.kinds[l.kind], v.date]
  if (v.storeName) parts.push(v.storeName)
  if (v.convertedFrom) parts.push(`${v.convertedFrom.currency}@${v.convertedFrom.rate}`)
  parts.push(labels.records(l.records.length))
  return parts.join(' ')
}

/** Where a row came from, in the trace file: voucher and line. */
function traceRef(v: Voucher, lineIndex: number): string {
  return `CB-${v.number}-${lineIndex + 1}`
}

function requireYen(build: JournalBuild, format: JournalFormat): void {
  if (format !== 'plain' && build.accountingCurrency !== 'JPY')
    throw new JournalError('journal_format_needs_jpy', { format, currency: build.accountingCurrency })
}

function fileBase(format: JournalFormat, period: string): string {
  return `closebook-journal-${format}-${period}`
}

export function freeeFiles(
  build: JournalBuild,
  settings: JournalSettings,
  labels: JournalLabels,
): JournalFile[] {
  requireYen(build, 'freee')
  const header = UTF8_BOM + line(FREEE_HEADER)
  const parts: string[][] = []
  let current: string[] = []
  let rows = 0
  let bytes = utf8Bytes(header)
  for (const v of build.vouchers) {
    const voucherRows = v.lines.map((l, i) =>
      line([
        slashDate(v.date),
        v.number,
        '',
        l.debit.account,
        taxClassName(settings, 'freee', l.debit.taxClass),
        l.amount,
        '',
        l.debit.subAccount,
        l.debit.department,
        l.credit.account,
        taxClassName(settings, 'freee', l.credit.taxClass),
        l.amount,
        '',
        l.credit.subAccount,
        l.credit.department,
        `${description(v, l, labels)} ${traceRef(v, i)}`,
      ]),
    )
    const voucherBytes = voucherRows.reduce((s, r) => s + utf8Bytes(r), 0)
    if (voucherRows.length > FREEE_MAX_ROWS)
      throw new JournalError('journal_voucher_too_large', { voucher: v.number })
    if (
      current.length > 0 &&
      (rows + voucherRows.length > FREEE_MAX_ROWS || bytes + voucherBytes > FREEE_MAX_BYTES)
    ) {
      parts.push(current)
      current = []
      rows = 0
      bytes = utf8Bytes(header)
    }
    current.push(...voucherRows)
    rows += voucherRows.length
    bytes += voucherBytes
  }
  parts.push(current)
  const base = fileBase('freee', build.period)
  return parts.map((rowsOfPart, i) => ({
    name: parts.length === 1 ? `${base}.csv` : `${base}-${i + 1}of${parts.length}.csv`,
    encoding: 'utf-8',
    text: header + rowsOfPart.join(''),
  }))
}

export function moneyForwardFiles(
  build: JournalBuild,
  settings: JournalSettings,
  labels: JournalLabels,
): JournalFile[] {
  requireYen(build, 'moneyforward')
  let text = line(MONEYFORWARD_HEADER)
  for (const v of build.vouchers)
    v.lines.forEach((l, i) => {
      text += line([
        v.number,
        slashDate(v.date),
        l.debit.account,
        l.debit.subAccount,
        l.debit.department,
        '',
        taxClassName(settings, 'moneyforward', l.debit.taxClass),
        '',
        l.amount,
        '',
        l.credit.account,
        l.credit.subAccount,
        l.credit.department,
        '',
        taxClassName(settings, 'moneyforward', l.credit.taxClass),
        '',
        l.amount,
        '',
        description(v, l, labels),
        traceRef(v, i),
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ])
    })
  checkShiftJis(text)
  return [{ name: `${fileBase('moneyforward', build.period)}.csv`, encoding: 'shift_jis', text }]
}

/** Cuts text to at most `max` Shift_JIS bytes (Yayoi truncates longer fields itself; we do it visibly). */
function fitBytes(text: string, max: number): string {
  let out = ''
  let used = 0
  for (const ch of text) {
    const n = encodeShiftJis(ch).length
    if (used + n > max) break
    out += ch
    used += n
  }
  return out
}

export function yayoiFiles(
  build: JournalBuild,
  settings: JournalSettings,
  labels: JournalLabels,
): JournalFile[] {
  requireYen(build, 'yayoi')
  let text = ''
  for (const v of build.vouchers) {
    if (v.number > YAYOI_MAX_VOUCHER_NO)
      throw new JournalError('journal_too_many_vouchers', { max: YAYOI_MAX_VOUCHER_NO })
    // A line over 9 digits becomes several rows of the same voucher, each at most YAYOI_MAX_AMOUNT.
    const rows: { l: JournalLine; i: number; amount: number }[] = []
    v.lines.forEach((l, i) => {
      for (let left = l.amount; left > 0; left -= YAYOI_MAX_AMOUNT)
        rows.push({ l, i, amount: Math.min(left, YAYOI_MAX_AMOUNT) })
    })
    rows.forEach(({ l, i, amount }, r) => {
      const flag = rows.length === 1 ? '2111' : r === 0 ? '2110' : r === rows.length - 1 ? '2101' : '2100'
      for (const name of [
        l.debit.account,
        l.credit.account,
        l.debit.subAccount,
        l.credit.subAccount,
        l.debit.department,
      ])
        if (encodeShiftJis(name).length > 24) throw new JournalError('journal_yayoi_name_too_long', { name })
      text += line([
        flag,
        v.number,
        '',
        slashDate(v.date),
        l.debit.account,
        l.debit.subAccount,
        l.debit.department,
        taxClassName(settings, 'yayoi', l.debit.taxClass),
        amount,
        '',
        l.credit.account,
        l.credit.subAccount,
        l.credit.department,
        taxClassName(settings, 'yayoi', l.credit.taxClass),
        amount,
        '',
        fitBytes(description(v, l, labels), 64),
        '',
        '',
        3, // タイプ: 振替伝票
        'Closebook',
        traceRef(v, i),
        0,
        0,
        'no',
      ])
    })
  }
  checkShiftJis(text)
  return [{ name: `${fileBase('yayoi', build.period)}.txt`, encoding: 'shift_jis', text }]
}

export function plainFiles(
  build: JournalBuild,
  settings: JournalSettings,
  labels: JournalLabels,
): JournalFile[] {
  const decimals = currencyExponent(build.accountingCurrency)
  const money = (minor: number) => toMajorUnits(minor, build.accountingCurrency).toFixed(decimals)
  let text = UTF8_BOM + line(labels.plainHeader)
  for (const v of build.vouchers)
    v.lines.forEach((l, i) => {
      text += line([
        v.number,
        v.date,
        v.currency,
        v.storeName,
        l.debit.account,
        l.debit.subAccount,
        l.debit.department,
        taxClassName(settings, 'plain', l.debit.taxClass),
        money(l.amount),
        l.credit.account,
        l.credit.subAccount,
        l.credit.department,
        taxClassName(settings, 'plain', l.credit.taxClass),
        money(l.amount),
        description(v, l, labels),
        traceRef(v, i),
      ])
    })
  return [{ name: `${fileBase('plain', build.period)}.csv`, encoding: 'utf-8', text }]
}

/** Every record behind every row: voucher, line, record, its time (accounting zone) and amount. */
export function traceFile(build: JournalBuild, labels: JournalLabels): JournalFile {
  let text = UTF8_BOM + line(labels.traceHeader)
  for (const v of build.vouchers)
    v.lines.forEach((l, i) => {
      for (const r of l.records)
        text += line([
          traceRef(v, i),
          v.number,
          v.date,
          labels.traceTypes[r.type],
          r.resourceId,
          formatWallClock(wallClockMs(r.createdAt, build.timeZone)),
          r.storeId,
          r.currency,
          toMajorUnits(r.amount, r.currency).toFixed(currencyExponent(r.currency)),
        ])
    })
  return { name: `closebook-journal-${build.period}-trace.csv`, encoding: 'utf-8', text }
}

export function journalFiles(
  format: JournalFormat,
  build: JournalBuild,
  settings: JournalSettings,
  labels: JournalLabels,
): JournalFile[] {
  switch (format) {
    case 'freee':
      return freeeFiles(build, settings, labels)
    case 'moneyforward':
      return moneyForwardFiles(build, settings, labels)
    case 'yayoi':
      return yayoiFiles(build, settings, labels)
    case 'plain':
      return plainFiles(build, settings, labels)
  }
}

function checkShiftJis(text: string): void {
  try {
    encodeShiftJis(text)
  } catch (e) {
    if (e instanceof NotShiftJisError)
      throw new JournalError('journal_not_shift_jis', { character: e.character })
    throw e
  }
}

const encoder = new TextEncoder()
function utf8Bytes(text: string): number {
  return encoder.encode(text).length
}
