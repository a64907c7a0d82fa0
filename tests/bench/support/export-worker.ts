/**
 * One export, alone in its own process so its peak RSS is its own: `stream` goes through the app's path,
 * its two processes as two threads: here the renderer's (the month's plan by src/export, its rows sent by
 * workbook-client as the app sends them), and in export-writer-thread.ts main's (the contract's check and
 * main's handlers over the streaming writer), each call a structured clone as IPC's is. `memory` writes
 * the same rows with exceljs's in-memory Workbook. Prints one JSON line: the time and CPU (every thread)
 * of the writing, and before it, of building the plan (summary, cross-check, exceptions).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import ExcelJS from 'exceljs'
import { HEADER_STYLE, writeCell } from '../../../electron/services/workbook/cells'
import type { DesktopApi } from '../../../electron/shared/contract'
import type { ExportCell } from '../../../electron/shared/contract/export'
import { buildMonthWorkbook, type WorkbookPlan } from '../../../src/export/month-workbook'
import { writeWorkbookThroughHost } from '../../../src/export/workbook-client'
import { setDesktopApiForTests } from '../../../src/platform'
import { generateMonth, monthWorkbookInputOf } from '../shared/month-data'
import { threadCpuSeconds } from './proc-cpu'
import { WRITER_CPU, WRITER_READY, type WriterCall, type WriterReply } from './export-writer-protocol'

const cpuSecondsSince = (before: NodeJS.CpuUsage): number => {
  const cpu = process.cpuUsage(before)
  return (cpu.user + cpu.system) / 1e6
}

/** The writer thread, loaded and waiting, as main is before an export: its start is not timed. */
async function startWriter(dataDir: string, target: string): Promise<Worker> {
  // A thread does not inherit tsx's loader: it registers it, then loads the TypeScript module.
  const file = JSON.stringify(join(__dirname, 'export-writer-thread.ts'))
  const writer = new Worker(`require('tsx/cjs'); require(${file})`, {
    eval: true,
    workerData: { dataDir, target },
  })
  await new Promise<void>((resolve, reject) => {
    writer.once('error', reject)
    writer.once('message', (m) => (m === WRITER_READY ? resolve() : reject(new Error(String(m)))))
  })
  return writer
}

/** DesktopApi's `export` calls as messages to the writer thread. */
function writerApi(writer: Worker): DesktopApi {
  let next = 0
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  writer.on('message', (reply: WriterReply | number) => {
    if (typeof reply === 'number') return // the thread's CPU seconds: `writerCpuSeconds`
    const call = waiting.get(reply.id)
    waiting.delete(reply.id)
    if ('error' in reply) call?.reject(new Error(reply.error))
    else call?.resolve(reply.result)
  })
  const call =
    (channel: WriterCall['channel']) =>
    (args: unknown): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const id = ++next
        waiting.set(id, { resolve, reject })
        writer.postMessage({ id, channel, args } satisfies WriterCall)
      })
  return {
    export: {
      begin: call('export:begin'),
      appendRows: call('export:appendRows'),
      finish: call('export:finish'),
      cancel: call('export:cancel'),
    },
  } as unknown as DesktopApi
}

/** The writer thread's own CPU seconds so far. */
function writerCpuSeconds(writer: Worker): Promise<number> {
  return new Promise((resolve) => {
    const answer = (m: unknown): void => {
      if (typeof m !== 'number') return
      writer.off('message', answer)
      resolve(m)
    }
    writer.on('message', answer)
    writer.postMessage(WRITER_CPU)
  })
}

async function writeThroughWriterThread(plan: WorkbookPlan, writer: Worker): Promise<void> {
  setDesktopApiForTests(writerApi(writer))
  try {
    await writeWorkbookThroughHost(plan)
  } finally {
    setDesktopApiForTests(undefined)
  }
}

async function main(): Promise<void> {
  const [mode = 'stream', nArg = '90000'] = process.argv.slice(2)
  const input = monthWorkbookInputOf(
    generateMonth(Number(nArg)),
    { merchant: 'Bench K.K.', label: 'Bench', appVersion: 'bench' },
    Date.now(),
  )
  const planStarted = performance.now()
  const planCpuBefore = process.cpuUsage()
  const plan = buildMonthWorkbook(input)
  const planSeconds = (performance.now() - planStarted) / 1000
  const planCpuSeconds = cpuSecondsSince(planCpuBefore)
  const totalRows = plan.sheets.reduce((n, s) => n + s.rowCount, 0)
  const dir = await mkdtemp(join(tmpdir(), 'closebook-export-bench-'))
  const target = join(dir, 'out.xlsx')
  const writer = mode === 'stream' ? await startWriter(dir, target) : null
  const baseRss = process.memoryUsage().rss
  let peak = baseRss
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20)
  const writerCpuBefore = writer ? await writerCpuSeconds(writer) : 0
  const rendererCpuBefore = threadCpuSeconds()
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  if (writer) await writeThroughWriterThread(plan, writer)
  else {
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
      for await (const row of sheet.rows()) put(row)
      for (const row of sheet.spec.footer ?? []) put(row)
    }
    await book.xlsx.writeFile(target)
  }
  const seconds = (performance.now() - started) / 1000
  // CPU time of the same span, every thread: on a shared machine it moves far less with load than wall time.
  const cpuSeconds = cpuSecondsSince(cpuBefore)
  // Of which the renderer's thread and main's (the rest: zlib's and V8's helper threads).
  const rendererCpuSeconds = threadCpuSeconds() - rendererCpuBefore
  const writerThreadCpu = writer ? (await writerCpuSeconds(writer)) - writerCpuBefore : null
  clearInterval(sampler)
  await writer?.terminate()
  peak = Math.max(peak, process.memoryUsage().rss)
  const size = (await stat(target)).size
  await rm(dir, { recursive: true, force: true })
  process.stdout.write(
    `${JSON.stringify({ mode, totalRows, seconds, cpuSeconds, rendererCpuSeconds, writerCpuSeconds: writerThreadCpu, planSeconds, planCpuSeconds, baseRssMiB: baseRss / 2 ** 20, peakRssMiB: peak / 2 ** 20, fileMiB: size / 2 ** 20 })}\n`,
  )
}

void main()
