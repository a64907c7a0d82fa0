import { describe, expect, it } from 'vitest'
import type { ImportedRow } from '../../../../src/import/profiles'
import type { ChargeRecord, HistoryRecord, RecordKey } from '../../../../src/domain/records'
import {
  DEFAULT_THRESHOLD,
  normalizeRef,
  proposeMatches,
  rejectionKey,
  type MatchInput,
} from '../../../../src/reconcile/matching'
import { STORE_2, charge, history, orderRow, refund, uuid } from './fixtures'

const TOKYO = 'Asia/Tokyo'

const row = orderRow

/** A charge record with no order number in metadata (so only amount and date can match it). */
function bare(n: number, amount: number, createdOn: string): HistoryRecord {
  return history(n, { amount, amount_formatted: amount, metadata: {}, created_on: createdOn })
}

const key = (n: number): RecordKey => `charge:${uuid(n)}`
const refundKey = (n: number): RecordKey => `refund:${uuid(n)}`

function match(over: Partial<MatchInput>) {
  return proposeMatches({ rows: [], history: [], charges: [], timeZone: TOKYO, ...over })
}

describe('proposeMatches: (a) exact reference', () => {
  it('matches an order number to merchant_transaction_id with confidence 1', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'SHOP-7' })],
      history: [history(1, { metadata: {} })],
      charges: [charge(1, { merchant_transaction_id: 'SHOP-7' })],
    })
    expect(result.proposals).toEqual([
      {
        rowLine: 2,
        keys: [key(1)],
        rule: 'reference',
        side: 'sales',
        confidence: 1,
        reason: 'order number SHOP-7 and amount 1000 JPY (minor units) match the charge',
        explanation: {
          code: 'reference_exact',
          params: { ref: 'SHOP-7', amount: 1000, currency: 'JPY' },
        },
      },
    ])
    expect(result.unmatchedRows).toEqual([])
    expect(result.unmatchedRecords).toEqual([])
  })

  it('matches an order number found in metadata (orderRef)', () => {
    const result = match({ rows: [row(2, { orderNumber: ' ORD-1 ' })], history: [history(1)] })
    expect(result.proposals.map((p) => [p.rowLine, p.keys, p.rule, p.confidence])).toEqual([
      [2, [key(1)], 'reference', 1],
    ])
  })

  it('matches a refund row (negative) to the refund of the same amount', () => {
    const result = match({
      rows: [row(3, { orderNumber: 'ORD-1', amount: -300 }), row(2, { orderNumber: 'ORD-1' })],
      history: [history(1), refund(2, 1, { amount: 200 }), refund(3, 1, { amount: 300 })],
    })
    expect(result.proposals.map((p) => [p.rowLine, p.keys, p.confidence])).toEqual([
      [2, [key(1)], 1],
      [3, [refundKey(3)], 1],
    ])
    expect(result.unmatchedRecords).toEqual([refundKey(2)])
  })

  it('proposes a reference whose amount differs with lower confidence and says so', () => {
    const result = match({ rows: [row(2, { orderNumber: 'ORD-1', amount: 1100 })], history: [history(1)] })
    expect(result.proposals).toHaveLength(1)
    expect(result.proposals[0]?.confidence).toBe(0.5)
    expect(result.proposals[0]?.explanation).toEqual({
      code: 'reference_amount_differs',
      params: { ref: 'ORD-1', amount: 1100, currency: 'JPY', recordAmount: 1000, difference: 100 },
    })
  })

  it('lists a duplicated order row as ambiguous instead of matching either copy', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'ORD-1' }), row(3, { orderNumber: 'ORD-1' })],
      history: [history(1)],
    })
    expect(result.proposals).toEqual([])
    expect(result.ambiguous.map((a) => [a.rowLine, a.candidates])).toEqual([
      [2, [key(1)]],
      [3, [key(1)]],
    ])
    // The record is not handed to a weaker rule either.
    expect(result.unmatchedRecords).toEqual([key(1)])
  })

  it('gives the record to the exact duplicate when the other copy has a different amount', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'ORD-1', amount: 900 }), row(3, { orderNumber: 'ORD-1' })],
      history: [history(1), bare(2, 900, '2026-10-15T03:00:00Z')],
    })
    expect(result.proposals.map((p) => [p.rowLine, p.keys])).toEqual([[3, [key(1)]]])
    // Row 2 lost its referenced record: it is not re-matched by amount to charge 2.
    expect(result.unmatchedRows).toEqual([2])
  })

  it('is ambiguous when two successful charges carry the order number', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'ORD-1' })],
      history: [history(1), history(2, { metadata: { order_id: 'ORD-1' } })],
    })
    expect(result.ambiguous).toMatchObject([
      {
        rowLine: 2,
        candidates: [key(1), key(2)],
        rule: 'reference',
        reason: 'order number ORD-1 matches 2 charges',
        explanation: { code: 'reference_several', params: { count: 2 } },
      },
    ])
  })

  it('ignores charges and refunds that are not successful', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'ORD-1' }), row(3, { orderNumber: 'ORD-3', amount: -100 })],
      history: [
        history(1, { status: 'failed' }),
        history(3),
        refund(4, 3, { amount: 100, status: 'pending', metadata: {} }),
      ],
    })
    expect(result.proposals).toEqual([])
    expect(result.unmatchedRows).toEqual([2, 3])
    expect(result.unmatchedRecords).toEqual([key(3)])
  })
})

