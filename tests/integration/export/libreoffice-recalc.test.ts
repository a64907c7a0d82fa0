/**
 * An independent evaluator for the Summary's formulas: LibreOffice headless recalculates the workbook
 * (the cached results are deliberately spoiled first, so only a real recalculation can pass) and the
 * totals must equal the app's month summary. Skips, saying why, where LibreOffice is not installed
 * (Debian: `libreoffice-calc-nogui`).
 */
import { execFile, execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExportCell, ExportRow } from '../../../electron/shared/contract/export'
import {
  buildMonthWorkbook,
  type MonthWorkbookInput,
  type WorkbookPlan,
} from '../../../src/export/month-workbook'
import { jpyMonth, mixedMonth } from './fixtures'
import { expectedSummary } from './expected'
import { readWorkbook, removeDir, tempDir, writePlanTo } from './support'

const SOFFICE = process.env['CLOSEBOOK_SOFFICE'] ?? 'soffice'

function libreOfficeMissing(): string | null {
  try {
    execFileSync(SOFFICE, ['--version'], { stdio: 'pipe', timeout: 30_000 })
    return null
  } catch (error) {
    return `LibreOffice (${SOFFICE}) is not available: ${(error as Error).message.split('\n')[0]}`
  }
}

const missing = libreOfficeMissing()
const required = process.env['CLOSEBOOK_REQUIRE_LIBREOFFICE'] === '1'
if (missing) console.warn(`[skip] formula recalculation test: ${missing}. Install libreoffice-calc-nogui.`)

describe('LibreOffice availability', () => {
  it.runIf(required)('is required here (CLOSEBOOK_REQUIRE_LIBREOFFICE=1, as CI sets it)', () => {
    expect(missing).toBeNull()
  })
})

/** LibreOffice recalculates OOXML on load only when told to: OOXMLRecalcMode 0 = always. */
const RECALC_ALWAYS = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`

/** Cached results replaced by nonsense: the recalculated file must not be able to echo them. */
function spoilCachedResults(plan: WorkbookPlan): WorkbookPlan {
  const spoil = (cell: ExportCell): ExportCell =>
    cell !== null && typeof cell === 'object' && 'formula' in cell ? { ...cell, result: -999 } : cell
  return {
    ...plan,
    sheets: plan.sheets.map((s, i) => {
      if (i !== 0) return s
      const rows: ExportRow[] = [...s.rows()].map((row) => row.map(spoil))
      return { ...s, rows: () => rows }
    }),
  }
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
      const profile = join(dir, 'profile')
      await mkdir(join(profile, 'user'), { recursive: true })
      await writeFile(join(profile, 'user', 'registrymodifications.xcu'), RECALC_ALWAYS)
      const outDir = join(dir, 'recalculated')
      await promisify(execFile)(
        SOFFICE,
        [
          `-env:UserInstallation=${pathToFileURL(profile).href}`,
          '--headless',
          '--norestore',
          '--convert-to',
          'xlsx',
          '--outdir',
          outDir,
          ...files,
        ],
        { timeout: 110_000 },
      )

      for (const [name, input] of cases) {
        const book = await readWorkbook(join(outDir, `${name}.xlsx`))
        const ws = book.getWorksheet('Summary')
        if (!ws) throw new Error('no Summary')
        const expected = expectedSummary(input)
        const seen = new Set<string>()
        for (let r = 11; r <= ws.rowCount; r++) {
          const row = ws.getRow(r)
          const key = [1, 3, 4].map((c) => row.getCell(c).text).join('|')
          const values: unknown[] = []
          for (let c = 5; c <= 17; c++) {
            const v = row.getCell(c).value as { result?: unknown } | number | null
            values.push(typeof v === 'object' && v !== null ? (v.result ?? 0) : v)
          }
          expect(values, `${name} ${key}`).toEqual(expected.get(key))
          seen.add(key)
        }
        expect([...seen].sort(), name).toEqual([...expected.keys()].sort())
      }
    },
  )
})
