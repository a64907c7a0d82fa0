import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import type { LedgerRow, TransferRow } from '../../../../src/db/payout-rows'
import type { TransferStatusChange } from '../../../../src/domain/payouts'
import { useJournalStore } from '../../../../src/stores/journal-store'
import { useMonthEndStore } from '../../../../src/stores/month-end-store'
import { CONN, checkpoint } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'

/** September's sales paid out in October, October's sales waiting in a created transfer (UTC). */
const at = (iso: string) => Date.parse(iso)

function transfer(id: string, amount: number, status: string, createdOn: string): TransferRow {
  return {
    connectionId: CONN,
    id,
    merchantId: null,
    bankAccountId: null,
    amount,
    currency: 'JPY',
    status,
    errorCode: null,
    errorText: null,
    note: null,
    startedBy: null,
    periodFrom: null,
    periodTo: null,
    createdAt: at(createdOn),
    raw: {},
    syncedAt: 0,
    detailsReadAt: status,
    ledgerCount: 1,
  }
}

function ledger(id: string, transferId: string | null, amount: number, createdOn: string): LedgerRow {
  return {
    connectionId: CONN,
    id,
    storeId: null,
    transferId,
    transferKey: transferId ?? '',
    amount,
    currency: 'JPY',
    percentFee: null,
    flatFee: null,
    flatFeeCurrency: null,
    exchangeRate: null,
    origin: 'manual',
    note: null,
    createdAt: at(createdOn),
    raw: {},
    syncedAt: 0,
  }
}

function change(id: string, transferId: string, newStatus: string, createdOn: string): TransferStatusChange {
  return {
    connectionId: CONN,
    id,
    transferId,
    oldStatus: null,
    newStatus,
    reason: null,
    createdAt: at(createdOn),
  }
}

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

async function seedPayouts(paidInOctober: number): Promise<void> {
  await db.payoutSync.put({
    connectionId: CONN,
    access: { code: 'ok' },
    lastRunAt: 0,
    complete: true,
    details: null,
  })
  await db.payoutTransfers.bulkPut([
    transfer('t-sep', paidInOctober, 'paid', '2026-10-01T00:00:00Z'),
    transfer('t-oct', 7_000, 'created', '2026-10-31T12:00:00Z'),
  ])
  await db.payoutLedgers.bulkPut([
    ledger('l-sep', 't-sep', 10_000, '2026-09-15T00:00:00Z'),
    ledger('l-oct', 't-oct', 7_000, '2026-10-15T00:00:00Z'),
    ledger('l-nov', null, 3_000, '2026-11-05T00:00:00Z'),
  ])
  await db.payoutStatusChanges.bulkPut([
    change('c1', 't-sep', 'created', '2026-10-01T00:00:00Z'),
    change('c2', 't-sep', 'paid', '2026-10-10T00:00:00Z'),
    change('c3', 't-oct', 'created', '2026-10-31T12:00:00Z'),
  ])
}

async function openOctober() {
  const store = useMonthEndStore()
  store.choosePeriod('2026-10')
  await store.init()
  if (!store.data) throw new Error('no month')
  return store.data
}

describe('month-end: the payout roll-forward from the cache', () => {
  it('rolls October forward from September, explains the closing and passes the checklist line', async () => {
    await seedPayouts(10_000)
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
    await seedPayouts(10_000)
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
    await seedPayouts(9_000)
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
