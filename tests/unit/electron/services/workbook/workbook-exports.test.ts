import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DeliverFile } from '../../../../../electron/services/files/file-writer'
import { moveIntoPlace } from '../../../../../electron/services/files/move-into-place'
import {
  packedRowsXml,
  repeatingColumns,
  RowStyles,
  rowXml,
  SharedTexts,
  textElement,
  xmlText,
} from '../../../../../electron/services/workbook/row-xml'
import { WorkbookExports } from '../../../../../electron/services/workbook/workbook-exports'
import { desktopApiContract } from '../../../../../electron/shared/contract'
import {
  packRows,
  type ExportBeginArgs,
  type ExportRow,
  type PackedRows,
} from '../../../../../electron/shared/contract/export'
import { DesktopApiError } from '../../../../../electron/shared/errors'

// The month's own sheets, built from the cache and recalculated by LibreOffice, are tested in
// tests/integration/export (they need src/ and node together); here, the writer on its own.

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-workbook-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const tmpFiles = async (): Promise<string[]> => readdir(join(dir, 'tmp')).catch(() => [])

function saveTo(target: string): DeliverFile {
  return async (temp, name) => {
    await moveIntoPlace(temp, target)
    return { savedTo: 'path', path: target, fileName: name }
  }
}

describe('WorkbookExports: cells, formats and sheet settings, read back with exceljs', () => {
  it('writes each cell kind with its type and format, guards text, freezes the header, filters the table', async () => {
    const target = join(dir, 'book.xlsx')
    const exports = new WorkbookExports({ dataDir: dir, deliverFile: saveTo(target) })
    const id = await exports.begin({
      suggestedName: 'closebook-a-2026-10.xlsx',
      title: 'Closebook 2026-10',
      sheets: [
        {
          name: 'Summary',
          preamble: [
            ['Merchant', '=evil()'],
            ['Generated at', { date: Date.UTC(2026, 10, 2, 10, 2, 3) }],
            [],
          ],
          columns: [
            { header: 'Currency', kind: 'text', width: 12 },
            { header: 'Total', kind: 'amount', width: 15 },
            { header: 'Count', kind: 'integer', width: 10 },
          ],
        },
        {
          name: 'Data',
          columns: [
            { header: 'When', kind: 'datetime', width: 20 },
            { header: 'Day', kind: 'date', width: 12 },
            { header: 'Currency', kind: 'text', width: 10 },
            { header: 'Amount', kind: 'amount', width: 14 },
            { header: 'Count', kind: 'integer', width: 8 },
            { header: 'Text', kind: 'text', width: 30 },
          ],
        },
      ],
    })
    await exports.appendRows(id, 'Summary', [
      ['USD', { formula: "ROUND(SUMIFS('Data'!$D:$D,'Data'!$C:$C,$A5),2)", result: 12.34, decimals: 2 }, 7],
      [
        'JPY',
        { formula: "ROUND(SUMIFS('Data'!$D:$D,'Data'!$C:$C,$A6),0)", result: 1050, decimals: 0 },
        { formula: 'COUNTIF(A:A,"x")', result: 0 },
      ],
    ])
    const texts = ['=1+1', '+1', '-1', '@A1', '\t=1', '\r=1', '＝1', 'plain', '山田 太郎']
    await exports.appendRows(
      id,
      'Data',
      texts.map((text, i): ExportRow => [
        { date: Date.UTC(2026, 9, 31, 23, 59, 59) },
        { date: Date.UTC(2026, 9, 31) },
        i % 2 ? 'USD' : 'JPY',
        i % 2 ? { amount: -12.34, decimals: 2 } : { amount: 1050, decimals: 0 },
        i,
        text,
      ]),
    )
    await exports.finish(id)
    expect(await tmpFiles()).toEqual([])

    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(target)
    expect(book.worksheets.map((w) => w.name)).toEqual(['Summary', 'Data'])
    expect(book.title).toBe('Closebook 2026-10')

    const summary = book.getWorksheet('Summary')
    if (!summary) throw new Error('no Summary')
    expect(summary.getCell('B1').value).toBe("'=evil()")
    expect(summary.getCell('B2').value).toEqual(new Date(Date.UTC(2026, 10, 2, 10, 2, 3)))
    expect(summary.getCell('B2').numFmt).toBe('yyyy-mm-dd hh:mm:ss')
    expect(summary.getCell('A4').value).toBe('Currency')
    expect(summary.getCell('A4').font?.bold).toBe(true)
    expect(summary.views[0]).toMatchObject({ state: 'frozen', ySplit: 4 })
    expect(summary.autoFilter).toBe('A4:C6')
    expect(summary.getCell('B5').value).toEqual({
      formula: "ROUND(SUMIFS('Data'!$D:$D,'Data'!$C:$C,$A5),2)",
      result: 12.34,
    })
    expect(summary.getCell('B5').numFmt).toBe('#,##0.00')
    expect(summary.getCell('B6').numFmt).toBe('#,##0')
    expect(summary.getCell('C5').value).toBe(7)
    expect(summary.getCell('C5').numFmt).toBe('#,##0')
    expect(summary.getColumn(2).width).toBe(15)

    const data = book.getWorksheet('Data')
    if (!data) throw new Error('no Data')
    expect(data.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 })
    expect(data.autoFilter).toBe(`A1:F${texts.length + 1}`)
    expect(data.getColumn(6).width).toBe(30)
    const when = data.getCell('A2')
    expect(when.type).toBe(ExcelJS.ValueType.Date)
    expect(when.value).toEqual(new Date(Date.UTC(2026, 9, 31, 23, 59, 59)))
    expect(when.numFmt).toBe('yyyy-mm-dd hh:mm:ss')
    expect(data.getCell('B2').numFmt).toBe('yyyy-mm-dd')
    expect(data.getCell('D2')).toMatchObject({ type: ExcelJS.ValueType.Number, value: 1050, numFmt: '#,##0' })
    expect(data.getCell('D3')).toMatchObject({ value: -12.34, numFmt: '#,##0.00' })
    expect(data.getCell('E3')).toMatchObject({ value: 1, numFmt: '#,##0' })
    const written = texts.map((_, i) => data.getCell(i + 2, 6).value)
    expect(written).toEqual(["'=1+1", "'+1", "'-1", "'@A1", "'\t=1", "'\r=1", "'＝1", 'plain', '山田 太郎'])
    for (let r = 2; r <= texts.length + 1; r++) expect(data.getCell(r, 6).type).toBe(ExcelJS.ValueType.String)
  })

  it('writes 2,000-row chunks across sheets in order, numbering rows without gaps', async () => {
    const target = join(dir, 'big.xlsx')
    const exports = new WorkbookExports({ dataDir: dir, deliverFile: saveTo(target) })
    const id = await exports.begin({
      suggestedName: 'big.xlsx',
      sheets: ['A', 'B'].map((name) => ({
        name,
        columns: [{ header: 'n', kind: 'integer' as const, width: 8 }],
      })),
    })
    let written = 0
    for (let chunk = 0; chunk < 3; chunk++)
      written = await exports.appendRows(
        id,
        'A',
        Array.from({ length: 2000 }, (_, i) => [chunk * 2000 + i]),
      )
    written = await exports.appendRows(id, 'B', [[1]])
    expect(written).toBe(6001)
    await exports.finish(id)
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(target)
    const a = book.getWorksheet('A')
    expect(a?.rowCount).toBe(6001)
    expect(a?.getCell('A6001').value).toBe(5999)
    expect(a?.autoFilter).toBe('A1:A6001')
  })
})

