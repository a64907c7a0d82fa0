/**
 * A backup round trip in Chromium with its real IndexedDB (tests/bench/browser/backup-entry.ts): fill a
 * cache of 500k records (10 % marked, each with its audit entry), back it up with streamBackup to a file
 * on disk, choose that file in a file input, check it and restore it into an empty cache. Time of each
 * step, and the tab's peak memory during each: the renderer's peak resident set (VmHWM, reset before each
 * step through /proc/<pid>/clear_refs) and the largest JS heap seen (sampled every 250 ms).
 */
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Page } from '@playwright/test'
import { chargeItem, historyItem } from '../../electron/sandbox/serialize'
import { chargeItemSchema, historyItemSchema } from '../../electron/shared/payment-api'
import { measured, type MetricMap } from './metrics'
import type { BackupBenchArgs, BackupRunResult, RestoreRunResult } from './shared/backup-bench-types'
import { runInChromium } from './support/chromium-runner'
import { profilePage } from './support/cpu-profile'
import { yearOfData } from './support/year-data'
import { chromiumOf, treeCpuSeconds } from './support/proc-cpu'

const MIB = 1024 * 1024

/** Renderer processes of the Chromium using `profileDir` (a child's command line does not name it). */
function rendererPids(profileDir: string): number[] {
  const procs = new Map<number, { ppid: number; cmd: string }>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ')
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      procs.set(Number(name), { ppid, cmd })
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 10; depth++) {
      const info = procs.get(p)
      if (!info) return false
      if (info.cmd.includes(profileDir)) return true
      p = info.ppid
    }
    return false
  }
  return [...procs].filter(([pid, p]) => p.cmd.includes('--type=renderer') && ours(pid)).map(([pid]) => pid)
}

const peakRssMiB = (pids: number[]): number =>
  Math.max(
    0,
    ...pids.map((pid) => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
        return m ? Math.round(Number(m[1]) / 1024) : 0
      } catch {
        return 0
      }
    }),
  )

function resetPeaks(pids: number[]): void {
  for (const pid of pids) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5')
    } catch {
      // not permitted: the peak then includes the fill
    }
  }
}

export interface Step<T> {
  result: T
  peakRssMiB: number
  peakHeapMiB: number
  /** The largest heap left after a forced garbage collection (every 5 s): what the step really holds. */
  retainedHeapMiB: number
  /** The same, per stage the page reported (where in the step the memory is held). */
  retainedByStage: Record<string, number>
  /** CPU seconds Chromium's processes spent in the step (/proc; the renderer and IndexedDB's threads). */
  cpuS: number
}

/** The page's current stage (its `__stage` calls): step() files each forced-GC sample under it. */
let currentStage = ''

/**
 * Runs one step, tracking the renderer's peak RSS, the page's largest JS heap (garbage included: V8 lets
 * it grow before collecting) and the largest heap a forced collection leaves, which grows only with what
 * the code keeps.
 */
export async function step<T>(page: Page, profileDir: string, run: () => Promise<T>): Promise<Step<T>> {
  const pids = rendererPids(profileDir)
  resetPeaks(pids)
  const cpuBefore = treeCpuSeconds(chromiumOf(profileDir))
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Performance.enable')
  let peakHeap = 0
  let retained = 0
  const retainedByStage: Record<string, number> = {}
  let sampling = true
  const heapNow = async (): Promise<number> => {
    const { metrics } = await cdp.send('Performance.getMetrics').catch(() => ({ metrics: [] }))
    return metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0
  }
  const sampler = (async () => {
    for (let tick = 1; sampling; tick++) {
      peakHeap = Math.max(peakHeap, await heapNow())
      if (tick % 20 === 0) {
        await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined)
        const now = await heapNow()
        retained = Math.max(retained, now)
        const stage = currentStage.replace(/ at record \d+$/, '')
        retainedByStage[stage] = Math.max(retainedByStage[stage] ?? 0, Math.round(now / MIB))
      }
      await new Promise((r) => setTimeout(r, 250))
    }
  })()
  try {
    const result = await run()
    const cpuS = Math.round((treeCpuSeconds(chromiumOf(profileDir)) - cpuBefore) * 10) / 10
    return {
      cpuS,
      result,
      peakRssMiB: peakRssMiB(pids),
      peakHeapMiB: Math.round(peakHeap / MIB),
      retainedHeapMiB: Math.round(retained / MIB),
      retainedByStage,
    }
  } finally {
    sampling = false
    await sampler
    await cdp.detach().catch(() => undefined)
  }
}

/** A step's peak memory, as the notes give it. */
export const heaps = (s: Step<unknown>): string =>
  `RSS ${s.peakRssMiB} MiB, JS heap ${s.peakHeapMiB} MiB (${s.retainedHeapMiB} MiB after a forced GC)`

