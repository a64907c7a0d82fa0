import { describe, expect, it } from 'vitest'
import { exportContract } from '../../../../electron/shared/contract/export'
import { filesContract } from '../../../../electron/shared/contract/files'
import { fileNameProblem } from '../../../../electron/shared/file-name'

const SHEETS = [{ name: 'Summary', columns: [{ header: 'A', kind: 'text', width: 10 }] }]

describe('the file-name rule', () => {
  it('accepts the names the app writes', () => {
    for (const name of [
      'closebook-2026-10.xlsx',
      '締め 2026-10.csv',
      'closebook-journal-yayoi-2026-10.txt',
      'closebook-backup-2026-11-27.jsonl',
      'console.csv',
      'com10.csv',
      'auxiliary.csv',
    ])
      expect(fileNameProblem(name), name).toBeNull()
  })

  it.each([
    ['invoice\u202Evsc.exe', 'invisible'],
    ['invoice\u202Excslx.csv', 'invisible'],
    ['a\u2066b\u2069.csv', 'invisible'],
    ['zero\u200Bwidth.csv', 'invisible'],
    ['bom\uFEFF.csv', 'invisible'],
    ['del\u007F.csv', 'control'],
    ['nul\u0000.csv', 'control'],
    ['c1\u0085.csv', 'control'],
    ['tab\t.csv', 'control'],
    ['CON', 'reserved'],
    ['con.xlsx', 'reserved'],
    ['Con.tar.gz', 'reserved'],
    ['CON .csv', 'reserved'],
    ['nul.csv', 'reserved'],
    ['PRN.json', 'reserved'],
    ['aux.txt', 'reserved'],
    ['COM1.csv', 'reserved'],
    ['lpt9.xlsx', 'reserved'],
    ['COM¹.csv', 'reserved'],
    ['conin$.csv', 'reserved'],
    ['../x.csv', 'path'],
    ['a\\b.csv', 'path'],
    ['C:evil.csv', 'path'],
    ['.hidden.csv', 'dot'],
    ['..', 'dot'],
    ['trailing.csv.', 'edge'],
    ['trailing.csv ', 'edge'],
    [' leading.csv', 'edge'],
    ['', 'empty'],
    [`${'x'.repeat(117)}.csv`, 'too_long'],
  ])('refuses %j (%s)', (name, problem) => {
    expect(fileNameProblem(name)).toBe(problem)
  })

  it('accepts only the expected extension, in any case', () => {
    expect(fileNameProblem('book.XLSX', ['.xlsx'])).toBeNull()
    for (const name of ['book.html', 'book.xlsx.html', 'book.xls', 'book', 'book.xlsx.exe'])
      expect(fileNameProblem(name, ['.xlsx']), name).toBe('extension')
  })
})

describe('the contract applies the rule to every name a caller suggests', () => {
  const begin = filesContract['files:begin'].args
  it('files:begin: the extension must fit the media type', () => {
    expect(begin.safeParse({ suggestedName: 'ledger.csv', mediaType: 'text/csv' }).success).toBe(true)
    expect(begin.safeParse({ suggestedName: 'yayoi.txt', mediaType: 'text/csv' }).success).toBe(true)
    expect(begin.safeParse({ suggestedName: 'b.jsonl', mediaType: 'application/json' }).success).toBe(true)
    const html = begin.safeParse({ suggestedName: 'ledger.html', mediaType: 'text/csv' })
    expect(html.error?.issues).toMatchObject([
      { path: ['suggestedName'], message: expect.stringContaining('.csv or .txt') as unknown },
    ])
    expect(begin.safeParse({ suggestedName: 'b.csv', mediaType: 'application/json' }).success).toBe(false)
  })

  it('files:begin: a gzip file is sent as base64, and only a gzip file is', () => {
    const gz = { suggestedName: 'b.jsonl.gz', mediaType: 'application/gzip' }
    expect(begin.safeParse({ ...gz, encoding: 'base64' }).success).toBe(true)
    for (const encoding of [undefined, 'utf-8', 'shift_jis'])
      expect(begin.safeParse({ ...gz, encoding }).error?.issues).toMatchObject([{ path: ['encoding'] }])
    const text = begin.safeParse({
      suggestedName: 'b.jsonl',
      mediaType: 'application/json',
      encoding: 'base64',
    })
    expect(text.error?.issues).toMatchObject([{ path: ['encoding'] }])
    expect(
      begin.safeParse({ suggestedName: 'b.jsonl', mediaType: 'application/gzip', encoding: 'base64' })
        .success,
    ).toBe(false)
  })

  it.each(['invoice\u202Evsc.exe.csv', 'del\u007F.csv', 'CON.csv', 'Lpt1.csv'])(
    'files:begin refuses %j',
    (suggestedName) => {
      const parsed = begin.safeParse({ suggestedName, mediaType: 'text/csv' })
      expect(parsed.success).toBe(false)
      expect(parsed.error?.issues[0]?.path).toEqual(['suggestedName'])
    },
  )

  it.each(['CON.xlsx', 'book\u202Exslx.exe', 'book.html', 'del\u007F.xlsx', 'book.xlsx\u200B'])(
    'export:begin refuses %j',
    (suggestedName) => {
      const args = exportContract['export:begin'].args
      expect(args.safeParse({ suggestedName, sheets: SHEETS }).success).toBe(false)
      expect(args.safeParse({ suggestedName: 'book.xlsx', sheets: SHEETS }).success).toBe(true)
    },
  )
})
