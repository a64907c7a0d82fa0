/**
 * Finding what carries a ledger id, and a record's ledger id, wherever the link is stored: a charge's in
 * its charge part (`ledgerKeys`, since schema v14), a history record's and older charges' as rows of
 * `ledgerLinks` (ledger-links.ts). A link stored both ways (a charge synced before and after v14) is the
 * same link, returned once. A charge's row is never rewritten or deleted, so it answers only while the
 * cached charge still carries its ledger id (stillHeld): such rows cost their bytes, never a wrong link.
 */
import type { ClosebookDb } from './database'
import { ChargesRepository } from './charges-repository'
import { chargeLedgerLinkOf } from './ledger-links'
import type { LedgerLink } from './payout-rows'
import { connectionBounds } from './repository-helpers'
import type { ChargeRecord } from '../domain/records'
import type { ChargePartRecord } from './storage-rows'

/** A record whose link is wanted: its kind and id, and its creation time (which day holds its charge). */
export interface LinkedRecord {
  kind: 'charge' | 'refund'
  recordId: string
  createdAt: number
}

/** The links of ledger ids, with the charge each charge link names when a part holds it. */
export interface FoundLinks {
  links: LedgerLink[]
  charges: Map<string, ChargeRecord>
}

/** Reads of ledger links for one cache. Outside a transaction, or in one over the tables it reads. */
export class LedgerLinkLookup {
  constructor(private readonly db: ClosebookDb) {}

  /** Each record's link (undefined: it carries no ledger id the cache knows), in the order given. */
  async linksOfRecords(
    connectionId: string,
    records: readonly LinkedRecord[],
  ): Promise<(LedgerLink | undefined)[]> {
    const { db } = this
    const kept = await Promise.all(
      records.map(async (r) =>
        (
          await db.ledgerLinks.where('[connectionId+recordId]').equals([connectionId, r.recordId]).toArray()
        ).find((l) => l.kind === r.kind),
      ),
    )
    const holding = new Set(
      await this.stillHeld(
        connectionId,
        kept.flatMap((l) => (l ? [l] : [])),
      ),
    )
    const rows = kept.map((l) => (l && holding.has(l) ? l : undefined))
    const charges = records.flatMap((r, i) => (r.kind === 'charge' && !rows[i] ? [r] : []))
    if (charges.length === 0) return rows
    const found = await new ChargesRepository(db).getMany(
      connectionId,
      charges.map((r) => r.recordId),
      charges.map((r) => r.createdAt),
    )
    const byId = new Map<string, LedgerLink>()
    for (const c of found) {
      const link = c ? chargeLedgerLinkOf(c) : null
      if (link) byId.set(link.recordId, link)
    }
    return records.map((r, i) => rows[i] ?? (r.kind === 'charge' ? byId.get(r.recordId) : undefined))
  }

  /** The links of `ledgerIds` (lower case) the cache holds: rows of `ledgerLinks` first, then parts. */
  async linksOfLedgers(connectionId: string, ledgerIds: readonly string[]): Promise<FoundLinks> {
    const { db } = this
    const ids = ledgerIds.map((id) => id.toLowerCase())
    const rows = await db.ledgerLinks.bulkGet(ids.map((id): [string, string] => [connectionId, id]))
    const links = await this.stillHeld(
      connectionId,
      rows.filter((l): l is LedgerLink => l !== undefined),
    )
    const known = new Set(links.map((l) => l.ledgerId))
    const wanted = new Set(ids.filter((id) => !known.has(id)))
    const charges = new Map<string, ChargeRecord>()
    if (wanted.size === 0) return { links, charges }
    const parts = await db.transaction('r', db.chargeParts, () => this.partsCarrying(connectionId, wanted))
    for (const part of parts)
      for (const c of part.charges) {
        const link = chargeLedgerLinkOf(c)
        if (!link || !wanted.has(link.ledgerId)) continue
        const seen = charges.get(c.id)
        if (seen && seen.syncedAt >= c.syncedAt) continue
        if (!seen) links.push(link)
        charges.set(c.id, c)
      }
    return { links, charges }
  }

  /**
   * The link rows that still hold. A charge's row was written before v14 and is never rewritten: once the
   * charge is synced again its part carries its link, and a row naming another ledger id than the cached
   * charge now carries (or none) is stale. Rows of charges not cached, and refunds' rows, hold.
   */
  private async stillHeld(connectionId: string, rows: LedgerLink[]): Promise<LedgerLink[]> {
    const charges = rows.filter((l) => l.kind === 'charge')
    if (charges.length === 0) return rows
    const found = await new ChargesRepository(this.db).getMany(
      connectionId,
      charges.map((l) => l.recordId),
      charges.map((l) => l.createdAt),
    )
    const carried = new Map<string, string | null>()
    for (const c of found) if (c) carried.set(c.id, chargeLedgerLinkOf(c)?.ledgerId ?? null)
    return rows.filter(
      (l) => l.kind !== 'charge' || !carried.has(l.recordId) || carried.get(l.recordId) === l.ledgerId,
    )
  }

  /**
   * The parts whose charges carry `ledgerIds`, each part once: the index gives part keys (one request per
   * id, all in flight at once), then the parts are read once each. Reading the parts through the index
   * would clone a part once per matching charge, ~75 times per part for a payout's ledgers.
   */
  private async partsCarrying(
    connectionId: string,
    ledgerIds: ReadonlySet<string>,
  ): Promise<ChargePartRecord[]> {
    const { db } = this
    const keyLists = await Promise.all(
      [...ledgerIds].map((id) => db.chargeParts.where('ledgerKeys').equals([connectionId, id]).primaryKeys()),
    )
    const unique = new Map<string, [string, number, number]>()
    for (const key of keyLists.flat()) unique.set(key.join('\u0001'), key)
    const parts = await db.chargeParts.bulkGet([...unique.values()])
    return parts.filter((p): p is ChargePartRecord => p !== undefined)
  }

  /** Every ledger id the connection's cached records carry, once each. */
  async ledgerIds(connectionId: string): Promise<string[]> {
    const { db } = this
    const bounds = connectionBounds(connectionId)
    const rows = await db.ledgerLinks
      .where('[connectionId+ledgerId]')
      .between(...bounds)
      .primaryKeys()
    const inParts = await db.chargeParts
      .where('ledgerKeys')
      .between(...bounds)
      .uniqueKeys()
    const ids = new Set<string>()
    for (const key of [...rows, ...inParts]) ids.add((key as [string, string])[1])
    return [...ids]
  }
}
