/**
 * Runs in Chromium (real IndexedDB): fills a cache with a year of the sandbox's history and charges
 * (streamed in by `__items` and `__charges`) through the writer sync uses, every tenth record reconciled,
 * then installs it as the app's cache and times what the user waits for:
 *  - `__monthEnd`: Month-end's loadMonth (month-end-store.ts), as the view's store calls it, a few times,
 *    then the same steps one by one for their share;
 *  - `__export(rows)`: the ledger store's exportCsv on a filter of about the newest `rows` records, the
 *    file going to the host through DesktopApi's files calls (`__file*`: main's FileWriter in Node);
 *  - `__workbook()`: Month-end's workbook of the month (the store's exportWorkbook, every store), its rows
 *    going to main's export handlers in Node through DesktopApi's export calls, by the host `__workbookHost`
 *    names: 'http', the web host's transport (`POST /api/call/export:*` on this page's origin, JSON each
 *    way); 'bridge', Playwright's page bridge (`__exportCall`); 'hostless', answered in the page (the rows
 *    counted, not sent: the renderer's own work alone).
 */
import { createPinia, setActivePinia } from 'pinia'
import { createDesktopApi } from '../../../electron/shared/channels'
import type { DesktopApi } from '../../../electron/shared/contract'
import { packedRowCount } from '../../../electron/shared/contract/export-packed'
import type { DeliveredFile } from '../../../electron/shared/contract/files'
import type { ChargeItem, HistoryItem } from '../../../electron/shared/payment-api'
import { createCache, setAppCacheForTests, type Cache } from '../../../src/db/cache'
import { chargeRecordOf } from '../../../src/db/charge-record'
import { ClosebookDb } from '../../../src/db/database'
import { countHistory } from '../../../src/db/history-part-reads'
import { historyRecordOf } from '../../../src/db/history-record'
import { markDayOf, markDayRowsOf, putMarkDays } from '../../../src/db/marks-repository'
import { fingerprintOf } from '../../../src/domain/fingerprint'
import { dayOf, dayRange, periodOf, periodRange } from '../../../src/domain/periods'
import type { CachedConnection, MarkRecord, RecordKey, SyncCheckpoint } from '../../../src/domain/records'
import { setDesktopApiForTests } from '../../../src/platform'
import { createHttpTransport } from '../../../src/platform/http-transport'
import { closeChecklist, closeFactsProvider } from '../../../src/reconcile/close-checklist'
import { crossCheck } from '../../../src/reconcile/cross-check'
import { summarizeDigests, totalsByCurrency } from '../../../src/reconcile/month-summary'
import { registerCloseFacts } from '../../../src/stores/close-facts'
import { useLedgerStore } from '../../../src/stores/ledger-store'
import { useMonthEndStore } from '../../../src/stores/month-end-store'
import { crossCheckedCharges, loadMonth, monthStoreNames } from '../../../src/stores/month-load'
import { loadMonthPayouts } from '../../../src/stores/month-payouts'
import type {
  ExportRunResult,
  MonthEndFillArgs,
  MonthEndFillResult,
  MonthEndPhases,
  MonthEndRuns,
  WorkbookHost,
  WorkbookRunResult,
} from '../shared/month-end-bench-types'
import { reporting } from './page-errors'

const CONNECTION = 'bench-connection'
const CHUNK = 5000
const FOREVER = 8.64e15

type Feed = (offset: number, count: number) => Promise<string>
const page = window as unknown as {
  __items: Feed
  __charges: Feed
  __stage?: (s: string) => Promise<void>
  __fileBegin: (name: string) => Promise<string>
  __fileAppend: (fileId: string, chunk: string) => Promise<number>
  __fileFinish: (fileId: string) => Promise<DeliveredFile>
  __fileCancel: (fileId: string) => Promise<boolean>
  __hostless?: () => Promise<boolean>
  __exportCall: (channel: string, args: string) => Promise<string>
  __workbookHost: () => Promise<WorkbookHost>
}
const stage = (s: string): void => void page.__stage?.(s)
const ms = (x: number): number => Math.round(x * 10) / 10

let cache: Cache
let connection: CachedConnection

const checkpointOf = (resource: SyncCheckpoint['resource'], records: number): SyncCheckpoint => ({
  connectionId: CONNECTION,
  partitionId: `bench-${resource}`,
  resource,
  storeId: null,
  from: 0,
  to: FOREVER,
  cursor: null,
  done: true,
  records,
  requests: Math.ceil(records / 100),
  updatedAt: Date.now(),
})

