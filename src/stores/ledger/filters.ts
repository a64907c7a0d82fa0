/**
 * The ledger's filters and what they mean for a query: the instants a period covers in the accounting time
 * zone, the repository filter, and the period as it appears in a file name. Pure: no cache, no Vue.
 */
import type { HistoryType, Mode } from '../../../electron/shared/payment-api'
import type { HistoryFilter, ReconciledFilter } from '../../db/history-repository'
import { dayRange, periodRange } from '../../domain/periods'

/** The end of an open range: later than any record's time (ms). */
export const FOREVER = 8.64e15

/** How the ledger's period is chosen: a month (closable), a day, or a custom range of days. */
export type PeriodKind = 'month' | 'day' | 'range'

export interface LedgerFilters {
  periodKind: PeriodKind
  /** YYYY-MM in the accounting time zone; the only kind a close or reopen applies to. */
  period: string | null
  /** YYYY-MM-DD in the accounting time zone. */
  day: string | null
  /** Inclusive days YYYY-MM-DD; either end may be open. */
  rangeFrom: string | null
  rangeTo: string | null
  storeId: string | null
  type: HistoryType | null
  status: string | null
  mode: Mode | null
  currency: string | null
  brand: string | null
  reconciled: ReconciledFilter | null
  search: string
}

export const emptyFilters = (): LedgerFilters => ({
  periodKind: 'month',
  period: null,
  day: null,
  rangeFrom: null,
  rangeTo: null,
  storeId: null,
  type: null,
  status: null,
  mode: null,
  currency: null,
  brand: null,
  reconciled: null,
  search: '',
})

/** The instants the period filter covers, in the accounting time zone; [0, FOREVER) when none. */
export function rangeOf(filters: LedgerFilters, zone: string): { from: number; to: number } {
  if (filters.periodKind === 'month' && filters.period) return periodRange(filters.period, zone)
  if (filters.periodKind === 'day' && filters.day) return dayRange(filters.day, zone)
  if (filters.periodKind === 'range' && (filters.rangeFrom || filters.rangeTo)) {
    const from = filters.rangeFrom ? dayRange(filters.rangeFrom, zone).from : 0
    const to = filters.rangeTo ? dayRange(filters.rangeTo, zone).to : FOREVER
    return { from, to: Math.max(from, to) }
  }
  return { from: 0, to: FOREVER }
}

/** The repository filter of a connection's ledger filters; null without a connection. */
export function historyFilterOf(
  connectionId: string | null,
  filters: LedgerFilters,
  zone: string,
): HistoryFilter | null {
  if (!connectionId) return null
  const range = rangeOf(filters, zone)
  const f: HistoryFilter = { connectionId, from: range.from, to: range.to }
  if (filters.storeId) f.storeId = filters.storeId
  if (filters.type) f.type = filters.type
  if (filters.status) f.status = filters.status
  if (filters.mode) f.mode = filters.mode
  if (filters.currency) f.currency = filters.currency
  if (filters.brand) f.brand = filters.brand
  if (filters.reconciled) f.reconciled = filters.reconciled
  if (filters.search.trim()) f.search = filters.search.trim()
  return f
}

/** The period in a file name: 2026-09, 2026-09-15, 2026-09-01_2026-09-15 or all. */
export function periodLabelOf(filters: LedgerFilters): string {
  if (filters.periodKind === 'month' && filters.period) return filters.period
  if (filters.periodKind === 'day' && filters.day) return filters.day
  if (filters.periodKind === 'range' && (filters.rangeFrom || filters.rangeTo))
    return `${filters.rangeFrom ?? 'start'}_${filters.rangeTo ?? 'now'}`
  return 'all'
}

/** What the ledger's rows depend on, as the view watches it: connection, order, sort column, filters. */
export type LedgerQueryState = readonly [
  connectionId: string | null,
  order: string,
  sortColumn: string,
  filters: Readonly<LedgerFilters>,
]

/**
 * Whether a change of the query state is only the ledger's init choosing its connection (none → one,
 * nothing else changed). Init refreshes right after that choice, so the view's refresh on a change would
 * repeat it, and clear a selection made in between.
 */
export function isInitialConnectionChoice(next: LedgerQueryState, previous: LedgerQueryState): boolean {
  const [connectionId, order, sortColumn, filters] = next
  const [wasConnection, wasOrder, wasSortColumn, wasFilters] = previous
  return (
    wasConnection === null &&
    connectionId !== null &&
    order === wasOrder &&
    sortColumn === wasSortColumn &&
    (Object.keys(filters) as (keyof LedgerFilters)[]).every((k) => filters[k] === wasFilters[k])
  )
}
