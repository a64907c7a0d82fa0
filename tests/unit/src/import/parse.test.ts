import { describe, expect, it } from 'vitest'
import {
  currencyOfSymbol,
  parseAmount,
  parseCsv,
  parseDate,
  parseDateDay,
} from '../../../../src/import/parse'

const TOKYO = 'Asia/Tokyo'

describe('parseCsv', () => {
  it('splits the header from rows, skips empty lines and keeps file line numbers', () => {
    const parsed = parseCsv(
      '\ufeffOrder, Date ,Amount\r\nA-1,2026-10-01,"1,000"\r\n\r\n"B\r\n2",2026-10-02,500\r\nC-3,2026-10-03,7\r\n',
    )
    expect(parsed.headers).toEqual(['Order', 'Date', 'Amount'])
    expect(parsed.rows).toEqual([
      ['A-1', '2026-10-01', '1,000'],
      ['B\r\n2', '2026-10-02', '500'],
      ['C-3', '2026-10-03', '7'],
    ])
    // Line 3 is empty; the quoted cell of line 4 spans two lines, so C-3 is on line 6.
    expect(parsed.lines).toEqual([2, 4, 6])
    expect(parsed.errors).toEqual([])
  })

  it('returns no headers for an empty file', () => {
    expect(parseCsv('')).toEqual({ headers: [], rows: [], lines: [], errors: [] })
  })

  it('reports an unclosed quote with its line', () => {
    const parsed = parseCsv('a,b\n1,"2\n')
    expect(parsed.errors.length).toBeGreaterThan(0)
    expect(parsed.errors[0]).toMatchObject({ line: 2, code: 'unclosed_quote', params: { line: 2 } })
  })

  it('refuses a row an unquoted "¥1,234" splits into more cells than the header, naming line and counts', () => {
    const parsed = parseCsv('order,date,amount\nA-1,2026-10-01,¥1,234\nA-2,2026-10-02,500\n')
    // Never read by position as an amount of 1: the row is not among the rows at all.
    expect(parsed.rows).toEqual([['A-2', '2026-10-02', '500']])
    expect(parsed.lines).toEqual([3])
    expect(parsed.errors).toEqual([
      {
        line: 2,
        code: 'row_width',
        params: { line: 2, expected: 3, found: 4 },
        message: 'line 2 has 4 cells, the header has 3',
      },
    ])
  })

  it('refuses a row with fewer cells than the header', () => {
    const parsed = parseCsv('order,date,amount\nA-1,2026-10-01\nA-2,2026-10-02,500\n')
    expect(parsed.lines).toEqual([3])
    expect(parsed.errors).toMatchObject([{ line: 2, params: { expected: 3, found: 2 } }])
  })

  it('accepts trailing empty cells past the header, and no cells under empty trailing header names', () => {
    const parsed = parseCsv('order,amount\nA-1,5,\nA-2,6,,\n')
    expect(parsed.rows).toEqual([
      ['A-1', '5'],
      ['A-2', '6'],
    ])
    expect(parsed.errors).toEqual([])
    const open = parseCsv('order,amount,\nA-1,5\nA-2,6,x\n')
    expect(open.rows).toEqual([
      ['A-1', '5'],
      ['A-2', '6', 'x'],
    ])
    expect(open.errors).toEqual([])
  })
})

