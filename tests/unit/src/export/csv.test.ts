import { describe, expect, it } from 'vitest'
import { csvChunks, csvField, toCsv, UTF8_BOM } from '../../../../src/export/csv'
import { ledgerCsvPages } from '../../../../src/export/ledger-csv'
import { TRANSACTION_HEADERS } from '../../../../src/export/month-workbook'
import { history, marksOf } from '../reconcile/fixtures'

const TZ = 'Asia/Tokyo'
const EVIL_NAME = "=cmd|' /C calc'!A0"
const EVIL_NOTE = '=HYPERLINK("http://evil.example","click")'

describe('CSV', () => {
  it('starts with a BOM, ends lines with CRLF and quotes what needs quoting', () => {
    const text = toCsv(
      ['a', 'b'],
      [
        ['x,y', 'say "hi"'],
        ['line\nbreak', null],
      ],
    )
    expect(text.startsWith(UTF8_BOM)).toBe(true)
    expect(text).toBe(`${UTF8_BOM}a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",\r\n`)
  })

  it('guards text a spreadsheet would evaluate, but not numbers', () => {
    expect(csvField('=1+1')).toBe("'=1+1")
    expect(csvField('-2+3')).toBe("'-2+3")
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvField('\t=1')).toBe(`"'\t'=1"`)
    expect(csvField('\r=1')).toBe(`"'\r'=1"`)
    expect(csvField(EVIL_NAME)).toBe(`'${EVIL_NAME}`)
    expect(csvField(EVIL_NOTE)).toBe(`"'=HYPERLINK(""http://evil.example"",""click"")"`)
    expect(csvField(-5)).toBe('-5')
    expect(csvField({ amount: -5, decimals: 2 })).toBe('-5.00')
  })

  it('guards every part a `;`, tab or line-break reader would make a cell of', () => {
    // Excel in a `;` locale splits this comma file on `;`, and honours a quote only at a cell's start.
    expect(csvField('x;=1+2')).toBe(`"x;'=1+2"`)
    expect(csvField('a; -1;ok;@x')).toBe(`"a;' -1;ok;'@x"`)
    expect(csvField('a;\u00A0=1')).toBe(`"a;'\u00A0=1"`)
    expect(csvField('a\t=1')).toBe(`"a\t'=1"`)
    expect(csvField('a\r\n=1')).toBe(`"a\r\n'=1"`)
    expect(csvField('=1;=2')).toBe(`"'=1;'=2"`)
    expect(csvField('a;b')).toBe('"a;b"')
    expect(csvField('1-2;3')).toBe('"1-2;3"')
    expect(csvField({ formula: 'SUM(A1)', result: 'x;=1' })).toBe(`"x;'=1"`)
    // A `;` reader sees each part of the line as a cell: none may start like a formula.
    const line = toCsv(
      ['h;=1', 'ok'],
      [
        ['a', 'x;=1+2'],
        ['\u3000=2', 'y\n-3'],
      ],
    ).slice(1)
    for (const cellText of line.split(/[;,\r\n]/)) {
      const bare = cellText.replace(/^"/, '')
      expect(/^[\s\u00A0\u3000\u200B]*[=+\-@]/.test(bare), JSON.stringify(cellText)).toBe(false)
    }
  })

  it('guards the header row like any row', () => {
    expect(toCsv(['=HEADER', '\u3000+x'], []).slice(1)).toBe(`'=HEADER,'\u3000+x\r\n`)
  })

  it('writes amounts with the currency decimals and dates as wall-clock text', () => {
    expect(csvField({ amount: 0.3, decimals: 2 })).toBe('0.30')
    expect(csvField({ amount: 1050, decimals: 0 })).toBe('1050')
    expect(csvField({ date: Date.UTC(2026, 9, 31, 23, 59, 59) })).toBe('2026-10-31 23:59:59')
    expect(csvField({ formula: 'SUM(A1)', result: 1.5, decimals: 2 })).toBe('1.50')
    expect(csvField({ formula: 'SUM(A1)' })).toBe('')
  })

  it('streams the same text in chunks, the BOM only once', () => {
    const rows = Array.from({ length: 7 }, (_, i) => [i, `r${i}`])
    const chunks = [...csvChunks(['n', 's'], rows, 3)]
    expect(chunks).toHaveLength(3)
    expect(chunks.join('')).toBe(toCsv(['n', 's'], rows))
    expect(chunks.join('').split(UTF8_BOM)).toHaveLength(2)
  })

  it('exports ledger records with the Transactions columns, in the accounting time zone, guarded', async () => {
    const record = history(1, {
      amount: 10_000,
      created_on: '2026-10-05T03:00:00Z',
      user_data: { ...history(1).raw.user_data, cardholder_name: EVIL_NAME },
    })
    const marks = marksOf({
      connectionId: record.connectionId,
      key: record.key,
      state: 'reconciled',
      note: EVIL_NOTE,
      fingerprint: null,
      changedSinceReconciled: 0,
      period: '2026-10',
      updatedAt: 0,
      updatedBy: 'alice',
    })
    let text = ''
    const onePage = async function* () {
      // One page, as the store hands it over after its read of the marks.
      yield await Promise.resolve({ records: [record], marks })
    }
    for await (const chunk of ledgerCsvPages(onePage(), TZ)) text += chunk
    const [header, line] = text.slice(1).split('\r\n')
    expect(header).toBe(TRANSACTION_HEADERS.join(','))
    expect(line).toContain('2026-10-05 12:00:00,charge,')
    expect(line).toContain(`,10000,10000,reconciled,Yes,`) // no fingerprint: changed
    expect(line).toContain(`"'${EVIL_NOTE.replace(/"/g, '""')}"`)
    expect(line).toContain(`'${EVIL_NAME}`)
    expect(line).not.toMatch(/,=/)
  })
})
