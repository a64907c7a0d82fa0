/**
 * Runs in Chromium (real IndexedDB): fills ClosebookDb through HistoryRepository.putPage in pages of 100,
 * as sync does, then times the ledger's reads and a 10k bulk mark the way src/stores/ledger-store.ts does
 * them. Items come from the sandbox's own generator and serializer (run in Node, streamed in by
 * `__items`, since the sandbox is not part of the web build), so they are what the API serves.
 */
import type { HistoryItem } from '../../../electron/shared/payment-api'
import { ClosebookDb } from '../../../src/db/database'
import { countHistory } from '../../../src/db/history-part-reads'
import { daySummariesOf } from '../../../src/db/day-summaries'
import { historyRecordOf } from '../../../src/db/history-record'
import { HistoryRepository, type HistoryFilter } from '../../../src/db/history-repository'
import { MarkingService } from '../../../src/db/marking-service'
import { markDayOf, MarksRepository } from '../../../src/db/marks-repository'
import type { MarkTarget, SyncCheckpoint } from '../../../src/domain/records'
import { fingerprintOf } from '../../../src/domain/fingerprint'
import { planMarks } from '../../../src/reconcile/marking'
import { periodRange } from '../../../src/domain/periods'
import type { CacheBenchArgs, CacheBenchResult, Timing } from '../shared/cache-bench-types'

/**
 * What IndexedDB itself would cost to store the bulk mark's marks one row each (as schema v5 did): one put
 * per mark into a fresh store with no index, without Dexie, in one transaction, timed to its commit.
 * Reported beside the bulk mark, which writes them grouped by day.
 */
async function putFloor(rows: readonly object[]): Promise<number> {
  const name = `closebook-bench-floor-${Date.now()}`
  const open = indexedDB.open(name, 1)
  open.onupgradeneeded = () => open.result.createObjectStore('rows', { keyPath: ['connectionId', 'key'] })
  const raw = await new Promise<IDBDatabase>((res, rej) => {
    open.onsuccess = () => res(open.result)
    open.onerror = () => rej(open.error ?? new Error('open failed'))
  })
  const started = performance.now()
  const tx = raw.transaction('rows', 'readwrite')
  const store = tx.objectStore('rows')
  for (const row of rows) store.put(row)
  await new Promise<void>((res, rej) => {
    tx.oncomplete = () => res()
    tx.onerror = () => rej(tx.error ?? new Error('put failed'))
  })
  const elapsed = performance.now() - started
  raw.close()
  indexedDB.deleteDatabase(name)
  return elapsed
}

const BLOCK = 100 // src/stores/ledger-store.ts BLOCK
const FOREVER = 8.64e15
const CONNECTION = 'bench-connection'

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
const ms = (x: number) => Math.round(x * 10) / 10

type Feed = (offset: number, count: number) => Promise<string>
const CHUNK = 5000

