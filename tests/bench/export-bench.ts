/**
 * export.*: the month-end workbook of a generated month (90k history records → ~200k rows over all sheets in
 * full mode), each writer in its own process; the streaming one runs the renderer's and main's sides in two
 * threads, as the app runs them in two processes. rows_per_s = all rows ÷ wall time of the app's streaming path;
 * peak_rss_mb = that process's peak RSS; rss_vs_inmemory = the growth of peak RSS over the process's RSS
 * before writing, streaming ÷ exceljs's in-memory Workbook on the same rows.
 */
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { measured, type MetricMap } from './metrics'

export interface WorkerResult {
  mode: string
  totalRows: number
  seconds: number
  /** CPU of the writing, every thread; then the renderer's thread and main's (null in memory mode). */
  cpuSeconds: number
  rendererCpuSeconds: number
  writerCpuSeconds: number | null
  /** Building the month's plan (summary, cross-check, exceptions) before the first row is written. */
  planSeconds: number
  planCpuSeconds: number
  baseRssMiB: number
  peakRssMiB: number
}

/** "CPU 9.3 s (renderer 2.6, main 5.0, zlib and GC threads 1.7)": where a streaming run's CPU went. */
export function cpuNote(run: WorkerResult): string {
  const f = (s: number): string => s.toFixed(1)
  if (run.writerCpuSeconds === null) return `CPU ${f(run.cpuSeconds)} s`
  const rest = run.cpuSeconds - run.rendererCpuSeconds - run.writerCpuSeconds
  return `CPU ${f(run.cpuSeconds)} s (renderer ${f(run.rendererCpuSeconds)}, main ${f(run.writerCpuSeconds)}, zlib and GC threads ${f(rest)})`
}

/** One export in its own process (support/export-worker.ts) over a generated month of `records`. */
export function runWorker(mode: 'stream' | 'memory', records: number): WorkerResult {
  const out = execFileSync(
    resolve('node_modules/.bin/tsx'),
    [resolve(__dirname, 'support/export-worker.ts'), mode, String(records)],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
      timeout: 20 * 60_000,
      env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=8192' },
    },
  )
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as WorkerResult
}

export function benchExport({ quick }: { quick: boolean }): Promise<MetricMap> {
  const records = quick ? 20_000 : 90_000
  const stream = runWorker('stream', records)
  const memory = runWorker('memory', records)
  const note = `${stream.totalRows} rows from ${records} history records: streaming ${stream.seconds.toFixed(1)} s, ${cpuNote(stream)}, peak RSS ${Math.round(stream.peakRssMiB)} MiB (+${Math.round(stream.peakRssMiB - stream.baseRssMiB)}); in-memory ${memory.seconds.toFixed(1)} s, peak RSS ${Math.round(memory.peakRssMiB)} MiB (+${Math.round(memory.peakRssMiB - memory.baseRssMiB)})`
  return Promise.resolve({
    'export.rows_per_s': measured('export.rows_per_s', Math.round(stream.totalRows / stream.seconds), note),
    'export.peak_rss_mb': measured('export.peak_rss_mb', Math.round(stream.peakRssMiB), note),
    'export.rss_vs_inmemory': measured(
      'export.rss_vs_inmemory',
      Number(
        (
          (stream.peakRssMiB - stream.baseRssMiB) /
          Math.max(1, memory.peakRssMiB - memory.baseRssMiB)
        ).toFixed(3),
      ),
      note,
    ),
  })
}
