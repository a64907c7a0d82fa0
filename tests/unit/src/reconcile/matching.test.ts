import { describe, expect, it } from 'vitest'
import type { ImportedRow } from '../../../../src/import/profiles'
import type { ChargeRecord, HistoryRecord, RecordKey } from '../../../../src/db/records'
import { proposeMatches, type MatchInput } from '../../../../src/reconcile/matching'
import { charge, history, refund, uuid } from './fixtures'

const TOKYO = 'Asia/Tokyo'

function row(line: number, over: Partial<ImportedRow> = {}): ImportedRow {
  return {
    line,
    source: 'orders',
    orderNumber: null,
    at: 0,
    day: '2026-10-15',
    amount: 1000,
    currency: 'JPY',
    customer: null,
    description: null,
    ...over,
  }
}

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
        confidence: 1,
        reason: 'order number SHOP-7 and amount 1000 JPY match the charge',
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
    expect(result.proposals[0]?.confidence).toBe(0.6)
    expect(result.proposals[0]?.reason).toContain('amount differs: 1100 JPY vs 1000 JPY')
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
    expect(result.ambiguous).toEqual([
      {
        rowLine: 2,
        candidates: [key(1), key(2)],
        rule: 'reference',
        reason: 'order number ORD-1 matches 2 charges',
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
    expect(result.proposals).toEqual([
      {
        rowLine: 2,
        keys: [key(1)],
        rule: 'amount_date',
        confidence: 0.9,
        reason: 'amount 1000 JPY, same day',
      },
    ])
  })

  it('lowers confidence with the distance in days', () => {
    const result = match({
      rows: [row(2, { day: '2026-10-12', amount: 1 }), row(3, { day: '2026-10-14', amount: 2 })],
      history: [bare(1, 1, '2026-10-15T03:00:00Z'), bare(2, 2, '2026-10-15T03:00:00Z')],
    })
    expect(result.proposals.map((p) => [p.rowLine, p.confidence, p.reason])).toEqual([
      [2, 0.4, 'amount 1 JPY, 3 days apart'],
      [3, 0.73, 'amount 2 JPY, 1 day apart'],
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
    expect(within.proposals.map((p) => [p.keys, p.reason])).toEqual([
      [[key(1)], 'amount 1000 JPY, 3 days apart'],
    ])
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
    expect(result.ambiguous).toEqual([
      {
        rowLine: 2,
        candidates: [key(2), key(1)],
        rule: 'amount_date',
        reason: '2 records of 1000 JPY within ±3 days',
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

describe('proposeMatches: (c) deposit = one day net', () => {
  // Oct 1 in Tokyo: three charges (fee 36 each) and one refund; one charge on Oct 2.
  const history1 = [
    bare(1, 1000, '2026-09-30T15:00:00Z'),
    bare(2, 2000, '2026-10-01T05:00:00Z'),
    bare(3, 3000, '2026-10-01T14:59:59Z'),
    refund(4, 1, { amount: 500, metadata: {}, created_on: '2026-10-01T06:00:00Z' }),
    bare(5, 7000, '2026-10-01T15:00:00Z'),
  ]
  const charges = [charge(1), charge(2), charge(3), charge(5, { fee_amount: 100 })]
  const net = 1000 + 2000 + 3000 - 500 - 3 * 36
  const bank = (line: number, amount: number, day = '2026-10-03'): ImportedRow =>
    row(line, { source: 'bank', amount, day, description: 'ﾌﾘｺﾐ' })

  it('matches a deposit to all records of the day it sums', () => {
    const result = match({ rows: [bank(2, net)], history: history1, charges })
    expect(result.proposals).toEqual([
      {
        rowLine: 2,
        keys: [key(1), key(2), key(3), refundKey(4)],
        rule: 'deposit_sum',
        confidence: 0.8,
        reason: 'deposit 5392 JPY = net of 2026-10-01: charges 6000 − refunds 500 − fees 108 = 5392 JPY',
      },
    ])
    expect(result.unmatchedRecords).toEqual([key(5)])
  })

  it('accepts a difference within amountTolerance, with lower confidence', () => {
    expect(match({ rows: [bank(2, net + 5)], history: history1, charges }).proposals).toEqual([])
    const result = match({ rows: [bank(2, net + 5)], history: history1, charges, amountTolerance: 10 })
    expect(result.proposals.map((p) => [p.rule, p.confidence])).toEqual([['deposit_sum', 0.65]])
  })

  it('looks back at most depositLagDays from the deposit day', () => {
    expect(match({ rows: [bank(2, net, '2026-10-05')], history: history1, charges }).proposals).toEqual([])
    const late = match({ rows: [bank(2, net, '2026-10-05')], history: history1, charges, depositLagDays: 4 })
    expect(late.proposals).toHaveLength(1)
    // A deposit cannot come before its charges.
    expect(match({ rows: [bank(2, net, '2026-09-30')], history: history1, charges }).proposals).toEqual([])
  })

  it('is ambiguous when several days have the same net', () => {
    const twoDays = [bare(1, 1000, '2026-10-01T00:00:00Z'), bare(2, 1000, '2026-10-02T00:00:00Z')]
    const result = match({ rows: [bank(2, 964)], history: twoDays, charges: [charge(1), charge(2)] })
    expect(result.proposals).toEqual([])
    expect(result.ambiguous.map((a) => [a.rowLine, a.rule, a.candidates])).toEqual([
      [2, 'deposit_sum', [key(1), key(2)]],
    ])
  })

  it('applies only to bank rows', () => {
    const result = match({ rows: [{ ...bank(2, net), source: 'orders' }], history: history1, charges })
    expect(result.proposals).toEqual([])
  })

  it('prefers a single matching charge (rule b) over the day sum', () => {
    const result = match({ rows: [bank(2, 7000)], history: history1, charges })
    expect(result.proposals.map((p) => [p.rule, p.keys])).toEqual([['amount_date', [key(5)]]])
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