async function fill(args: MonthEndFillArgs): Promise<MonthEndFillResult> {
  const db = new ClosebookDb(`closebook-month-end-bench-${Date.now()}`, { indexedDB, IDBKeyRange })
  await db.open()
  cache = createCache(db)
  setAppCacheForTests(cache)
  registerCloseFacts()
  const syncedAt = Date.now()
  connection = {
    id: CONNECTION,
    label: 'Bench',
    baseUrl: 'http://127.0.0.1:1',
    timeZone: args.timeZone,
    storeIds: [],
    isDemo: false,
    lastSyncedAt: syncedAt,
    highWater: {},
  }
  await cache.connections.put(connection)
  const t = performance.now()
  // Marks are written once every record is in: a day's row holds all its marks.
  const marks: MarkRecord[] = []
  const days = new Map<RecordKey, number>()
  for (let i = 0; i < args.records; i += CHUNK) {
    if (i % 50_000 === 0) stage(`fill history at record ${i}`)
    const items = JSON.parse(await page.__items(i, CHUNK)) as HistoryItem[]
    const records = items.map((item) => historyRecordOf(CONNECTION, item, syncedAt))
    await cache.history.putPage(CONNECTION, records, checkpointOf('transaction_history', i + records.length))
    records.forEach((r, n) => {
      if ((i + n) % 10 !== 0) return
      days.set(r.key, markDayOf(r.createdAt))
      marks.push({
        connectionId: CONNECTION,
        key: r.key,
        state: 'reconciled',
        note: `checked ${r.resourceId.slice(0, 8)}`,
        fingerprint: fingerprintOf(r),
        changedSinceReconciled: 0,
        period: periodOf(r.createdAt, args.timeZone),
        updatedAt: syncedAt,
        updatedBy: 'bench',
      })
    })
  }
  for (let i = 0; i < args.charges; i += CHUNK) {
    if (i % 50_000 === 0) stage(`fill charges at record ${i}`)
    const items = JSON.parse(await page.__charges(i, CHUNK)) as ChargeItem[]
    const records = items.map((item) => chargeRecordOf(CONNECTION, item, syncedAt))
    await cache.charges.putPage(CONNECTION, records, checkpointOf('charges', i + records.length))
  }
  stage('fill marks')
  const rows = markDayRowsOf(marks, (m) => days.get(m.key))
  for (let i = 0; i < rows.length; i += 30)
    await db.transaction('rw', db.markDays, () => putMarkDays(db.markDays, rows.slice(i, i + 30)))
  return {
    cached: await countHistory(db),
    charges: args.charges,
    marks: marks.length,
    fillMs: Math.round(performance.now() - t),
    userAgent: navigator.userAgent,
  }
}

/** loadMonth as the view's store calls it: a first read, then RUNS timed (the CPU of these is measured). */
const RUNS = 3

async function monthEnd(args: MonthEndFillArgs): Promise<MonthEndRuns> {
  stage('month-end')
  const runs: number[] = []
  await loadMonth(connection, args.period)
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    await loadMonth(connection, args.period)
    runs.push(ms(performance.now() - t))
  }
  return { runs, loads: RUNS + 1 }
}

async function monthEndPhases(args: MonthEndFillArgs): Promise<MonthEndPhases> {
  const month = await loadMonth(connection, args.period)
  // loadMonth's steps one by one, in its order, for where its time goes.
  stage('month-end phases')
  const phasesMs: Record<string, number> = {}
  let t = performance.now()
  const lap = (name: string): void => {
    const now = performance.now()
    phasesMs[name] = ms(now - t)
    t = now
  }
  const range = periodRange(args.period, args.timeZone)
  const digests = (await cache.history.digestsInRange(CONNECTION, range.from, range.to)).map((d) => ({
    ...d,
    amount: d.amount ?? NaN,
  }))
  lap('read digests')
  const charges = await cache.charges.digestsInRange(CONNECTION, range.from, range.to)
  lap('read charge digests')
  const marks = await cache.marks.mapOf(CONNECTION, digests)
  lap('read marks')
  const summary = summarizeDigests({ digests, charges, marks, timeZone: args.timeZone, period: args.period })
  lap('summary')
  const differences = crossCheck(crossCheckedCharges(digests), charges)
  lap('cross-check')
  await monthStoreNames(CONNECTION, digests)
  lap('store names')
  const facts = closeFactsProvider()
  await Promise.all([
    cache.locks.get(CONNECTION, args.period),
    facts.lastVerified(CONNECTION, args.period),
    facts.quarantined(CONNECTION, args.period),
    cache.checkpoints.list(CONNECTION),
    cache.connections.get(CONNECTION),
  ])
  lap('close facts')
  await loadMonthPayouts(connection, args.period)
  lap('payouts (none synced)')
  closeChecklist({
    periodEnd: range.to,
    lastSyncedAt: connection.lastSyncedAt,
    unfinishedPartitions: 0,
    lastVerified: { available: true, value: null },
    quarantined: { available: true, value: [] },
    stillChanging: 0,
    changedSinceReconciled: 0,
    totals: totalsByCurrency(summary.rows),
    exceptedWithNote: 0,
    differences: differences.length,
    otherStatus: 0,
  })
  lap('checklist')
  // Not part of the runs: what the workbook and journal read when asked.
  await month.history()
  lap('whole records (when asked)')
  await month.charges()
  lap('whole charges (when asked)')
  // The same two reads side by side, as the workbook's export starts them.
  await Promise.all([
    cache.history.inRange(CONNECTION, range.from, range.to),
    cache.charges.inRange(CONNECTION, range.from, range.to),
  ])
  lap('whole records and charges side by side (when asked)')
  return {
    history: month.digests.length,
    charges: month.chargeDigests.length,
    marks: month.marks.size,
    checklistItems: month.checklist.items.length,
    phasesMs,
  }
}