/** Bytes of the files under `dir`, recursively (what the profile's IndexedDB holds on disk). */
function bytesUnder(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += bytesUnder(path)
    else if (entry.isFile()) total += statSync(path).size
  }
  return total
}

/** The backup step alone (runBackupWrite): the fill, then the file written; no check or restore. */
export interface BackupWriteRun {
  backup: Step<BackupRunResult>
  bytes: number
  /** Chromium CPU seconds per stage the page reported: `backup` is the file's writing alone. */
  cpuByStage: Record<string, number>
}

export interface BackupRoundTrip {
  backup: Step<BackupRunResult>
  check: Step<number>
  restore: Step<RestoreRunResult>
  /** Bytes of the profile's IndexedDB on disk once the cache is filled and backed up (before the restore). */
  cacheBytes: number
  /** Chromium CPU seconds per stage the page reported (fill, backup, restore's read, index, switch…). */
  cpuByStage: Record<string, number>
}

/**
 * Fills a cache of about `wanted` history records in Chromium, backs it up, checks and restores the file,
 * and verifies the round trip lost nothing: the raw steps, for benchBackup and the scale suite.
 */
export async function runBackupRoundTrip(wanted: number): Promise<BackupRoundTrip> {
  return (await backupBench(wanted, true)) as BackupRoundTrip
}

/** Fills the same cache as runBackupRoundTrip and writes its backup, without the check and restore. */
export async function runBackupWrite(wanted: number): Promise<BackupWriteRun> {
  return (await backupBench(wanted, false)) as BackupWriteRun
}