describe('WorkbookExports: text outside the cells is guarded too', () => {
  it('writes formula-like headers and the document title with a leading apostrophe', async () => {
    const target = join(dir, 'guard.xlsx')
    const exports = new WorkbookExports({ dataDir: dir, deliverFile: saveTo(target) })
    const id = await exports.begin({
      suggestedName: 'guard.xlsx',
      title: '=HYPERLINK("http://evil.example")',
      sheets: [
        {
          name: 'Data',
          columns: [
            { header: '=cmd|calc!A0', kind: 'text', width: 10 },
            { header: '\u3000+1', kind: 'text', width: 10 },
            { header: 'Plain', kind: 'text', width: 10 },
          ],
        },
      ],
    })
    await exports.appendRows(id, 'Data', [['\u0000=1+1', '\u00A0-1', 'x']])
    await exports.finish(id)
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(target)
    expect(book.title).toBe(`'=HYPERLINK("http://evil.example")`)
    const data = book.getWorksheet('Data')
    if (!data) throw new Error('no Data')
    expect([1, 2, 3].map((c) => data.getCell(1, c).value)).toEqual(["'=cmd|calc!A0", "'\u3000+1", 'Plain'])
    // NUL is dropped by the XML writer: the guard must already have seen through it.
    expect(data.getCell('A2').value).toBe("'=1+1")
    expect(data.getCell('B2').value).toBe("'\u00A0-1")
  })
})