/** Time spent handing chunks to the host (the page waits for each), ms: the rest is the app's own. */
let hostMs = 0
/**
 * MONTH_END_BENCH_HOSTLESS=1: the export's chunks are counted, not handed to Node, so its CPU is the
 * page's own, without the DevTools binding the bench stands in for the host with (the file stays empty).
 */
let hostless: boolean | undefined
let keptChars = 0
let workbookRows = 0

/** Adds the time `call` takes to hostMs: the page waits for each export call. */
async function timedHost<T>(call: () => Promise<T>): Promise<T> {
  const t = performance.now()
  try {
    return await call()
  } finally {
    hostMs += performance.now() - t
  }
}

/** One `export:*` call to main's handlers in Node through the page bridge (JSON across). */
const bridgeCall = <T>(channel: string, args: unknown): Promise<T> =>
  timedHost(async () => JSON.parse(await page.__exportCall(channel, JSON.stringify(args))) as T)

/** The web host's own client: `POST /api/call/<channel>` on this origin, answered by main's handlers in Node. */
const overHttp = createDesktopApi(createHttpTransport('bench-token')).export

/** The export calls answered in the page: the rows are counted, not sent or written. */
let hostlessRows = 0
const inPage: DesktopApi['export'] = {
  begin: () => Promise.resolve({ exportId: 'hostless-bench-export' }),
  appendRows: (a) => {
    hostlessRows += a.packed ? packedRowCount(a.packed) : (a.rows?.length ?? 0)
    return Promise.resolve({ rowsWritten: hostlessRows })
  },
  finish: () => Promise.resolve({ savedTo: 'path', path: '/dev/null', fileName: 'hostless.xlsx' }),
  cancel: () => Promise.resolve({ cancelled: true }),
}

let workbookHost: WorkbookHost | undefined

/** The export calls by the bench's chosen host, each timed into hostMs. */
async function exportCall<T>(
  channel: 'begin' | 'appendRows' | 'finish' | 'cancel',
  args: unknown,
): Promise<T> {
  // Asked at each export's first call: the bench may change hosts from one run to the next.
  if (channel === 'begin' || workbookHost === undefined) workbookHost = await page.__workbookHost()
  if (workbookHost === 'bridge') return bridgeCall<T>(`export:${channel}`, args)
  const api = workbookHost === 'http' ? overHttp : inPage
  const call = api[channel] as (a: unknown) => Promise<T>
  return timedHost(() => call(args))
}

setDesktopApiForTests({
  files: {
    begin: async (a) => ({ fileId: await page.__fileBegin(String(a.suggestedName)) }),
    append: async (a) => {
      hostless ??= (await page.__hostless?.()) ?? false
      if (hostless) return { bytesWritten: (keptChars += a.chunk.length) }
      const t = performance.now()
      const bytesWritten = await page.__fileAppend(a.fileId, a.chunk)
      hostMs += performance.now() - t
      return { bytesWritten }
    },
    finish: (a) => page.__fileFinish(a.fileId),
    cancel: async (a) => ({ cancelled: await page.__fileCancel(a.fileId) }),
  },
  export: {
    begin: (a) => {
      hostlessRows = 0
      return exportCall('begin', a)
    },
    appendRows: async (a) => {
      const r = await exportCall<{ rowsWritten: number }>('appendRows', a)
      workbookRows = r.rowsWritten
      return r
    },
    finish: (a) => exportCall('finish', a),
    cancel: (a) => exportCall('cancel', a),
  },
} as Pick<DesktopApi, 'files' | 'export'> as DesktopApi)