describe('proposeMatches: (b) amount + currency + date', () => {
  it('matches by amount on the same day with the highest rule-b confidence', () => {
    const result = match({
      rows: [row(2, { day: '2026-10-15' })],
      history: [bare(1, 1000, '2026-10-15T03:00:00Z')],
    })
    expect(result.proposals).toMatchObject([
      {
        rowLine: 2,
        keys: [key(1)],
        rule: 'amount_date',
        side: 'sales',
        // Amount and day alone never reach the default "accept all" threshold (0.9).
        confidence: 0.7,
        explanation: { code: 'amount_date', params: { amount: 1000, currency: 'JPY', distance: 0 } },
      },
    ])
  })

  it('lowers confidence with the distance in days', () => {
    const result = match({
      rows: [row(2, { day: '2026-10-12', amount: 1 }), row(3, { day: '2026-10-14', amount: 2 })],
      history: [bare(1, 1, '2026-10-15T03:00:00Z'), bare(2, 2, '2026-10-15T03:00:00Z')],
    })
    expect(result.proposals.map((p) => [p.rowLine, p.confidence, p.explanation.params['distance']])).toEqual([
      [2, 0.4, 3],
      [3, 0.6, 1],
    ])
  })

  it('requires the same currency', () => {
    const result = match({
      rows: [row(2, { currency: 'USD' })],
      history: [bare(1, 1000, '2026-10-15T03:00:00Z')],
    })
    expect(result.proposals).toEqual([])
  })

  it('counts days in the accounting zone across a month end (Asia/Tokyo)', () => {
    // 2026-10-31T16:00Z is 01:00 on Nov 1 in Tokyo (still Oct 31 in UTC).
    const record = bare(1, 1000, '2026-10-31T16:00:00Z')
    const within = match({ rows: [row(2, { day: '2026-11-04' })], history: [record], dateToleranceDays: 3 })
    expect(within.proposals.map((p) => [p.keys, p.explanation.params['distance']])).toEqual([[[key(1)], 3]])
    const outside = match({ rows: [row(2, { day: '2026-10-28' })], history: [record], dateToleranceDays: 3 })
    expect(outside.proposals).toEqual([])
    // The same data read in UTC gives the opposite answers: the zone matters.
    expect(
      match({ rows: [row(2, { day: '2026-11-04' })], history: [record], timeZone: 'UTC' }).proposals,
    ).toEqual([])
    expect(
      match({ rows: [row(2, { day: '2026-10-28' })], history: [record], timeZone: 'UTC' }).proposals,
    ).toHaveLength(1)
  })

  it('honours a configured tolerance, 0 meaning the same day', () => {
    const records = [bare(1, 1000, '2026-10-16T03:00:00Z')]
    expect(match({ rows: [row(2)], history: records, dateToleranceDays: 0 }).proposals).toEqual([])
    expect(match({ rows: [row(2)], history: records, dateToleranceDays: 1 }).proposals).toHaveLength(1)
  })

  it('never guesses between several records of the amount', () => {
    const result = match({
      rows: [row(2)],
      history: [bare(1, 1000, '2026-10-17T03:00:00Z'), bare(2, 1000, '2026-10-15T03:00:00Z')],
    })
    expect(result.proposals).toEqual([])
    // Closest first.
    expect(result.ambiguous).toMatchObject([
      {
        rowLine: 2,
        candidates: [key(2), key(1)],
        rule: 'amount_date',
        explanation: { code: 'amount_date_several', params: { count: 2, days: 3 } },
      },
    ])
    expect(result.unmatchedRecords).toEqual([key(1), key(2)])
  })

  it('gives a record wanted by two rows to the closer one; equal distance is ambiguous', () => {
    const record = bare(1, 1000, '2026-10-15T03:00:00Z')
    const closer = match({
      rows: [row(2, { day: '2026-10-17' }), row(3, { day: '2026-10-16' })],
      history: [record],
    })
    expect(closer.proposals.map((p) => [p.rowLine, p.keys])).toEqual([[3, [key(1)]]])
    expect(closer.unmatchedRows).toEqual([2])
    const tie = match({
      rows: [row(2, { day: '2026-10-14' }), row(3, { day: '2026-10-16' })],
      history: [record],
    })
    expect(tie.proposals).toEqual([])
    expect(tie.ambiguous.map((a) => [a.rowLine, a.candidates])).toEqual([
      [2, [key(1)]],
      [3, [key(1)]],
    ])
  })

  it('matches a refund row to a refund by amount', () => {
    const result = match({
      rows: [row(2, { amount: -400 })],
      history: [bare(1, 400, '2026-10-15T03:00:00Z'), refund(2, 9, { amount: 400, metadata: {} })],
    })
    expect(result.proposals.map((p) => p.keys)).toEqual([[refundKey(2)]])
  })

  it('does not reuse a record already matched by reference', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'ORD-1' }), row(3)],
      history: [history(1)],
    })
    expect(result.proposals.map((p) => [p.rowLine, p.rule])).toEqual([[2, 'reference']])
    expect(result.unmatchedRows).toEqual([3])
  })
})

