/**
 * Runs in Chromium (real IndexedDB): fills a cache with the sandbox's records (streamed in by `__items`),
 * marks every tenth record with its audit entry, then backs it up with the app's streamBackup, handing
 * each chunk to Node (the web host's files calls, or `__write`, which appends to a file as the host does). Node then chooses that file
 * in the page's file input, and `__restore` checks and restores it into a second, empty cache with the
 * app's checkBackupFile and restoreBackupFile: a disk-backed File read through file.stream().
 */
import { createDesktopApi } from '../../../electron/shared/channels'
import type { DesktopApi } from '../../../electron/shared/contract'
import type { ChargeItem, HistoryItem } from '../../../electron/shared/payment-api'
import { appendAuditEntries } from '../../../src/db/audit-repository'
import { checkBackupFile, restoreBackupFile, streamBackup } from '../../../src/db/backup-stream'
import { ClosebookDb, STAGED_TABLE_NAMES } from '../../../src/db/database'
import { putDigests } from '../../../src/db/day-digests'
import { putTokens } from '../../../src/db/day-tokens'
import { chargeRecordOf } from '../../../src/db/charge-record'
import { historyRecordOf } from '../../../src/db/history-record'
import { countHistory, historyByKeys } from '../../../src/db/history-part-reads'
import { HistoryWriter } from '../../../src/db/history-writer'
import { markDayOf, markDayRowsOf, putMarkDays } from '../../../src/db/marks-repository'
import type { AuditEntry, MarkRecord, RecordKey } from '../../../src/domain/records'
import { fingerprintOf } from '../../../src/domain/fingerprint'
import { periodOf } from '../../../src/domain/periods'
import { setDesktopApiForTests } from '../../../src/platform'
import { createHttpTransport } from '../../../src/platform/http-transport'
import { writeFileThroughHost } from '../../../src/platform/files'
import type { BackupBenchArgs, BackupRunResult, RestoreRunResult } from '../shared/backup-bench-types'
import { reporting } from './page-errors'

const CONNECTION = 'bench-connection'
const CHUNK = 5000

type Feed = (offset: number, count: number) => Promise<string>
type Write = (chunk: string, base64: boolean) => Promise<number>
const page = window as unknown as {
  __items: Feed
  __charges: Feed
  __write: Write
  __stage?: (s: string) => Promise<void>
}
const stage = (s: string): void => void page.__stage?.(s)
const ms = (x: number): number => Math.round(x)

let dbName = ''
/** Keys of the first records filled: the sample the round trip compares. */
const sampleKeys: RecordKey[] = []

/** Charges filed in a cache's day parts (each day row lists its charges' ids). */
async function chargeCount(db: ClosebookDb): Promise<number> {
  let n = 0
  await db.chargeDays.each((row) => void (n += row.ids.length))
  return n
}