let ledger: ReturnType<typeof useLedgerStore> | undefined

/** Wraps one method of a repository to add its time to `into[field]`; returns the undo. */
function timing<T extends object, K extends keyof T & string, F extends string>(
  target: T,
  method: K,
  into: Record<F, number>,
  field: F,
): () => void {
  const original = target[method] as (...a: unknown[]) => Promise<unknown>
  Object.assign(target, {
    [method]: async (...a: unknown[]) => {
      const t = performance.now()
      try {
        return await original.apply(target, a)
      } finally {
        into[field] += performance.now() - t
      }
    },
  })
  return () => void delete (target as Record<string, unknown>)[method]
}

/** Wraps the marks' page reader so that each page's read adds its time to `into.marks`; returns the undo. */
function timedPageReader(marks: Cache['marks'], into: { marks: number }): () => void {
  const original = marks.pageReader.bind(marks)
  marks.pageReader = (connectionId) => {
    const read = original(connectionId)
    return async (refs) => {
      const t = performance.now()
      try {
        return await read(refs)
      } finally {
        into.marks += performance.now() - t
      }
    }
  }
  return () => void delete (marks as unknown as Record<string, unknown>)['pageReader']
}

/** The ledger store's CSV export of the newest `rows` records (whole days: a range from a day on). */
async function exportRun(rows: number): Promise<ExportRunResult> {
  if (!ledger) {
    setActivePinia(createPinia())
    ledger = useLedgerStore()
    await ledger.init()
  }
  const all = { connectionId: CONNECTION, from: 0, to: FOREVER }
  const [edge] = await cache.history.queryPage({ ...all, order: 'desc', offset: rows - 1, limit: 1 })
  const from = edge ? dayOf(edge.createdAt, connection.timeZone) : null
  Object.assign(ledger.filters, { periodKind: 'range', period: null, rangeFrom: from, rangeTo: null })
  // The same records the ledger's range filter selects: from the start of that day in the accounting zone.
  const filter = { ...all, from: from ? dayRange(from, connection.timeZone).from : 0 }
  const matched = await cache.history.count(filter)
  stage(`export of ${matched} rows`)
  hostMs = 0
  const timed = { records: 0, marks: 0 }
  const restore = [
    timing(cache.history, 'queryPage', timed, 'records'),
    timing(cache.history, 'inRange', timed, 'records'),
    timedPageReader(cache.marks, timed),
  ]
  const t = performance.now()
  const fileName = await ledger.exportCsv().finally(() => restore.forEach((r) => r()))
  const elapsed = performance.now() - t
  if (fileName === null) throw new Error(`the export failed: ${JSON.stringify(ledger.notice)}`)
  return {
    rows: matched,
    ms: Math.round(elapsed),
    hostMs: Math.round(hostMs),
    readRecordsMs: Math.round(timed.records),
    readMarksMs: Math.round(timed.marks),
    fileName,
  }
}

let monthEndStore: ReturnType<typeof useMonthEndStore> | undefined

/** Month-end's workbook of `period` (every store), as the Export button runs it on a loaded month. */
async function workbookRun(args: MonthEndFillArgs): Promise<WorkbookRunResult> {
  if (!monthEndStore) {
    setActivePinia(createPinia())
    monthEndStore = useMonthEndStore()
    monthEndStore.connectionId = CONNECTION
    monthEndStore.choosePeriod(args.period)
    await monthEndStore.init()
  }
  const store = monthEndStore
  if (!store.data) throw new Error(`the month did not load: ${JSON.stringify(store.error)}`)
  stage('workbook')
  hostMs = 0
  workbookRows = 0
  const t = performance.now()
  await store.exportWorkbook(null)
  const elapsed = performance.now() - t
  if (store.error || !store.exported) throw new Error(`the workbook failed: ${JSON.stringify(store.error)}`)
  return { ms: Math.round(elapsed), hostMs: Math.round(hostMs), rows: workbookRows, fileName: store.exported }
}

Object.assign(window, {
  __workbook: reporting(workbookRun),
  __bench: reporting(fill),
  __monthEnd: reporting(monthEnd),
  __monthEndPhases: reporting(monthEndPhases),
  __export: reporting(exportRun),
})
