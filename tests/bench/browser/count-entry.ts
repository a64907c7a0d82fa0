/**
 * Runs in Chromium (real IndexedDB): fills a cache with the history items Node serves (`__items`) through
 * HistoryRepository.putPage, then times the ledger's counts of one month, each cold (nothing held in
 * memory, as a session's first count of a period) and warm, a stage each (Node samples Chromium's CPU
 * per stage). The count probe (tests/bench/count-probe.ts) drives it.
 */
import type { HistoryItem } from '../../../electron/shared/payment-api'
import { ClosebookDb } from '../../../src/db/database'
import { daySummariesOf } from '../../../src/db/day-summaries'
import { dayTokensCacheOf } from '../../../src/db/token-cache'
import { partHits, termSearchOf } from '../../../src/db/day-tokens'
import { historyRecordOf, searchDayOf, searchTermsOf } from '../../../src/db/history-record'
import { HistoryRepository, type HistoryFilter } from '../../../src/db/history-repository'
import { fingerprintOf } from '../../../src/domain/fingerprint'
import { periodRange } from '../../../src/domain/periods'
import type { CountProbeArgs, CountProbeResult } from '../shared/count-probe-types'

type Feed = (offset: number, count: number) => Promise<string>
type Stage = (stage: string) => Promise<void>
const PAGE = 5000
const CONNECTION = 'bench-connection'

async function fill(history: HistoryRepository, records: number): Promise<void> {
  const { __items: feed, __stage: stage } = window as unknown as { __items: Feed; __stage: Stage }
  for (let i = 0; i < records; i += PAGE) {
    if (i % 50_000 === 0) await stage(`fill at record ${i}`)
    const items = JSON.parse(await feed(i, PAGE)) as HistoryItem[]
    const page = items.map((item) => historyRecordOf(CONNECTION, item, 0))
    await history.putPage(CONNECTION, page, {
      connectionId: CONNECTION,
      partitionId: 'probe',
      resource: 'transaction_history',
      storeId: null,
      from: 0,
      to: 8.64e15,
      cursor: page[page.length - 1]?.resourceId ?? null,
      done: false,
      records: i + page.length,
      requests: i / PAGE + 1,
      updatedAt: 0,
    })
  }
}

/** Drops what a session holds in memory (day summaries, token parts), as a session's first count finds it. */
function forget(db: ClosebookDb): void {
  daySummariesOf(db).clear()
  dayTokensCacheOf(db).clear()
}

async function run(args: CountProbeArgs): Promise<CountProbeResult> {
  const stage = (window as unknown as { __stage: Stage }).__stage
  const db = new ClosebookDb(`closebook-count-probe-${Date.now()}`, { indexedDB, IDBKeyRange })
  await db.open()
  const history = new HistoryRepository(db, fingerprintOf)
  await fill(history, args.records)
  const cached = await db.history.count()
  const month = periodRange(args.month, args.timeZone)
  const inMonth: HistoryFilter = { connectionId: CONNECTION, from: month.from, to: month.to }
  const filters: [string, HistoryFilter][] = [
    ['refunds in the month', { ...inMonth, type: 'refund' }],
    ['one store in the month', { ...inMonth, storeId: args.storeId }],
    ['a name in the month', { ...inMonth, search: args.searchTerm }],
  ]
  const counts: CountProbeResult['counts'] = []
  for (let round = 1; round <= args.rounds; round++)
    for (const [what, filter] of filters)
      for (const state of ['cold', 'warm'] as const) {
        if (state === 'cold') forget(db)
        const name = `${what} (${state}) #${round}`
        await stage(name)
        const started = performance.now()
        // As the ledger counts: per day where its pages come from the day digests, else the plain count.
        const days = await history.countByDay(filter)
        const total = days ? days.total : await history.count(filter)
        counts.push({ name, total, ms: Math.round((performance.now() - started) * 10) / 10 })
      }
  // The ledger's first page of the same name search (newest first), cold: what a search shows first.
  for (let round = 1; round <= args.rounds; round++) {
    const name = `a name's first page #${round}`
    forget(db)
    await stage(name)
    const started = performance.now()
    const page = await history.queryPage({
      ...inMonth,
      search: args.searchTerm,
      order: 'desc',
      offset: 0,
      limit: 100,
    })
    counts.push({ name, total: page.length, ms: Math.round((performance.now() - started) * 10) / 10 })
  }
  // As the ledger refreshes a search: its first page, then its count (which finds the page's days held).
  for (let round = 1; round <= args.rounds; round++) {
    const name = `a name's count after its first page #${round}`
    forget(db)
    await history.queryPage({ ...inMonth, search: args.searchTerm, order: 'desc', offset: 0, limit: 100 })
    await stage(name)
    const started = performance.now()
    const total = await history.count({ ...inMonth, search: args.searchTerm })
    counts.push({ name, total, ms: Math.round((performance.now() - started) * 10) / 10 })
  }
  // As the ledger opens a period: the month's parts read ahead in the background, then a name is typed.
  for (let round = 1; round <= args.rounds; round++) {
    forget(db)
    const warmName = `the month's search parts read ahead #${round}`
    await stage(warmName)
    let started = performance.now()
    await history.warmSearch(CONNECTION, month.from, month.to)
    counts.push({
      name: warmName,
      total: dayTokensCacheOf(db).chars,
      ms: Math.round((performance.now() - started) * 10) / 10,
    })
    const name = `a name's count after the read ahead #${round}`
    await stage(name)
    started = performance.now()
    const total = await history.count({ ...inMonth, search: args.searchTerm })
    counts.push({ name, total, ms: Math.round((performance.now() - started) * 10) / 10 })
  }
  // Where a name count's time goes: the month's token parts read in one request, then matched in memory.
  const range = db.dayTokens
    .where('[connectionId+day+part]')
    .between([CONNECTION, searchDayOf(month.from)], [CONNECTION, searchDayOf(month.to - 1) + 1])
  const search = termSearchOf(searchTermsOf(args.searchTerm))
  for (let round = 1; round <= args.rounds; round++) {
    const readName = `token parts read in one request #${round}`
    await stage(readName)
    let started = performance.now()
    const rows = await range.toArray()
    counts.push({
      name: readName,
      total: rows.length,
      ms: Math.round((performance.now() - started) * 10) / 10,
    })
    const matchName = `token parts matched in memory #${round}`
    await stage(matchName)
    started = performance.now()
    const hits = rows.reduce((n, row) => n + partHits(row, search, 'without fields').length, 0)
    counts.push({ name: matchName, total: hits, ms: Math.round((performance.now() - started) * 10) / 10 })
  }
  await stage('done')
  db.close()
  return { cached, counts }
}

;(window as unknown as { __bench: (a: CountProbeArgs) => Promise<CountProbeResult> }).__bench = run