async function backupBench(wanted: number, roundTrip: boolean): Promise<BackupRoundTrip | BackupWriteRun> {
  const { data, names } = yearOfData(405, wanted)
  const dir = mkdtempSync(join(tmpdir(), 'closebook-backup-bench-'))
  const path = join(dir, 'closebook-backup.jsonl')
  const fd = openSync(path, 'w', 0o600)
  let bytes = 0
  const started = Date.now()
  const log = (s: string): void =>
    void process.stderr.write(`bench: backup: ${s} (${Math.round((Date.now() - started) / 1000)} s)\n`)
  const args: BackupBenchArgs = {
    records: data.history.length,
    charges: data.charges.length,
    timeZone: 'Asia/Tokyo',
    hostless: process.env['BACKUP_BENCH_HOSTLESS'] === '1',
  }
  // Chromium's CPU time at each stage the page reports, once the profile is known: the cost of each stage.
  let profile = ''
  const cpuByStage: Record<string, number> = {}
  let cpuMark: { stage: string; at: number } | null = null
  const markCpu = (next: string): void => {
    if (!profile) return
    const now = treeCpuSeconds(chromiumOf(profile))
    if (cpuMark) cpuByStage[cpuMark.stage] = (cpuByStage[cpuMark.stage] ?? 0) + now - cpuMark.at
    cpuMark = { stage: next.replace(/ at record \d+$/, ''), at: now }
  }
  let bench: Page | null = null
  let stopWriteProfile: (() => Promise<string>) | null = null
  try {
    let cacheBytes = 0
    const { backup, check, restore } = await runInChromium(
      resolve(__dirname, 'browser/backup-entry.ts'),
      args,
      {
        timeoutMs: 3_600_000,
        expose: {
          __stage: async (s: string) => {
            currentStage = s
            markCpu(s)
            log(s)
            // BACKUP_WRITE_PROFILE=<file>: the backup's own JavaScript CPU profile (not the fill's).
            const writeProfile = process.env['BACKUP_WRITE_PROFILE']
            if (s === 'backup' && writeProfile && bench)
              stopWriteProfile = await profilePage(bench, writeProfile)
          },
          // Each item as main hands it to the renderer: its schema's output (page-validation.ts), so the
          // cache and its backup hold what a sync stores.
          __items: (offset: number, count: number) =>
            JSON.stringify(
              data.history
                .slice(offset, offset + count)
                .map((e) => historyItemSchema.parse(historyItem(e, names))),
            ),
          __charges: (offset: number, count: number) =>
            JSON.stringify(
              data.charges
                .slice(offset, offset + count)
                .map((c) => chargeItemSchema.parse(chargeItem(c, names))),
            ),
          __write: (chunk: string) => {
            bytes += writeSync(fd, chunk)
            return bytes
          },
        },
        drive: async (page, profileDir) => {
          profile = profileDir
          bench = page
          // The bench's own process is the host here (it takes each chunk): its CPU is not Chromium's.
          const hostCpu = process.cpuUsage()
          const backup = await step(page, profileDir, () =>
            page.evaluate(
              (a) =>
                (
                  globalThis as unknown as { __bench: (x: BackupBenchArgs) => Promise<BackupRunResult> }
                ).__bench(a),
              args,
            ),
          )
          closeSync(fd)
          if (stopWriteProfile) log(`the backup's JavaScript profile: ${await stopWriteProfile()}`)
          const { user, system } = process.cpuUsage(hostCpu)
          log(
            `backup file ${Math.round(bytes / MIB)} MiB written; the bench process (the host, with the fill's feed) used ${Math.round((user + system) / 1e5) / 10} CPU-s over the fill and backup`,
          )
          cacheBytes = bytesUnder(join(profileDir, 'Default', 'IndexedDB'))
          if (!roundTrip) {
            markCpu('done')
            return { backup, check: null, restore: null }
          }
          await page.setInputFiles('#backup-file', path)
          const check = await step(page, profileDir, () =>
            page.evaluate(() => (globalThis as unknown as { __check: () => Promise<number> }).__check()),
          )
          // BACKUP_BENCH_PROFILE=<file>: the restore's JavaScript CPU profile, its top self times logged.
          const profilePath = process.env['BACKUP_BENCH_PROFILE']
          const stopProfile = profilePath ? await profilePage(page, profilePath) : null
          const restore = await step(page, profileDir, () =>
            page.evaluate(() =>
              (globalThis as unknown as { __restore: () => Promise<RestoreRunResult> }).__restore(),
            ),
          )
          if (stopProfile) log(`restore's JavaScript profile: ${await stopProfile()}`)
          markCpu('done')
          return { backup, check, restore }
        },
      },
    )
    const b = backup.result
    if (!check || !restore) {
      log(
        `backup of ${b.records} records: ${b.backupMs} ms (waiting for the host ${b.hostMs} ms), Chromium CPU of the backup ${cpuByStage['backup']} s, ${bytes} bytes`,
      )
      return { backup, bytes, cpuByStage }
    }
    const r = restore.result
    log(`heap after a forced GC by stage (MiB): restore ${JSON.stringify(restore.retainedByStage)}`)
    log(
      `peaks: backup ${heaps(backup)}; check ${heaps(check)}; restore ${heaps(restore)}; times: backup ${b.backupMs} ms (waiting for the host ${b.hostMs} ms), check ${check.result} ms, restore ${r.restoreMs} ms (${JSON.stringify(r.phasesMs)}); Chromium CPU: backup ${backup.cpuS} s, check ${check.cpuS} s, restore ${restore.cpuS} s`,
    )
    if (
      r.restored !== b.records ||
      r.restoredMarks !== b.marks ||
      r.restoredCharges !== b.charges ||
      !r.sampleIdentical
    )
      throw new Error(
        `round trip lost data: ${b.records} records, ${b.charges} charges and ${b.marks} marks backed up, ${r.restored}, ${r.restoredCharges} and ${r.restoredMarks} restored, sample identical: ${r.sampleIdentical} (${r.difference})`,
      )
    for (const [k, v] of Object.entries(cpuByStage)) cpuByStage[k] = Math.round(v * 10) / 10
    log(`Chromium CPU seconds by stage: ${JSON.stringify(cpuByStage)}`)
    return { backup, check, restore, cacheBytes, cpuByStage }
  } finally {
    try {
      closeSync(fd)
    } catch {
      // closed already
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function benchBackup({ quick }: { quick: boolean }): Promise<MetricMap> {
  const wanted = Number(process.env['BACKUP_BENCH_RECORDS'] ?? (quick ? 20_000 : 500_000))
  const { backup, check, restore } = await runBackupRoundTrip(wanted)
  const b = backup.result
  const r = restore.result
  const checkMs = check.result
  const on = `${b.records} records, ${b.charges} charge-list records, ${b.marks} marks with their audit entries, in Chromium IndexedDB (${b.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? 'Chromium'}); file ${Math.round(r.fileBytes / MIB)} MiB of line-delimited JSON`
  return {
    'backup.roundtrip_s': measured(
      'backup.roundtrip_s',
      Math.round((b.backupMs + checkMs + r.restoreMs) / 100) / 10,
      `backup ${Math.round(b.backupMs / 1000)} s + check (pass one) ${Math.round(checkMs / 1000)} s + restore into an empty cache (pass two, staged then switched in) ${Math.round(r.restoreMs / 1000)} s (${Object.entries(
        r.phasesMs,
      )
        .map(([k, v]) => `${k} ${Math.round(v / 1000)} s`)
        .join(', ')}); ${on}; every record, mark and a 200-record sample compared after the restore`,
    ),
    'backup.peak_renderer_mb': measured(
      'backup.peak_renderer_mb',
      Math.max(backup.peakRssMiB, check.peakRssMiB, restore.peakRssMiB),
      `tab (renderer) peak, VmHWM reset before each step: backup ${heaps(backup)}; check ${heaps(check)}; restore ${heaps(restore)}; the file is ${Math.round(r.fileBytes / MIB)} MiB`,
    ),
  }
}
