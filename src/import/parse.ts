/**
 * Parsing of imported CSV text and of its cells (amounts, dates). Pure: no storage, no DOM. Cell parsers
 * return a result instead of throwing, so a 50k-row file yields a list of row/column errors, not the first.
 */
import Papa from 'papaparse'
import { currencyExponent, normalizeCurrency } from '../domain/currency'
import { dayRange, isValidDay } from '../domain/periods'
import { createDayResolver, type DayResolver } from '../domain/local-day'

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string }

/**
 * A structural problem of the file, by line. `code` (with `params`) names it for the display language;
 * `message` is the reader's own English text, for problems without a code (Zengin record lengths).
 * `row_width`: the line has another number of cells than the header and was left out of `rows`.
 */
/** Problems of a file itself (its rows' width, its quotes), as codes the view words. */
export const FILE_ISSUE_CODES = ['row_width', 'unclosed_quote', 'bad_quote'] as const
export type FileIssueCode = (typeof FILE_ISSUE_CODES)[number]

export interface FileIssue {
  line: number
  message: string
  code?: FileIssueCode
  params?: Readonly<Record<string, number>>
}

export interface ParsedCsv {
  headers: string[]
  rows: string[][]
  /** 1-based line in the file where each row starts (the header is line 1): what error messages cite. */
  lines: number[]
  /** Structural problems (a row of the wrong width, an unclosed quote, …), by line. */
  errors: FileIssue[]
}

function isBlank(row: readonly string[]): boolean {
  return row.every((cell) => cell.trim() === '')
}

/** First full-width row is the header (a short preamble is skipped); empty lines are skipped; a leading BOM is dropped. */
export interface ParseOptions {
  /** Recognises a header row (a known layout's), looked for among the first lines before any width rule. */
  isHeader?: (cells: readonly string[]) => boolean
}

export function parseCsv(text: string, options: ParseOptions = {}): ParsedCsv {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const records: { row: string[]; line: number }[] = []
  const errors: { line: number; message: string }[] = []
  // Line numbers are counted from papaparse's cursor, so quoted multi-line cells do not shift them.
  let newlinesBefore = 0
  let scanned = 0
  let rowStart = 0
  Papa.parse<string[]>(source, {
    header: false,
    skipEmptyLines: false,
    step: (result) => {
      while (scanned < rowStart) {
        if (source.charCodeAt(scanned) === 10) newlinesBefore++
        scanned++
      }
      const line = newlinesBefore + 1
      if (!isBlank(result.data)) records.push({ row: result.data, line })
      for (const error of result.errors) errors.push(quoteIssue(line, error))
      // The cursor is past the row's terminator: where the next row starts.
      rowStart = result.meta.cursor
    },
  })
  const headerAt = headerIndex(records.slice(0, HEADER_SEARCH_ROWS), options)
  if (headerAt > 0) records.splice(0, headerAt)
  const header = records.shift()
  const kept = header ? records.filter((r) => fitsHeader(r, header.row, errors)) : records
  return {
    headers: header ? header.row.map((h) => h.trim()) : [],
    rows: kept.map((r) => r.row),
    lines: kept.map((r) => r.line),
    errors: errors.sort((a, b) => a.line - b.line),
  }
}

/** How far down a file its header is looked for. */
const HEADER_SEARCH_ROWS = 30

/**
 * Some banks (Mizuho) put an account preamble above the header, of short lines or of one as wide as the
 * header (照会口座, branch, type, number): the header is the first row a known layout names, else the first
 * row about as wide as the widest of the file's first lines. What comes before it is dropped, so the
 * preamble's width never makes the data rows look malformed.
 */
function headerIndex(first: readonly { row: string[] }[], options: ParseOptions): number {
  const known = options.isHeader
    ? first.findIndex((r) => options.isHeader?.(r.row.map((c) => c.trim())) === true)
    : -1
  if (known >= 0) return known
  const widths = first.map((r) => r.row.filter((c) => c.trim() !== '').length)
  const wanted = Math.max(2, Math.ceil(Math.max(0, ...widths) * 0.6))
  return widths.findIndex((w) => w >= wanted)
}