async function backupRun(args: BackupBenchArgs): Promise<BackupRunResult> {
  dbName = `closebook-backup-bench-${Date.now()}`
  const db = new ClosebookDb(dbName, { indexedDB, IDBKeyRange })
  await db.open()
  const syncedAt = Date.now()
  await db.connections.put({
    id: CONNECTION,
    label: 'Bench',
    baseUrl: 'http://127.0.0.1:1',
    timeZone: args.timeZone,
    storeIds: [],
    isDemo: false,
    lastSyncedAt: syncedAt,
    highWater: {},
  })
  const writer = new HistoryWriter(db)
  let t = performance.now()
  let marks = 0
  let seq = 0
  for (let i = 0; i < args.records; i += CHUNK) {
    if (i % 50_000 === 0) stage(`fill at record ${i}`)
    const items = JSON.parse(await page.__items(i, CHUNK)) as HistoryItem[]
    const records = items.map((item) => historyRecordOf(CONNECTION, item, syncedAt))
    const marked = records.filter((_, n) => (i + n) % 10 === 0)
    const markRows: MarkRecord[] = marked.map((r) => ({
      connectionId: CONNECTION,
      key: r.key,
      state: 'reconciled',
      note: `checked ${r.resourceId.slice(0, 8)}`,
      fingerprint: fingerprintOf(r),
      changedSinceReconciled: 0,
      period: periodOf(r.createdAt, args.timeZone),
      updatedAt: syncedAt,
      updatedBy: 'bench',
    }))
    const audit: AuditEntry[] = markRows.map((m) => ({
      connectionId: CONNECTION,
      at: syncedAt + ++seq,
      actor: 'bench',
      action: 'mark',
      key: m.key,
      period: m.period,
      before: null,
      after: { state: 'reconciled' },
    }))
    const days = new Map(records.map((r) => [r.key, markDayOf(r.createdAt)]))
    if (sampleKeys.length < 200)
      sampleKeys.push(...records.slice(0, 200 - sampleKeys.length).map((r) => r.key))
    const tables = [...writer.historyTables(), db.markDays, db.audit]
    await db.transaction('rw', tables, async () => {
      if (args.layout === 'rows') {
        await db.history.bulkPut(records)
        await putDigests(db, CONNECTION, records)
        await putTokens(db.dayTokens, CONNECTION, records)
      } else await writer.putHistory(records)
      await putMarkDays(
        db.markDays,
        markDayRowsOf(markRows, (m) => days.get(m.key)),
      )
      await appendAuditEntries(db.audit, audit)
    })
    marks += markRows.length
  }
  // The charge list, in its day parts as sync files it (charge-days.ts).
  for (let i = 0; i < args.charges; i += CHUNK) {
    if (i % 50_000 === 0) stage(`fill charges at record ${i}`)
    const items = JSON.parse(await page.__charges(i, CHUNK)) as ChargeItem[]
    const records = items.map((item) => chargeRecordOf(CONNECTION, item, syncedAt))
    await db.transaction('rw', writer.chargeTables(), () => writer.putCharges(records))
  }
  const fillMs = performance.now() - t
  const records = await countHistory(db)
  const charges = await chargeCount(db)
  // What the cache holds (a day split across two fill chunks keeps the later chunk's marks only).
  marks = (await db.markDays.toArray()).reduce((n, r) => n + r.marks.length, 0)

  // Awaited: the bench may start a profile of the backup alone on this stage (BACKUP_WRITE_PROFILE).
  await page.__stage?.('backup')
  // The app's path (cache-admin-store's backup, unsigned): writeFileThroughHost over the files calls, to
  // main's FileWriter in Node through the web host's transport, or the DevTools binding, or counted only.
  let chars = 0
  let hostMs = 0
  const overHttp = createDesktopApi(createHttpTransport('bench-token')).files
  const timed = async <T>(call: () => Promise<T>): Promise<T> => {
    const at = performance.now()
    try {
      return await call()
    } finally {
      hostMs += performance.now() - at
    }
  }
  setDesktopApiForTests({
    files:
      args.host === 'http'
        ? {
            ...overHttp,
            append: (a) => {
              chars += a.chunk.length
              return timed(() => overHttp.append(a))
            },
            finish: (a) => timed(() => overHttp.finish(a)),
          }
        : {
            begin: () => Promise.resolve({ fileId: 'backup' }),
            append: async (a) => {
              chars += a.chunk.length
              const bytesWritten =
                args.host === 'hostless' ? chars : await timed(() => page.__write(a.chunk, !args.text))
              return { bytesWritten }
            },
            finish: () => Promise.resolve({ savedTo: 'path', path: '', fileName: 'closebook-backup.jsonl' }),
            cancel: () => Promise.resolve({ cancelled: true }),
          },
  } as Pick<DesktopApi, 'files'> as DesktopApi)
  t = performance.now()
  await writeFileThroughHost(
    args.text ? 'closebook-backup.jsonl' : 'closebook-backup.jsonl.gz',
    args.text ? 'application/json' : 'application/gzip',
    streamBackup(db),
  )
  const backupMs = performance.now() - t
  db.close()
  return {
    records,
    charges,
    marks,
    fillMs: ms(fillMs),
    backupMs: ms(backupMs),
    hostMs: ms(hostMs),
    chars,
    userAgent: navigator.userAgent,
  }
}

