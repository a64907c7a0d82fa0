import { describe, expect, it } from 'vitest'
import { crossCheck, isSuccessful, netOf } from '../../../../src/reconcile/cross-check'
import { charge, history, refund } from './fixtures'

describe('crossCheck', () => {
  it('finds nothing when both views agree, ignoring refund records', () => {
    expect(crossCheck([history(1), refund(50, 1, { amount: 100 })], [charge(1)])).toEqual([])
  })

  it('reports charges missing on either side', () => {
    const diffs = crossCheck([history(1), history(2)], [charge(2), charge(3)])
    expect(diffs.map((d) => [d.kind, d.chargeId])).toEqual([
      ['missing_in_charges', history(1).resourceId],
      ['missing_in_history', charge(3).id],
    ])
    expect(diffs[0]?.history?.key).toBe(history(1).key)
    expect(diffs[1]?.charge?.id).toBe(charge(3).id)
  })

  it('reports amount and status differences with both records', () => {
    const diffs = crossCheck([history(1, { amount: 999, status: 'pending' })], [charge(1)])
    expect(diffs.map((d) => d.kind)).toEqual(['amount', 'status'])
    expect(diffs[0]?.history?.amount).toBe(999)
    expect(diffs[0]?.charge?.chargedAmount).toBe(1000)
  })

  it('reports a currency difference instead of comparing amounts across currencies', () => {
    const diffs = crossCheck([history(1, { currency: 'USD', amount: 999 })], [charge(1)])
    expect(diffs.map((d) => d.kind)).toEqual(['currency'])
  })

  it('pairs each history charge with its own entry among many, the last copy of an id', () => {
    // Charge 3 is listed twice: an older copy with another amount, then the current one.
    const list = [1, 2, 3, 3, 4, 5, 6].map((n, i) => charge(n, i === 2 ? { charged_amount: 1 } : {}))
    const diffs = crossCheck([history(5), history(3), history(2), history(7), history(1)], list)
    expect(diffs.map((d) => [d.kind, d.chargeId])).toEqual([
      ['missing_in_history', charge(4).id],
      ['missing_in_history', charge(6).id],
      ['missing_in_charges', history(7).resourceId],
    ])
  })

  it('compares currency and status case-insensitively', () => {
    expect(crossCheck([history(1, { currency: 'jpy', status: 'Successful' })], [charge(1)])).toEqual([])
  })
})

describe('netOf', () => {
  const ok = (amount: number, currency = 'JPY', status = 'successful') => ({ amount, currency, status })

  it('is charged − fee − successful refunds in the charged currency', () => {
    const n = netOf(charge(1, { charged_amount: 10_000, fee_amount: 360 }), [
      ok(1000),
      ok(500, 'JPY', 'failed'),
      ok(2000, 'JPY', 'pending'),
      ok(250),
    ])
    expect(n).toEqual({ currency: 'JPY', charged: 10_000, fee: 360, refunded: 1250, net: 8390, separate: [] })
  })

  it('works in minor units for a two-decimal currency', () => {
    const c = charge(1, {
      charged_amount: 1999,
      charged_currency: 'USD',
      fee_amount: 88,
      fee_currency: 'USD',
    })
    expect(netOf(c, [ok(1, 'USD')]).net).toBe(1910)
  })

  it('reports a fee in another currency separately instead of subtracting it', () => {
    const c = charge(1, {
      charged_amount: 1999,
      charged_currency: 'USD',
      fee_amount: 300,
      fee_currency: 'JPY',
    })
    const n = netOf(c, [ok(999, 'EUR')])
    expect(n.fee).toBe(0)
    expect(n.refunded).toBe(0)
    expect(n.net).toBe(1999)
    expect(n.separate).toEqual([
      { kind: 'fee', amount: 300, currency: 'JPY' },
      { kind: 'refund', amount: 999, currency: 'EUR' },
    ])
  })

  it('treats a missing fee as zero and a fee without currency as separate', () => {
    expect(netOf(charge(1, { fee_amount: null, fee_currency: null }), []).net).toBe(1000)
    const n = netOf(charge(1, { fee_amount: 36, fee_currency: null }), [])
    expect(n.net).toBe(1000)
    expect(n.separate).toEqual([{ kind: 'fee', amount: 36, currency: null }])
  })

  it('rejects non-integer amounts', () => {
    expect(() => netOf(charge(1), [ok(0.5)])).toThrow(/integer in minor units/)
  })

  it('counts only the successful status', () => {
    expect(isSuccessful('successful')).toBe(true)
    expect(isSuccessful(' SUCCESSFUL ')).toBe(true)
    expect(isSuccessful('pending')).toBe(false)
  })
})
