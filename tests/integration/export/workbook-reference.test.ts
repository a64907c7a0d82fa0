/**
 * The streaming writer (packed chunks, raw row XML, shared repeated texts) against exceljs's own in-memory
 * Workbook fed the same plan cell by cell: both files, read back with exceljs, hold the same sheets, cells,
 * types, values, formulas with their cached results, number formats, column widths, frozen panes and
 * filters. The reference goes through none of the streaming path's shortcuts, so any of them that changes
 * what a spreadsheet shows fails here.
 */
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HEADER_STYLE, writeCell } from '../../../electron/services/workbook/cells'
import type { ExportCell } from '../../../electron/shared/contract/export'
import { buildMonthWorkbook, type WorkbookPlan } from '../../../src/export/month-workbook'
import { generateMonth, monthWorkbookInputOf } from '../../bench/shared/month-data'
import { octoberRollForward } from '../../support/payouts'
import { GENERATED_AT, jpyMonth, mixedMonth } from './fixtures'
import { readWorkbook, removeDir, tempDir, writePlanTo } from './support'

/** The plan written by exceljs's in-memory Workbook: every cell through `writeCell`, headers styled. */
async function writeReference(plan: WorkbookPlan, target: string): Promise<void> {
  const book = new ExcelJS.Workbook()
  for (const sheet of plan.sheets) {
    const { spec } = sheet
    const pre = spec.preamble ?? []
    const headerRow = pre.length + 1
    const ws = book.addWorksheet(spec.name, {
      views: [{ state: 'frozen', xSplit: 0, ySplit: headerRow, topLeftCell: `A${headerRow + 1}` }],
    })
    ws.columns = spec.columns.map((c) => ({ width: c.width }))
    let r = 0
    const put = (cells: readonly ExportCell[]): void => {
      const row = ws.getRow(++r)
      cells.forEach((v, c) => writeCell(row.getCell(c + 1), v, spec.columns[c]?.kind ?? 'text'))
    }
    for (const cells of pre) put(cells)
    const header = ws.getRow(++r)
    spec.columns.forEach((column, c) => {
      const cell = header.getCell(c + 1)
      cell.value = column.header
      cell.style = HEADER_STYLE
    })
    for await (const cells of sheet.rows()) put(cells)
    const tableEnd = r
    for (const cells of spec.footer ?? []) put(cells)
    ws.autoFilter = {
      from: { row: headerRow, column: 1 },
      to: { row: tableEnd, column: spec.columns.length },
    }
  }
  await book.xlsx.writeFile(target)
}

/** What a spreadsheet shows of a cell: its type, value (dates as ms, formulas with results) and format. */
function cellView(cell: ExcelJS.Cell): unknown {
  const v = cell.value
  const value = v instanceof Date ? { date: v.getTime() } : v !== null && typeof v === 'object' ? { ...v } : v
  return { type: cell.type, value, numFmt: cell.numFmt ?? null, bold: cell.font?.bold ?? false }
}

/** Every sheet as name, widths, view, filter and its cells by address. */
function bookView(book: ExcelJS.Workbook) {
  return book.worksheets.map((ws) => {
    const cells: Record<string, unknown> = {}
    ws.eachRow({ includeEmpty: false }, (row) =>
      row.eachCell({ includeEmpty: false }, (cell) => {
        cells[cell.address] = cellView(cell)
      }),
    )
    const view = ws.views[0]
    return {
      name: ws.name,
      widths: ws.columns.map((c) => c.width),
      frozen: view?.state === 'frozen' ? view.ySplit : null,
      filter: ws.autoFilter,
      cells,
    }
  })
}

async function compare(plan: WorkbookPlan, dir: string, name: string): Promise<number> {
  const streamed = join(dir, `${name}-streamed.xlsx`)
  const reference = join(dir, `${name}-reference.xlsx`)
  await writePlanTo(plan, join(dir, `${name}-data`), streamed)
  await writeReference(plan, reference)
  const got = bookView(await readWorkbook(streamed))
  const want = bookView(await readWorkbook(reference))
  expect(got.map((s) => s.name)).toEqual(want.map((s) => s.name))
  for (const [i, sheet] of want.entries()) expect(got[i], sheet.name).toEqual(sheet)
  return want.reduce((n, s) => n + Object.keys(s.cells).length, 0)
}

describe('the streamed month workbook shows what exceljs writes for the same plan', () => {
  let dir: string
  beforeAll(async () => {
    dir = await tempDir('closebook-reference-')
  })
  afterAll(async () => {
    await removeDir(dir)
  })

  it('a mixed month: guarded texts, both currencies, exceptions, audit, Summary formulas and totals', async () => {
    const cells = await compare(buildMonthWorkbook(mixedMonth()), dir, 'mixed')
    expect(cells).toBeGreaterThan(500)
  })

  it('a JPY month with its payout roll-forward: the payout sheets and their control formulas', async () => {
    const rollForward = octoberRollForward({ previousClosing: { JPY: 10_000 } })
    const cells = await compare(
      buildMonthWorkbook({ ...jpyMonth(), payouts: { rollForward } }),
      dir,
      'payouts',
    )
    expect(cells).toBeGreaterThan(300)
  })

  it('a generated month over several chunks: repeated texts shared, ids and names inline', async () => {
    const plan = buildMonthWorkbook(
      monthWorkbookInputOf(
        generateMonth(3000),
        { merchant: 'Reference K.K.', label: 'Reference', appVersion: '0.1.0' },
        GENERATED_AT,
      ),
    )
    const cells = await compare(plan, dir, 'generated')
    expect(cells).toBeGreaterThan(100_000)
  }, 120_000)
})
