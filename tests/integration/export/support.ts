/** Writes a workbook plan through WorkbookExports as the renderer's client would, and reads files back. */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import type { DeliverFile } from '../../../electron/services/files/file-writer'
import { moveIntoPlace } from '../../../electron/services/files/move-into-place'
import { WorkbookExports } from '../../../electron/services/workbook/workbook-exports'
import { packRows, type ExportRow } from '../../../electron/shared/contract/export'
import type { WorkbookPlan, WorkbookPlanSheet } from '../../../src/export/month-workbook'

export async function tempDir(prefix = 'closebook-workbook-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

export const removeDir = (dir: string) => rm(dir, { recursive: true, force: true })

export const tmpFiles = async (dataDir: string): Promise<string[]> =>
  readdir(join(dataDir, 'tmp')).catch(() => [])

/** Desktop-like delivery: always "saves" to `target`. */
export function saveTo(target: string): DeliverFile {
  return async (temp, name) => {
    await moveIntoPlace(temp, target)
    return { savedTo: 'path', path: target, fileName: name }
  }
}

/** A sheet's rows whole, as the writer would take them (a record sheet reads its records meanwhile). */
export async function allRows(sheet: WorkbookPlanSheet): Promise<ExportRow[]> {
  const out: ExportRow[] = []
  for await (const row of sheet.rows()) out.push(row)
  return out
}

/** The rows of a sheet built in memory (the Summary, the payout sheets); a sheet read from records throws. */
export function builtRows(sheet: WorkbookPlanSheet): ExportRow[] {
  const rows = sheet.rows()
  if (!(Symbol.iterator in rows)) throw new Error(`${sheet.spec.name}: its rows are read as they are written`)
  return [...rows]
}

export async function chunks(
  rows: Iterable<ExportRow> | AsyncIterable<ExportRow>,
  size = 2000,
): Promise<ExportRow[][]> {
  const out: ExportRow[][] = []
  let chunk: ExportRow[] = []
  for await (const row of rows) {
    chunk.push(row)
    if (chunk.length === size) {
      out.push(chunk)
      chunk = []
    }
  }
  if (chunk.length) out.push(chunk)
  return out
}

export async function writePlan(exports: WorkbookExports, plan: WorkbookPlan): Promise<void> {
  const id = await exports.begin({
    suggestedName: plan.suggestedName,
    title: plan.title,
    sheets: plan.sheets.map((s) => s.spec),
  })
  // As workbook-client sends them: packed, unless a chunk holds a formula.
  for (const sheet of plan.sheets)
    for (const rows of await chunks(sheet.rows()))
      await exports.appendRows(id, sheet.spec.name, packRows(rows, sheet.spec.columns.length) ?? rows)
  await exports.finish(id)
}

export async function writePlanTo(plan: WorkbookPlan, dataDir: string, target: string): Promise<void> {
  await writePlan(new WorkbookExports({ dataDir, deliverFile: saveTo(target) }), plan)
}

export async function readWorkbook(path: string): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook()
  await book.xlsx.readFile(path)
  return book
}
