/**
 * An independent evaluator for the Summary's formulas: LibreOffice headless recalculates the workbook
 * (the cached results are deliberately spoiled first, so only a real recalculation can pass) and the
 * totals must equal the app's month summary. Skips, saying why, where LibreOffice is not installed
 * (Debian: `libreoffice-calc-nogui`).
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExportCell, ExportRow } from '../../../electron/shared/contract/export'
import {
  buildMonthWorkbook,
  type MonthWorkbookInput,
  type WorkbookPlan,
} from '../../../src/export/month-workbook'
import { jpyMonth, mixedMonth } from './fixtures'
import { expectedSummary, expectedTotals } from './expected'
import { builtRows, readWorkbook, removeDir, tempDir, writePlanTo } from './support'
import { libreOfficeMissing, recalculate } from './libreoffice'
import type ExcelJS from 'exceljs'

/** Summary: 14 rows of header block, then the table's header. */
const HEADER_ROW = 15

const missing = libreOfficeMissing()
const required = process.env['CLOSEBOOK_REQUIRE_LIBREOFFICE'] === '1'
if (missing) console.warn(`[skip] formula recalculation test: ${missing}. Install libreoffice-calc-nogui.`)

describe('LibreOffice availability', () => {
  it.runIf(required)('is required here (CLOSEBOOK_REQUIRE_LIBREOFFICE=1, as CI sets it)', () => {
    expect(missing).toBeNull()
  })
})

/**
 * Cached results replaced by nonsense (table and footer): the recalculated file must not be able to echo
 * them. `dropRow` zeroes one store row's figures, as a hand edit or a lost row would: the control must show it.
 */
function spoilCachedResults(plan: WorkbookPlan, dropRow?: number): WorkbookPlan {
  const spoil = (cell: ExportCell): ExportCell =>
    cell !== null && typeof cell === 'object' && 'formula' in cell ? { ...cell, result: -999 } : cell
  return {
    ...plan,
    sheets: plan.sheets.map((s, i) => {
      if (i !== 0) return s
      const rows: ExportRow[] = builtRows(s).map((row, r) =>
        r === dropRow ? row.map((c, j) => (j < 4 ? c : 0)) : row.map(spoil),
      )
      const footer = s.spec.footer?.map((row) => row.map(spoil))
      return { ...s, spec: { ...s.spec, ...(footer ? { footer } : {}) }, rows: () => rows }
    }),
  }
}

/** Rows of the Summary from `from` to the next empty row, as label|currency|mode → figures E…Q. */
function figureRows(ws: ExcelJS.Worksheet, from: number): { next: number; rows: Map<string, unknown[]> } {
  const rows = new Map<string, unknown[]>()
  let r = from
  for (; r <= ws.rowCount && ws.getRow(r).cellCount > 0; r++) {
    const row = ws.getRow(r)
    const key = [1, 3, 4].map((c) => row.getCell(c).text).join('|')
    const values: unknown[] = []
    for (let c = 5; c <= 17; c++) {
      const v = row.getCell(c).value as { result?: unknown } | number | null
      values.push(typeof v === 'object' && v !== null ? (v.result ?? 0) : v)
    }
    rows.set(key, values)
  }
  return { next: r + 1, rows }
}

describe.skipIf(missing !== null)('Summary formulas recalculated by LibreOffice', () => {
  let dir: string
  beforeAll(async () => {
    dir = await tempDir('closebook-lo-')
  })
  afterAll(async () => {
    await removeDir(dir)
  })

  it(
    'gives the app month summary for a mixed-currency and a JPY-only month',
    { timeout: 120_000 },
    async () => {
      const cases: [string, MonthWorkbookInput][] = [
        ['mixed', mixedMonth()],
        ['jpy', jpyMonth()],
      ]
      const files: string[] = []
      for (const [name, input] of cases) {
        const path = join(dir, `${name}.xlsx`)
        await writePlanTo(spoilCachedResults(buildMonthWorkbook(input)), dir, path)
        files.push(path)
      }
      const lostPath = join(dir, 'lost.xlsx')
      await writePlanTo(spoilCachedResults(buildMonthWorkbook(mixedMonth()), 0), dir, lostPath)
      files.push(lostPath)
      const outDir = await recalculate(dir, files)

      for (const [name, input] of cases) {
        const book = await readWorkbook(join(outDir, `${name}.xlsx`))
        const ws = book.getWorksheet('Summary')
        if (!ws) throw new Error('no Summary')
        const expected = expectedSummary(input)
        const table = figureRows(ws, HEADER_ROW + 1)
        for (const [key, values] of table.rows) expect(values, `${name} ${key}`).toEqual(expected.get(key))
        expect([...table.rows.keys()].sort(), name).toEqual([...expected.keys()].sort())

        // Per currency × mode: the store rows added up; never one currency into another.
        const totals = figureRows(ws, table.next + 1)
        expect(totals.rows, `${name} totals`).toEqual(expectedTotals(input))
        // Control: the details over every store minus the totals, all 0.
        const control = figureRows(ws, totals.next + 1)
        expect([...control.rows.keys()], name).toEqual(
          [...totals.rows.keys()].map((k) => k.replace(/^Total/, 'Control')),
        )
        for (const [key, values] of control.rows)
          expect(values, `${name} ${key}`).toEqual(values.map(() => 0))
      }

      // A store row lost from the table: its currency's control shows the difference, the rest stay 0.
      const lost = join(outDir, 'lost.xlsx')
      const ws = (await readWorkbook(lost)).getWorksheet('Summary')
      if (!ws) throw new Error('no Summary')
      const table = figureRows(ws, HEADER_ROW + 1)
      const totals = figureRows(ws, table.next + 1)
      const control = figureRows(ws, totals.next + 1)
      const shop = mixedMonth()
      const droppedRow = expectedSummary(shop)
      const [droppedKey, droppedFigures] = [...droppedRow][0] ?? ['', []]
      const [, currency, mode] = droppedKey.split('|')
      for (const [key, values] of control.rows) {
        if (key === `Control|${currency}|${mode}`) expect(values, key).toEqual(droppedFigures)
        else expect(values, key).toEqual(values.map(() => 0))
      }
    },
  )
})
