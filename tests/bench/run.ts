/**
 * `npm run bench [-- --quick] [--out FILE]`: runs every benchmark suite that exists, side by side in one
 * run, prints a table and writes tests/bench/results/latest.json. Suites are separate modules so each can
 * also run alone; a suite that is absent or fails leaves its metrics "missing" with the reason.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { dirname, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { REQUIRED_METRICS, missing, type BenchReport, type MetricMap } from './metrics'

type Suite = { name: string; module: string; exportName: string; metrics: string[] }

const SUITES: Suite[] = [
  {
    name: 'payouts-rollforward',
    module: './payouts-rollforward-bench',
    exportName: 'benchPayoutsRollforward',
    metrics: ['payouts.rollforward_ms'],
  },
  {
    name: 'scheduler',
    module: './scheduler-bench',
    exportName: 'benchScheduler',
    metrics: ['sync.route_utilization', 'sync.http_429', 'sync.records_per_s'],
  },
  {
    name: 'sync',
    module: './sync-bench',
    exportName: 'benchSync',
    metrics: ['sync.speedup_vs_sequential', 'sync.greedy_429', 'sync.incremental_requests'],
  },
  {
    // One Chromium run fills the cache and then measures the ledger on it.
    name: 'cache',
    module: './cache-bench',
    exportName: 'benchCache',
    metrics: [
      'cache.ingest_records_per_s',
      'ledger.first_rows_ms',
      'ledger.filter_ms',
      'ledger.search_ms',
      'ledger.mark_10k_ms',
    ],
  },
  {
    name: 'export',
    module: './export-bench',
    exportName: 'benchExport',
    metrics: ['export.rows_per_s', 'export.peak_rss_mb', 'export.rss_vs_inmemory'],
  },
  { name: 'match', module: './match-bench', exportName: 'benchMatch', metrics: ['match.50k_ms'] },
  {
    name: 'payouts',
    module: './payouts-bench',
    exportName: 'benchPayouts',
    metrics: [
      'payouts.sync_requests',
      'payouts.sync_s',
      'payouts.sync_requests_weekly',
      'payouts.sync_s_weekly',
    ],
  },
  {
    name: 'recheck',
    module: './recheck-bench',
    exportName: 'benchRecheck',
    metrics: ['sync.recheck_requests', 'sync.recheck_ms'],
  },
  {
    // A 500k-record cache backed up to a file and restored from it, in Chromium.
    name: 'backup',
    module: './backup-bench',
    exportName: 'benchBackup',
    metrics: ['backup.roundtrip_s', 'backup.peak_renderer_mb'],
  },
  {
    // A first sync of 50,000 charges through the UI of the built web host in Chromium, seed limits.
    name: 'e2e-sync',
    module: './e2e-sync-bench',
    exportName: 'benchE2eSync',
    metrics: [
      'sync.e2e_ceiling_ratio',
      'sync.e2e_cpu_s_per_10k',
      'sync.e2e_records_per_s',
      'sync.e2e_http_429',
      'sync.e2e_longtask_max_ms',
      'sync.e2e_longtask_count',
      'sync.e2e_longtask_total_ms',
    ],
  },
  {
    // The built web host's Ledger in Chromium, the demo plus 1M records written into its cache, scrolled.
    name: 'ledger-scroll',
    module: './ledger-scroll-bench',
    exportName: 'benchLedgerScroll',
    metrics: [
      'scale.ledger_scroll_max_frame_ms',
      'scale.ledger_scroll_jump_ms',
      'scale.ledger_scroll_reaches_end',
    ],
  },
  {
    name: 'idb-write',
    module: './idb-write-bench',
    exportName: 'benchIdbWrite',
    metrics: [
      'idb.write_current_s',
      'idb.write_us_per_row',
      'idb.write_us_per_index_entry',
      'idb.write_charges_grouped_s',
    ],
  },
  {
    name: 'match-corpus',
    module: './match-corpus-bench',
    exportName: 'benchMatchCorpus',
    metrics: ['match.precision', 'match.recall', 'match.recall_orders', 'match.recall_deposits'],
  },
  {
    // Its own PostgreSQL (initdb in a temporary folder), two desktops' main processes.
    name: 'team',
    module: './team-bench',
    exportName: 'benchTeam',
    metrics: ['team.push_10k_marks_s', 'team.pull_100k_audit_s', 'team.visible_on_other_desktop_ms'],
  },
  {
    // A cache as version 5 left it, 500k records, opened one version step at a time, in Chromium.
    name: 'migration',
    module: './migration-bench',
    exportName: 'benchMigration',
    metrics: [
      'migration.v5_v6_s',
      'migration.v6_v7_s',
      'migration.v7_v8_s',
      'migration.v8_v9_s',
      'migration.v9_v10_s',
    ],
  },
  {
    // A year of a large merchant: BENCH_SCALE_RECORDS history records (2M unless set), real IndexedDB.
    name: 'scale',
    module: './scale-bench',
    exportName: 'benchScale',
    metrics: Object.keys(REQUIRED_METRICS).filter((m) => m.startsWith('scale.')),
  },
]

type SuiteFn = (opts: { quick: boolean }) => Promise<MetricMap>

async function runSuite(suite: Suite, quick: boolean): Promise<MetricMap> {
  let fn: SuiteFn | undefined
  try {
    const mod = (await import(suite.module)) as Record<string, unknown>
    fn = mod[suite.exportName] as SuiteFn | undefined
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND'
        ? 'suite not written yet'
        : `suite failed to load: ${String(error)}`
    return Object.fromEntries(suite.metrics.map((m) => [m, missing(m, reason)]))
  }
  if (typeof fn !== 'function')
    return Object.fromEntries(suite.metrics.map((m) => [m, missing(m, `${suite.exportName} not exported`)]))
  try {
    const result = await fn({ quick })
    for (const m of suite.metrics) result[m] ??= missing(m, `${suite.name} suite did not report it`)
    return result
  } catch (error) {
    const reason = `${suite.name} suite failed: ${error instanceof Error ? error.message : String(error)}`
    return Object.fromEntries(suite.metrics.map((m) => [m, missing(m, reason)]))
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      only: { type: 'string' },
    },
  })
  const quick = values.quick ?? false
  const started = Date.now()
  const metrics: MetricMap = {}
  for (const suite of SUITES) {
    if (values.only && !values.only.split(',').includes(suite.name)) continue
    process.stderr.write(`bench: ${suite.name}${quick ? ' (quick)' : ''}…\n`)
    Object.assign(metrics, await runSuite(suite, quick))
  }
  for (const name of Object.keys(REQUIRED_METRICS)) metrics[name] ??= missing(name, 'not run (--only)')
  const cpu = cpus()
  const report: BenchReport = {
    machine: {
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      cpus: cpu.length,
      cpuModel: cpu[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
    },
    quick,
    startedAt: new Date(started).toISOString(),
    durationS: Math.round((Date.now() - started) / 100) / 10,
    metrics,
  }
  const outputs = [resolve(__dirname, 'results/latest.json'), ...(values.out ? [resolve(values.out)] : [])]
  for (const file of outputs) {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`)
  }
  const rows = Object.entries(metrics).map(([name, m]) => ({
    metric: name,
    value: m.value === null ? `missing: ${m.missing ?? ''}` : `${m.value} ${m.unit}`,
    target: m.target,
    ok: m.ok ? 'yes' : 'no',
  }))
  console.table(rows)
  console.log(`report: ${outputs.join(', ')}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
