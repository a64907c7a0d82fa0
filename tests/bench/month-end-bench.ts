/**
 * Month-end and the ledger's CSV export in Chromium with its real IndexedDB (browser/month-end-entry.ts):
 * one fill of a year of history with its charges (every tenth record reconciled), then Month-end's
 * loadMonth on one month, then the ledger store's export of the newest N records for each N asked, the
 * file written by main's FileWriter in this process (as the desktop host writes it: a temporary file,
 * moved into place whole). Each export is one step with the renderer's peak RSS (VmHWM, reset before it).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { FileWriter } from '../../electron/services/files/file-writer'
import { moveIntoPlace } from '../../electron/services/files/move-into-place'
import { exportHandlers } from '../../electron/services/handlers/export-handlers'
import { WorkbookExports } from '../../electron/services/workbook/workbook-exports'
import { exportContract } from '../../electron/shared/contract/export'
import { chargeItem, historyItem } from '../../electron/sandbox/serialize'
import { dispatch } from '../../electron/services/dispatcher'
import type { Handlers } from '../../electron/services/handlers/types'
import type { CallOutcome } from '../../electron/shared/errors'
import { jsonNestsDeeperThan } from '../../electron/shared/json-depth'
import { API_PREFIX } from '../../electron/web/web-host'
import { step, type Step } from './backup-bench'
import type {
  ExportRunResult,
  MonthEndFillArgs,
  MonthEndFillResult,
  MonthEndPhases,
  MonthEndRunResult,
  MonthEndRuns,
  WorkbookHost,
  WorkbookRunResult,
} from './shared/month-end-bench-types'
import { runInChromium } from './support/chromium-runner'
import { profilePage } from './support/cpu-profile'
import { monthOfData, yearOfData } from './support/year-data'

export interface MonthEndBenchResult {
  fill: MonthEndFillResult
  monthEnd: MonthEndRunResult
  /** One per export asked, in order, with the file's size on disk. */
  exports: (Step<ExportRunResult> & { bytes: number })[]
  /**
   * One per workbook run asked, with where its rows went, the file's size (0 host-less), the host's (this
   * process's) CPU and peak RSS, and the machine's 1-minute load average before and after it.
   */
  workbooks: (Step<WorkbookRunResult> &
    HostUse & { bytes: number; load: [number, number]; host: WorkbookHost })[]
}

const loadAverage = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])

/** What this process (main's side: the export handlers and their writer) spent during a step. */
export interface HostUse {
  hostCpuS: number
  /** The process's RSS when the step began, MiB. */
  hostRssBeforeMiB: number
  /** The process's largest RSS sampled every 50 ms during the step, MiB. */
  hostPeakRssMiB: number
}

/** Runs `run` noting this process's CPU seconds and peak RSS meanwhile. */
async function withHostUse<T>(run: () => Promise<T>): Promise<T & HostUse> {
  const before = process.cpuUsage()
  const rssBefore = process.memoryUsage().rss
  let peak = rssBefore
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
  try {
    const result = await run()
    const used = process.cpuUsage(before)
    peak = Math.max(peak, process.memoryUsage().rss)
    return {
      ...result,
      hostCpuS: Math.round((used.user + used.system) / 1e5) / 10,
      hostRssBeforeMiB: Math.round(rssBefore / 2 ** 20),
      hostPeakRssMiB: Math.round(peak / 2 ** 20),
    }
  } finally {
    clearInterval(timer)
  }
}

/**
 * The workbook's hosts, run after run in turn: MONTH_END_BENCH_HOST, a comma-separated list of http, bridge
 * and hostless (e.g. `hostless,http`), else hostless when MONTH_END_BENCH_HOSTLESS=1, else the web host's
 * transport over HTTP.
 */
export function workbookHostsOf(env: NodeJS.ProcessEnv): WorkbookHost[] {
  const asked = env['MONTH_END_BENCH_HOST']
  if (!asked) return [env['MONTH_END_BENCH_HOSTLESS'] === '1' ? 'hostless' : 'http']
  return asked.split(',').map((h) => {
    const host = h.trim()
    if (host === 'http' || host === 'bridge' || host === 'hostless') return host
    throw new Error(`MONTH_END_BENCH_HOST lists http, bridge or hostless, not "${host}"`)
  })
}

/**
 * The web host's `POST /api/call/export:<action>` as this process answers it, with the web host's own steps:
 * the body's nesting checked, parsed, then main's dispatcher (the contract's check, the handler, the
 * result's check) over the export handlers, its outcome back as JSON. Authorization and the 202 hand-off of
 * a long call are left out (no export call is held).
 */
