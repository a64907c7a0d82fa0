/**
 * 全銀協 入出金取引明細 (Zengin "deposits and withdrawals" statement): fixed-width 200-character records,
 * Shift_JIS (JIS X 0201: digits, upper-case letters and half-width katakana, one byte each, so character
 * positions are byte positions), with or without CR LF between records. Record types: 1 header,
 * 2 data, 8 trailer, 9 end. Layout as published by the 全国銀行協会 and repeated in banks' EB manuals
 * (e.g. "入出金明細(全銀)明細ファイル・フォーマット(全銀協規定形式)"). Dates are 和暦 YYMMDD.
 *
 * Field positions checked against public readers of the format (code-index ids 28544133361: 1-based
 * positions 預入・払出日 16/6, 入払区分 22/1, 取引区分 23/2, 取引金額 25/12, 振込依頼人名 82/48, 摘要内容 160/20;
 * 81790143: 勘定日 and 預入払出日 are 和暦 YYMMDD). Some banks deliver the same records as CSV ("全銀協規定
 * 形式 CSV": the fields in the same order, separated by commas; ids 19173671185, 42275836590, 59888384343):
 * read too, and a Western YYYYMMDD date is accepted where a bank writes one.
 *
 * The data records become a table with named columns, so the same mapping profiles and cell parsers
 * read them as any CSV.
 */
import Papa from 'papaparse'
import type { ParsedCsv } from './parse'

const RECORD = 200

/** Data record fields: [name, start (0-based), length]. */
const DATA_FIELDS = {
  inquiry: [1, 8], // 照会番号
  bookingDate: [9, 6], // 勘定日 (和暦 YYMMDD)
  valueDate: [15, 6], // 預入・払出日
  direction: [21, 1], // 入払区分: 1 入金, 2 出金
  kind: [22, 2], // 取引区分: 10 現金, 11 振込, 12 他店券入金, 13 交換, 14 振替, 18 その他, 19 訂正
  amount: [24, 12], // 取引金額
  payer: [81, 48], // 振込依頼人名または契約者番号
  remitBank: [129, 15], // 仕向銀行名
  remitBranch: [144, 15], // 仕向店名
  memo: [159, 20], // 摘要内容
} as const satisfies Record<string, readonly [number, number]>

export const ZENGIN_HEADERS = [
  '勘定日',
  '入払区分',
  '取引区分',
  '取引金額',
  '振込依頼人名',
  '摘要内容',
] as const

function records(text: string): string[] {
  const lines = text
    .replace(/\r/g, '')
    .split('\n')
    .filter((l) => l.trim() !== '')
  // Without line breaks ("改行なし"), the file is one run of 200-character records.
  if (lines.length === 1 && (lines[0] ?? '').length > RECORD) {
    const blob = lines[0] ?? ''
    const out: string[] = []
    for (let i = 0; i < blob.length; i += RECORD) out.push(blob.slice(i, i + RECORD))
    return out
  }
  return lines
}

function isFixedWidth(text: string): boolean {
  const first = records(text)[0] ?? ''
  return first.startsWith('103') && first.length >= RECORD - 2 && /^\d{22}/.test(first)
}

