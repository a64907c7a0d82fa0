import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import type { CurrencyRollForward } from '../../../../src/reconcile/payouts'
import { loadMonthPayouts, type MonthPayouts } from '../../../../src/stores/month-payouts'
import { useMonthEndStore } from '../../../../src/stores/month-end-store'
import { CONN, checkpoint } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'
import { at, change, ledger, transfer } from './payout-fixtures'

let db: ClosebookDb
let cache: Cache

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(0))
  const conn = await cache.connections.get(CONN)
  if (!conn) throw new Error('no connection')
  await cache.connections.put({ ...conn, lastSyncedAt: at('2026-12-02T00:00:00Z') })
  await cache.checkpoints.put(checkpoint({ done: true }))
  await cache.settings.set('actorName', 'Hanako Sato')
  setActivePinia(createPinia())
})
afterEach(() => closeLedgerCache(db))

const usd = <T extends { currency: string }>(row: T): T => ({ ...row, currency: 'USD' })

/**
 * July to November in two currencies: transfers that tie, one paid short of its ledgers, a failed one,
 * one paid and then returned, ledgers carried in no transfer, a ledger naming a transfer not cached, and a
 * ledger of October that names a transfer paid in August.
 */
async function seedHistory(): Promise<void> {
  await db.payoutSync.put({
    connectionId: CONN,
    access: { code: 'ok' },
    lastRunAt: 0,
    complete: true,
    details: null,
  })
  await db.payoutTransfers.bulkPut([
    transfer('t-jul', 7_560, 'paid', '2026-08-01T00:00:00Z'),
    transfer('t-aug', 9_000, 'paid', '2026-09-01T00:00:00Z'),
    transfer('t-aug-f', 2_000, 'failed', '2026-09-01T00:00:00Z'),
    transfer('t-sep', 4_000, 'failed', '2026-10-01T00:00:00Z'),
    transfer('t-oct', 6_000, 'created', '2026-10-31T12:00:00Z'),
    usd(transfer('t-usd-aug', 10_000, 'paid', '2026-09-01T00:00:00Z')),
    usd(transfer('t-usd-sep', 2_500, 'paid', '2026-10-01T00:00:00Z')),
  ])
  await db.payoutLedgers.bulkPut([
    ledger('l-jul-1', 't-jul', 5_000, '2026-07-05T00:00:00Z'),
    ledger('l-jul-2', 't-jul', 3_000, '2026-07-20T00:00:00Z'),
    ledger('l-jul-fee', 't-jul', -440, '2026-07-31T00:00:00Z'),
    ledger('l-aug-1', 't-aug', 9_100, '2026-08-10T00:00:00Z'),
    ledger('l-aug-f', 't-aug-f', 2_000, '2026-08-15T00:00:00Z'),
    ledger('l-aug-open', null, 700, '2026-08-20T00:00:00Z'),
    ledger('l-ghost', 't-ghost', 1_200, '2026-08-25T00:00:00Z'),
    ledger('l-sep', 't-sep', 4_000, '2026-09-10T00:00:00Z'),
    ledger('l-oct-1', 't-oct', 6_000, '2026-10-10T00:00:00Z'),
    ledger('l-oct-odd', 't-jul', 50, '2026-10-03T00:00:00Z'),
    ledger('l-nov', null, 900, '2026-11-04T00:00:00Z'),
    usd(ledger('l-usd-aug', 't-usd-aug', 10_000, '2026-08-12T00:00:00Z')),
    usd(ledger('l-usd-sep', 't-usd-sep', 2_500, '2026-09-12T00:00:00Z')),
    usd(ledger('l-usd-oct', null, 1_250, '2026-10-12T00:00:00Z')),
  ])
  await db.payoutStatusChanges.bulkPut([
    change('c-jul-1', 't-jul', 'created', '2026-08-01T00:00:00Z'),
    change('c-jul-2', 't-jul', 'paid', '2026-08-10T00:00:00Z'),
    change('c-aug-1', 't-aug', 'created', '2026-09-01T00:00:00Z'),
    change('c-aug-2', 't-aug', 'paid', '2026-09-10T00:00:00Z'),
    change('c-augf-1', 't-aug-f', 'created', '2026-09-01T00:00:00Z'),
    change('c-augf-2', 't-aug-f', 'failed', '2026-09-12T00:00:00Z'),
    change('c-sep-1', 't-sep', 'created', '2026-10-01T00:00:00Z'),
    change('c-sep-2', 't-sep', 'paid', '2026-10-05T00:00:00Z'),
    change('c-sep-3', 't-sep', 'failed', '2026-10-20T00:00:00Z'),
    change('c-oct-1', 't-oct', 'created', '2026-10-31T12:00:00Z'),
    change('c-usd-aug-1', 't-usd-aug', 'paid', '2026-09-05T00:00:00Z'),
    change('c-usd-sep-1', 't-usd-sep', 'paid', '2026-10-05T00:00:00Z'),
  ])
}

