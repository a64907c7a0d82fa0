/**
 * Runs in Chromium (real IndexedDB): leaves a cache as version 5 of the app did (history with its
 * day-scoped search tokens in a multi-entry index, marks one row per record, audit one row per change),
 * then opens it one version step at a time and times each open: v5→v6 (marks by day, audit by action,
 * day digests), v6→v7 (day tokens, the token index dropped), v7→v8, v8→v9 and v9→v10 (new empty
 * tables), each as the app would run it (ClosebookDb with its steps up to that version).
 */
import type { HistoryItem } from '../../../electron/shared/payment-api'
import { ClosebookDb, type MigrationProgress } from '../../../src/db/database'
import { historyRecordOf } from '../../../src/db/history-record'
import { searchTokensV5 } from '../../../src/db/migrations/v5'
import { HistoryWriter } from '../../../src/db/history-writer'
import { fileLegacyBatch, moveLegacyBatch, moveLegacyHistory } from '../../../src/db/legacy-move'
import type {
  SetAsideTiming,
  MigrationBenchArgs,
  MigrationBenchResult,
  MigrationStepTiming,
} from '../shared/migration-bench-types'

type Feed = (offset: number, count: number) => Promise<string>
const CHUNK = 5000
const CONNECTION = 'bench-connection'

/** Leaves a cache as version 5 of the app did under `name`: its history, marks and audit rows. */
async function fillV5(
  name: string,
  args: MigrationBenchArgs,
  at: (stage: string) => void,
): Promise<{ cached: number; marks: number }> {
  const feed = (window as unknown as { __items: Feed }).__items
  const syncedAt = Date.now()
  const v5 = new ClosebookDb(name, { indexedDB, IDBKeyRange }, { upToVersion: 5 })
  await v5.open()
  let marks = 0
  for (let i = 0; i < args.records; i += CHUNK) {
    at(`filling the v5 cache at record ${i}`)
    const items = JSON.parse(await feed(i, CHUNK)) as HistoryItem[]
    const rows = items.map((item) => {
      const r = historyRecordOf(CONNECTION, item, syncedAt)
      return { ...r, searchTokens: searchTokensV5(r.connectionId, r.createdAt, r.raw) }
    })
    const marked = rows
      .filter((_, n) => (i + n) % args.markEvery === 0)
      .map((r) => ({
        connectionId: CONNECTION,
        key: r.key,
        state: 'reconciled',
        note: '',
        fingerprint: null,
        changedSinceReconciled: 0,
        period: '2026-01',
        updatedAt: syncedAt,
        updatedBy: 'bench',
      }))
    const audit = marked.map((m) => ({
      connectionId: CONNECTION,
      at: syncedAt,
      actor: 'bench',
      action: 'mark',
      key: m.key,
      period: m.period,
      before: null,
      after: m,
    }))
    await v5.transaction('rw', ['history', 'marks', 'audit'], async () => {
      await v5.table('history').bulkAdd(rows)
      await v5.table('marks').bulkAdd(marked)
      await v5.table('audit').bulkAdd(audit)
    })
    marks += marked.length
  }
  const cached = await v5.table('history').count()
  v5.close()
  return { cached, marks }
}