describe('WorkbookExports: packed chunks', () => {
  const columns: ExportBeginArgs['sheets'][number]['columns'] = [
    { header: 'When', kind: 'datetime', width: 20 },
    { header: 'Day', kind: 'date', width: 12 },
    { header: 'Text', kind: 'text', width: 30 },
    { header: 'Amount', kind: 'amount', width: 14 },
    { header: 'Count', kind: 'integer', width: 8 },
    { header: 'Plain', kind: 'number', width: 8 },
  ]
  const texts = ['=1+1', '＝1', '@A1', 'a<b>&"c"', 'a\r\n\tb', 'x\u0000y', '山田 太郎', '', 'plain']
  const sample: ExportRow[] = texts.map((text, i) => [
    { date: Date.UTC(2026, 9, 31, 23, 59, 59) + i },
    i % 3 ? { date: Date.UTC(2026, 9, 31) } : null,
    text,
    { amount: i % 2 ? -12.34 : 1050 + i, decimals: i % 2 ? 2 : 0 },
    i,
    i % 4 ? i / 8 : null,
  ])
  sample.push(['short row'], [])

  async function write(name: string, send: (rows: ExportRow[]) => readonly ExportRow[] | PackedRows) {
    const target = join(dir, name)
    const exports = new WorkbookExports({ dataDir: dir, deliverFile: saveTo(target) })
    const id = await exports.begin({ suggestedName: name, sheets: [{ name: 'Data', columns }] })
    expect(await exports.appendRows(id, 'Data', send(sample.slice(0, 5)))).toBe(5)
    expect(await exports.appendRows(id, 'Data', send(sample.slice(5)))).toBe(sample.length)
    await exports.finish(id)
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(target)
    const ws = book.getWorksheet('Data')
    if (!ws) throw new Error('no Data')
    const cells: unknown[] = []
    ws.eachRow({ includeEmpty: true }, (row, r) =>
      row.eachCell({ includeEmpty: true }, (cell, c) =>
        cells.push([r, c, cell.type, cell.value, cell.numFmt ?? null]),
      ),
    )
    return { cells, rowCount: ws.rowCount, autoFilter: ws.autoFilter, views: ws.views }
  }

  it('writes the same cells, types, formats and sheet settings as plain rows', async () => {
    const plain = await write('plain.xlsx', (rows) => rows)
    const packed = await write('packed.xlsx', (rows) => {
      const p = packRows(rows, columns.length)
      if (!p) throw new Error('not packable')
      return p
    })
    expect(packed).toEqual(plain)
    expect(plain.rowCount).toBe(sample.length + 1)
    expect(plain.cells).toContainEqual([2, 3, ExcelJS.ValueType.String, "'=1+1", null])
    expect(plain.cells).toContainEqual([5, 4, ExcelJS.ValueType.Number, -12.34, '#,##0.00'])
  })

  it('shares repeated texts through the string table and still reads back the cells of plain rows', async () => {
    // A repeating column (with texts that must stay inline: CR, edge spaces) beside a unique one.
    const kinds = ['ok', '=cmd', ' lead', 'a\rb', '山田', 'x  y', '']
    const rows: ExportRow[] = Array.from({ length: 700 }, (_, i) => [
      kinds[i % kinds.length] ?? null,
      `id-${i}`,
    ])
    const cols: ExportBeginArgs['sheets'][number]['columns'] = [
      { header: 'Kind', kind: 'text', width: 10 },
      { header: 'Id', kind: 'text', width: 10 },
    ]
    const read = async (name: string, pack: boolean) => {
      const target = join(dir, name)
      const exports = new WorkbookExports({ dataDir: dir, deliverFile: saveTo(target) })
      const id = await exports.begin({ suggestedName: name, sheets: [{ name: 'S', columns: cols }] })
      for (let i = 0; i < rows.length; i += 300) {
        const chunk = rows.slice(i, i + 300)
        await exports.appendRows(id, 'S', pack ? (packRows(chunk, 2) ?? []) : chunk)
      }
      await exports.finish(id)
      const book = new ExcelJS.Workbook()
      await book.xlsx.readFile(target)
      const values: unknown[] = []
      book.getWorksheet('S')?.eachRow((row) => values.push([row.getCell(1).value, row.getCell(2).value]))
      return values
    }
    const plain = await read('plain.xlsx', false)
    expect(await read('shared.xlsx', true)).toEqual(plain)
    expect(plain).toContainEqual(["'=cmd", 'id-1'])
    expect(plain).toContainEqual(['a\rb', 'id-3'])
  })

  it('lets the zip keep up with the rows instead of holding the sheet until finish', async () => {
    const target = join(dir, 'steady.xlsx')
    const exports = new WorkbookExports({ dataDir: dir, deliverFile: saveTo(target) })
    const id = await exports.begin({
      suggestedName: 'steady.xlsx',
      sheets: [{ name: 'S', columns: [{ header: 'Id', kind: 'text', width: 10 }] }],
    })
    for (let chunk = 0; chunk < 10; chunk++) {
      const rows = Array.from({ length: 2000 }, (_, i) => [`${chunk}-${i}-${(i * 7919) % 104729}`])
      await exports.appendRows(id, 'S', packRows(rows, 1) ?? [])
    }
    const [partial] = await tmpFiles()
    // ~1 MB of sheet XML went in; most of it must be deflated and on disk by now, not buffered.
    expect((await stat(join(dir, 'tmp', partial ?? ''))).size).toBeGreaterThan(50_000)
    await exports.finish(id)
  })

  it('refuses a packed chunk that does not add up, is wider than the sheet or holds a date Excel cannot hold', async () => {
    const spec: ExportBeginArgs = {
      suggestedName: 'x.xlsx',
      sheets: [{ name: 'A', columns: [{ header: 'n', kind: 'integer', width: 8 }] }],
    }
    const exports = new WorkbookExports({ dataDir: dir, deliverFile: saveTo(join(dir, 'x.xlsx')) })
    const bad: PackedRows[] = [
      { width: 1, cells: new Float64Array([1, 3]), text: 'ab' },
      { width: 1, cells: new Float64Array([2, Number.NaN]), text: '' },
      { width: 1, cells: new Float64Array([99, 1]), text: '' },
      { width: 1, cells: new Float64Array([2]), text: '' },
      { width: 2, cells: new Float64Array([2, 1, 2, 2]), text: '' },
      { width: 1, cells: new Float64Array([3, Date.UTC(1800, 0, 1)]), text: '' },
    ]
    for (const packed of bad) {
      const id = await exports.begin(spec)
      await expect(exports.appendRows(id, 'A', packed), JSON.stringify(packed)).rejects.toMatchObject({
        code: 'invalid_argument',
      })
    }
    expect(await tmpFiles()).toEqual([])
  })
})