async function close(period: string): Promise<void> {
  setActivePinia(createPinia())
  const store = useMonthEndStore()
  store.choosePeriod(period)
  await store.init()
  expect(await store.closeMonth('Closed for the comparison', true)).toBe(true)
}

async function both(period: string): Promise<{ bounded: MonthPayouts; full: MonthPayouts }> {
  const connection = await cache.connections.get(CONN)
  if (!connection) throw new Error('no connection')
  const bounded = await loadMonthPayouts(connection, period)
  const full = await loadMonthPayouts(connection, period, { bounded: false })
  if (!bounded?.available || !full?.available) throw new Error('payouts not loaded')
  return { bounded: bounded.value, full: full.value }
}

/** Every figure of a currency's roll-forward; the paid differences in transfer order. */
function figures(c: CurrencyRollForward) {
  return {
    ...c,
    paidDifferences: [...c.paidDifferences].sort((a, b) => a.transferId.localeCompare(b.transferId)),
  }
}

describe('month-end payouts: the bounded read gives the figures of a full read', () => {
  it('from August to November, each month after the last one was closed', async () => {
    await seedHistory()
    await close('2026-07')
    for (const period of ['2026-08', '2026-09', '2026-10', '2026-11']) {
      const { bounded, full } = await both(period)
      expect(bounded.rollForward.currencies.map(figures), period).toEqual(
        full.rollForward.currencies.map(figures),
      )
      expect(bounded.rollForward.ties, period).toBe(full.rollForward.ties)
      expect(bounded.close, period).toEqual(full.close)
      await close(period)
    }
  })

  it('reads fewer ledgers once transfers are settled, and carries a paid difference it did not read', async () => {
    await seedHistory()
    for (const period of ['2026-07', '2026-08', '2026-09']) await close(period)
    const october = await both('2026-10')
    expect(october.full.ledgersRead).toBe(13)
    // Skipped: t-aug and t-usd-aug, paid at September's close; t-jul holds a ledger of October, so it is read.
    expect(october.bounded.ledgersRead).toBe(11)
    const jpy = october.bounded.rollForward.currencies.find((c) => c.currency === 'JPY')
    expect(jpy?.paidDifferences).toContainEqual({ transferId: 't-aug', difference: 100 })
    expect(jpy?.openingDifference).toBe(0)
    await close('2026-10')
    // November: t-jul (its October ledger is not November's) and t-usd-sep are skipped too.
    const november = await both('2026-11')
    expect([november.full.ledgersRead, november.bounded.ledgersRead]).toEqual([14, 7])
  })

  it('agrees when a later transfer repays a failed one, by its link or by its amount alone', async () => {
    await seedHistory()
    // t-aug-f (failed, ¥2,000) is repaid by t-sep-r, which names it; USD's failed $7.00 by t-usd-r's excess.
    await db.payoutTransfers.bulkPut([
      {
        ...transfer('t-sep-r', 5_000, 'paid', '2026-09-20T00:00:00Z'),
        raw: { metadata: { repays_transfer_id: 't-aug-f' } },
      },
      usd(transfer('t-usd-f', 700, 'failed', '2026-09-01T00:00:00Z')),
      usd(transfer('t-usd-r', 1_700, 'paid', '2026-09-20T00:00:00Z')),
    ])
    await db.payoutLedgers.bulkPut([
      ledger('l-sep-r', 't-sep-r', 3_000, '2026-09-15T00:00:00Z'),
      usd(ledger('l-usd-f', 't-usd-f', 700, '2026-08-14T00:00:00Z')),
      usd(ledger('l-usd-r', 't-usd-r', 1_000, '2026-09-14T00:00:00Z')),
    ])
    await db.payoutStatusChanges.bulkPut([
      change('c-sep-r', 't-sep-r', 'paid', '2026-09-25T00:00:00Z'),
      change('c-usd-f', 't-usd-f', 'failed', '2026-09-05T00:00:00Z'),
      change('c-usd-r', 't-usd-r', 'paid', '2026-09-25T00:00:00Z'),
    ])
    await close('2026-07')
    for (const period of ['2026-08', '2026-09', '2026-10', '2026-11']) {
      const { bounded, full } = await both(period)
      expect(bounded.rollForward.currencies.map(figures), period).toEqual(
        full.rollForward.currencies.map(figures),
      )
      expect(bounded.close, period).toEqual(full.close)
      await close(period)
    }
  })

  it('reads every ledger before the month when the previous month has no close', async () => {
    await seedHistory()
    const { bounded, full } = await both('2026-10')
    expect(bounded.ledgersRead).toBe(full.ledgersRead)
    expect(bounded.rollForward.currencies.map(figures)).toEqual(full.rollForward.currencies.map(figures))
  })
})
