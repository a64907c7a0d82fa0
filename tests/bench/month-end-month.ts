/**
 * Month-end's load on one dense month, filled as such (not carried from a year's smaller month):
 * `npx tsx tests/bench/month-end-month.ts [records]` (default 170,000) fills Chromium's IndexedDB with
 * that many history records, all in September 2026 (Asia/Tokyo), with their charges, every tenth record
 * reconciled, then times loadMonth as the view's store calls it. Prints one JSON line: the load's wall
 * times, Chromium's CPU seconds per load and per record of the month, each step's share, and the load
 * average before and after (a CPU-bound wall time moves with it; the CPU figures much less).
 */
import { readFileSync } from 'node:fs'
import { runMonthEndBench } from './month-end-bench'

const loadAverage = (): number[] => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number)

async function main(): Promise<void> {
  const wanted = Number(process.argv[2] ?? 170_000)
  if (!Number.isInteger(wanted) || wanted < 1000)
    throw new Error(`records: an integer ≥ 1000, not ${process.argv[2]}`)
  const loadBefore = loadAverage()
  const { fill, monthEnd } = await runMonthEndBench(wanted, [], '2026-09', 'month')
  const sorted = [...monthEnd.runs].sort((a, b) => a - b)
  const cpuMsPerLoad = (monthEnd.cpuS * 1000) / monthEnd.loads
  process.stdout.write(
    `${JSON.stringify({
      cached: fill.cached,
      monthRecords: monthEnd.history,
      monthCharges: monthEnd.charges,
      marks: monthEnd.marks,
      runsMs: monthEnd.runs,
      medianMs: sorted[Math.floor(sorted.length / 2)],
      // The least wall time is the one least stretched by the machine's other work.
      minMs: sorted[0],
      cpuS: monthEnd.cpuS,
      loads: monthEnd.loads,
      cpuMsPerLoad: Math.round(cpuMsPerLoad),
      cpuUsPerRecord: Math.round((cpuMsPerLoad * 10_000) / monthEnd.history) / 10,
      phasesMs: monthEnd.phasesMs,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadAverage(),
    })}\n`,
  )
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  process.exit(1)
})
