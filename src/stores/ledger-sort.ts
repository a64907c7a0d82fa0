/**
 * Sorting the ledger by a column other than date. Date order walks the [connectionId+createdAt] index and
 * pages, at any size; other columns have no index that also honours the date range and filters, so they
 * sort in memory, which the ledger allows only when the filtered set is small enough (IN_MEMORY_SORT_LIMIT).
 */
import type { HistoryRecord, RecordKey } from '../domain/records'
import { rowFigures, type ChargeFee } from '../reconcile/row-figures'

export const SORT_COLUMNS = [
  'date',
  'store',
  'type',
  'status',
  'amount',
  'currency',
  'mode',
  'brand',
  'holder',
  'order',
  'fee',
  'net',
] as const
export type SortColumn = (typeof SORT_COLUMNS)[number]

export function isSortColumn(column: string): column is SortColumn {
  return (SORT_COLUMNS as readonly string[]).includes(column)
}

/** A month of a busy merchant fits; all of a 500k history does not (it is sorted by date through the index). */
export const IN_MEMORY_SORT_LIMIT = 50_000

export interface SortContext {
  /** Fee facts by charge id, for the fee and net columns. */
  fees: ReadonlyMap<string, ChargeFee>
  storeName: (storeId: string) => string
  locale: string
}

type Value = string | number | null

function valueOf(column: SortColumn, r: HistoryRecord, ctx: SortContext): Value {
  switch (column) {
    case 'date':
      return r.createdAt
    case 'store':
      return ctx.storeName(r.storeId)
    case 'type':
      return r.type
    case 'status':
      return r.status
    case 'amount':
      // Signed as the ledger shows it: a refund is money going out.
      return r.type === 'refund' ? -r.amount : r.amount
    case 'currency':
      return r.currency
    case 'mode':
      return r.mode
    case 'brand':
      return r.brand || null
    case 'holder':
      return r.cardholderName || null
    case 'order':
      return r.orderRef ?? null
    case 'fee':
      return rowFigures(r, ctx.fees.get(r.chargeId)).fee
    case 'net':
      return rowFigures(r, ctx.fees.get(r.chargeId)).net
  }
}

function byKey(a: RecordKey, b: RecordKey): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Sorts a copy of the rows by a column. Empty values go last in either direction (as spreadsheets do);
 * ties keep date order (then record key) in the same direction, so the order is total and repeatable.
 */
export function sortRows(
  rows: readonly HistoryRecord[],
  column: SortColumn,
  direction: 'asc' | 'desc',
  ctx: SortContext,
): HistoryRecord[] {
  const collator = new Intl.Collator(ctx.locale, { numeric: true, sensitivity: 'base' })
  const sign = direction === 'asc' ? 1 : -1
  // Values once per row: the fee lookups and collation keys are the costly part on 50k rows.
  const keyed = rows.map((r) => ({ r, v: valueOf(column, r, ctx) }))
  // Money is compared within its currency only (¥300 is not more than $174.92): currencies group first.
  const money = column === 'amount' || column === 'fee' || column === 'net'
  keyed.sort((x, y) => {
    if (money && x.r.currency !== y.r.currency) return x.r.currency < y.r.currency ? -1 : 1
    if (x.v === null || y.v === null) {
      if (x.v === null && y.v !== null) return 1
      if (y.v === null && x.v !== null) return -1
    } else {
      const c =
        typeof x.v === 'number' && typeof y.v === 'number'
          ? x.v - y.v
          : collator.compare(String(x.v), String(y.v))
      if (c !== 0) return sign * c
    }
    return sign * (x.r.createdAt - y.r.createdAt || byKey(x.r.key, y.r.key))
  })
  return keyed.map((k) => k.r)
}