describe('WorkbookExports: nothing partial, ever', () => {
  const spec: ExportBeginArgs = {
    suggestedName: 'closebook-x-2026-10.xlsx',
    sheets: [
      { name: 'A', columns: [{ header: 'n', kind: 'integer', width: 8 }] },
      { name: 'B', columns: [{ header: 'n', kind: 'integer', width: 8 }] },
    ],
  }
  const rows = (n: number): ExportRow[] => Array.from({ length: n }, (_, i) => [i])

  it('cancel mid-export leaves no file and keeps an existing target as it was', async () => {
    const target = join(dir, 'closebook-x-2026-10.xlsx')
    await writeFile(target, 'last month')
    const exports = new WorkbookExports({ dataDir: dir, deliverFile: saveTo(target) })
    const id = await exports.begin(spec)
    await exports.appendRows(id, 'A', rows(2000))
    await exports.appendRows(id, 'B', rows(10))
    expect(await tmpFiles()).toHaveLength(1)
    expect(await exports.cancel(id)).toBe(true)
    expect(await tmpFiles()).toEqual([])
    expect(await readFile(target, 'utf8')).toBe('last month')
    await expect(exports.appendRows(id, 'B', rows(1))).rejects.toMatchObject({ code: 'not_found' })
    expect(await exports.cancel(id)).toBe(false)
  })

  it('a delivery that fails or is cancelled by the user leaves nothing behind', async () => {
    const target = join(dir, 'kept.xlsx')
    await writeFile(target, 'old')
    const failing = new WorkbookExports({
      dataDir: dir,
      deliverFile: () => Promise.reject(new DesktopApiError('disk_full', 'full')),
    })
    const a = await failing.begin(spec)
    await failing.appendRows(a, 'A', rows(5))
    await expect(failing.finish(a)).rejects.toMatchObject({ code: 'disk_full' })
    const declined = new WorkbookExports({
      dataDir: dir,
      deliverFile: (_t, fileName) => Promise.resolve({ savedTo: 'cancelled', fileName }),
    })
    const b = await declined.begin(spec)
    await expect(declined.finish(b)).resolves.toMatchObject({ savedTo: 'cancelled' })
    expect(await tmpFiles()).toEqual([])
    expect(await readFile(target, 'utf8')).toBe('old')
  })

  it('refuses rows out of sheet order, rows wider than the sheet and cells Excel cannot hold, discarding the export', async () => {
    const exports = new WorkbookExports({ dataDir: dir, deliverFile: saveTo(join(dir, 'x.xlsx')) })
    const a = await exports.begin(spec)
    await exports.appendRows(a, 'B', rows(1))
    await expect(exports.appendRows(a, 'A', rows(1))).rejects.toMatchObject({ code: 'conflict' })
    await expect(exports.appendRows(a, 'B', rows(1))).rejects.toMatchObject({ code: 'not_found' })
    const b = await exports.begin(spec)
    await expect(exports.appendRows(b, 'A', [[1, 2]])).rejects.toMatchObject({ code: 'invalid_argument' })
    const c = await exports.begin(spec)
    await expect(exports.appendRows(c, 'A', [[{ date: Date.UTC(1800, 0, 1) }]])).rejects.toMatchObject({
      code: 'invalid_argument',
    })
    const d = await exports.begin(spec)
    await expect(exports.appendRows(d, 'Nope', rows(1))).rejects.toMatchObject({ code: 'invalid_argument' })
    expect(await tmpFiles()).toEqual([])
  })

  it('sweeps exports abandoned for longer than the idle time, and disposes of open ones', async () => {
    let now = 1_000
    const exports = new WorkbookExports({
      dataDir: dir,
      deliverFile: () => Promise.reject(new Error('no')),
      now: () => now,
      idleMs: 100,
    })
    const old = await exports.begin(spec)
    now += 101
    await exports.sweep()
    await expect(exports.appendRows(old, 'A', rows(1))).rejects.toMatchObject({ code: 'not_found' })
    await exports.begin(spec)
    await exports.dispose()
    expect(await tmpFiles()).toEqual([])
  })
})

