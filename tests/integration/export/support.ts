/** Writes a workbook plan through WorkbookExports as the renderer's client would, and reads files back. */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import type { DeliverFile } from '../../../electron/services/files/file-writer'
import { moveIntoPlace } from '../../../electron/services/files/move-into-place'
import { WorkbookExports } from '../../../electron/services/workbook/workbook-exports'
import { packRows, type ExportRow } from '../../../electron/shared/contract/export'
import type { WorkbookPlan } from '../../../src/export/month-workbook'

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

export function chunks(rows: Iterable<ExportRow>, size = 2000): ExportRow[][] {
  const out: ExportRow[][] = []
  let chunk: ExportRow[] = []
  for (const row of rows) {
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
    for (const rows of chunks(sheet.rows()))
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
