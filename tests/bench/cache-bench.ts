/**
 * The cache and the ledger in Chromium with its real IndexedDB (tests/bench/browser/cache-entry.ts):
 * ingest rate through HistoryRepository.putPage, then the ledger's reads and a 10k bulk mark on the
 * filled cache. One browser run yields both the cache and the ledger metrics.
 */
import { resolve } from 'node:path'
import { historyItem } from '../../electron/sandbox/serialize'
import { periodRange } from '../../src/domain/periods'
import { measured, type MetricMap } from './metrics'
import type { CacheBenchArgs, CacheBenchResult, Timing } from './shared/cache-bench-types'
import { runInChromium } from './support/chromium-runner'
import { treeCpuSeconds } from './support/proc-cpu'
import { yearOfData } from './support/year-data'

const MONTH = '2026-09'
const TIME_ZONE = 'Asia/Tokyo'

/**
 * Fills a cache of about `wanted` history records in Chromium and measures the ledger on it: the raw
 * result, for benchCache and the scale suite.
 */
export async function runCacheBench(
  wanted: number,
  quick: boolean,
): Promise<{ result: CacheBenchResult; args: CacheBenchArgs; cpuByStage: Record<string, number> }> {
  const { data, names } = yearOfData(404, wanted)
  const month = periodRange(MONTH, TIME_ZONE)
  // A Latin-script cardholder of that month: what an accountant types to find a customer's payments.
  const sample = data.history.find(
    (e) => e.createdUs >= month.from * 1000 && /^[A-Za-z]+ [A-Za-z]+$/.test(e.charge.card.name),
  )
  const args: CacheBenchArgs = {
    records: data.history.length,
    // Full mode: 100k timed in pages of 100 (~2 min here), the rest filled in larger pages.
    ingestRecords: Math.min(quick ? 10_000 : 100_000, data.history.length),
    storeId: data.stores[0]?.id ?? '',
    searchTerm: sample?.charge.card.name ?? 'tanaka',
    month: MONTH,
    timeZone: TIME_ZONE,
    repeats: 3,
  }
  // The page's last stage, so a page that dies mid-run is named in the failure (and progress is visible).
  let stage = 'starting Chromium'
  const started = Date.now()
  // Chromium's CPU seconds per stage the page reports: the Chromium this process launched (its child)
  // and every process it spawned, sampled at each stage change.
  const cpuByStage: Record<string, number> = {}
  const chromium = (_pid: number, p: { ppid: number; cmd: string }): boolean =>
    p.ppid === process.pid && /chrom/i.test(p.cmd) && !p.cmd.includes('--type=')
  let cpuMark: { stage: string; at: number } | null = null
  const markCpu = (next: string): void => {
    const now = treeCpuSeconds(chromium)
    if (cpuMark) cpuByStage[cpuMark.stage] = (cpuByStage[cpuMark.stage] ?? 0) + now - cpuMark.at
    cpuMark = { stage: next.replace(/ at record \d+$/, ''), at: now }
  }
  const result = await runInChromium<CacheBenchResult>(resolve(__dirname, 'browser/cache-entry.ts'), args, {
    timeoutMs: 1_800_000,
    expose: {
      __stage: (s: string) => {
        stage = s
        markCpu(s)
        process.stderr.write(`bench: cache: ${s} (${Math.round((Date.now() - started) / 1000)} s)\n`)
      },
      __items: (offset: number, count: number) =>
        JSON.stringify(data.history.slice(offset, offset + count).map((e) => historyItem(e, names))),
    },
  }).catch((error: unknown) => {
    throw new Error(`at "${stage}": ${error instanceof Error ? error.message : String(error)}`)
  })
  markCpu('done')
  for (const [k, v] of Object.entries(cpuByStage)) cpuByStage[k] = Math.round(v * 100) / 100
  return { result, args, cpuByStage }
}

export async function benchCache({ quick }: { quick: boolean }): Promise<MetricMap> {
  const { result, args } = await runCacheBench(quick ? 20_000 : 500_000, quick)
  const on = `${result.cached} records cached in Chromium IndexedDB (${result.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? 'Chromium'})`
  const timing = (t: Timing, what: string) =>
    `${what}: first ${t.rows} rows with their marks, median of ${t.runs.join(', ')} ms (then the count, ${t.total}, in ${t.countMs} ms in the background); ${on}`
  const worseFilter =
    result.filterRefunds.ms >= result.filterStore.ms ? result.filterRefunds : result.filterStore
  return {
    // Records ÷ time inside historyRecordOf + putPage (100 per transaction, with checkpoint), summed.
    'cache.ingest_records_per_s': measured(
      'cache.ingest_records_per_s',
      Math.round(result.ingested / (result.ingestMs / 1000)),
      `first ${result.ingested} records in ${Math.round(result.ingestMs / 100) / 10} s of historyRecordOf + putPage time, pages of 100 with their checkpoint; the other ${result.cached - result.ingested} went in pages of 5000 at ${Math.round((result.cached - result.ingested) / (result.fillMs / 1000))} records/s; feeding items from Node (${Math.round(result.feedMs / 100) / 10} s) not counted; IndexedDB on disk in a persistent profile`,
    ),
    // As the ledger opens (ledger-store refresh): all periods, newest first.
    'ledger.first_rows_ms': measured(
      'ledger.first_rows_ms',
      result.firstRows.ms,
      timing(result.firstRows, 'all periods, newest first'),
    ),
    // The slower of two one-month filters: refunds only (type index), one store (store index).
    'ledger.filter_ms': measured(
      'ledger.filter_ms',
      worseFilter.ms,
      `${timing(result.filterRefunds, `refunds in ${MONTH}`)} | ${timing(result.filterStore, `one store in ${MONTH}`)}`,
    ),
    'ledger.search_ms': measured(
      'ledger.search_ms',
      result.searchMonth.ms,
      // Prefix search through the day token index (dayTokens); the generator has 10 Latin names, so a full name
      // matches about 1 record in 20: a harder case than an order number or an e-mail.
      `${timing(result.searchMonth, `"${args.searchTerm}" in ${MONTH} (${result.searchMonth.total} matches)`)} | ${timing(result.searchAll, `same search, all periods (one run, ${result.searchAll.total} matches)`)}`,
    ),
    // "Mark all matching" on a filter matching the newest 10k records: their digests (markTargets), then planAndApply.
    'ledger.mark_10k_ms': measured(
      'ledger.mark_10k_ms',
      result.mark.ms,
      `${result.mark.records} records (${result.mark.puts} marks written in ${result.mark.dayRows} day rows, one audit row): read their day digests ${result.mark.readMs} ms, then one transaction: plan ${result.mark.planMs} ms, read marks and locks + write marks and audit ${result.mark.applyMs} ms; for comparison, one row per mark could not beat ${result.mark.floorMs} ms (the same ${result.mark.puts} marks put raw into a store with no index, one transaction); ${on}`,
    ),
  }
}