async function run(args: MigrationBenchArgs, at: (stage: string) => void): Promise<MigrationBenchResult> {
  const name = `closebook-migration-bench-${Date.now()}`

  // Version 5's cache, filled in transactions of CHUNK records (not timed).
  let t = performance.now()
  const { cached, marks } = await fillV5(name, args, at)
  const fillMs = performance.now() - t

  const steps: MigrationStepTiming[] = []
  for (const version of [6, 7, 8, 9, 10]) {
    at(`opening the v${version - 1} cache at v${version}`)
    let reports = 0
    let firstReport = NaN
    let lastReport = NaN
    // The step says it started (0 of 0) before IndexedDB's schema changes; its pass counts from 0 of n.
    const onReport = (p: MigrationProgress) => {
      reports++
      if (p.total > 0 && Number.isNaN(firstReport)) firstReport = performance.now()
      lastReport = performance.now()
    }
    const db = new ClosebookDb(name, { indexedDB, IDBKeyRange }, { upToVersion: version })
    db.onMigrationProgress = onReport
    t = performance.now()
    await db.open()
    const ms = Math.round(performance.now() - t)
    steps.push({
      version,
      ms,
      firstReportMs: Number.isNaN(firstReport) ? null : Math.round(firstReport - t),
      passEndMs: Number.isNaN(lastReport) ? null : Math.round(lastReport - t),
      reports,
    })
    if (version < 10) db.close()
    else {
      const current = db
      const setAside = await openedSettingAside(args, at)
      const result: MigrationBenchResult = {
        setAside,
        cached,
        marks,
        fillMs: Math.round(fillMs),
        steps,
        dayDigests: await current.dayDigests.count(),
        dayTokens: await current.dayTokens.count(),
        markDays: await current.markDays.count(),
        userAgent: navigator.userAgent,
      }
      current.close()
      await current.delete()
      return result
    }
  }
  throw new Error('unreachable: the last step returns')
}

/**
 * A second version-5 cache opened straight at the current version, as the app opens it: the version change
 * sets its history aside (timed), then the background move files it in day parts (timed, with the CPU
 * seconds Chromium's processes spent, read by the Node side).
 */
async function openedSettingAside(
  args: MigrationBenchArgs,
  at: (stage: string) => void,
): Promise<SetAsideTiming> {
  const cpu = (window as unknown as { __cpu: () => Promise<number> }).__cpu
  const name = `closebook-migration-bench-aside-${Date.now()}`
  await fillV5(name, args, at)
  at('opening the v5 cache at the current version')
  const db = new ClosebookDb(name, { indexedDB, IDBKeyRange })
  let t = performance.now()
  let cpuAt = await cpu()
  await db.open()
  const openMs = Math.round(performance.now() - t)
  const openCpuS = (await cpu()) - cpuAt
  const setAside = await db.legacyHistory.count()
  at(`moving ${setAside} set-aside records into day parts`)
  // The two stages timed apart: filing the days (after which every read answers), then the move to parts.
  let batches = 0
  const writer = new HistoryWriter(db)
  t = performance.now()
  cpuAt = await cpu()
  while ((await fileLegacyBatch(db, writer)) > 0) batches++
  const fileMs = Math.round(performance.now() - t)
  const fileCpuS = (await cpu()) - cpuAt
  at(`filed; moving ${setAside} set-aside records into day parts`)
  t = performance.now()
  cpuAt = await cpu()
  while ((await moveLegacyBatch(db, writer)) > 0) batches++
  await moveLegacyHistory(db, writer)
  const moveMs = Math.round(performance.now() - t)
  const moveCpuS = (await cpu()) - cpuAt
  const result: SetAsideTiming = {
    openMs,
    openCpuS,
    setAside,
    fileMs,
    fileCpuS,
    moveMs,
    moveCpuS,
    batches,
    inParts: await db.historyParts.orderBy('keys').count(),
    left: await db.legacyHistory.count(),
  }
  db.close()
  await db.delete()
  return result
}

let stage = 'start'
async function runReporting(args: MigrationBenchArgs): Promise<MigrationBenchResult> {
  const report = (window as unknown as { __stage?: (s: string) => Promise<void> }).__stage
  try {
    return await run(args, (s) => {
      stage = s
      void report?.(s)
    })
  } catch (error) {
    const e = error as { name?: string; message?: string; inner?: { name?: string; message?: string } }
    const inner = e.inner ? ` (${e.inner.name ?? ''}: ${e.inner.message ?? ''})` : ''
    throw new Error(`${stage}: ${e.name ?? 'Error'}: ${e.message ?? String(error)}${inner}`)
  }
}

;(window as unknown as { __bench: (a: MigrationBenchArgs) => Promise<MigrationBenchResult> }).__bench =
  runReporting