function quoteIssue(line: number, error: Papa.ParseError): FileIssue {
  const code =
    error.code === 'MissingQuotes' ? 'unclosed_quote' : error.code === 'InvalidQuotes' ? 'bad_quote' : null
  return code ? { line, message: error.message, code, params: { line } } : { line, message: error.message }
}

/**
 * Whether a row has the header's cells, one for one. An unquoted `¥1,234` splits into `¥1` and `234`:
 * read by position, the amount would be 1, so a row with more cells than the header is refused (and
 * reported with its line), and so is a row with fewer. Trailing empty cells hold nothing and are
 * dropped first; a header's trailing empty names need no cells below them.
 */
function fitsHeader(
  record: { row: string[]; line: number },
  header: readonly string[],
  issues: FileIssue[],
): boolean {
  const row = record.row
  while (row.length > header.length && (row[row.length - 1] ?? '').trim() === '') row.pop()
  let named = header.length
  while (named > 0 && (header[named - 1] ?? '').trim() === '') named--
  if (row.length <= header.length && row.length >= named) return true
  const params = { line: record.line, expected: header.length, found: row.length }
  issues.push({
    line: record.line,
    code: 'row_width',
    params,
    message: `line ${record.line} has ${row.length} cells, the header has ${header.length}`,
  })
  return false
}