describe('export contract', () => {
  const begin = desktopApiContract['export:begin'].args
  const append = desktopApiContract['export:appendRows'].args
  const sheetWith = (name: string) => ({ name, columns: [{ header: 'a', kind: 'text', width: 10 }] })

  it('accepts only sheet names Excel accepts, unique without case', () => {
    const ok = (names: string[]) =>
      begin.safeParse({ suggestedName: 'a.xlsx', sheets: names.map(sheetWith) }).success
    expect(ok(['Summary', 'Audit'])).toBe(true)
    expect(ok(['a'.repeat(31)])).toBe(true)
    expect(ok(['a'.repeat(32)])).toBe(false)
    for (const bad of ['a/b', 'a:b', 'a?', 'a*', '[a]', "'a", 'History', '', '=a', ' +a', '\u3000@a', '-a'])
      expect(ok([bad]), bad).toBe(false)
    expect(ok(['Audit', 'AUDIT'])).toBe(false)
    expect(begin.safeParse({ suggestedName: 'a.csv', sheets: [sheetWith('A')] }).success).toBe(false)
    expect(begin.safeParse({ suggestedName: '../a.xlsx', sheets: [sheetWith('A')] }).success).toBe(false)
  })

  it('validates cells and caps a chunk at 2,000 rows', () => {
    const rowsOk = (rows: unknown[][]) =>
      append.safeParse({ exportId: 'a'.repeat(24), sheet: 'A', rows }).success
    expect(
      rowsOk([
        ['x', 1, null, { date: 0 }, { amount: 1.5, decimals: 2 }, { formula: 'SUM(A1:A2)', result: 3 }],
      ]),
    ).toBe(true)
    expect(rowsOk([[{ formula: 'WEBSERVICE("http://x")' }]])).toBe(false)
    expect(rowsOk([[{ formula: 'HYPERLINK("http://x")' }]])).toBe(false)
    expect(rowsOk([[{ formula: "'[other.xlsx]S'!A1" }]])).toBe(false)
    expect(rowsOk([[{ formula: '=SUM(A1)' }]])).toBe(false)
    expect(rowsOk([[{ amount: 1, decimals: 9 }]])).toBe(false)
    expect(rowsOk([[{ date: 1, extra: 2 }]])).toBe(false)
    expect(rowsOk([[true]])).toBe(false)
    expect(rowsOk(Array.from({ length: 2000 }, () => [1]))).toBe(true)
    expect(rowsOk(Array.from({ length: 2001 }, () => [1]))).toBe(false)
    expect(rowsOk([])).toBe(false)
  })

  it('takes rows or packed rows, not both, and checks packed chunks cell by cell', () => {
    const check = (args: Record<string, unknown>) =>
      append.safeParse({ exportId: 'a'.repeat(24), sheet: 'A', ...args })
    const packed = packRows([['x', 1, null, { date: 0 }, { amount: 1.5, decimals: 2 }]], 5)
    expect(check({ packed }).success).toBe(true)
    expect(check({ packed, rows: [[1]] }).success).toBe(false)
    expect(check({}).success).toBe(false)
    const problem = (p: unknown): string => {
      const r = check({ packed: p })
      return r.success ? '' : (r.error.issues[0]?.message ?? '')
    }
    expect(problem({ width: 1, cells: new Float64Array([1, 2]), text: 'abc' })).toMatch(/do not add up/)
    expect(problem({ width: 1, cells: new Float64Array([1, 40_000]), text: 'a'.repeat(40_000) })).toMatch(
      /longer than/,
    )
    expect(problem({ width: 1, cells: new Float64Array([9, 1]), text: '' })).toMatch(/unknown cell tag/)
    expect(problem({ width: 1, cells: new Float64Array([4, 1.5, 2, 1]), text: '' })).toBe('')
    expect(problem({ width: 1, cells: new Float64Array([2, Infinity]), text: '' })).toMatch(/finite number/)
    // Numbers in a plain array (as JSON would bring them) are not the packed form.
    expect(problem({ width: 1, cells: [2, 1], text: '' })).toMatch(/must be a Float64Array/)
    expect(problem({ width: 0, cells: new Float64Array([]), text: '' })).toMatch(/width/)
    expect(problem({ width: 65, cells: new Float64Array([]), text: '' })).toMatch(/width/)
    expect(problem({ width: 1, cells: new Float64Array([]), text: '' })).toMatch(/1–2000 rows/)
    expect(problem({ width: 1, cells: new Float64Array(4002), text: '' })).toMatch(/rows/)
    expect(problem({ width: 1, cells: new Float64Array([0, 0]), text: '', extra: 1 })).toMatch(
      /unexpected key/,
    )
    expect(problem([1, 2])).toMatch(/expected/)
    // A formula has no packed form: that chunk goes as rows.
    expect(packRows([[{ formula: 'SUM(A1:A2)' }]], 1)).toBeNull()
    expect(packRows([[1, 2]], 1)).toBeNull()
  })
})

