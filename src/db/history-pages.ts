/**
 * Every record a ledger filter matches, in the ledger's date order, a page at a time: for exports of any
 * size, which must never hold the whole result. The pages join to exactly what one query of the whole
 * filter returns (records ordered by time, then key).
 *
 * A filter on the time range alone is read in windows of whole UTC days planned from the day summaries'
 * counts (HistoryRepository.countRangeByDay; no record read to plan them): each window a run of days
 * holding about `pageSize` records together, read in one request of their day parts (inRange), so each
 * day's parts are read once. A day holding more than WHOLE_DAY_PAGES pages is read in windows within it,
 * each as long as the last one's density says a page needs. Any other filter pages through
 * HistoryRepository.queryPage, each page starting where the last one ended — its range cut at the last
 * record's time, skipping the records of that time already given — so a page costs the same at the
 * millionth record as at the first.
 */
import type { HistoryRecord } from '../domain/records'
import type { DayCounts } from './day-counts'
import { searchTermsOf } from './history-record'
import type { HistoryFilter, HistoryRepository } from './history-repository'

export const HISTORY_PAGE_SIZE = 5_000

const DAY_MS = 86_400_000
/** The first window within a dense day: at most a few thousand records of a very busy merchant. */
const FIRST_WINDOW_MS = 3_600_000
/** A day holding more pages than this is read in windows within it; the others whole. */
const WHOLE_DAY_PAGES = 4

type PagedHistory = Pick<HistoryRepository, 'queryPage' | 'inRange' | 'countRangeByDay'>

export async function* historyPages(
  history: PagedHistory,
  filter: HistoryFilter,
  order: 'asc' | 'desc',
  pageSize = HISTORY_PAGE_SIZE,
): AsyncGenerator<HistoryRecord[]> {
  if (!(pageSize >= 1)) throw new Error(`page size must be at least 1, not ${pageSize}`)
  if (isRangeOnly(filter)) yield* windowPages(history, filter, order, pageSize)
  else yield* keysetPages(history, filter, order, pageSize)
}

function isRangeOnly(f: HistoryFilter): boolean {
  const fields = [f.type, f.status, f.storeId, f.currency, f.mode, f.brand, f.reconciled]
  return fields.every((v) => v === undefined) && searchTermsOf(f.search ?? '').length === 0
}

/** A window of time read in one request: its records number `n` (as the day summaries count them). */
interface Window {
  from: number
  to: number
  n: number
}

/**
 * The windows of a range-only filter, ascending: runs of whole UTC days holding about `pageSize` records
 * together (at least one day each), and on its own each day holding more than WHOLE_DAY_PAGES pages.
 * Day 0 also holds every record dated before 1970 (searchDayOf).
 */
function planWindows(filter: HistoryFilter, counts: DayCounts, pageSize: number): Window[] {
  const windows: Window[] = []
  let run: Window | null = null
  for (const { day, n } of counts.days) {
    const from = day === 0 ? filter.from : Math.max(filter.from, day * DAY_MS)
    const to = Math.min(filter.to, (day + 1) * DAY_MS)
    if (n > WHOLE_DAY_PAGES * pageSize) {
      if (run) windows.push(run)
      windows.push({ from, to, n })
      run = null
    } else if (run && run.n + n <= pageSize) {
      run.to = to
      run.n += n
    } else {
      if (run) windows.push(run)
      run = { from, to, n }
    }
  }
  if (run) windows.push(run)
  return windows
}

async function* windowPages(
  history: PagedHistory,
  filter: HistoryFilter,
  order: 'asc' | 'desc',
  pageSize: number,
): AsyncGenerator<HistoryRecord[]> {
  const counts = await history.countRangeByDay(filter.connectionId, filter.from, filter.to)
  const windows = planWindows(filter, counts, pageSize)
  if (order === 'desc') windows.reverse()
  for (const w of windows) {
    if (w.n > WHOLE_DAY_PAGES * pageSize) {
      yield* denseDayPages(history, filter.connectionId, w, order, pageSize)
      continue
    }
    const page = await history.inRange(filter.connectionId, w.from, w.to)
    if (order === 'desc') page.reverse()
    if (page.length > 0) yield page
  }
}

/**
 * A day holding many pages, in windows within it, each as long as the last one's density says a page
 * needs (the first from the day's count, an hour at most): pages hold about `pageSize` records, at most
 * twice the last window's density. Each window reads the day's parts again: the price of a page's bound
 * on such a day.
 */
async function* denseDayPages(
  history: PagedHistory,
  connectionId: string,
  day: Window,
  order: 'asc' | 'desc',
  pageSize: number,
): AsyncGenerator<HistoryRecord[]> {
  // From the day's first record to its last, not over its empty hours; their records may crowd into a
  // part of that time, so the first window is at most an hour.
  const range = { connectionId, from: day.from, to: day.to, offset: 0, limit: 1 }
  const [first] = await history.queryPage({ ...range, order: 'asc' })
  const [last] = await history.queryPage({ ...range, order: 'desc' })
  if (!first || !last) return
  let lo = first.createdAt
  let hi = last.createdAt + 1
  const even = ((hi - lo) * pageSize) / day.n
  let span = Math.max(1, Math.floor(Math.min(FIRST_WINDOW_MS, even)))
  while (lo < hi) {
    const from = order === 'asc' ? lo : Math.max(lo, hi - span)
    const to = order === 'asc' ? Math.min(hi, lo + span) : hi
    const page = await history.inRange(connectionId, from, to)
    if (order === 'desc') page.reverse()
    if (page.length > 0) yield page
    if (order === 'asc') lo = to
    else hi = from
    const factor = page.length === 0 ? 2 : Math.min(2, Math.max(0.5, pageSize / page.length))
    span = Math.max(1, Math.floor(span * factor))
  }
}

async function* keysetPages(
  history: PagedHistory,
  filter: HistoryFilter,
  order: 'asc' | 'desc',
  pageSize: number,
): AsyncGenerator<HistoryRecord[]> {
  let range = { from: filter.from, to: filter.to }
  // The records at the edge's time already given: ties sit in key order within a time, so they come first.
  let edgeAt = Number.NaN
  let given = 0
  for (;;) {
    const page = await history.queryPage({
      ...filter,
      ...range,
      order,
      offset: given,
      limit: pageSize,
    })
    if (page.length > 0) yield page
    const last = page[page.length - 1]
    if (!last || page.length < pageSize) return
    const atEdge = page.filter((r) => r.createdAt === last.createdAt).length
    given = (edgeAt === last.createdAt ? given : 0) + atEdge
    edgeAt = last.createdAt
    range =
      order === 'asc'
        ? { from: last.createdAt, to: filter.to }
        : { from: filter.from, to: last.createdAt + 1 }
  }
}
