import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { PayoutsRepository } from '../../../../src/db/payouts-repository'
import { CacheSyncStore } from '../../../../src/sync/cache-sync-store'
import { CONN, HOUR, T0, chargeItem, checkpoint, historyItem, openDb, uuid } from './fixtures'

const ledger = (n: number): string => `aaaaaaaa-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
const SYNCED = T0 + 1000

let db: ClosebookDb
let store: CacheSyncStore
let repo: PayoutsRepository
beforeEach(() => {
  db = openDb()
  store = new CacheSyncStore(db)
  repo = new PayoutsRepository(db)
})
afterEach(() => db.close())

const chargesCp = checkpoint({ partitionId: 'charges:all:2026-10', resource: 'charges' })

/** Charges 1..n (charge i carries ledger i when `withLedger(i)`), and their history records. */
async function syncCharges(n: number, withLedger: (i: number) => boolean = () => true): Promise<void> {
  const ids = Array.from({ length: n }, (_, i) => i + 1)
  const charges = ids.map((i) =>
    chargeItem(i, {
      created_on: new Date(T0 + i * HOUR).toISOString(),
      ...(withLedger(i) ? { ledger_id: ledger(i).toUpperCase() } : {}),
    }),
  )
  await store.putPage({ resource: 'charges', items: charges }, chargesCp, SYNCED)
  await store.putPage(
    { resource: 'transaction_history', items: ids.map((i) => historyItem(i, { charge_id: uuid(i) })) },
    checkpoint(),
    SYNCED,
  )
}

describe('ledger links: a charge is found by its ledger id through its charge part', () => {
  it('a synced charge page writes no link row per charge, and its ledger finds the charge and its history', async () => {
    await syncCharges(30, (i) => i % 3 !== 0)
    expect(await db.ledgerLinks.count()).toBe(0)
    const found = await repo.recordsByLedgerIds(CONN, [ledger(1), ledger(2), ledger(3), ledger(29)])
    expect([...found.keys()].sort()).toEqual([ledger(1), ledger(2), ledger(29)].sort())
    const one = found.get(ledger(29))
    expect(one?.link).toEqual({
      connectionId: CONN,
      ledgerId: ledger(29),
      kind: 'charge',
      recordId: uuid(29),
      createdAt: T0 + 29 * HOUR,
    })
    expect(one?.charge?.id).toBe(uuid(29))
    expect(one?.history?.key).toBe(`charge:${uuid(29)}`)
    expect((await repo.linkedLedgerIdsWithoutLedger(CONN, 100)).sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => i + 1)
        .filter((i) => i % 3 !== 0)
        .map(ledger)
        .sort(),
    )
  })

  it('reads each part holding the ledgers asked for once, however many of its charges they name', async () => {
    await syncCharges(30)
    let reads = 0
    const count = (part: unknown) => (reads++, part)
    db.chargeParts.hook('reading', count)
    const found = await repo.recordsByLedgerIds(
      CONN,
      Array.from({ length: 30 }, (_, i) => ledger(i + 1)),
    )
    db.chargeParts.hook('reading').unsubscribe(count)
    expect(found.size).toBe(30)
    // The 30 charges are on two days (one part each).
    expect(reads).toBe(2)
  })

  it("a record's link is found by its charge id and time, and a charge without a ledger id has none", async () => {
    await syncCharges(5, (i) => i !== 4)
    const links = await repo.linksOfRecords(
      CONN,
      [2, 4].map((i) => ({ kind: 'charge' as const, recordId: uuid(i), createdAt: T0 + i * HOUR })),
    )
    expect(links.map((l) => l?.ledgerId)).toEqual([ledger(2), undefined])
  })

  it('a charge synced again with another ledger id is found by the new one only', async () => {
    await syncCharges(3)
    const moved = chargeItem(2, { created_on: new Date(T0 + 2 * HOUR).toISOString(), ledger_id: ledger(99) })
    await store.putPage({ resource: 'charges', items: [moved] }, chargesCp, SYNCED + 1)
    const found = await repo.recordsByLedgerIds(CONN, [ledger(2), ledger(99)])
    expect([...found.keys()]).toEqual([ledger(99)])
    expect(found.get(ledger(99))?.charge?.id).toBe(uuid(2))
  })

  it('links kept as rows (written before charge parts carried them) still answer, each link once', async () => {
    await syncCharges(2)
    // A refund's link, and charge 1's link as it was stored before: a row.
    await db.ledgerLinks.bulkPut([
      { connectionId: CONN, ledgerId: ledger(50), kind: 'refund', recordId: uuid(50), createdAt: T0 },
      { connectionId: CONN, ledgerId: ledger(1), kind: 'charge', recordId: uuid(1), createdAt: T0 + HOUR },
    ])
    const found = await repo.recordsByLedgerIds(CONN, [ledger(1), ledger(2), ledger(50)])
    expect(found.get(ledger(1))?.charge?.id).toBe(uuid(1))
    expect(found.get(ledger(50))?.link.kind).toBe('refund')
    expect(found.size).toBe(3)
    expect((await repo.linkedLedgerIdsWithoutLedger(CONN, 100)).sort()).toEqual(
      [ledger(1), ledger(2), ledger(50)].sort(),
    )
  })

  it('a link row of a charge since synced with another ledger id, or none, no longer answers', async () => {
    await syncCharges(3)
    // Charges 1 and 2 as links were stored before their parts carried them: rows.
    await db.ledgerLinks.bulkPut(
      [1, 2].map((i) => ({
        connectionId: CONN,
        ledgerId: ledger(i),
        kind: 'charge' as const,
        recordId: uuid(i),
        createdAt: T0 + i * HOUR,
      })),
    )
    const at = (i: number) => new Date(T0 + i * HOUR).toISOString()
    const moved = [
      chargeItem(1, { created_on: at(1) }),
      chargeItem(2, { created_on: at(2), ledger_id: ledger(99) }),
    ]
    await store.putPage({ resource: 'charges', items: moved }, chargesCp, SYNCED + 1)
    const found = await repo.recordsByLedgerIds(CONN, [ledger(1), ledger(2), ledger(3), ledger(99)])
    expect([...found.keys()].sort()).toEqual([ledger(3), ledger(99)].sort())
    const links = await repo.linksOfRecords(
      CONN,
      [1, 2, 3].map((i) => ({ kind: 'charge' as const, recordId: uuid(i), createdAt: T0 + i * HOUR })),
    )
    expect(links.map((l) => l?.ledgerId)).toEqual([undefined, ledger(99), ledger(3)])
  })

  it("another connection's charges with the same ledger id are not found", async () => {
    await syncCharges(2)
    expect((await repo.recordsByLedgerIds('other', [ledger(1)])).size).toBe(0)
    expect(await repo.linkedLedgerIdsWithoutLedger('other', 100)).toEqual([])
  })
})
