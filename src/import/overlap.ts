/**
 * Re-import detection beyond identical bytes: a statement downloaded again for an overlapping period, or
 * an order export re-run with more days, repeats lines already imported. Those lines are recognised by
 * what they say (kind, day, amount, currency, order number, description) and left out, counted as a
 * multiset so two genuinely equal lines in one file stay two.
 */
import type { ImportedRow } from './profiles'

export interface LineIdentity {
  source: string
  day: string
  amount: number
  currency: string
  orderNumber: string | null
  description: string | null
}

function identity(r: LineIdentity): string {
  return [r.source, r.day, r.amount, r.currency, r.orderNumber ?? '', r.description ?? ''].join('\u0001')
}

export interface OverlapResult {
  kept: ImportedRow[]
  /** Lines of the new file that an earlier import already holds. */
  dropped: number[]
}

export function dropAlreadyImported(
  rows: readonly ImportedRow[],
  existing: readonly LineIdentity[],
): OverlapResult {
  const available = new Map<string, number>()
  for (const r of existing) {
    const key = identity(r)
    available.set(key, (available.get(key) ?? 0) + 1)
  }
  const kept: ImportedRow[] = []
  const dropped: number[] = []
  for (const row of rows) {
    const key = identity(row)
    const left = available.get(key) ?? 0
    if (left > 0) {
      available.set(key, left - 1)
      dropped.push(row.line)
    } else kept.push(row)
  }
  return { kept, dropped }
}