describe('proposeMatches: evidence never contradicted', () => {
  it('never matches an order whose number the service does not know to a charge that has another number', () => {
    // ORD-1's charge has the same amount and day as the konbini order X-9: amount and day alone are not enough.
    const result = match({ rows: [row(2, { orderNumber: 'X-9' })], history: [history(1)] })
    expect(result.proposals).toEqual([])
    expect(result.unmatchedReasons.get(2)?.code).toBe('no_candidate')
  })

  it('rules out a charge of another payment method (konbini, COD, bank transfer vs card)', () => {
    for (const method of ['コンビニ決済', 'Cash on Delivery (COD)', '銀行振込']) {
      const result = match({
        rows: [row(2, { paymentMethod: method })],
        history: [bare(1, 1000, '2026-10-15T03:00:00Z')],
      })
      expect(result.proposals, method).toEqual([])
      expect(result.unmatchedReasons.get(2)?.code, method).toBe('method_excluded')
    }
    const card = match({
      rows: [row(2, { paymentMethod: 'クレジットカード決済' })],
      history: [bare(1, 1000, '2026-10-15T03:00:00Z')],
    })
    expect(card.proposals.map((p) => p.keys)).toEqual([[key(1)]])
  })

  it('matches a konbini order to a konbini payment by its order number', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'ORD-1', paymentMethod: 'コンビニ決済' })],
      history: [history(1, { payment_type: 'konbini' })],
    })
    expect(result.proposals.map((p) => [p.keys, p.confidence])).toEqual([[[key(1)], 1]])
  })

  it('ignores test-mode records', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'ORD-1' }), row(3)],
      history: [history(1, { mode: 'test' }), bare(2, 1000, '2026-10-15T03:00:00Z')],
    })
    expect(result.proposals.map((p) => [p.rowLine, p.keys])).toEqual([[3, [key(2)]]])
    expect(result.proposals[0]?.confidence).toBeLessThan(DEFAULT_THRESHOLD)
  })

  it('normalises order numbers: "#", width, case, dash-like marks, leading zeros', () => {
    const variants = ['#ORD-1', 'ord-1', 'ＯＲＤ－１', 'ORDー1', 'ORD\u20101', 'ORD\u22121']
    for (const v of variants) expect(normalizeRef(v), v).toBe('ORD-1')
    expect(normalizeRef('0004918')).toBe(normalizeRef('4918'))
    const result = match({
      rows: [row(2, { orderNumber: '#0004918' })],
      history: [history(1, { metadata: { order_id: '4918' } })],
    })
    expect(result.proposals.map((p) => [p.keys, p.confidence])).toEqual([[[key(1)], 1]])
  })

  it('adds the refunds an order names (Shopify Refunded Amount) to its charge', () => {
    const records = [
      history(1),
      refund(2, 1, { amount: 300, metadata: {} }),
      refund(3, 1, { amount: 200, metadata: {} }),
    ]
    const full = match({ rows: [row(2, { orderNumber: 'ORD-1', refunded: 500 })], history: records })
    expect(full.proposals.map((p) => [p.keys, p.explanation.code])).toEqual([
      [[key(1), refundKey(2), refundKey(3)], 'reference_refunds'],
    ])
    const partial = match({ rows: [row(2, { orderNumber: 'ORD-1', refunded: 400 })], history: records })
    expect(partial.proposals.map((p) => [p.keys, p.explanation.code])).toEqual([
      [[key(1)], 'reference_refund_missing'],
    ])
  })

  it('never proposes a rejected pair again', () => {
    const rejected = new Set([rejectionKey(2, [key(1)])])
    const result = match({ rows: [row(2, { orderNumber: 'ORD-1' })], history: [history(1)], rejected })
    expect(result.proposals).toEqual([])
    expect(result.unmatchedReasons.get(2)?.code).toBe('reference_unavailable')
  })

  it('does not offer bank rows to the sales side: a withdrawal never matches a refund', () => {
    const result = match({
      rows: [row(2, { source: 'bank', amount: -4100 })],
      history: [history(1), refund(2, 1, { amount: 4100, metadata: {} })],
    })
    expect(result.proposals).toEqual([])
    expect(result.unmatchedReasons.get(2)?.code).toBe('withdrawal')
  })
})

