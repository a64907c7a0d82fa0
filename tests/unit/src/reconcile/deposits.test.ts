import { describe, expect, it } from 'vitest'
import type { ChargeRecord, HistoryRecord, RecordKey } from '../../../../src/domain/records'
import { depositFigures, transferFeeWithTax } from '../../../../src/reconcile/deposits'
import { describeMatchRef, rowIdOf, type LinkedRow } from '../../../../src/reconcile/match-links'
import { charge, history, refund, uuid } from './fixtures'

const FEE = transferFeeWithTax(400, 10)

function maps(records: HistoryRecord[], charges: ChargeRecord[]) {
  return {
    records: new Map<RecordKey, HistoryRecord>(records.map((r) => [r.key, r])),
    charges: new Map(charges.map((c) => [c.id, c])),
  }
}

describe('a deposit against the records it pays', () => {
  // Two charges of 1,000 JPY with a fee of 36 each, one refund of 1,000 of another charge.
  const c1 = history(1)
  const c2 = history(2)
  const r3 = refund(3, 9, { amount: 300 })
  const fees = [
    charge(1, { fee_amount: 36, fee_currency: 'JPY' }),
    charge(2, { fee_amount: 36, fee_currency: 'JPY' }),
  ]
  const { records, charges } = maps([c1, c2, r3], fees)
  const keys = [c1.key, c2.key, r3.key]
  const net = 2000 - 300 - 72

  it('explains a difference equal to the transfer fee (¥400 + 10 % tax = ¥440)', () => {
    expect(FEE).toBe(440)
    const f = depositFigures({ amount: net - 440, currency: 'JPY', keys }, records, charges, FEE)
    expect(f).toMatchObject({ charged: 2000, refunded: 300, fees: 72, net, difference: -440 })
    expect(f.explanation).toEqual({ code: 'transfer_fee', fee: 440 })
    expect(f.counted).toEqual(keys)
  })

  it('says exact, unexplained, or unmatched', () => {
    expect(depositFigures({ amount: net, currency: 'JPY', keys }, records, charges, FEE).explanation).toEqual(
      {
        code: 'exact',
      },
    )
    expect(
      depositFigures({ amount: net - 100, currency: 'JPY', keys }, records, charges, FEE).explanation,
    ).toEqual({ code: 'unexplained', difference: -100 })
    expect(
      depositFigures({ amount: 5000, currency: 'JPY', keys: [] }, records, charges, FEE).explanation,
    ).toEqual({
      code: 'unmatched',
    })
  })

  it('never adds another currency, nor a record the cache no longer holds', () => {
    const usd = history(4, { currency: 'USD', amount: 500 })
    const m = maps([c1, usd], fees)
    const gone = `charge:${uuid(77)}` as RecordKey
    const f = depositFigures(
      { amount: 964, currency: 'JPY', keys: [c1.key, usd.key, gone] },
      m.records,
      m.charges,
      FEE,
    )
    expect(f.counted).toEqual([c1.key])
    expect(f.notCounted).toEqual([usd.key, gone])
    expect(f.net).toBe(964)
    expect(f.explanation).toEqual({ code: 'exact' })
  })
})

describe('describing a mark’s links from their rows', () => {
  const row = (over: Partial<LinkedRow>): LinkedRow => ({
    importId: 'o-1',
    line: 2,
    source: 'orders',
    fileName: 'orders.csv',
    orderNumber: 'ORD-12',
    at: Date.parse('2026-10-15T03:00:00Z'),
    amount: 1000,
    currency: 'JPY',
    matchedKeys: [],
    ...over,
  })
  const rows = new Map(
    [
      row({}),
      row({
        importId: 'b-1',
        line: 7,
        source: 'bank',
        fileName: 'bank.csv',
        orderNumber: null,
        amount: 1188,
      }),
    ].map((r) => [rowIdOf(r), r]),
  )

  it('sales first, then cash, with a removed file’s link still named by its line', () => {
    expect(describeMatchRef('bank:b-1:7 orders:o-1:2', rows)).toEqual([
      { side: 'sales', line: 2, fileName: 'orders.csv', orderNumber: 'ORD-12' },
      {
        side: 'cash',
        line: 7,
        fileName: 'bank.csv',
        at: rows.get(rowIdOf({ importId: 'b-1', line: 7 }))?.at,
        amount: 1188,
        currency: 'JPY',
      },
    ])
    expect(describeMatchRef('orders:gone:4 bank:7', rows)).toEqual([
      { side: 'sales', line: 4, gone: true },
      { side: null, raw: 'bank:7' },
    ])
  })
})