function webHostCalls(handlers: Handlers): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = req.url ?? ''
    if (req.method !== 'POST' || !path.startsWith(API_PREFIX)) return false
    const channel = decodeURIComponent(path.slice(API_PREFIX.length))
    const body: Buffer[] = []
    req.on('data', (b: Buffer) => body.push(b))
    req.on('end', () => {
      const answer = async (): Promise<CallOutcome> => {
        const text = Buffer.concat(body).toString('utf8')
        if (jsonNestsDeeperThan(text)) throw new Error('the call body nests too deep')
        const { args } = JSON.parse(text) as { args: unknown }
        return dispatch(handlers, channel, args, { host: 'web', signal: new AbortController().signal })
      }
      void answer()
        .catch((e: unknown) => ({
          ok: false as const,
          error: { code: 'internal' as const, message: e instanceof Error ? e.message : String(e) },
        }))
        .then((outcome) =>
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(outcome)),
        )
    })
    return true
  }
}

/**
 * Fills a cache of about `wanted` history records and measures Month-end on `period` and the ledger
 * export of the newest `exportRows[i]` records (each at most the cache). `fill` 'year': the records
 * spread over a year (the month holds about 8.5 % of them); 'month': all of them in `period`, so that a
 * month of a given size is measured as such rather than carried from a smaller one.
 */