function chosenFile(): File {
  const file = document.querySelector<HTMLInputElement>('#backup-file')?.files?.[0]
  if (!file) throw new Error('no backup file chosen')
  return file
}

/** Pass one alone: its time (ms). */
async function checkRun(): Promise<number> {
  stage('check (pass one)')
  const t = performance.now()
  const check = await checkBackupFile(chosenFile())
  if (check.counts.history === 0) throw new Error('the check found no records')
  return ms(performance.now() - t)
}

async function restoreRun(): Promise<RestoreRunResult> {
  const file = chosenFile()
  const source = new ClosebookDb(dbName, { indexedDB, IDBKeyRange })
  const target = new ClosebookDb(`${dbName}-restored`, { indexedDB, IDBKeyRange })
  await target.open()
  stage('restore (pass two)')
  const t = performance.now()
  // Time of each phase: reading into staging, filing the day rows, switching in.
  const phases: Record<string, number> = {}
  let phase = 'read'
  let since = t
  // The switch's tables in the order it copies them: each is named as a stage when its copy starts, so
  // the Node side can file Chromium's CPU time under each table (the first stage also counts and clears;
  // `liveGeneration`: the restore's audit entries and the generation moved).
  const switched = [...STAGED_TABLE_NAMES.filter((n) => n !== 'charges'), 'liveGeneration']
  await restoreBackupFile(target, file, {
    actor: 'bench',
    faults: {
      afterSwitchTable: (copied) =>
        stage(`restore: switch ${switched[switched.indexOf(copied) + 1] ?? 'end (commit)'}`),
    },
    onProgress: (p) => {
      const next = p.phase ?? 'read'
      if (next === phase) return
      const now = performance.now()
      phases[phase] = ms(now - since)
      stage(`restore: ${next}`)
      phase = next
      since = now
    },
  })
  const restoreMs = performance.now() - t
  phases[phase] = ms(performance.now() - since)
  stage('compare')
  // The restore writes day parts: counted and read through the union reads, as the app reads them.
  const restored = await countHistory(target)
  const restoredMarks = (await target.markDays.toArray()).reduce((n, r) => n + r.marks.length, 0)
  const restoredCharges = await chargeCount(target)
  // A sample of records must come back exactly as they were (every field derived again from `raw`).
  const sample = await historyByKeys(source, CONNECTION, sampleKeys)
  const back = await historyByKeys(target, CONNECTION, sampleKeys)
  // Field by field, keys sorted: a restored record may list its fields in another order, which is not a
  // difference (restore re-validates `raw`, which rebuilds its objects in the schema's order).
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v
  const fieldsDiffering = (a: object, b: object | undefined): string[] => {
    if (!b) return ['(missing)']
    const x = a as Record<string, unknown>
    const y = b as Record<string, unknown>
    return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter(
      (k) => JSON.stringify(canonical(x[k])) !== JSON.stringify(canonical(y[k])),
    )
  }
  const differs = sample.findIndex((r, i) => !r || fieldsDiffering(r, back[i]).length > 0)
  const digestRows = [await source.dayDigests.count(), await target.dayDigests.count()]
  const difference =
    differs >= 0
      ? `record ${differs} differs in ${fieldsDiffering(sample[differs] ?? {}, back[differs]).join(', ')}`
      : digestRows[0] !== digestRows[1]
        ? `day digest rows ${digestRows[0]} → ${digestRows[1]}`
        : ''
  source.close()
  target.close()
  return {
    fileBytes: file.size,
    restoreMs: ms(restoreMs),
    phasesMs: phases,
    restored,
    restoredMarks,
    restoredCharges,
    sampleIdentical: difference === '',
    difference,
  }
}

const input = document.createElement('input')
input.type = 'file'
input.id = 'backup-file'
document.body.append(input)

Object.assign(window, {
  __bench: reporting(backupRun),
  __check: reporting(checkRun),
  __restore: reporting(restoreRun),
})
