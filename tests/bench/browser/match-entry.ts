// match.50k_ms: proposeMatches over 50k imported order rows and 50k cached records, in Chromium.
import type { ImportedRow } from '../../../src/import/profiles'
import { proposeMatches } from '../../../src/reconcile/matching'
import { generateMonth } from '../shared/month-data'

;(window as unknown as { __bench: (n: number) => Promise<unknown> }).__bench = (n: number) => {
  const { history, charges } = generateMonth(n)
  // 80 % of the rows carry their order number, 10 % only amount and day, 10 % match nothing.
  const rows: ImportedRow[] = history.map((r, i) => {
    const kind = i % 10
    const day = new Date(r.createdAt + 9 * 3_600_000).toISOString().slice(0, 10)
    return {
      line: i + 2,
      source: 'orders',
      orderNumber: kind < 8 ? r.orderRef : null,
      at: r.createdAt,
      day,
      amount: kind === 9 ? r.amount + 7 : r.type === 'refund' ? -r.amount : r.amount,
      currency: r.currency,
      customer: null,
      description: null,
    }
  })
  const started = performance.now()
  const result = proposeMatches({ rows, history, charges, timeZone: 'Asia/Tokyo', dateToleranceDays: 3 })
  const ms = performance.now() - started
  return Promise.resolve({
    ms,
    rows: rows.length,
    records: history.length,
    proposals: result.proposals.length,
    ambiguous: result.ambiguous.length,
    unmatched: result.unmatchedRows.length,
  })
}
