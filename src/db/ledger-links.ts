/**
 * The records that say which ledger they are in: a charge-list item's `ledger_id` (node SDK `Charges`),
 * and a history row's or refund's when the service sends one. Written with the page that carries them,
 * so a ledger can be traced to its charge or refund however the records are stored.
 *
 * Since schema v14 a charge's link is its charge part's `ledgerKeys` (a multi-entry index of the part),
 * written with the part: a row per charge cost the IndexedDB backend ~200 µs a put in a first sync, where
 * the part is rewritten anyway. History records' links, and charges' links written before v14, stay rows
 * of `ledgerLinks`; the readers (payouts-repository.ts) look in both.
 */
import type { ChargeRecord, HistoryRecord } from '../domain/records'
import type { LedgerLink } from './payout-rows'
import type { ChargePartRecord } from './storage-rows'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The ledger id an item carries (lower case), or null when it carries none or not a UUID. */
export function ledgerIdIn(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null
  const id = (raw as Record<string, unknown>)['ledger_id']
  return typeof id === 'string' && UUID.test(id) ? id.toLowerCase() : null
}

/** The link of a charge-list record, null when it carries no ledger id. */
export function chargeLedgerLinkOf(c: ChargeRecord): LedgerLink | null {
  const ledgerId = ledgerIdIn(c.raw)
  return ledgerId
    ? { connectionId: c.connectionId, ledgerId, kind: 'charge', recordId: c.id, createdAt: c.createdAt }
    : null
}

/** The `ledgerKeys` of a part holding `charges`: one entry per charge carrying a ledger id. */
export function ledgerKeysOf(charges: readonly ChargeRecord[]): [string, string][] {
  const keys: [string, string][] = []
  for (const c of charges) {
    const ledgerId = ledgerIdIn(c.raw)
    if (ledgerId) keys.push([c.connectionId, ledgerId])
  }
  return keys
}

/** `part` with its `ledgerKeys` set from the charges it holds now (the writer sets them on every put). */
export function withLedgerKeys(part: ChargePartRecord): ChargePartRecord {
  part.ledgerKeys = ledgerKeysOf(part.charges)
  return part
}

/** The `ledgerLinks` rows of a page of history records (charges' links live in their parts). */
export function historyLedgerLinksOf(records: readonly HistoryRecord[]): LedgerLink[] {
  const links: LedgerLink[] = []
  for (const r of records) {
    const ledgerId = ledgerIdIn(r.raw)
    if (ledgerId)
      links.push({
        connectionId: r.connectionId,
        ledgerId,
        kind: r.type,
        recordId: r.resourceId,
        createdAt: r.createdAt,
      })
  }
  return links
}
