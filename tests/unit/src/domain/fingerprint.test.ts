import { describe, expect, it } from 'vitest'
import type { MarkRecord } from '../../../../src/domain/records'
import { fingerprintOf, hasChangedSinceReconciled } from '../../../../src/domain/fingerprint'
import { CONN, history, historyItem } from '../reconcile/fixtures'

const r1 = {
  id: 'r-1',
  amount: 300,
  currency: 'JPY',
  amount_formatted: 300,
  status: 'successful',
  reason: 'x',
}
const r2 = { id: 'r-2', amount: 200, currency: 'JPY', amount_formatted: 200, status: 'pending', reason: 'y' }

function withRefunds(refunds: Record<string, unknown>[], over: Parameters<typeof history>[1] = {}) {
  return history(1, { user_data: { ...historyItem(1).user_data, refunds }, ...over })
}

function reconciledMark(fingerprint: string | null): MarkRecord {
  return {
    connectionId: CONN,
    key: history(1).key,
    state: 'reconciled',
    note: '',
    fingerprint,
    changedSinceReconciled: 0,
    period: '2026-10',
    updatedAt: 0,
    updatedBy: 'alice',
  }
}

describe('fingerprintOf', () => {
  it('is stable for the same data and ignores fields outside amount, currency, status, refunds', () => {
    const a = history(1)
    const b = history(1, { metadata: { order_id: 'other' }, merchant_name: 'Renamed' })
    expect(fingerprintOf(a)).toBe(fingerprintOf(b))
  })

  it('changes with amount, currency or status', () => {
    const base = fingerprintOf(history(1))
    expect(fingerprintOf(history(1, { amount: 1001 }))).not.toBe(base)
    expect(fingerprintOf(history(1, { currency: 'USD' }))).not.toBe(base)
    expect(fingerprintOf(history(1, { status: 'failed' }))).not.toBe(base)
  })

  it('does not depend on the order of refunds or on their other fields', () => {
    const a = withRefunds([r1, r2])
    const b = withRefunds([{ ...r2, reason: 'changed text' }, r1])
    expect(fingerprintOf(a)).toBe(fingerprintOf(b))
  })

  it('changes when a refund is added, or its amount or status changes', () => {
    const base = fingerprintOf(withRefunds([r1]))
    expect(fingerprintOf(withRefunds([r1, r2]))).not.toBe(base)
    expect(fingerprintOf(withRefunds([{ ...r1, amount: 301 }]))).not.toBe(base)
    expect(fingerprintOf(withRefunds([{ ...r1, status: 'failed' }]))).not.toBe(base)
    expect(fingerprintOf(withRefunds([]))).not.toBe(base)
  })

  it('copes with refunds of an unexpected shape', () => {
    expect(() => fingerprintOf(withRefunds([{}, { id: 7, amount: null }]))).not.toThrow()
  })

  it('keeps field boundaries: "1|2" style collisions are impossible', () => {
    const a = history(1, { status: 'a","b' })
    const b = history(1, { status: 'a' })
    expect(fingerprintOf(a)).not.toBe(fingerprintOf(b))
  })
})

describe('hasChangedSinceReconciled', () => {
  it('is false while the record matches the mark', () => {
    const record = withRefunds([r1])
    expect(hasChangedSinceReconciled(reconciledMark(fingerprintOf(record)), record)).toBe(false)
  })

  it('detects a refund arriving after the mark', () => {
    const marked = withRefunds([r1])
    const now = withRefunds([r1, r2])
    expect(hasChangedSinceReconciled(reconciledMark(fingerprintOf(marked)), now)).toBe(true)
  })

  it('is true for a reconciled mark without a fingerprint, false for unreconciled or absent marks', () => {
    const record = history(1)
    expect(hasChangedSinceReconciled(reconciledMark(null), record)).toBe(true)
    expect(hasChangedSinceReconciled({ ...reconciledMark('x'), state: 'unreconciled' }, record)).toBe(false)
    expect(hasChangedSinceReconciled(undefined, record)).toBe(false)
  })
})