const SIGN_CHARS = new Set(['-', '−', '△', '▲', '+'])
// "\\" is where Shift_JIS puts the yen sign (0x5C): "\\1,234" in a Japanese export means ¥1,234.
const SYMBOLS: Readonly<Record<string, string>> = {
  '¥': 'JPY',
  '\\': 'JPY',
  円: 'JPY',
  $: 'USD',
  '€': 'EUR',
  '£': 'GBP',
}
const PLAIN_RE = /^(\d+)(?:\.(\d+))?$/
const GROUPED_RE = /^(\d{1,3}(?:,\d{3})+)(?:\.(\d+))?$/
// A code only counts next to the number, so a word like "abc" is not read as currency ABC.
const CODE_PREFIX_RE = /^([A-Z]{3})(?=[\d+\-−△▲(.])/
const CODE_SUFFIX_RE = /(?<=[\d.])([A-Z]{3})$/

/** Currency code of a symbol or code cell ("¥", "円", "usd"); null when it is neither. */
export function currencyOfSymbol(text: string): string | null {
  const s = text.normalize('NFKC').trim()
  if (Object.hasOwn(SYMBOLS, s)) return SYMBOLS[s] ?? null
  return /^[A-Za-z]{3}$/.test(s) ? normalizeCurrency(s) : null
}

/**
 * An amount cell in minor units of `currency`: "1,234", "¥1,234", "$12.50", "-500", "(500)", "△500"
 * (Japanese negative), full-width "１２３", "1,000円", "USD 12.50". A symbol or code naming another
 * currency, or more decimals than the currency has, is an error rather than a silent conversion.
 */
export function parseAmount(text: string, currency: string): ParseResult<number> {
  const code = normalizeCurrency(currency)
  // NFKC turns full-width digits, "，", "－", "￥" and "（）" into their ASCII / ¥ forms.
  let s = normalizeCell(text).replace(/\s+/g, '')
  if (s === '') return { ok: false, error: 'empty amount' }
  let negative = false
  let signs = 0
  const otherCurrency = (found: string): ParseResult<number> => ({
    ok: false,
    error: `amount is in ${found}, expected ${code}`,
  })
  if (s.startsWith('(') && s.endsWith(')')) {
    negative = true
    signs++
    s = s.slice(1, -1)
  }
  // Signs and currency marks may come in either order before the number: "-¥500", "¥-500", "USD-1".
  for (let guard = 0; guard < 4 && s !== ''; guard++) {
    const first = s.charAt(0)
    if (SIGN_CHARS.has(first)) {
      if (++signs > 1) return { ok: false, error: `not an amount: ${text}` }
      negative = first !== '+'
      s = s.slice(1)
      continue
    }
    const symbol = SYMBOLS[first]
    if (symbol !== undefined) {
      if (symbol !== code) return otherCurrency(symbol)
      s = s.slice(1)
      continue
    }
    const prefix = CODE_PREFIX_RE.exec(s.toUpperCase())
    if (prefix?.[1] !== undefined) {
      if (prefix[1] !== code) return otherCurrency(prefix[1])
      s = s.slice(3)
      continue
    }
    break
  }
  for (let guard = 0; guard < 2 && s !== ''; guard++) {
    const last = s.charAt(s.length - 1)
    const symbol = SYMBOLS[last]
    if (symbol !== undefined) {
      if (symbol !== code) return otherCurrency(symbol)
      s = s.slice(0, -1)
      continue
    }
    const suffix = CODE_SUFFIX_RE.exec(s.toUpperCase())
    if (suffix?.[1] !== undefined) {
      if (suffix[1] !== code) return otherCurrency(suffix[1])
      s = s.slice(0, -3)
      continue
    }
    break
  }
  const match = PLAIN_RE.exec(s) ?? GROUPED_RE.exec(s)
  if (!match?.[1]) return { ok: false, error: `not an amount: ${text}` }
  const integer = match[1].replace(/,/g, '')
  const fraction = match[2] ?? ''
  const exponent = currencyExponent(code)
  if (fraction.replace(/0+$/, '').length > exponent) {
    return { ok: false, error: `${code} has ${exponent} decimals, got ${text}` }
  }
  // String arithmetic: 12.50 USD must be exactly 1250, never 1249.9999.
  const minor = Number(integer + fraction.padEnd(exponent, '0').slice(0, exponent))
  if (!Number.isSafeInteger(minor)) return { ok: false, error: `amount too large: ${text}` }
  return { ok: true, value: negative && minor !== 0 ? -minor : minor }
}

export interface ParsedDate {
  /** Epoch ms: the instant given, or the first instant of the day in the accounting zone. */
  at: number
  /** `YYYY-MM-DD` in the accounting zone. */
  day: string
}

const DATE_RE =
  /^(\d{4})\s*(?:[-/.]|年)\s*(\d{1,2})\s*(?:[-/.]|月)\s*(\d{1,2})\s*日?(?:(?:\s+|T)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i

// Day starts cost several Intl calls; imported files repeat the same few hundred days.
const dayStartCache = new Map<string, number>()

function dayStart(day: string, timeZone: string): number {
  const key = `${timeZone}|${day}`
  let start = dayStartCache.get(key)
  if (start === undefined) {
    if (dayStartCache.size > 20_000) dayStartCache.clear()
    start = dayRange(day, timeZone).from
    dayStartCache.set(key, start)
  }
  return start
}

const resolvers = new Map<string, DayResolver>()

function localDay(epochMs: number, timeZone: string): string {
  let resolve = resolvers.get(timeZone)
  if (!resolve) resolvers.set(timeZone, (resolve = createDayResolver(timeZone)))
  return resolve(epochMs)
}

/** NFKC (full-width digits, "￥", "－" …), skipped for printable ASCII, which it never changes. */
function normalizeCell(text: string): string {
  return /[^ -~]/.test(text) ? text.normalize('NFKC') : text
}

function pad2(n: number): string {
  return String(n).padStart(2, '0')
}

// 和暦: the era's year 1 is the base + 1 (令和1 = 2019). "元" (first year) is year 1.
const ERAS: Readonly<Record<string, number>> = {
  令和: 2018,
  R: 2018,
  平成: 1988,
  H: 1988,
  昭和: 1925,
  S: 1925,
}
const WAREKI_RE =
  /^(令和|平成|昭和|[RHS])\s*(\d{1,2}|元)\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?(.*)$/i
const COMPACT_RE = /^(\d{4})(\d{2})(\d{2})(?:\s+(\d{1,2}:\d{2}.*))?$/
const SHORT_YEAR_RE = /^(\d{2})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{1,2})(\s.*)?$/
// An Excel serial day number (a date in a "General" cell): 1954-10-04 .. 2119-01-08, time as a fraction.
const SERIAL_RE = /^(\d{5})(?:\.(\d+))?$/
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30)

/**
 * Rewrites the other date forms Japanese exports use into `YYYY-MM-DD[ time]`: 和暦 (`R6.11.24`,
 * `令和6年11月24日`, `H31.4.30`), `20241124`, two-digit years (`24-11-24` = 2024), Excel serial numbers.
 * Anything else is returned as it was, for DATE_RE to accept or refuse.
 */
