/**
 * Every record a ledger filter matches, in the ledger's date order, a page at a time: for exports of any
 * size, which must never hold the whole result. Each page is one query (HistoryRepository.queryPage) that
 * starts where the last page ended — its range cut at the last record's time, skipping the records of that
 * time already given — so a page costs the same at the millionth record as at the first, and the pages
 * join to exactly what one query of the whole filter returns (records ordered by time, then key).
 */
import type { HistoryRecord } from '../domain/records'
import type { HistoryFilter, HistoryRepository } from './history-repository'

export const HISTORY_PAGE_SIZE = 5_000

export async function* historyPages(
  history: Pick<HistoryRepository, 'queryPage'>,
  filter: HistoryFilter,
  order: 'asc' | 'desc',
  pageSize = HISTORY_PAGE_SIZE,
): AsyncGenerator<HistoryRecord[]> {
  if (!(pageSize >= 1)) throw new Error(`page size must be at least 1, not ${pageSize}`)
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
