/**
 * Opening an older cache (tests/bench/browser/migration-entry.ts), in Chromium with its real IndexedDB:
 * a cache as version 5 left it, 500k history records (20k in quick mode), opened one version step at a
 * time. Seconds per step that does work; the fill that sets the scene is not measured.
 */
import { resolve } from 'node:path'
import { CURRENT_VERSION } from '../../src/db/schema'
import { historyItem } from '../../electron/sandbox/serialize'
import { measured, type MetricMap } from './metrics'
import type { MigrationBenchArgs, MigrationBenchResult } from './shared/migration-bench-types'
import { runInChromium } from './support/chromium-runner'
import { treeCpuSeconds } from './support/proc-cpu'
import { yearOfData } from './support/year-data'

/** A version-5 cache of about `wanted` history records opened step by step: the raw result. */
export async function runMigrationBench(wanted: number): Promise<MigrationBenchResult> {
  const { data, names } = yearOfData(404, wanted)
  const args: MigrationBenchArgs = { records: data.history.length, markEvery: 10 }
  let stage = 'starting Chromium'
  const started = Date.now()
  return runInChromium<MigrationBenchResult>(resolve(__dirname, 'browser/migration-entry.ts'), args, {
    timeoutMs: 3_600_000,
    expose: {
      __stage: (s: string) => {
        stage = s
        process.stderr.write(`bench: migration: ${s} (${Math.round((Date.now() - started) / 1000)} s)\n`)
      },
      __cpu: () => treeCpuSeconds((_pid, p) => p.ppid === process.pid),
      __items: (offset: number, count: number) =>
        JSON.stringify(data.history.slice(offset, offset + count).map((e) => historyItem(e, names))),
    },
  }).catch((error: unknown) => {
    throw new Error(`at "${stage}": ${error instanceof Error ? error.message : String(error)}`)
  })
}

export async function benchMigration({ quick }: { quick: boolean }): Promise<MetricMap> {
  const wanted = Number(process.env['BENCH_MIGRATION_RECORDS'] ?? (quick ? 20_000 : 500_000))
  const result = await runMigrationBench(wanted)
  const on = `${result.cached} records, ${result.marks} marks, cached as version 5 left them (filled in ${Math.round(result.fillMs / 1000)} s, not measured), Chromium IndexedDB (${result.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? 'Chromium'})`
  const sec = (ms: number | null): string => (ms === null ? '-' : String(Math.round(ms / 100) / 10))
  const metrics: MetricMap = {}
  const what: Record<number, string> = {
    6: 'marks by day, audit by action, day digests: one pass over history',
    7: 'day tokens from the stored tokens, the token index dropped: one pass over history',
    8: 'a new empty table',
    9: 'the restore staging tables, new and empty',
    10: 'the charge day tables, new and empty; a time index on the empty staged charges',
  }
  for (const step of result.steps) {
    const name = `migration.v${step.version - 1}_v${step.version}_s`
    metrics[name] = measured(
      name,
      Math.round(step.ms / 100) / 10,
      `open() of the v${step.version - 1} cache at v${step.version} (${what[step.version] ?? ''}): pass over history from ${sec(step.firstReportMs)} s (schema changes before it, e.g. dropping an index) to ${sec(step.passEndMs)} s, then the derived rows' writes and the commit; ${step.reports} progress reports; ${on}; after v10: ${result.dayDigests} day digest rows, ${result.dayTokens} day token parts, ${result.markDays} mark day rows`,
    )
  }
  const aside = result.setAside
  metrics['migration.v5_current_s'] = measured(
    'migration.v5_current_s',
    Math.round(aside.openMs / 100) / 10,
    `open() of a second v5 cache straight at v${CURRENT_VERSION}, as the app opens it: its history set aside by renaming the store in the version change (${aside.setAside} records), every step on an empty history; ${aside.openCpuS.toFixed(1)} CPU-s of Chromium's processes; ${on}`,
  )
  metrics['migration.legacy_file_s'] = measured(
    'migration.legacy_file_s',
    Math.round(aside.fileMs / 100) / 10,
    `filing the days of the ${aside.setAside} set-aside records (digests, summaries, tokens, marks, store names; from then on every read answers whole): ${Math.round((aside.setAside * 1000) / Math.max(1, aside.fileMs))} records/s, ${aside.fileCpuS.toFixed(1)} CPU-s of Chromium's processes (${((aside.fileCpuS * 10_000) / Math.max(1, aside.setAside)).toFixed(2)} per 10k)`,
  )
  metrics['migration.legacy_move_s'] = measured(
    'migration.legacy_move_s',
    Math.round(aside.moveMs / 100) / 10,
    `then the move of the ${aside.setAside} filed records into day parts (${aside.batches} progress reports, ${aside.inParts} keys in parts after, ${aside.left} left): ${Math.round((aside.setAside * 1000) / Math.max(1, aside.moveMs))} records/s, ${aside.moveCpuS.toFixed(1)} CPU-s of Chromium's processes (${((aside.moveCpuS * 10_000) / Math.max(1, aside.setAside)).toFixed(2)} per 10k)`,
  )
  return metrics
}
