/**
 * Month-end's workbook of one dense month, filled as such: `npx tsx tests/bench/month-workbook-month.ts
 * [records] [runs]` (default 170,000 records, 3 runs) fills Chromium's IndexedDB with that many history
 * records, all in September 2026 (Asia/Tokyo), with their charges, every tenth record reconciled, loads the
 * month in the Month-end store and runs its workbook export `runs` times, the rows going to main's export
 * handlers in this process: through the web host's transport over HTTP (MONTH_END_BENCH_HOST=http, the
 * default), Playwright's page bridge (`bridge`) or nowhere (`hostless`: the renderer's own work); a list
 * (`hostless,http`) takes its hosts in turn from run to run, over one fill. Prints one
 * JSON line: each run's wall time (median and least), Chromium's CPU and this process's (the host's: main's
 * handlers and writer) CPU per run, the renderer's and the host's peak RSS, the file's size, and the load
 * average before and after each run.
 */
import { readFileSync } from 'node:fs'
import { runMonthEndBench } from './month-end-bench'

const loadAverage = (): number[] => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number)

async function main(): Promise<void> {
  const wanted = Number(process.argv[2] ?? 170_000)
  const runs = Number(process.argv[3] ?? 3)
  if (!Number.isInteger(wanted) || wanted < 1000)
    throw new Error(`records: an integer ≥ 1000, not ${process.argv[2]}`)
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`runs: an integer ≥ 1, not ${process.argv[3]}`)
  const loadBefore = loadAverage()
  const { fill, monthEnd, workbooks } = await runMonthEndBench(wanted, [], '2026-09', 'month', runs)
  const sorted = workbooks.map((w) => w.result.ms).sort((a, b) => a - b)
  process.stdout.write(
    `${JSON.stringify({
      cached: fill.cached,
      monthRecords: monthEnd.history,
      monthCharges: monthEnd.charges,
      rows: workbooks[0]?.result.rows,
      mib: Math.round(Math.max(0, ...workbooks.map((w) => w.bytes)) / 2 ** 20),
      hosts: workbooks.map((w) => w.host),
      runsMs: workbooks.map((w) => w.result.ms),
      medianMs: sorted[Math.floor(sorted.length / 2)],
      // The least wall time is the one least stretched by the machine's other work.
      minMs: sorted[0],
      hostWaitMs: workbooks.map((w) => w.result.hostMs),
      chromiumCpuS: workbooks.map((w) => w.cpuS),
      hostCpuS: workbooks.map((w) => w.hostCpuS),
      // The 1-minute load average before and after each run.
      runLoad: workbooks.map((w) => w.load),
      rendererPeakRssMiB: workbooks.map((w) => w.peakRssMiB),
      rendererPeakHeapMiB: workbooks.map((w) => w.peakHeapMiB),
      // The heap after a forced collection (every 5 s): what the renderer holds, not garbage not yet collected.
      rendererRetainedHeapMiB: workbooks.map((w) => w.retainedHeapMiB),
      hostRssBeforeMiB: workbooks.map((w) => w.hostRssBeforeMiB),
      hostPeakRssMiB: workbooks.map((w) => w.hostPeakRssMiB),
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadAverage(),
    })}\n`,
  )
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  process.exit(1)
})