describe('proposeMatches: deposits are payouts', () => {
  // Store 1: Oct 1 (Tokyo) three charges (fee 36 each) and a refund; Oct 2 one charge (fee 100).
  const records = [
    bare(1, 10000, '2026-09-30T15:00:00Z'),
    bare(2, 20000, '2026-10-01T05:00:00Z'),
    bare(3, 30000, '2026-10-01T14:59:59Z'),
    refund(4, 1, { amount: 5000, metadata: {}, created_on: '2026-10-01T06:00:00Z' }),
    bare(5, 70000, '2026-10-01T15:00:00Z'),
  ]
  const charges = [charge(1), charge(2), charge(3), charge(5, { fee_amount: 100 })]
  const FEE = 440 // ¥400 + 10 % tax
  const oct1 = 60000 - 5000 - 3 * 36
  const bank = (line: number, amount: number, day = '2026-10-05'): ImportedRow =>
    row(line, { source: 'bank', amount, day, description: 'ﾕﾆｳﾞｧﾍﾟｲ' })

  it('matches a deposit net of fees and of the transfer fee to the days it pays, and explains it', () => {
    const result = match({ rows: [bank(2, oct1 + 70000 - 100 - FEE)], history: records, charges })
    expect(result.proposals).toMatchObject([
      {
        rowLine: 2,
        keys: [key(1), key(2), key(3), refundKey(4), key(5)],
        rule: 'payout',
        side: 'cash',
        explanation: {
          code: 'payout',
          params: {
            from: '2026-10-01',
            to: '2026-10-02',
            charged: 130000,
            refundsTotal: 5000,
            fees: 208,
            transferFee: FEE,
            difference: 0,
          },
        },
      },
    ])
  })

  it('matches one day when the deposit is that day net', () => {
    const result = match({ rows: [bank(2, oct1 - FEE)], history: records, charges })
    expect(result.proposals.map((p) => p.keys)).toEqual([[key(1), key(2), key(3), refundKey(4)]])
  })

  it('without the transfer fee deducted, proposes nothing and names the nearest payout and its difference', () => {
    const result = match({ rows: [bank(2, oct1)], history: records, charges })
    expect(result.proposals).toEqual([])
    expect(result.ambiguous).toMatchObject([
      { rowLine: 2, explanation: { code: 'payout_nearest', params: { difference: FEE } } },
    ])
    // The nearest payout is offered whole, with its difference: one click matches all its records.
    expect(result.ambiguous[0]?.options?.[0]).toMatchObject({
      from: '2026-10-01',
      to: '2026-10-01',
      keys: [key(1), key(2), key(3), refundKey(4)],
      difference: FEE,
    })
  })

  it('accepts a difference within the tolerance, below the default threshold', () => {
    const result = match({
      rows: [bank(2, oct1 - FEE + 5)],
      history: records,
      charges,
      payout: { amountTolerance: 10 },
    })
    expect(
      result.proposals.map((p) => [
        p.rule,
        p.confidence < DEFAULT_THRESHOLD,
        p.explanation.params['difference'],
      ]),
    ).toEqual([['payout', true, 5]])
  })

  it('pays per store: a store payout does not include the other store', () => {
    const other = bare(9, 50000, '2026-10-01T05:00:00Z')
    const withStore2 = [...records, { ...other, storeId: STORE_2 }]
    const result = match({ rows: [bank(2, oct1 - FEE)], history: withStore2, charges })
    expect(result.proposals.map((p) => p.keys)).toEqual([[key(1), key(2), key(3), refundKey(4)]])
    const merged = match({
      rows: [bank(2, oct1 + 50000 - FEE)],
      history: withStore2,
      charges,
      payout: { perStore: false },
    })
    expect(merged.proposals[0]?.keys).toContain(key(9))
  })

  it('follows a twice-monthly schedule, carrying a period under the minimum over', () => {
    // 1–15 Oct: ¥5,000 (under the ¥10,000 minimum, carried over); 16–31 Oct: ¥40,000. Paid 2026-11-10.
    const periodic = [bare(1, 5000, '2026-10-10T03:00:00Z'), bare(2, 40000, '2026-10-20T03:00:00Z')]
    const model = { cutoffDays: [15, 31], maxLagDays: 15 }
    const result = match({
      rows: [bank(2, 45000 - 72 - FEE, '2026-11-10')],
      history: periodic,
      charges: [charge(1), charge(2)],
      payout: model,
    })
    expect(result.proposals.map((p) => [p.keys, p.confidence, p.explanation.params['from']])).toEqual([
      [[key(1), key(2)], 0.95, '2026-10-01'],
    ])
  })

  it('matches a deposit paid five days after the period', () => {
    const result = match({ rows: [bank(2, oct1 - FEE, '2026-10-07')], history: records, charges })
    expect(result.proposals).toHaveLength(1)
    // A deposit cannot come before its charges.
    expect(match({ rows: [bank(2, oct1 - FEE, '2026-10-01')], history: records, charges }).proposals).toEqual(
      [],
    )
  })

  it('ignores test-mode records in a payout', () => {
    const result = match({
      rows: [bank(2, oct1 - FEE)],
      history: [...records, { ...bare(8, 999, '2026-10-01T05:00:00Z'), mode: 'test' as const }],
      charges,
    })
    expect(result.proposals).toHaveLength(1)
  })

  it('is ambiguous when two payouts fit', () => {
    const twoDays = [bare(1, 20000, '2026-10-01T00:00:00Z'), bare(2, 20000, '2026-10-02T00:00:00Z')]
    const result = match({
      rows: [bank(2, 20000 - 36 - FEE)],
      history: twoDays,
      charges: [charge(1), charge(2)],
    })
    expect(result.proposals).toEqual([])
    expect(result.ambiguous.map((a) => [a.rowLine, a.rule, a.explanation.code])).toEqual([
      [2, 'payout', 'payout_several'],
    ])
    // Each fitting payout is an option of its own, never their union.
    expect(result.ambiguous[0]?.options?.map((o) => o.keys).sort()).toEqual([[key(1)], [key(2)]])
  })

  it('keeps sales and cash links apart: an order-matched charge still pays out', () => {
    const salesTaken = new Set<RecordKey>([key(1), key(2), key(3)])
    const result = match({ rows: [bank(2, oct1 - FEE)], history: records, charges, salesTaken })
    expect(result.proposals).toHaveLength(1)
    const cashTaken = new Set<RecordKey>([key(1), key(2), key(3), refundKey(4), key(5)])
    const orders = match({
      rows: [row(3, { orderNumber: 'ORD-1', amount: 10000 })],
      history: [history(1, { amount: 10000 })],
      cashTaken,
    })
    expect(orders.proposals.map((p) => [p.side, p.keys])).toEqual([['sales', [key(1)]]])
  })
})

