import { describe, expect, it } from 'vitest'
import type { MarkRecord, RecordKey } from '../../../../src/domain/records'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { summarizeMonth, type MonthSummaryRow } from '../../../../src/reconcile/month-summary'
import { CONN, STORE_1, STORE_2, charge, history, marksOf, refund } from './fixtures'

function reconciled(key: RecordKey, fingerprint: string): MarkRecord {
  return {
    connectionId: CONN,
    key,
    state: 'reconciled',
    note: '',
    fingerprint,
    changedSinceReconciled: 0,
    period: '2026-11',
    updatedAt: 0,
    updatedBy: 'alice',
  }
}

// Month ends in Asia/Tokyo: 2026-10-31T15:00Z opens November, 2026-11-30T15:00Z opens December.
const c1 = history(1, { amount: 10_000, created_on: '2026-10-31T16:30:00Z' }) // Tokyo Nov 1
const c2 = history(2, { amount: 5000, created_on: '2026-11-30T14:59:59Z' }) // Tokyo Nov 30, last second
const c3 = history(3, { amount: 7000, created_on: '2026-11-30T15:00:00Z' }) // Tokyo December
const c4 = history(4, { amount: 3000, created_on: '2026-10-31T14:59:00Z' }) // Tokyo October
const r1 = refund(11, 1, { amount: 2000, created_on: '2026-11-02T00:00:00Z' })
const r2 = refund(12, 1, { amount: 1000, status: 'pending', created_on: '2026-11-03T00:00:00Z' })
const c5 = history(5, { amount: 1999, currency: 'USD', created_on: '2026-11-10T00:00:00Z' })
const c6 = history(6, { amount: 4000, mode: 'test', created_on: '2026-11-10T00:00:00Z' })
const c7 = history(7, {
  amount: 1500,
  status: 'failed',
  store_id: STORE_2,
  created_on: '2026-11-10T00:00:00Z',
})
const allHistory = [c1, c2, c3, c4, r1, r2, c5, c6, c7]

const allCharges = [
  charge(1, { charged_amount: 10_000, fee_amount: 360, created_on: '2026-10-31T16:30:00Z' }),
  charge(2, { charged_amount: 5000, fee_amount: 180, status: 'failed', created_on: '2026-11-30T14:59:59Z' }),
  charge(4, { charged_amount: 3000, fee_amount: 108, created_on: '2026-10-31T14:59:00Z' }),
  charge(5, {
    charged_amount: 1999,
    charged_currency: 'USD',
    fee_amount: 60,
    fee_currency: 'USD',
    created_on: '2026-11-10T00:00:00Z',
  }),
  // A JPY charge whose fee is in USD: the fee belongs to the USD row, never converted.
  charge(8, { fee_amount: 10, fee_currency: 'USD', created_on: '2026-11-11T00:00:00Z' }),
]

// c1 was reconciled before its amount changed; r1 is reconciled on current data.
const marks = marksOf(
  reconciled(c1.key, fingerprintOf(history(1, { amount: 9000 }))),
  reconciled(r1.key, fingerprintOf(r1)),
)

function row(
  rows: MonthSummaryRow[],
  storeId: string,
  currency: string,
  mode = 'live',
): MonthSummaryRow | undefined {
  return rows.find((r) => r.storeId === storeId && r.currency === currency && r.mode === mode)
}

