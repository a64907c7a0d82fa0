/**
 * One export, alone in its own process so its peak RSS is its own: `stream` goes through the app's path
 * (rows built by src/export and packed as workbook-client packs them, the contract's check and a
 * structured clone per chunk as IPC does, main's streaming writer); `memory` writes the same rows with
 * exceljs's in-memory Workbook. Prints one JSON line.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { moveIntoPlace } from '../../../electron/services/files/move-into-place'
import { HEADER_STYLE, writeCell } from '../../../electron/services/workbook/cells'
import { WorkbookExports } from '../../../electron/services/workbook/workbook-exports'
import { desktopApiContract } from '../../../electron/shared/contract'
import { packRows, type ExportCell, type ExportRow } from '../../../electron/shared/contract/export'
import { buildMonthWorkbook } from '../../../src/export/month-workbook'
import { generateMonth } from '../shared/month-data'

async function main(): Promise<void> {
  const [mode = 'stream', nArg = '90000'] = process.argv.slice(2)
  const { history, charges, marks } = generateMonth(Number(nArg))
  const plan = buildMonthWorkbook({
    merchantName: 'Bench K.K.',
    connection: { id: 'bench', label: 'Bench', timeZone: 'Asia/Tokyo' },
    period: '2026-10',
    storeId: null,
    history,
    charges,
    marks,
    audit: [],
    generatedAt: Date.now(),
    appVersion: 'bench',
  })
  const totalRows = plan.sheets.reduce((n, s) => n + s.rowCount, 0)
  const baseRss = process.memoryUsage().rss
  const dir = await mkdtemp(join(tmpdir(), 'closebook-export-bench-'))
  const target = join(dir, 'out.xlsx')
  let peak = baseRss
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20)
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  if (mode === 'stream') {
    const exports = new WorkbookExports({
      dataDir: dir,
      deliverFile: async (temp, fileName) => {
        await moveIntoPlace(temp, target)
        return { savedTo: 'path', path: target, fileName }
      },
    })
    const id = await exports.begin(
      desktopApiContract['export:begin'].args.parse({
        suggestedName: plan.suggestedName,
        title: plan.title,
        sheets: plan.sheets.map((s) => s.spec),
      }),
    )
    const schema = desktopApiContract['export:appendRows'].args
    for (const sheet of plan.sheets) {
      let chunk: ExportRow[] = []
      const flush = async () => {
        // As workbook-client sends it: packed unless the chunk holds a formula.
        const packed = packRows(chunk, sheet.spec.columns.length)
        const sent = packed
          ? { exportId: id, sheet: sheet.spec.name, packed }
          : { exportId: id, sheet: sheet.spec.name, rows: chunk }
        const args = schema.parse(structuredClone(sent))
        await exports.appendRows(id, args.sheet, args.packed ?? args.rows ?? [])
        chunk = []
      }
      for (const row of sheet.rows()) {
        chunk.push(row)
        if (chunk.length === 2000) await flush()
      }
      if (chunk.length > 0) await flush()
    }
    await exports.finish(id)
  } else {
    const book = new ExcelJS.Workbook()
    for (const sheet of plan.sheets) {
      const pre = sheet.spec.preamble ?? []
      const ws = book.addWorksheet(sheet.spec.name, { views: [{ state: 'frozen', ySplit: pre.length + 1 }] })
      ws.columns = sheet.spec.columns.map((c) => ({ width: c.width }))
      let r = 0
      const put = (cells: readonly ExportCell[], header = false) => {
        const row = ws.getRow(++r)
        cells.forEach((v, c) => {
          const cell = row.getCell(c + 1)
          if (header) {
            cell.value = v as string
            cell.style = HEADER_STYLE
          } else writeCell(cell, v, sheet.spec.columns[c]?.kind ?? 'text')
        })
      }
      for (const p of pre) put(p)
      put(
        sheet.spec.columns.map((c) => c.header),
        true,
      )
      for (const row of sheet.rows()) put(row)
      for (const row of sheet.spec.footer ?? []) put(row)
    }
    await book.xlsx.writeFile(target)
  }
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  // CPU time of the same span: on a shared machine it moves far less with other load than wall time.
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  const size = (await stat(target)).size
  await rm(dir, { recursive: true, force: true })
  process.stdout.write(
    `${JSON.stringify({ mode, totalRows, seconds, cpuSeconds, baseRssMiB: baseRss / 2 ** 20, peakRssMiB: peak / 2 ** 20, fileMiB: size / 2 ** 20 })}\n`,
  )
}

void main()
