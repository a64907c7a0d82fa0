/**
 * The charge list's compact columns: each day row of `chargeDays` carries, beside a charge's id, time and
 * store, the fields Month-end's summary and cross-check read of it (status, charged amount and currency,
 * fee and its currency, mode, when it was synced), one array per field in the order of `ids`. A month's
 * figures then come from its few dozen day rows instead of its parts' whole charges.
 *
 * A row is compact when every column is there with one entry per id; a row written before the columns
 * existed is not, and its day is read from its parts (chargeDigestsInRange), so an older cache gives the
 * same figures, a day at a time. The charge-day writer keeps the columns in step with the parts it writes.
 */
import type { ChargeDigest, ChargeRecord } from '../domain/records'
import type { ChargeDayColumns, ChargeDayRecord } from './storage-rows'

/** Each column and the charge field it holds. */
const COLUMNS = {
  statuses: 'status',
  amounts: 'chargedAmount',
  currencies: 'chargedCurrency',
  feeAmounts: 'feeAmount',
  feeCurrencies: 'feeCurrency',
  modes: 'mode',
  syncedAts: 'syncedAt',
} as const satisfies { [C in keyof ChargeDayColumns]: keyof ChargeRecord }

type Column = keyof typeof COLUMNS
const COLUMN_NAMES = Object.keys(COLUMNS) as Column[]

/** Empty columns, for a day row written from scratch. */
export function emptyColumns(): ChargeDayColumns {
  return {
    statuses: [],
    amounts: [],
    currencies: [],
    feeAmounts: [],
    feeCurrencies: [],
    modes: [],
    syncedAts: [],
  }
}

/** Whether `row` carries every column, one entry per charge it files. */
export function isCompact(row: ChargeDayRecord): row is ChargeDayRecord & ChargeDayColumns {
  return COLUMN_NAMES.every((c) => row[c]?.length === row.ids.length)
}

/** Sets entry `j` of each column to `c`'s fields (appends when `j` is the columns' length). */
export function setColumns(row: ChargeDayColumns, j: number, c: ChargeDigest): void {
  row.statuses[j] = c.status
  row.amounts[j] = c.chargedAmount
  row.currencies[j] = c.chargedCurrency
  row.feeAmounts[j] = c.feeAmount
  row.feeCurrencies[j] = c.feeCurrency
  row.modes[j] = c.mode
  row.syncedAts[j] = c.syncedAt
}

/** Keeps the entries of each column whose `keep[j]` is true (the row's ids being filtered alike). */
export function keepColumns(row: Partial<ChargeDayColumns>, keep: readonly boolean[]): void {
  for (const c of COLUMN_NAMES) {
    const column = row[c] as unknown[] | undefined
    if (column) Object.assign(row, { [c]: column.filter((_, j) => keep[j]) })
  }
}

/** Drops every column: the row is read from its parts, as one written before the columns. */
export function dropColumns(row: Partial<ChargeDayColumns>): void {
  for (const c of COLUMN_NAMES) delete row[c]
}

/**
 * Gives a row that lacks the columns its columns from `held` (the charges of its parts, by id); a row
 * filing a charge `held` lacks is left without them, to be read from its parts.
 */
export function fillColumns(row: ChargeDayRecord, held: ReadonlyMap<string, ChargeRecord>): void {
  if (isCompact(row)) return
  const charges = row.ids.map((id) => held.get(id))
  if (charges.some((c) => c === undefined)) return dropColumns(row)
  const columns = emptyColumns()
  charges.forEach((c, j) => setColumns(columns, j, c as ChargeRecord))
  Object.assign(row, columns)
}

export { chargeDigestOf } from '../domain/digests'

/** The digests of a compact row's charges created in [from, to), in the row's order. */
export function digestsOfRow(
  row: ChargeDayRecord & ChargeDayColumns,
  from: number,
  to: number,
): ChargeDigest[] {
  const out: ChargeDigest[] = []
  row.ids.forEach((id, j) => {
    const createdAt = row.times[j] as number
    if (createdAt < from || createdAt >= to) return
    out.push({
      id,
      createdAt,
      storeId: row.storeIds[j] as string,
      status: row.statuses[j] as string,
      chargedAmount: row.amounts[j] as number,
      chargedCurrency: row.currencies[j] as string,
      feeAmount: row.feeAmounts[j] as number | null,
      feeCurrency: row.feeCurrencies[j] as string | null,
      mode: row.modes[j] as ChargeRecord['mode'],
      syncedAt: row.syncedAts[j] as number,
    })
  })
  return out
}