describe('proposeMatches at scale', () => {
  it('matches 50k rows against 50k records correctly', () => {
    const N = 50_000
    const base = history(0, { metadata: {} })
    const baseCharge = charge(0)
    const start = Date.UTC(2026, 8, 30, 15)
    const history50k: HistoryRecord[] = []
    const charges50k: ChargeRecord[] = []
    const rows: ImportedRow[] = []
    for (let i = 0; i < N; i++) {
      const id = `ch-${i}`
      const createdAt = start + (i % 31) * 86_400_000 + (i % 1440) * 60_000
      // References on 40k records; unique amounts on the next 5k so rule b finds exactly one each.
      const amount = i < 40_000 ? 1000 + (i % 500) : 1_000_000 + i
      history50k.push({
        ...base,
        key: `charge:${id}`,
        resourceId: id,
        chargeId: id,
        createdAt,
        amount,
        orderRef: i < 20_000 ? `ORD-${i}` : null,
      })
      charges50k.push({ ...baseCharge, id, merchantTransactionId: i < 40_000 ? `ORD-${i}` : null, createdAt })
      const day = new Date(createdAt + 9 * 3_600_000).toISOString().slice(0, 10)
      if (i < 40_000) rows.push(row(i + 2, { orderNumber: `ORD-${i}`, amount, day }))
      else if (i < 45_000) rows.push(row(i + 2, { amount, day }))
      else rows.push(row(i + 2, { orderNumber: `MISSING-${i}`, amount: 5_000_000 + i, day }))
    }
    const result = proposeMatches({ rows, history: history50k, charges: charges50k, timeZone: TOKYO })
    const byRule = new Map<string, number>()
    for (const p of result.proposals) byRule.set(p.rule, (byRule.get(p.rule) ?? 0) + 1)
    expect(byRule.get('reference')).toBe(40_000)
    expect(byRule.get('amount_date')).toBe(5_000)
    expect(result.proposals.every((p) => p.rule !== 'reference' || p.confidence === 1)).toBe(true)
    expect(result.proposals.every((p) => p.keys[0] === `charge:ch-${p.rowLine - 2}`)).toBe(true)
    expect(result.ambiguous).toEqual([])
    expect(result.unmatchedRows).toHaveLength(5_000)
    expect(result.unmatchedRecords).toHaveLength(5_000)
  })
})