async function run(args: CacheBenchArgs, at: (stage: string) => Promise<void>): Promise<CacheBenchResult> {
  const feed = (window as unknown as { __items: Feed }).__items
  let t = performance.now()

  const dbName = `closebook-bench-${Date.now()}`
  const db = new ClosebookDb(dbName, { indexedDB, IDBKeyRange })
  await db.open()
  const history = new HistoryRepository(db, fingerprintOf)
  const marks = new MarksRepository(db)
  const marking = new MarkingService(db)

  // Ingest: pages of 100 with their checkpoint, one transaction each, as the sync store writes them.
  // Timed: record mapping (historyRecordOf) and the write; the sandbox's serialization is not.
  let ingestMs = 0
  let ingested = 0
  let fillMs = 0
  let feedMs = 0
  const syncedAt = Date.now()
  let chunk: HistoryItem[] = []
  for (let i = 0; i < args.records;) {
    if (i % CHUNK === 0) {
      void at(`ingest at record ${i}`)
      t = performance.now()
      chunk = JSON.parse(await feed(i, CHUNK)) as HistoryItem[]
      feedMs += performance.now() - t
    }
    // Pages of 100 (as sync writes them) for the measured part; past it, whole chunks fill the cache
    // faster through the same putPage, so full mode stays within its time budget.
    const measuredPart = i < args.ingestRecords
    const size = measuredPart ? 100 : CHUNK
    const items = chunk.slice(i % CHUNK, (i % CHUNK) + size)
    t = performance.now()
    const records = items.map((item) => historyRecordOf(CONNECTION, item, syncedAt))
    const checkpoint: SyncCheckpoint = {
      connectionId: CONNECTION,
      partitionId: 'bench',
      resource: 'transaction_history',
      storeId: null,
      from: 0,
      to: FOREVER,
      cursor: records[records.length - 1]?.resourceId ?? null,
      done: false,
      records: i + records.length,
      requests: Math.ceil(i / 100) + 1,
      updatedAt: syncedAt,
    }
    await history.putPage(CONNECTION, records, checkpoint)
    if (measuredPart) {
      ingestMs += performance.now() - t
      ingested += records.length
    } else fillMs += performance.now() - t
    i += records.length
  }
  const cached = await countHistory(db)

  /**
   * What the ledger does on a filter change (ledger-store refresh): load the first two blocks in one query,
   * with their marks — the rows are shown then — and count the matches after, in the background.
   * Timed until the rows and their marks are in hand; the count's own time is reported beside it.
   * Not included: loadFacts's lookup of the page's charges (fee and net columns), since this cache holds
   * history only; with charges cached it reads the shown charge rows' day rows and parts (charge-days.ts):
   * a few rows, as the rows shown span a few days.
   */
  async function ledgerRefresh(
    filter: HistoryFilter,
  ): Promise<{ rows: number; total: number; countMs: number }> {
    const page = await history.queryPage({ ...filter, order: 'desc', offset: 0, limit: 2 * BLOCK })
    await marks.getMany(CONNECTION, page)
    const shownAt = performance.now()
    // As the ledger's query counts (stores/ledger/query.ts countOf): per day where pages are read from
    // day digests, else the plain count.
    const days = await history.countByDay(filter)
    const total = days ? days.total : await history.count(filter)
    return { rows: page.length, total, countMs: ms(performance.now() - shownAt) }
  }

  async function time(filter: HistoryFilter, repeats = args.repeats): Promise<Timing> {
    const runs: number[] = []
    let last = { rows: 0, total: 0, countMs: 0 }
    for (let i = 0; i < repeats; i++) {
      const started = performance.now()
      last = await ledgerRefresh(filter)
      // The rows were in hand before the count began: the count is not part of "shown".
      runs.push(ms(performance.now() - started - last.countMs))
    }
    return { ms: median(runs), runs, ...last }
  }

  await at('ledger reads')
  const month = periodRange(args.month, args.timeZone)
  const all: HistoryFilter = { connectionId: CONNECTION, from: 0, to: FOREVER }
  const inMonth: HistoryFilter = { connectionId: CONNECTION, ...month }
  const firstRows = await time(all)
  await at('ledger filters')
  const filterRefunds = await time({ ...inMonth, type: 'refund' })
  const filterStore = await time({ ...inMonth, storeId: args.storeId })
  const { searchTerm } = args
  await at('ledger search in the month')
  const searchMonth = await time({ ...inMonth, search: searchTerm })
  // Once: it is reported beside the month search, not as the metric.
  await at('ledger search in all periods')
  const searchAll = await time({ ...all, search: searchTerm }, 1)

  /**
   * Each count once more on its own, as a stage of its own (Node samples Chromium's CPU at each stage):
   * cold, with the day summaries dropped (as after a sync wrote the digests), then warm (the next filter
   * change in the same period).
   */
  const counts: CacheBenchResult['counts'] = []
  for (const [what, filter] of [
    ['refunds in the month', { ...inMonth, type: 'refund' }],
    ['one store in the month', { ...inMonth, storeId: args.storeId }],
    ['a name in the month', { ...inMonth, search: searchTerm }],
    ['all periods', all],
  ] as const) {
    for (const state of ['cold', 'warm'] as const) {
      if (state === 'cold') daySummariesOf(db).clear()
      await at(`count: ${what} (${state})`)
      const started = performance.now()
      const days = await history.countByDay(filter)
      const total = days ? days.total : await history.count(filter)
      counts.push({ what: `${what} (${state})`, total, ms: ms(performance.now() - started) })
    }
  }

  await at('bulk mark')
  /**
   * "Mark all matching" on a filter that matches the newest 10k records (all periods from the 10,000th
   * newest record's time), as ledger-store applyMarks does it: HistoryRepository.markTargets reads what
   * the mark needs of them from the day digests (no count first, no record read), then
   * MarkingService.planAndApply — one transaction that reads their day rows of marks
   * and the locks, runs planMarks (plan, timed inside the callback) and writes the changed day rows and
   * the action's one audit row (apply = that transaction minus the plan). Timed from the read to the
   * transaction's commit; finding the filter's start is not timed (the user chose the filter).
   */
  const [tenThousandth] = await history.queryPage({ ...all, order: 'desc', offset: 9_999, limit: 1 })
  const newest: HistoryFilter = { ...all, from: tenThousandth?.createdAt ?? 0 }
  await at('bulk mark: read targets')
  t = performance.now()
  const records: MarkTarget[] = await history.markTargets(newest)
  const readMs = performance.now() - t
  await at('bulk mark: plan and apply')
  let planMs = 0
  const t2 = performance.now()
  const { plan } = await marking.planAndApply(CONNECTION, records, (current) => {
    const t3 = performance.now()
    const planned = planMarks({
      action: 'mark',
      records,
      marks: current.marks,
      locks: current.locks,
      actor: 'bench',
      now: Date.now(),
      timeZone: args.timeZone,
    })
    planMs = performance.now() - t3
    return planned
  })
  const applyMs = performance.now() - t2 - planMs
  // The two stage reports in between are not the mark's: awaited, they would add a round trip to Node.
  const markMs = readMs + (performance.now() - t2)

  await at('IndexedDB floor')
  const floorMs = await putFloor(plan.puts)

  await at('cleanup')
  db.close()
  await db.delete()
  return {
    cached,
    ingestMs: ms(ingestMs),
    ingested,
    fillMs: ms(fillMs),
    feedMs: ms(feedMs),
    firstRows,
    filterRefunds,
    filterStore,
    searchMonth,
    searchAll,
    counts,
    mark: {
      ms: ms(markMs),
      records: records.length,
      readMs: ms(readMs),
      planMs: ms(planMs),
      applyMs: ms(applyMs),
      puts: plan.puts.length,
      dayRows: new Set(records.map((r) => markDayOf(r.createdAt))).size,
      floorMs: ms(floorMs),
    },
    userAgent: navigator.userAgent,
  }
}

/**
 * Dexie errors lose their detail crossing page.evaluate: name the stage and the inner error. Each stage
 * is also sent to Node (`__stage`), so a page that dies (out of memory, a crashed renderer) is named.
 */
let stage = 'start'
async function runReporting(args: CacheBenchArgs): Promise<CacheBenchResult> {
  const report = (window as unknown as { __stage?: (s: string) => Promise<void> }).__stage
  try {
    return await run(args, async (s) => {
      stage = s
      await report?.(s)
    })
  } catch (error) {
    const e = error as { name?: string; message?: string; inner?: { name?: string; message?: string } }
    const inner = e.inner ? ` (${e.inner.name ?? ''}: ${e.inner.message ?? ''})` : ''
    throw new Error(`${stage}: ${e.name ?? 'Error'}: ${e.message ?? String(error)}${inner}`)
  }
}

;(window as unknown as { __bench: (a: CacheBenchArgs) => Promise<CacheBenchResult> }).__bench = runReporting