/** The CSV form's records as fields, or null when the text is not one (header record "1,03,…"). */
function csvRecords(text: string): { fields: string[]; line: number }[] | null {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const firstLine = source
    .slice(0, source.search(/\r?\n|$/))
    .replace(/"/g, '')
    .split(',')
  if (firstLine[0]?.trim() !== '1' || firstLine[1]?.trim() !== '03') return null
  const rows = Papa.parse<string[]>(source, { header: false, skipEmptyLines: false }).data
  return rows
    .map((fields, i) => ({ fields: fields.map((f) => f.trim()), line: i + 1 }))
    .filter((r) => r.fields.some((f) => f !== ''))
}

/**
 * True when the text is a Zengin 入出金取引明細 file (header record: data type 1, kind code 03), in the
 * fixed-width or the CSV form.
 */
export function isZengin(text: string): boolean {
  return isFixedWidth(text) || csvRecords(text) !== null
}

function field(record: string, [start, length]: readonly [number, number]): string {
  return record.slice(start, start + length).trim()
}

/**
 * 和暦 YYMMDD of the current era (令和) as `YYYY-MM-DD`; a Western YYYYMMDD as it is. The cell parser
 * checks the day exists (anything else is passed on for it to refuse).
 */
function warekiDay(date: string): string {
  if (/^\d{8}$/.test(date)) return `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`
  if (!/^\d{6}$/.test(date)) return date
  return `${2018 + Number(date.slice(0, 2))}-${date.slice(2, 4)}-${date.slice(4, 6)}`
}

function signedAmount(direction: string, amount: string): string {
  const digits = amount.replace(/^0+(?=\d)/, '')
  return `${direction === '2' ? '-' : ''}${digits}`
}

/** CSV-form field indexes: the fixed-width fields in their order. */
const CSV_FIELDS = { bookingDate: 2, direction: 4, kind: 5, amount: 6, payer: 14, memo: 17 } as const

function readZenginCsv(records: { fields: string[]; line: number }[]): ParsedCsv {
  const rows: string[][] = []
  const lines: number[] = []
  const errors: { line: number; message: string }[] = []
  for (const { fields, line } of records) {
    if (fields[0] !== '2') continue
    if (fields.length <= CSV_FIELDS.amount) {
      errors.push({ line, message: `record ${line} has ${fields.length} fields, expected at least 18` })
      continue
    }
    const at = (i: number): string => fields[i] ?? ''
    rows.push([
      warekiDay(at(CSV_FIELDS.bookingDate)),
      at(CSV_FIELDS.direction),
      at(CSV_FIELDS.kind),
      signedAmount(at(CSV_FIELDS.direction), at(CSV_FIELDS.amount)),
      at(CSV_FIELDS.payer),
      at(CSV_FIELDS.memo),
    ])
    lines.push(line)
  }
  return { headers: [...ZENGIN_HEADERS], rows, lines, errors }
}

/** The data records as a table; `lines` are record numbers (1 = the header record). */
export function readZengin(text: string): ParsedCsv {
  if (!isFixedWidth(text)) {
    const csv = csvRecords(text)
    if (csv) return readZenginCsv(csv)
  }
  const rows: string[][] = []
  const lines: number[] = []
  const errors: { line: number; message: string }[] = []
  records(text).forEach((record, i) => {
    if (!record.startsWith('2')) return
    if (record.length < DATA_FIELDS.memo[0]) {
      errors.push({
        line: i + 1,
        message: `record ${i + 1} is ${record.length} characters, expected ${RECORD}`,
      })
      return
    }
    const direction = field(record, DATA_FIELDS.direction)
    rows.push([
      warekiDay(field(record, DATA_FIELDS.bookingDate)),
      direction,
      field(record, DATA_FIELDS.kind),
      signedAmount(direction, field(record, DATA_FIELDS.amount)),
      field(record, DATA_FIELDS.payer),
      field(record, DATA_FIELDS.memo),
    ])
    lines.push(i + 1)
  })
  return { headers: [...ZENGIN_HEADERS], rows, lines, errors }
}

/** A data record for tests and fixtures: the inverse of `readZengin` for the fields it reads. */
export function zenginDataRecord(input: {
  inquiry: number
  /** 和暦 YYMMDD */
  date: string
  deposit: boolean
  kind: string
  amount: number
  payer: string
  memo: string
}): string {
  const cells = [
    '2',
    String(input.inquiry).padStart(8, '0'),
    input.date,
    input.date,
    input.deposit ? '1' : '2',
    input.kind.padStart(2, '0'),
    String(input.amount).padStart(12, '0'),
    '0'.repeat(12),
    '0'.repeat(6),
    '0'.repeat(6),
    '0',
    '0'.repeat(7),
    '000',
    '0'.repeat(10),
    input.payer.padEnd(48, ' ').slice(0, 48),
    ''.padEnd(15, ' '),
    ''.padEnd(15, ' '),
    input.memo.padEnd(20, ' ').slice(0, 20),
    ''.padEnd(20, ' '),
    ' ',
  ]
  return cells.join('')
}