describe('parseAmount', () => {
  const ok = (value: number) => ({ ok: true, value })
  it.each([
    ['1234', 'JPY', 1234],
    ['1,234', 'JPY', 1234],
    ['¥1,234', 'JPY', 1234],
    ['￥1,234', 'JPY', 1234],
    ['1,234円', 'JPY', 1234],
    ['\\1,234', 'JPY', 1234],
    ['1234JPY', 'JPY', 1234],
    ['JPY 1,234', 'JPY', 1234],
    ['$12.50', 'USD', 1250],
    ['12.5', 'USD', 1250],
    ['USD 1,234.56', 'usd', 123456],
    ['-500', 'JPY', -500],
    ['−500', 'JPY', -500],
    ['-¥500', 'JPY', -500],
    ['¥-500', 'JPY', -500],
    ['(500)', 'JPY', -500],
    ['($12.50)', 'USD', -1250],
    ['△500', 'JPY', -500],
    ['▲1,000', 'JPY', -1000],
    ['１２３', 'JPY', 123],
    ['－１，２３４', 'JPY', -1234],
    [' +42 ', 'JPY', 42],
    ['1.000', 'JPY', 1],
    ['0', 'JPY', 0],
    ['1.234', 'KWD', 1234],
  ])('%s %s → %d', (text, currency, value) => {
    expect(parseAmount(text, currency)).toEqual(ok(value))
  })

  it.each([
    ['', 'JPY', 'empty amount'],
    ['abc', 'JPY', 'not an amount'],
    ['12abc', 'JPY', 'amount is in ABC'],
    ['12.5', 'JPY', 'JPY has 0 decimals'],
    ['$12.50', 'JPY', 'amount is in USD, expected JPY'],
    ['1,000 EUR', 'JPY', 'amount is in EUR'],
    ['1,23', 'JPY', 'not an amount'],
    ['--5', 'JPY', 'not an amount'],
    ['12.345', 'USD', 'USD has 2 decimals'],
    ['99999999999999999999', 'JPY', 'too large'],
  ])('%s %s is an error (%s)', (text, currency, message) => {
    const result = parseAmount(text, currency)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error).toContain(message)
  })
})

describe('currencyOfSymbol', () => {
  it('maps symbols and codes', () => {
    expect(currencyOfSymbol('円')).toBe('JPY')
    expect(currencyOfSymbol('￥')).toBe('JPY')
    expect(currencyOfSymbol('usd')).toBe('USD')
    expect(currencyOfSymbol('dollars')).toBeNull()
    expect(currencyOfSymbol('constructor')).toBeNull()
  })
})

describe('parseDate', () => {
  // 2026-10-01 00:00 in Tokyo is 2026-09-30T15:00Z.
  const startOct1 = Date.UTC(2026, 8, 30, 15)
  it.each([
    ['2026-10-01', startOct1],
    ['2026/10/01', startOct1],
    ['2026/10/1', startOct1],
    ['2026.10.01', startOct1],
    ['2026年10月1日', startOct1],
    ['２０２６年１０月１日', startOct1],
    ['2026/10/01 10:00', startOct1 + 10 * 3_600_000],
    ['2026年10月1日 14時30分', startOct1 + 14.5 * 3_600_000],
    ['2026年10月1日14時30分', startOct1 + 14.5 * 3_600_000],
    ['2026年10月1日 9時05分30秒', startOct1 + (9 * 3600 + 5 * 60 + 30) * 1000],
    ['２０２６年１０月１日　１４時３０分', startOct1 + 14.5 * 3_600_000],
    ['2026-10-01 10:00:30', startOct1 + 10 * 3_600_000 + 30_000],
    ['2026-10-01T10:00:00+09:00', startOct1 + 10 * 3_600_000],
    ['2026-10-01T01:00:00Z', startOct1 + 10 * 3_600_000],
    ['2026-10-01T01:00:00.500Z', startOct1 + 10 * 3_600_000 + 500],
  ])('%s', (text, at) => {
    expect(parseDate(text, TOKYO)).toEqual({ ok: true, value: at })
  })

  it('reads a date in the given zone', () => {
    expect(parseDate('2026-10-01', 'UTC')).toEqual({ ok: true, value: Date.UTC(2026, 9, 1) })
    expect(parseDate('2026-10-01 10:00', 'America/New_York')).toEqual({
      ok: true,
      value: Date.UTC(2026, 9, 1, 14),
    })
  })

  it('gives the day in the accounting zone when the offset moves it', () => {
    // 20:00 UTC on Sept 30 is already Oct 1 in Tokyo: month end crossed.
    const result = parseDateDay('2026-09-30T20:00:00Z', TOKYO)
    expect(result.ok && result.value.day).toBe('2026-10-01')
  })

  it.each([
    '',
    'yesterday',
    '2026-02-30',
    '2026-13-01',
    '2026/10/01 25:00',
    '10/01/2026',
    '2026年10月1日 25時00分',
    '2026年10月1日 14時',
  ])('%s is an error', (text) => {
    const result = parseDate(text, TOKYO)
    expect(result.ok).toBe(false)
  })
})