describe('summarizeMonth in Asia/Tokyo', () => {
  const s = summarizeMonth({
    history: allHistory,
    charges: allCharges,
    marks,
    timeZone: 'Asia/Tokyo',
    period: '2026-11',
  })

  it('has one row per store × currency × mode, sorted', () => {
    expect(s.rows.map((r) => [r.storeId, r.currency, r.mode])).toEqual([
      [STORE_1, 'JPY', 'live'],
      [STORE_1, 'JPY', 'test'],
      [STORE_1, 'USD', 'live'],
      [STORE_2, 'JPY', 'live'],
    ])
  })

  it('counts only the period’s records and only successful ones in sums', () => {
    expect(row(s.rows, STORE_1, 'JPY')).toEqual({
      storeId: STORE_1,
      currency: 'JPY',
      mode: 'live',
      chargeCount: 2,
      chargeSum: 15_000,
      refundCount: 1,
      refundSum: 2000,
      feeSum: 360,
      feeUnknownCurrencyCount: 0,
      net: 12_640,
      reconciledCount: 2,
      reconciledSum: 8000,
      unreconciledCount: 1,
      unreconciledSum: 5000,
      changedSinceReconciledCount: 1,
      otherStatusCount: 1,
    })
    expect(row(s.rows, STORE_2, 'JPY')).toMatchObject({ chargeCount: 0, chargeSum: 0, otherStatusCount: 1 })
    expect(row(s.rows, STORE_1, 'JPY', 'test')).toMatchObject({ chargeCount: 1, chargeSum: 4000, net: 4000 })
  })

  it('keeps currencies apart, fees included', () => {
    expect(row(s.rows, STORE_1, 'USD')).toMatchObject({ chargeSum: 1999, feeSum: 70, net: 1929 })
  })

  it('gives a zero-filled daily series per currency × mode', () => {
    expect(s.daily).toHaveLength(30 * 3)
    const jpy = s.daily.filter((p) => p.currency === 'JPY' && p.mode === 'live')
    expect(jpy.map((p) => p.day)[0]).toBe('2026-11-01')
    expect(jpy.find((p) => p.day === '2026-11-01')).toMatchObject({ gross: 10_000, refunds: 0 })
    expect(jpy.find((p) => p.day === '2026-11-02')).toMatchObject({ gross: 0, refunds: 2000 })
    expect(jpy.find((p) => p.day === '2026-11-30')).toMatchObject({ gross: 5000, refunds: 0 })
    expect(jpy.reduce((t, p) => t + p.gross, 0)).toBe(15_000)
  })

  it("puts each day's fees in the daily series: the days add up to the rows' fees per currency × mode", () => {
    for (const mode of ['live', 'test'] as const)
      for (const currency of ['JPY', 'USD']) {
        const days = s.daily.filter((p) => p.currency === currency && p.mode === mode)
        const rows = s.rows.filter((r) => r.currency === currency && r.mode === mode)
        const fees = days.reduce((t, p) => t + p.fees, 0)
        expect(fees, `${currency} ${mode}`).toBe(rows.reduce((t, r) => t + r.feeSum, 0))
        const net = days.reduce((t, p) => t + p.gross - p.refunds - p.fees, 0)
        expect(net, `${currency} ${mode}`).toBe(rows.reduce((t, r) => t + r.net, 0))
      }
    expect(s.daily.some((p) => p.fees > 0)).toBe(true)
  })
})

describe('summarizeMonth in UTC', () => {
  it('moves the month-end charges to the other month', () => {
    const s = summarizeMonth({
      history: allHistory,
      charges: allCharges,
      marks,
      timeZone: 'UTC',
      period: '2026-10',
    })
    expect(s.rows).toHaveLength(1)
    expect(s.rows[0]).toMatchObject({
      currency: 'JPY',
      chargeCount: 2,
      chargeSum: 13_000,
      feeSum: 468,
      net: 12_532,
    })
    expect(s.daily.find((p) => p.day === '2026-10-31')?.gross).toBe(13_000)
  })
})

describe('summarizeMonth across DST (America/New_York)', () => {
  it('uses local days, 25 hours long on 2026-11-01', () => {
    const tz = 'America/New_York'
    const history_ = [
      history(1, { amount: 100, created_on: '2026-11-01T04:30:00Z' }), // Nov 1 00:30 EDT
      history(2, { amount: 200, created_on: '2026-11-02T04:30:00Z' }), // Nov 1 23:30 EST
      history(3, { amount: 400, created_on: '2026-12-01T04:30:00Z' }), // Nov 30 23:30 EST
      history(4, { amount: 800, created_on: '2026-11-01T03:30:00Z' }), // Oct 31 23:30 EDT
    ]
    const s = summarizeMonth({
      history: history_,
      charges: [],
      marks: new Map(),
      timeZone: tz,
      period: '2026-11',
    })
    expect(s.rows[0]).toMatchObject({ chargeCount: 3, chargeSum: 700, unreconciledSum: 700 })
    expect(s.daily.find((p) => p.day === '2026-11-01')?.gross).toBe(300)
    expect(s.daily.find((p) => p.day === '2026-11-30')?.gross).toBe(400)
  })
})

describe('summarizeMonth edge cases', () => {
  it('places a fee without currency nowhere but counts it', () => {
    const s = summarizeMonth({
      history: [],
      charges: [charge(1, { fee_amount: 36, fee_currency: null })],
      marks: new Map(),
      timeZone: 'UTC',
      period: '2026-10',
    })
    expect(s.rows[0]).toMatchObject({ feeSum: 0, feeUnknownCurrencyCount: 1, net: 0 })
  })

  it('rejects a malformed period', () => {
    expect(() =>
      summarizeMonth({ history: [], charges: [], marks: new Map(), timeZone: 'UTC', period: '2026-13' }),
    ).toThrow(RangeError)
  })
})
