import { describe, expect, it } from 'vitest'
import { detectReadings, type ReadingsInput } from '../../../../../src/reconcile/payouts/readings'
import { history } from '../fixtures'
import {
  bankLine,
  FEES,
  GROSS_BANK,
  ledger,
  linked,
  NET_INSIDE,
  paidAt,
  TZ,
  tokyo,
  transfer,
} from '../../../../support/payouts'

function input(over: Partial<ReadingsInput>): ReadingsInput {
  return {
    ledgers: [],
    transfers: [],
    statusChanges: [],
    ledgerRecords: new Map(),
    records: new Map(),
    transferFees: FEES,
    timeZone: TZ,
    setting: NET_INSIDE,
    ...over,
  }
}

describe('which reading the payout data follows', () => {
  it('reads net ledger amounts from the java fixture’s numbers (78,700 at 5 % + 30 → 74,735)', () => {
    const r = detectReadings(
      input({
        ledgers: [
          ledger('L1', 74_735, { percentFee: 5, flatFee: 30, flatFeeCurrency: 'EUR', currency: 'EUR' }),
        ],
        ...eur([['L1', 78_700]]),
        setting: GROSS_BANK,
      }),
    )
    expect(r.ledgerAmounts).toEqual({
      reading: 'net',
      source: 'data',
      support: { net: 1, gross: 0 },
      checked: 1,
    })
  })

  it('reads the cached history records as they are (a HistoryRecord map is the records input)', () => {
    const charge = history(1, { amount: 10_000 })
    const r = detectReadings(
      input({
        ledgers: [ledger('L1', 9_640, { percentFee: 3.6 })],
        ledgerRecords: new Map([['L1', [charge.key]]]),
        records: new Map([[charge.key, charge]]),
      }),
    )
    expect(r.ledgerAmounts).toMatchObject({ reading: 'net', source: 'data', checked: 1 })
  })

  it('reads gross ledger amounts when they equal their records', () => {
    const { ledgerRecords, records } = linked([['L1', 10_000]])
    const r = detectReadings(
      input({ ledgers: [ledger('L1', 10_000, { percentFee: 3.6 })], ledgerRecords, records }),
    )
    expect(r.ledgerAmounts).toMatchObject({ reading: 'gross', source: 'data' })
  })

  it('falls back to the setting, and says so, when no ledger with fees is linked or the data disagrees', () => {
    const none = detectReadings(input({ ledgers: [ledger('L1', 10_000)], setting: GROSS_BANK }))
    expect(none.ledgerAmounts).toEqual({
      reading: 'gross',
      source: 'setting',
      support: { net: 0, gross: 0 },
      checked: 0,
    })
    const { ledgerRecords, records } = linked([
      ['L1', 10_000],
      ['L2', 10_000],
    ])
    const mixed = detectReadings(
      input({
        ledgers: [ledger('L1', 10_000, { percentFee: 3.6 }), ledger('L2', 9_640, { percentFee: 3.6 })],
        ledgerRecords,
        records,
      }),
    )
    expect(mixed.ledgerAmounts).toMatchObject({
      reading: 'net',
      source: 'setting',
      support: { net: 1, gross: 1 },
    })
  })

  it('finds the transfer fee inside a transfer as a manual ledger of −fee', () => {
    const r = detectReadings(
      input({
        ledgers: [ledger('F1', -440, { origin: 'manual', transferId: 'T1' })],
        transfers: [transfer('T1', { amount: 9_560 })],
        setting: GROSS_BANK,
      }),
    )
    expect(r.transferFee).toMatchObject({ reading: 'manual_ledger', source: 'data' })
    expect(r.readings).toEqual({ ledgerAmounts: 'gross', transferFee: 'manual_ledger' })
  })

  it('finds the fee deducted by the bank when the deposit is the transfer less the fee', () => {
    const r = detectReadings(
      input({
        transfers: [transfer('T1', { amount: 10_000 })],
        statusChanges: paidAt('T1', '2026-10-05 15:00'),
        bankLines: [bankLine(1, '2026-10-06', 9_560)],
      }),
    )
    expect(r.transferFee).toEqual({
      reading: 'bank_deducted',
      source: 'data',
      support: { manual_ledger: 0, bank_deducted: 1 },
      checked: 1,
    })
  })

  it('cannot tell the fee’s place without a fee ledger or a bank file', () => {
    const r = detectReadings(
      input({ transfers: [transfer('T1', { amount: 10_000, createdAt: tokyo('2026-10-01 09:00') })] }),
    )
    expect(r.transferFee).toMatchObject({ reading: 'manual_ledger', source: 'setting', checked: 0 })
  })
})

function eur(entries: [string, number][]) {
  const { ledgerRecords, records } = linked(entries)
  for (const [k, v] of records) records.set(k, { ...v, currency: 'EUR' })
  return { ledgerRecords, records }
}
