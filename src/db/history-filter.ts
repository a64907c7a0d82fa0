/**
 * What the ledger asks of history: a connection, a half-open time range (`from` inclusive, `to`
 * exclusive), equality fields, brand, search and reconciled state, and for a page its order and window.
 */
import type { HistoryType, Mode } from '../../electron/shared/payment-api'
import type { HistoryRecord } from '../domain/records'
import { searchTermsOf } from './history-record'

export type ReconciledFilter = 'reconciled' | 'unreconciled' | 'changed'

export interface HistoryFilter {
  connectionId: string
  /** Epoch ms, inclusive. */
  from: number
  /** Epoch ms, exclusive. */
  to: number
  type?: HistoryType
  status?: string
  storeId?: string
  currency?: string
  mode?: Mode
  /** Exact card brand (`visa`, …); not indexed, tested in memory. */
  brand?: string
  /** Whitespace-separated terms; each must be a prefix of one of the record's search tokens. */
  search?: string
  reconciled?: ReconciledFilter
}

export interface HistoryQuery extends HistoryFilter {
  order: 'asc' | 'desc'
  offset: number
  limit: number
}

type EqualityField = 'storeId' | 'status' | 'currency' | 'type' | 'mode'

const EQUALITY_FIELDS: readonly EqualityField[] = ['storeId', 'status', 'currency', 'type', 'mode']

/** The equality fields and the brand, as tests on a record or its digest. */
export function fieldTests(
  filter: HistoryFilter,
): ((r: Pick<HistoryRecord, EqualityField | 'brand'>) => boolean)[] {
  const tests: ((r: Pick<HistoryRecord, EqualityField | 'brand'>) => boolean)[] = []
  for (const field of EQUALITY_FIELDS) {
    const wanted = filter[field]
    if (wanted !== undefined) tests.push((r) => r[field] === wanted)
  }
  const { brand } = filter
  if (brand !== undefined) tests.push((r) => r.brand === brand)
  return tests
}

/** Whether a filter's pages are read from the day digests (its matches counted per day, countByDay). */
export function pagedByDigests(filter: HistoryFilter): boolean {
  if (searchTermsOf(filter.search ?? '').length > 0 || filter.reconciled === 'changed') return false
  return fieldTests(filter).length > 0 || filter.reconciled !== undefined
}

/**
 * How many rows a walk that needs `need` hits reads next: as many as the hits per row so far say the rest
 * needs (one more: the last day may be cut), or twice as many while nothing matched; 1 to `max`.
 */
export function nextBatch(hits: number, need: number, rowsRead: number, batch: number, max: number): number {
  const perRow = hits / rowsRead
  const wanted = perRow > 0 ? Math.ceil((need - hits) / perRow) + 1 : batch * 2
  return Math.max(1, Math.min(wanted, max))
}
