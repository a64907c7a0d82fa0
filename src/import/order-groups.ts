/**
 * The lines of one order as one row. Shopify leaves the total on the first line only; BASE and EC-CUBE
 * repeat the order's columns on every line (items, shipping, 同梱 bundles); some exports put each line's
 * own total in the amount column. So, by order number:
 * - `order-total`: the lines' amounts all equal: that is the total (and their sum, `linesTotal`, is kept
 *   in case each line held its own total); amounts that differ are per-line totals: the total is their sum.
 * - `order-lines`: the lines add up to the order (EC-CUBE product, shipping and fee lines).
 */
import type { ParsedDate } from './parse'
import type { CodedError } from './line-errors'
import type { Grouping, ImportedRow, ImportSource, MappingProfile, OtherRef } from './profiles'

/** One file line as a profile reads it. */
export interface ReadLine {
  line: number
  order: string | null
  /** The line's other order numbers (shop id, payment reference). */
  otherRefs: OtherRef[]
  date: ParsedDate | null
  amount: number | null
  currency: string
  refunded: number | null
  shipping: number | null
  fee: number | null
  customer: string | null
  description: string | null
  paymentMethod: string | null
}

export function toRow(
  first: ReadLine,
  lines: readonly ReadLine[],
  source: ImportSource,
  date: ParsedDate,
  amount: number,
): ImportedRow {
  const row: ImportedRow = {
    line: first.line,
    source,
    orderNumber: first.order,
    at: date.at,
    day: date.day,
    amount,
    currency: first.currency,
    customer: lines.find((l) => l.customer !== null)?.customer ?? null,
    description: first.description,
  }
  if (lines.length > 1) row.lines = lines.map((l) => l.line)
  const otherRefs = lines.find((l) => l.otherRefs.length > 0)?.otherRefs
  if (otherRefs) row.otherRefs = [...otherRefs]
  const method = lines.find((l) => l.paymentMethod !== null)?.paymentMethod
  if (method) row.paymentMethod = method
  const refunded = lines.find((l) => l.refunded !== null)?.refunded
  if (refunded) row.refunded = Math.abs(refunded)
  const shipping = lines.find((l) => l.shipping !== null)?.shipping
  if (shipping) row.shipping = Math.abs(shipping)
  const fee = lines.find((l) => l.fee !== null)?.fee
  if (fee) row.fee = Math.abs(fee)
  return row
}

/** One row per order number, in the order of first appearance; lines without a number stand alone. */
export function groupLines(
  read: readonly ReadLine[],
  grouping: Exclude<Grouping, 'none'>,
  profile: MappingProfile,
  report: (row: number, column: string, error: CodedError) => void,
): ImportedRow[] {
  const groups = new Map<string, ReadLine[]>()
  for (const r of read) {
    const key = r.order === null ? `\u0000${r.line}` : r.order
    const list = groups.get(key)
    if (list) list.push(r)
    else groups.set(key, [r])
  }
  const rows: ImportedRow[] = []
  for (const lines of groups.values()) {
    const first = lines[0]
    if (!first) continue
    const date = lines.find((l) => l.date !== null)?.date
    const amounts = lines.filter((l) => l.amount !== null).map((l) => l.amount as number)
    const currencies = new Set(lines.filter((l) => l.amount !== null).map((l) => l.currency))
    const order = first.order ?? String(first.line)
    if (!date) {
      report(first.line, profile.columns.date, { code: 'order_empty_date', params: { order } })
      continue
    }
    if (amounts.length === 0) {
      report(first.line, profile.columns.amount, { code: 'order_empty_amount', params: { order } })
      continue
    }
    if (currencies.size > 1) {
      report(first.line, profile.columns.currency ?? profile.columns.amount, {
        code: 'order_several_currencies',
        params: { order },
      })
      continue
    }
    const sum = amounts.reduce((a, b) => a + b, 0)
    const repeated = amounts.every((a) => a === amounts[0])
    const amount = grouping === 'order-lines' || !repeated ? sum : (amounts[0] ?? 0)
    const withAmount = lines.find((l) => l.amount !== null) ?? first
    const row = toRow({ ...first, currency: withAmount.currency }, lines, profile.source, date, amount)
    if (grouping === 'order-total' && repeated && amounts.length > 1) row.linesTotal = sum
    rows.push(row)
  }
  return rows
}
