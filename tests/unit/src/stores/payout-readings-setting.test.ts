import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import {
  PayoutReadingSettingError,
  readPayoutReadingSetting,
  resetPayoutReadingSetting,
  savePayoutReadingSetting,
} from '../../../../src/stores/payout-readings-setting'
import { loadDepositTie } from '../../../../src/stores/deposit-tie'
import { useMonthEndStore } from '../../../../src/stores/month-end-store'
import { CONN } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'
import { change, ledger, seedPayouts, transfer } from './payout-fixtures'

let db: ClosebookDb
let cache: Cache

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(0))
  setActivePinia(createPinia())
})
afterEach(() => closeLedgerCache(db))

async function connection() {
  const c = await cache.connections.get(CONN)
  if (!c) throw new Error('no connection')
  return c
}

describe('payout readings: the per-connection setting where the data cannot tell', () => {
  it('starts from the defaults, with the JPY fee of the Matching payout model', async () => {
    expect(await readPayoutReadingSetting(CONN)).toEqual({
      readings: { ledgerAmounts: 'net', transferFee: 'manual_ledger' },
      transferFees: { JPY: 440 },
      origin: 'default',
    })
  })

  it('is saved per connection with a fee per currency, and reset to the defaults', async () => {
    await savePayoutReadingSetting(CONN, { ledgerAmounts: 'gross', transferFee: 'bank_deducted' }, [
      { currency: 'jpy', fee: 330 },
      { currency: ' USD ', fee: 250 },
    ])
    expect(await readPayoutReadingSetting(CONN)).toEqual({
      readings: { ledgerAmounts: 'gross', transferFee: 'bank_deducted' },
      transferFees: { JPY: 330, USD: 250 },
      origin: 'saved',
    })
    expect((await readPayoutReadingSetting('another')).origin).toBe('default')
    await resetPayoutReadingSetting(CONN)
    expect((await readPayoutReadingSetting(CONN)).origin).toBe('default')
  })

  it.each([
    ['a code that is not three letters', [{ currency: 'YEN!', fee: 1 }], 'currency'],
    [
      'a currency given twice',
      [
        { currency: 'JPY', fee: 1 },
        { currency: 'jpy', fee: 2 },
      ],
      'currency',
    ],
    ['a negative fee', [{ currency: 'JPY', fee: -1 }], 'fee'],
    ['a fee in fractions of the smallest unit', [{ currency: 'USD', fee: 2.5 }], 'fee'],
  ])('refuses %s, naming the field, and keeps what was saved', async (_, fees, field) => {
    await savePayoutReadingSetting(CONN, { ledgerAmounts: 'gross', transferFee: 'manual_ledger' }, [])
    const refused = await savePayoutReadingSetting(
      CONN,
      { ledgerAmounts: 'net', transferFee: 'bank_deducted' },
      fees,
    ).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(PayoutReadingSettingError)
    expect((refused as PayoutReadingSettingError).field).toBe(field)
    expect((await readPayoutReadingSetting(CONN)).readings).toEqual({
      ledgerAmounts: 'gross',
      transferFee: 'manual_ledger',
    })
  })

  it('decides Month-end’s readings where the data cannot tell, and says the setting decided', async () => {
    await seedPayouts(db, 10_000)
    await savePayoutReadingSetting(CONN, { ledgerAmounts: 'gross', transferFee: 'bank_deducted' }, [
      { currency: 'JPY', fee: 440 },
    ])
    const store = useMonthEndStore()
    store.choosePeriod('2026-10')
    await store.init()
    const payouts = store.data?.payouts
    if (!payouts?.available) throw new Error('payouts not loaded')
    const { readings } = payouts.value
    expect(readings.readings).toEqual({ ledgerAmounts: 'gross', transferFee: 'bank_deducted' })
    expect([readings.ledgerAmounts.source, readings.transferFee.source]).toEqual(['setting', 'setting'])
  })

  it('reads a transfer fee inside a transfer in any currency the setting gives a fee for', async () => {
    await seedPayouts(db, 10_000)
    const usd = (t: ReturnType<typeof transfer>) => ({ ...t, currency: 'USD' })
    await db.payoutTransfers.put(usd(transfer('t-usd', 9_750, 'paid', '2026-10-01T00:00:00Z')))
    await db.payoutLedgers.bulkPut([
      { ...ledger('l-usd', 't-usd', 10_000, '2026-09-20T00:00:00Z'), currency: 'USD' },
      { ...ledger('l-usd-fee', 't-usd', -250, '2026-09-30T00:00:00Z'), currency: 'USD' },
    ])
    await db.payoutStatusChanges.put(change('c-usd', 't-usd', 'paid', '2026-10-05T00:00:00Z'))
    const setting = { ledgerAmounts: 'net', transferFee: 'bank_deducted' } as const
    await savePayoutReadingSetting(CONN, setting, [{ currency: 'JPY', fee: 440 }])
    const jpyOnly = await loadDepositTie(await connection())
    expect(jpyOnly?.readings.transferFee).toMatchObject({ reading: 'bank_deducted', source: 'setting' })

    await savePayoutReadingSetting(CONN, setting, [
      { currency: 'JPY', fee: 440 },
      { currency: 'USD', fee: 250 },
    ])
    const withUsd = await loadDepositTie(await connection())
    expect(withUsd?.readings.transferFee).toMatchObject({
      reading: 'manual_ledger',
      source: 'data',
      support: { manual_ledger: 1, bank_deducted: 0 },
    })
  })
})