describe('row XML', () => {
  it('escapes markup, keeps CR, tab and LF, and drops characters XML cannot carry', () => {
    expect(xmlText('plain 山田')).toBe('plain 山田')
    expect(xmlText('a<b>&"c"')).toBe('a&lt;b&gt;&amp;&quot;c&quot;')
    expect(xmlText('a\r\n\tb')).toBe('a&#13;\n\tb')
    expect(xmlText('a\u0000b\u001Fc\uFFFEd')).toBe('abcd')
  })

  it('keeps whitespace only where there is whitespace to keep, and guards formula-like text', () => {
    expect(textElement('plain text')).toBe('<t>plain text</t>')
    expect(textElement('a<b')).toBe('<t>a&lt;b</t>')
    expect(textElement('=1+1')).toBe("<t>'=1+1</t>")
    for (const t of [' lead', 'trail ', 'two  spaces', 'line\nbreak', 'tab\there', '\u3000全角'])
      expect(textElement(t), t).toBe(`<t xml:space="preserve">${t}</t>`)
    expect(textElement('cr\rlf')).toBe('<t xml:space="preserve">cr&#13;lf</t>')
  })

  it('shares the texts of repeating columns, a bounded number of them, and leaves the rest inline', () => {
    const table: string[] = []
    const texts = new SharedTexts({ add: (v) => table.push(v) - 1 }, 3)
    expect([texts.indexOf('a'), texts.indexOf('=b'), texts.indexOf('a')]).toEqual([0, 1, 0])
    expect(table).toEqual(['a', "'=b"]) // the table holds the text as written: guarded
    expect(texts.indexOf('c\rd')).toBe(-1) // exceljs would write CR raw: kept inline
    expect([texts.indexOf(' e'), texts.indexOf('')]).toEqual([-1, -1])
    expect([texts.indexOf('f'), texts.indexOf('g')]).toEqual([2, -1]) // full: new texts go inline
    expect(texts.indexOf('x'.repeat(256))).toBe(-1)

    const packed = packRows(
      Array.from({ length: 16 }, (_, i) => [i % 2 ? 'yes' : 'no', `id-${i}`, i]),
      3,
    )
    if (!packed) throw new Error('not packable')
    expect(repeatingColumns(packed)).toEqual([true, false, false])
    const styles = new RowStyles({ addStyleModel: (m) => (Object.keys(m).length === 0 ? 0 : 1) })
    const xml = packedRowsXml(packed, 2, ['text', 'text', 'integer'], ['A', 'B', 'C'], styles, {
      columns: repeatingColumns(packed),
      texts: new SharedTexts({ add: (v) => (v === 'no' ? 0 : 1) }),
    })
    const pieces: string[] = []
    const many = packRows(
      Array.from({ length: 250 }, (_, i) => [`t${i % 3}`, `id-${i}`, i]),
      3,
    )
    if (!many) throw new Error('not packable')
    const whole = packedRowsXml(many, 2, ['text', 'text', 'integer'], ['A', 'B', 'C'], styles)
    expect(
      packedRowsXml(many, 2, ['text', 'text', 'integer'], ['A', 'B', 'C'], styles, undefined, (x) =>
        pieces.push(x),
      ),
    ).toBe('')
    expect(pieces.length).toBeGreaterThan(1) // in pieces, not one string per chunk
    expect(pieces.join('')).toBe(whole)
    expect(
      xml.startsWith(
        '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="inlineStr"><is><t>id-0</t></is></c><c r="C2" s="1"><v>0</v></c></row>',
      ),
    ).toBe(true)
  })

  it('writes a packed chunk as exactly the markup of its plain rows, whatever each column mixes', () => {
    // One registry for both writers, so each style has one index: a style resolved for the wrong cell
    // (a column's first amount format reused for another number of decimals, say) shows as a difference.
    const registry = new Map<string, number>()
    const styles = new RowStyles({
      addStyleModel: (m, type) => {
        const key = `${type ?? ''}|${JSON.stringify(m)}`
        if (!registry.has(key)) registry.set(key, registry.size)
        return registry.get(key) ?? -1
      },
    })
    const kinds = ['datetime', 'amount', 'integer', 'text', 'date'] as const
    const rows: ExportRow[] = Array.from({ length: 12 }, (_, i) => [
      i % 5 === 0 ? null : { date: Date.UTC(2026, 9, 1 + i, i, 30, 15, 250) },
      i % 3 === 0 ? 1050 + i : { amount: (1234 + i) / 10 ** (i % 4), decimals: i % 4 },
      i % 4 === 0 ? null : i * 1000,
      [`id-${i}`, ' lead', '=1+2', 'a<b', '', '山田 太郎'][i % 6] ?? null,
      i % 2 ? { date: Date.UTC(2026, 9, i + 1) } : 7.25,
    ])
    const packed = packRows(rows, kinds.length)
    if (!packed) throw new Error('not packable')
    const names = ['A', 'B', 'C', 'D', 'E']
    const plain = rows.map((cells, i) => rowXml(i + 3, cells, kinds, names, styles)).join('')
    expect(packedRowsXml(packed, 3, kinds, names, styles)).toBe(plain)
    expect(new Set(plain.match(/ s="\d+"/g)).size).toBeGreaterThan(5) // formats of every kind were used
  })
})
