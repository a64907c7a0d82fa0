import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { useJournalStore } from '../../../../src/stores/journal-store'
import { useMonthEndStore } from '../../../../src/stores/month-end-store'
import { CONN, checkpoint } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'
import { at, ledger, seedPayouts } from './payout-fixtures'

let db: ClosebookDb
let cache: Cache

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(0))
  const conn = await cache.connections.get(CONN)
  if (!conn) throw new Error('no connection')
  await cache.connections.put({ ...conn, lastSyncedAt: at('2026-11-02T00:00:00Z') })
  await cache.checkpoints.put(checkpoint({ done: true }))
  setActivePinia(createPinia())
})
afterEach(() => closeLedgerCache(db))

async function openOctober() {
  return (await openMonth('2026-10')).data
}

async function openMonth(period: string) {
  const store = useMonthEndStore()
  store.choosePeriod(period)
  await store.init()
  if (!store.data) throw new Error('no month')
  return store as typeof store & { data: NonNullable<typeof store.data> }
}

describe('month-end: a close keeps its payout closing for the next month', () => {
  async function closeSeptember() {
    await cache.settings.set('actorName', 'Hanako Sato')
    const september = await openMonth('2026-09')
    expect(await september.closeMonth('Payouts checked', true)).toBe(true)
    return cache.locks.get(CONN, '2026-09')
  }

  it('stores each currency’s closing with the close, and October opens on it', async () => {
    await seedPayouts(db, 10_000)
    const lock = await closeSeptember()
    expect(lock?.payoutClose).toEqual({ closing: { JPY: 10_000 }, paidDifferences: {} })
    setActivePinia(createPinia())
    const month = await openOctober()
    if (!month.payouts?.available) throw new Error('payouts not loaded')
    expect(month.payouts.value.rollForward.currencies[0]).toMatchObject({
      opening: 10_000,
      carriedOpening: 10_000,
      openingDifference: 0,
      ties: true,
    })
    expect(month.checklist.items.find((i) => i.id === 'payouts')?.state).toBe('ok')
  })

  it('flags October when a ledger of the closed September changes after the close', async () => {
    await seedPayouts(db, 10_000)
    await closeSeptember()
    // Late data: September's ledger was re-read with another amount, and one more arrived.
    await db.payoutLedgers.bulkPut([
      { ...ledger('l-sep', 't-sep', 10_000, '2026-09-15T00:00:00Z'), amount: 10_200 },
      ledger('l-late', null, 300, '2026-09-29T00:00:00Z'),
    ])
    setActivePinia(createPinia())
    const month = await openOctober()
    if (!month.payouts?.available) throw new Error('payouts not loaded')
    expect(month.payouts.value.rollForward.currencies[0]).toMatchObject({
      opening: 10_500,
      carriedOpening: 10_000,
      openingDifference: 500,
      ties: false,
    })
    const line = month.checklist.items.find((i) => i.id === 'payouts')
    expect(line?.state).toBe('blocked')
    expect(line?.payouts).toEqual([expect.objectContaining({ currency: 'JPY', openingDifference: 500 })])
  })

  it('keeps the closing of a month closed before payouts were synced out of the check', async () => {
    await cache.settings.set('actorName', 'Hanako Sato')
    const september = await openMonth('2026-09')
    expect(await september.closeMonth('No payouts yet', true)).toBe(true)
    expect((await cache.locks.get(CONN, '2026-09'))?.payoutClose).toBeUndefined()
    await seedPayouts(db, 10_000)
    setActivePinia(createPinia())
    const month = await openOctober()
    if (!month.payouts?.available) throw new Error('payouts not loaded')
    expect(month.payouts.value.rollForward.currencies[0]).toMatchObject({
      carriedOpening: null,
      openingDifference: 0,
    })
  })
})

describe('month-end: the payout roll-forward from the cache', () => {
  it('rolls October forward from September, explains the closing and passes the checklist line', async () => {
    await seedPayouts(db, 10_000)
    const month = await openOctober()
    if (!month.payouts?.available) throw new Error('payouts not loaded')
    const [jpy] = month.payouts.value.rollForward.currencies
    expect(jpy).toMatchObject({
      currency: 'JPY',
      opening: 10_000,
      manual: 7_000,
      payouts: 10_000,
      closing: 7_000,
      control: 0,
      unexplained: 0,
    })
    // November's ledger is not read into October's balance.
    expect(jpy?.open).toEqual([
      { bucket: 'created', transferId: 't-oct', status: 'created', ledgerCount: 1, amount: 7_000 },
    ])
    expect(month.checklist.items.find((i) => i.id === 'payouts')?.state).toBe('ok')
  })

  it('follows the journal entries of the month with the deposit of each transfer paid in it', async () => {
    await seedPayouts(db, 10_000)
    const month = await openOctober()
    const journal = useJournalStore()
    await journal.prepare(month)
    const vouchers = journal.preview?.vouchers ?? []
    const deposits = vouchers.filter((v) => v.lines.some((l) => l.kind === 'deposit'))
    expect(deposits).toHaveLength(1)
    expect(deposits[0]?.date).toBe('2026-10-10')
    expect(deposits[0]?.lines.map((l) => [l.kind, l.amount])).toEqual([['deposit', 10_000]])
    expect(vouchers.map((v) => v.number)).toEqual(vouchers.map((_, i) => i + 1))
  })

  it('blocks the checklist line when a paid transfer does not add up to its ledgers', async () => {
    await seedPayouts(db, 9_000)
    const month = await openOctober()
    const line = month.checklist.items.find((i) => i.id === 'payouts')
    expect(line?.state).toBe('blocked')
    expect(line?.payouts?.[0]).toMatchObject({ currency: 'JPY' })
  })

  it('has no payouts line for a connection whose payouts were never synced', async () => {
    const month = await openOctober()
    expect(month.payouts).toBeNull()
    expect(month.checklist.items.some((i) => i.id === 'payouts')).toBe(false)
  })

  it('says payouts are unavailable when the service refused them', async () => {
    await db.payoutSync.put({
      connectionId: CONN,
      access: { code: 'forbidden', serviceCode: 'INVALID_PERMISSIONS' },
      lastRunAt: 0,
      complete: false,
      details: null,
    })
    const month = await openOctober()
    expect(month.payouts).toEqual({ available: false })
    expect(month.checklist.items.find((i) => i.id === 'payouts')?.state).toBe('unavailable')
  })
})