export async function runMonthEndBench(
  wanted: number,
  exportRows: readonly number[],
  period = '2026-09',
  fill: 'year' | 'month' = 'year',
  workbookRuns = 0,
  hosts: readonly WorkbookHost[] = workbookHostsOf(process.env),
): Promise<MonthEndBenchResult> {
  const timeZone = 'Asia/Tokyo'
  const { data, names } =
    fill === 'month' ? monthOfData(406, wanted, period, timeZone) : yearOfData(406, wanted)
  const args: MonthEndFillArgs = {
    records: data.history.length,
    charges: data.charges.length,
    period,
    timeZone,
  }
  const dir = mkdtempSync(join(tmpdir(), 'closebook-month-end-bench-'))
  const started = Date.now()
  const log = (s: string): void =>
    void process.stderr.write(`bench: month-end: ${s} (${Math.round((Date.now() - started) / 1000)} s)\n`)
  let delivered = ''
  const files = new FileWriter({
    dataDir: dir,
    deliverFile: async (temp, fileName) => {
      delivered = join(dir, fileName)
      await moveIntoPlace(temp, delivered)
      return { savedTo: 'path', path: delivered, fileName }
    },
  })
  // Main's export handlers over its streaming writer, the file delivered as the desktop host delivers it.
  const workbookHandlers = exportHandlers(
    new WorkbookExports({
      dataDir: dir,
      deliverFile: async (temp, fileName) => {
        delivered = join(dir, fileName)
        await moveIntoPlace(temp, delivered)
        return { savedTo: 'path', path: delivered, fileName }
      },
    }),
  )
  const exportCall = async (channel: string, args: string): Promise<string> => {
    const name = channel as keyof typeof exportContract
    const handle = workbookHandlers[name] as (a: unknown) => Promise<unknown>
    return JSON.stringify(await handle(exportContract[name].args.parse(JSON.parse(args))))
  }
  /** The current workbook run's host. */
  let host: WorkbookHost = hosts[0] ?? 'http'
  try {
    return await runInChromium(resolve(__dirname, 'browser/month-end-entry.ts'), args, {
      timeoutMs: 3_600_000,
      expose: {
        __stage: log,
        __items: (offset: number, count: number) =>
          JSON.stringify(data.history.slice(offset, offset + count).map((e) => historyItem(e, names))),
        __charges: (offset: number, count: number) =>
          JSON.stringify(data.charges.slice(offset, offset + count).map((c) => chargeItem(c, names))),
        __fileBegin: (name: string) => files.begin(name),
        __fileAppend: (fileId: string, chunk: string) => files.append(fileId, chunk),
        __fileFinish: (fileId: string) => files.finish(fileId),
        __fileCancel: (fileId: string) => files.cancel(fileId),
        __hostless: () => process.env['MONTH_END_BENCH_HOSTLESS'] === '1',
        __exportCall: exportCall,
        __workbookHost: () => host,
      },
      handle: webHostCalls(workbookHandlers as unknown as Handlers),
      drive: async (page, profileDir) => {
        const fill = await page.evaluate(
          (a) =>
            (
              globalThis as unknown as { __bench: (x: MonthEndFillArgs) => Promise<MonthEndFillResult> }
            ).__bench(a),
          args,
        )
        log(
          `filled ${fill.cached} records, ${fill.charges} charges, ${fill.marks} marks in ${fill.fillMs} ms`,
        )
        // The generated year is the fill's alone: let go, so that this process's RSS is the host's.
        data.history.length = 0
        data.charges.length = 0
        // MONTH_END_LOAD_PROFILE=<file>: the loads' JavaScript CPU profile, top self times logged.
        const loadProfile = process.env['MONTH_END_LOAD_PROFILE']
        const stopLoadProfile = loadProfile ? await profilePage(page, loadProfile) : null
        const loads = await step(page, profileDir, () =>
          page.evaluate(
            (a) =>
              (
                globalThis as unknown as { __monthEnd: (x: MonthEndFillArgs) => Promise<MonthEndRuns> }
              ).__monthEnd(a),
            args,
          ),
        )
        if (stopLoadProfile) log(`the loads' JavaScript profile: ${await stopLoadProfile()}`)
        const phases = await page.evaluate(
          (a) =>
            (
              globalThis as unknown as { __monthEndPhases: (x: MonthEndFillArgs) => Promise<MonthEndPhases> }
            ).__monthEndPhases(a),
          args,
        )
        const monthEnd: MonthEndRunResult = { ...loads.result, ...phases, cpuS: loads.cpuS }
        log(`month-end ${JSON.stringify(monthEnd)}`)
        const exports: MonthEndBenchResult['exports'] = []
        for (const rows of exportRows) {
          // What the fill and earlier steps left for the collector is not the export's: collected first.
          const cdp = await page.context().newCDPSession(page)
          await cdp.send('HeapProfiler.collectGarbage')
          await cdp.detach()
          // MONTH_END_BENCH_PROFILE=<file>: the export's JavaScript CPU profile (the last size's), top self times logged.
          const profilePath = process.env['MONTH_END_BENCH_PROFILE']
          const stopProfile = profilePath ? await profilePage(page, profilePath) : null
          const run = await step(page, profileDir, () =>
            page.evaluate(
              (n) =>
                (globalThis as unknown as { __export: (x: number) => Promise<ExportRunResult> }).__export(n),
              Math.min(rows, fill.cached),
            ),
          )
          if (stopProfile) log(`export's JavaScript profile: ${await stopProfile()}`)
          const bytes = statSync(delivered).size
          rmSync(delivered, { force: true })
          log(
            `export of ${run.result.rows} rows: ${run.result.ms}  ms (records read ${run.result.readRecordsMs} ms, marks read ${run.result.readMarksMs} ms, host ${run.result.hostMs} ms), ${Math.round(bytes / 2 ** 20)} MiB, renderer peak RSS ${run.peakRssMiB} MiB, JS heap ${run.peakHeapMiB} MiB (${run.retainedHeapMiB} MiB after a forced GC), Chromium CPU ${run.cpuS} s`,
          )
          exports.push({ ...run, bytes })
        }
        const workbooks: MonthEndBenchResult['workbooks'] = []
        for (let i = 0; i < workbookRuns; i++) {
          host = hosts[i % hosts.length] ?? 'http'
          const cdp = await page.context().newCDPSession(page)
          await cdp.send('HeapProfiler.collectGarbage')
          await cdp.detach()
          const profilePath = process.env['MONTH_END_BENCH_PROFILE']
          const stopProfile =
            profilePath && i === workbookRuns - 1 ? await profilePage(page, profilePath) : null
          const loadBefore = loadAverage()
          const run = await withHostUse(() =>
            step(page, profileDir, () =>
              page.evaluate(
                (a) =>
                  (
                    globalThis as unknown as {
                      __workbook: (x: MonthEndFillArgs) => Promise<WorkbookRunResult>
                    }
                  ).__workbook(a),
                args,
              ),
            ),
          )
          if (stopProfile) log(`the workbook's JavaScript profile: ${await stopProfile()}`)
          // Host-less, no file is written.
          const bytes = host === 'hostless' ? 0 : statSync(delivered).size
          if (host !== 'hostless') rmSync(delivered, { force: true })
          log(
            `workbook (${host}) of ${run.result.rows} rows: ${run.result.ms} ms (host ${run.result.hostMs} ms), ${Math.round(bytes / 2 ** 20)} MiB, Chromium CPU ${run.cpuS} s, host CPU ${run.hostCpuS} s, renderer peak RSS ${run.peakRssMiB} MiB, host RSS ${run.hostRssBeforeMiB} → ${run.hostPeakRssMiB} MiB`,
          )
          workbooks.push({ ...run, bytes, load: [loadBefore, loadAverage()], host })
        }
        return { fill, monthEnd, exports, workbooks }
      },
    })
  } finally {
    await files.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}
