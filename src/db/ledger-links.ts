/**
 * The records that say which ledger they are in: a charge-list item's `ledger_id` (node SDK `Charges`),
 * and a history row's or refund's when the service sends one. Written with the page that carries them,
 * so a ledger can be traced to its charge or refund however the records are stored.
 */
import type { PageWrite } from './history-writer'
import type { LedgerLink } from './payout-rows'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function ledgerIdIn(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null
  const id = (raw as Record<string, unknown>)['ledger_id']
  return typeof id === 'string' && UUID.test(id) ? id.toLowerCase() : null
}

export function ledgerLinksOf(page: PageWrite): LedgerLink[] {
  const { connectionId } = page
  const links: LedgerLink[] = []
  if (page.resource === 'charges') {
    for (const r of page.records) {
      const ledgerId = ledgerIdIn(r.raw)
      if (ledgerId)
        links.push({ connectionId, ledgerId, kind: 'charge', recordId: r.id, createdAt: r.createdAt })
    }
  } else {
    for (const r of page.records) {
      const ledgerId = ledgerIdIn(r.raw)
      if (ledgerId)
        links.push({ connectionId, ledgerId, kind: r.type, recordId: r.resourceId, createdAt: r.createdAt })
    }
  }
  return links
}