export function toIsoLikeDate(text: string): string {
  const wareki = WAREKI_RE.exec(text)
  if (wareki) {
    const base = ERAS[wareki[1] ?? ''] ?? ERAS[(wareki[1] ?? '').toUpperCase()]
    if (base !== undefined) {
      const year = base + (wareki[2] === '元' ? 1 : Number(wareki[2]))
      return `${year}-${wareki[3] ?? ''}-${wareki[4] ?? ''}${wareki[5] ?? ''}`
    }
  }
  const compact = COMPACT_RE.exec(text)
  if (compact) return `${compact[1]}-${compact[2]}-${compact[3]}${compact[4] ? ` ${compact[4]}` : ''}`
  const short = SHORT_YEAR_RE.exec(text)
  if (short) return `20${short[1]}-${short[2]}-${short[3]}${short[4] ?? ''}`
  const serial = SERIAL_RE.exec(text)
  if (serial) {
    const days = Number(serial[1])
    if (days >= 20_000 && days <= 80_000) {
      const ms = Math.round(Number(`0.${serial[2] ?? '0'}`) * 86_400) * 1000
      const iso = new Date(EXCEL_EPOCH_MS + days * 86_400_000 + ms).toISOString()
      return ms === 0 ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ')
    }
  }
  return text
}

// "14時30分", "14時30分15秒" (after a date, with or without a space): read as "14:30", "14:30:15".
const KANJI_TIME_RE = /\s*(\d{1,2})\s*時\s*(\d{1,2})\s*分(?:\s*(\d{1,2})\s*秒)?$/

/** Rewrites a trailing time written in kanji units into `H:MM[:SS]`, after one space; other text as it was. */
export function withColonTime(text: string): string {
  const m = KANJI_TIME_RE.exec(text)
  if (!m) return text
  const time = `${m[1]}:${(m[2] ?? '').padStart(2, '0')}${m[3] === undefined ? '' : `:${m[3].padStart(2, '0')}`}`
  return `${text.slice(0, m.index)} ${time}`
}

/**
 * A date cell: ISO `2026-10-01`, `2026-10-01T10:00:00+09:00`, `2026/10/01`, `2026/10/01 10:00`,
 * `2026年10月1日`, `2026年10月6日 14時30分`, and the forms of `toIsoLikeDate`. Without an offset, the time is wall-clock time in the accounting zone.
 */
export function parseDateDay(text: string, timeZone: string): ParseResult<ParsedDate> {
  const m = DATE_RE.exec(toIsoLikeDate(withColonTime(normalizeCell(text).trim())))
  if (!m) return { ok: false, error: `not a date: ${text}` }
  const day = `${m[1]}-${pad2(Number(m[2]))}-${pad2(Number(m[3]))}`
  if (!isValidDay(day)) return { ok: false, error: `not a date: ${text}` }
  if (m[4] === undefined) return { ok: true, value: { at: dayStart(day, timeZone), day } }
  const [h, min, sec] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)]
  if (h > 23 || min > 59 || sec > 59) return { ok: false, error: `not a time: ${text}` }
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3))
  const wallMs = ((h * 60 + min) * 60 + sec) * 1000 + ms
  const offset = m[8]
  if (offset === undefined) {
    // Wall time = day start + elapsed time; off by the shift only on a DST-change day (not in Japan).
    return { ok: true, value: { at: dayStart(day, timeZone) + wallMs, day } }
  }
  let offsetMs = 0
  if (offset.toUpperCase() !== 'Z') {
    const digits = offset.replace(':', '')
    const sign = digits.startsWith('-') ? -1 : 1
    offsetMs = sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * 60_000
  }
  const at = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + wallMs - offsetMs
  // An explicit offset may put the instant on another day of the accounting zone.
  return { ok: true, value: { at, day: localDay(at, timeZone) } }
}

/** Epoch ms of a date cell (see `parseDateDay`). */
export function parseDate(text: string, timeZone: string): ParseResult<number> {
  const result = parseDateDay(text, timeZone)
  return result.ok ? { ok: true, value: result.value.at } : result
}
