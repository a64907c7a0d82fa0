/**
 * The payout roll-forward sheet recalculated by LibreOffice headless: with every cached result spoiled,
 * the recalculated figures must be the app's roll-forward, the closing explained must equal the closing
 * and the Control block must be 0; an open item lost from its sheet shows in its currency's control.
 * Skips, saying why, where LibreOffice is not installed (CI requires it: CLOSEBOOK_REQUIRE_LIBREOFFICE).
 */
import { join } from 'node:path'
import type ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExportCell, ExportRow } from '../../../electron/shared/contract/export'
import { buildMonthWorkbook, type WorkbookPlan } from '../../../src/export/month-workbook'
import { PAYOUT_SHEETS } from '../../../src/export/payout-sheets'
import { octoberRollForward } from '../../support/payouts'
import { jpyMonth } from './fixtures'
import { libreOfficeMissing, recalculate } from './libreoffice'
import { builtRows, readWorkbook, removeDir, tempDir, writePlanTo } from './support'

const missing = libreOfficeMissing()
if (missing)
  console.warn(`[skip] roll-forward recalculation test: ${missing}. Install libreoffice-calc-nogui.`)

const rollForward = octoberRollForward({ previousClosing: { JPY: 10_000 } })

/** Every formula's cached result in the payout sheets spoiled; `dropOpen` removes one open item's row. */
function spoiled(dropOpen?: string): WorkbookPlan {
  const plan = buildMonthWorkbook({ ...jpyMonth(), payouts: { rollForward } })
  const spoil = (cell: ExportCell): ExportCell =>
    cell !== null && typeof cell === 'object' && 'formula' in cell ? { ...cell, result: -999 } : cell
  const names: string[] = Object.values(PAYOUT_SHEETS)
  return {
    ...plan,
    sheets: plan.sheets.map((s) => {
      if (!names.includes(s.spec.name)) return s
      let rows: ExportRow[] = builtRows(s).map((row) => row.map(spoil))
      if (s.spec.name === PAYOUT_SHEETS.open && dropOpen) rows = rows.filter((r) => r[2] !== dropOpen)
      const footer = s.spec.footer?.map((row) => row.map(spoil))
      return {
        ...s,
        rowCount: rows.length,
        spec: { ...s.spec, ...(footer ? { footer } : {}) },
        rows: () => rows,
      }
    }),
  }
}

/** A cell's value, or its formula's result (LibreOffice leaves a result of 0 out: read as 0). */
function value(ws: ExcelJS.Worksheet, r: number, c: number): unknown {
  const v = ws.getRow(r).getCell(c).value as { result?: unknown } | number | string | null
  return typeof v === 'object' && v !== null ? (v.result ?? 0) : v
}

/** Rows whose column A holds a currency code from `from` down to the next empty row: A → B…J. */
function block(
  ws: ExcelJS.Worksheet,
  from: number,
  width = 10,
): { next: number; rows: Map<string, unknown[]> } {
  const rows = new Map<string, unknown[]>()
  let r = from
  for (; ws.getRow(r).cellCount > 0; r++) {
    const cells: unknown[] = []
    for (let c = 2; c <= width; c++) cells.push(value(ws, r, c) ?? null)
    rows.set(String(value(ws, r, 1)), cells)
  }
  return { next: r + 1, rows }
}

describe.skipIf(missing !== null)('the roll-forward sheet recalculated by LibreOffice', () => {
  let dir: string
  beforeAll(async () => {
    dir = await tempDir('closebook-lo-payouts-')
  })
  afterAll(async () => {
    await removeDir(dir)
  })

  it(
    'gives the app’s roll-forward, explains the closing and has a Control block of 0',
    { timeout: 120_000 },
    async () => {
      const whole = join(dir, 'payouts.xlsx')
      const lost = join(dir, 'lost.xlsx')
      await writePlanTo(spoiled(), dir, whole)
      await writePlanTo(spoiled('T4'), dir, lost)
      const out = await recalculate(dir, [whole, lost])

      const ws = (await readWorkbook(join(out, 'payouts.xlsx'))).getWorksheet(PAYOUT_SHEETS.rollForward)
      if (!ws) throw new Error('no roll-forward sheet')
      // Preamble (5 rows), header, then one row per currency.
      const table = block(ws, 7)
      const jpy = rollForward.currencies[0]
      expect(table.rows.get('JPY')).toEqual([10_000, 29_000, 6_000, 720, -1_320, 21_400, 9_560, 10_000, 0])
      expect(jpy?.closing).toBe(9_560)
      expect(table.rows.get('USD')).toEqual([0, 12.5, 0, 0, 0, 12.5, 0, null, null])
      // Explained: not in a transfer, created, approved, processing, failed, other, total.
      const explained = block(ws, table.next + 2, 9)
      expect(explained.rows.get('JPY')).toEqual([-3_000, 0, 0, 4_560, 8_000, 0, 0, 9_560])
      expect(explained.rows.get('USD')).toEqual([0, 0, 0, 0, 0, 0, 0, 0])
      const control = block(ws, explained.next + 1, 10)
      expect([...control.rows.keys()]).toEqual(['JPY', 'USD'])
      for (const [currency, cells] of control.rows) expect(cells.slice(7), currency).toEqual([0, 0])

      // T4's open item lost from its sheet: JPY's closing is no longer explained by 4,560.
      const broken = (await readWorkbook(join(out, 'lost.xlsx'))).getWorksheet(PAYOUT_SHEETS.rollForward)
      if (!broken) throw new Error('no roll-forward sheet')
      const t = block(broken, 7)
      const e = block(broken, t.next + 2, 9)
      const c = block(broken, e.next + 1, 10)
      expect(c.rows.get('JPY')?.slice(7)).toEqual([4_560, 0])
      expect(c.rows.get('USD')?.slice(7)).toEqual([0, 0])
    },
  )
})
