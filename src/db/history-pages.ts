/**
 * Every record a ledger filter matches, in the ledger's date order, a page at a time: for exports of any
 * size, which must never hold the whole result. The pages join to exactly what one query of the whole
 * filter returns (records ordered by time, then key).
 *
 * A filter on the time range alone is read in time windows, each one request over the date index in
 * ascending order (IndexedDB hands the range over at once instead of stepping a cursor record by record),
 * each window as long as the last one's density says a page needs: pages hold about `pageSize` records
 * (at most twice the last page's density). Any other filter pages through HistoryRepository.queryPage,
 * each page starting where the last one ended — its range cut at the last record's time, skipping the
 * records of that time already given — so a page costs the same at the millionth record as at the first.
 */
import type { HistoryRecord } from '../domain/records'
import { searchTermsOf } from './history-record'
import type { HistoryFilter, HistoryRepository } from './history-repository'

export const HISTORY_PAGE_SIZE = 5_000

/** The first window's length: a few hundred records of a busy merchant. */
const FIRST_WINDOW_MS = 3_600_000

type PagedHistory = Pick<HistoryRepository, 'queryPage' | 'inRange'>

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

async function* windowPages(
  history: PagedHistory,
  filter: HistoryFilter,
  order: 'asc' | 'desc',
  pageSize: number,
): AsyncGenerator<HistoryRecord[]> {
  // The windows walk from the first record to the last, not over an open range's empty years.
  const [first] = await history.queryPage({ ...filter, order: 'asc', offset: 0, limit: 1 })
  const [last] = await history.queryPage({ ...filter, order: 'desc', offset: 0, limit: 1 })
  if (!first || !last) return
  let lo = first.createdAt
  let hi = last.createdAt + 1
  let span = FIRST_WINDOW_MS
  while (lo < hi) {
    const from = order === 'asc' ? lo : Math.max(lo, hi - span)
    const to = order === 'asc' ? Math.min(hi, lo + span) : hi
    const page = await history.inRange(filter.connectionId, from, to)
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
