import { describe, expect, it } from 'vitest'
import {
  UNAVAILABLE_CLOSE_FACTS,
  canStillChange,
  changesSinceClose,
  closeChecklist,
  shortHash,
  type CloseFacts,
} from '../../../../src/reconcile/close-checklist'
import { totalsByCurrency, type MonthSummaryRow } from '../../../../src/reconcile/month-summary'
import type { RecordKey } from '../../../../src/domain/records'

const END = Date.parse('2026-10-31T15:00:00Z') // November 1st in Tokyo

function row(storeId: string, currency: string, mode: 'live' | 'test', over: Partial<MonthSummaryRow> = {}) {
  return {
    storeId,
    currency,
    mode,
    chargeCount: 2,
    chargeSum: 1000,
    refundCount: 1,
    refundSum: 100,
    feeSum: 30,
    feeUnknownCurrencyCount: 0,
    net: 870,
    reconciledCount: 3,
    reconciledSum: 900,
    unreconciledCount: 0,
    unreconciledSum: 0,
    changedSinceReconciledCount: 0,
    otherStatusCount: 0,
    ...over,
  }
}

function facts(over: Partial<CloseFacts> = {}): CloseFacts {
  return {
    periodEnd: END,
    lastSyncedAt: END + 3_600_000,
    unfinishedPartitions: 0,
    lastVerified: { available: true, value: END + 7_200_000 },
    quarantined: { available: true, value: [] },
    stillChanging: 0,
    changedSinceReconciled: 0,
    totals: totalsByCurrency([row('s1', 'JPY', 'live')]),
    exceptedWithNote: 0,
    differences: 0,
    otherStatus: 0,
    ...over,
  }
}

const stateOf = (f: CloseFacts, id: string) => closeChecklist(f).items.find((i) => i.id === id)?.state

describe('totalsByCurrency', () => {
  it('adds stores up per currency × mode, never one currency into another, live first', () => {
    const totals = totalsByCurrency([
      row('s1', 'USD', 'live', { chargeSum: 1999 }),
      row('s1', 'JPY', 'test'),
      row('s2', 'JPY', 'live', { chargeSum: 500 }),
      row('s1', 'JPY', 'live', { chargeSum: 700 }),
    ])
    expect(totals.map((t) => `${t.currency} ${t.mode}`)).toEqual(['JPY live', 'USD live', 'JPY test'])
    expect(totals[0]?.chargeSum).toBe(1200)
    expect(totals[1]?.chargeSum).toBe(1999)
    expect(totals[0]).not.toHaveProperty('storeId')
  })
})

describe('closeChecklist', () => {
  it('passes a synced, verified, clean, fully reconciled month', () => {
    const list = closeChecklist(facts())
    expect(list.blocking).toBe(0)
    expect(list.items.map((i) => i.state)).toEqual(Array(7).fill('ok'))
  })

  it('shows facts this version cannot check as not available, never as passed', async () => {
    const f = facts({
      lastVerified: await UNAVAILABLE_CLOSE_FACTS.lastVerified('c', '2026-10'),
      quarantined: await UNAVAILABLE_CLOSE_FACTS.quarantined('c', '2026-10'),
    })
    expect(stateOf(f, 'verified')).toBe('unavailable')
    expect(stateOf(f, 'quarantine')).toBe('unavailable')
    expect(closeChecklist(f).blocking).toBe(0)
  })

  it('blocks on a sync older than the month end, an unfinished sync, a stale verify, quarantine', () => {
    expect(stateOf(facts({ lastSyncedAt: END - 1 }), 'synced')).toBe('blocked')
    expect(stateOf(facts({ lastSyncedAt: null }), 'synced')).toBe('blocked')
    expect(stateOf(facts({ unfinishedPartitions: 2 }), 'synced')).toBe('blocked')
    expect(stateOf(facts({ lastVerified: { available: true, value: END - 1 } }), 'verified')).toBe('blocked')
    expect(stateOf(facts({ lastVerified: { available: true, value: null } }), 'verified')).toBe('blocked')
    const q = { resource: 'charges' as const, itemId: null, reason: 'bad', seenAt: END }
    expect(stateOf(facts({ quarantined: { available: true, value: [q] } }), 'quarantine')).toBe('blocked')
    expect(stateOf(facts({ changedSinceReconciled: 1 }), 'changed')).toBe('blocked')
  })

  it('blocks on unreconciled records unless a note excepts them, and lists them per currency', () => {
    const totals = totalsByCurrency([
      row('s1', 'JPY', 'live', { unreconciledCount: 2, unreconciledSum: 1500 }),
      row('s1', 'USD', 'live', { unreconciledCount: 1, unreconciledSum: -250 }),
    ])
    const item = closeChecklist(facts({ totals })).items.find((i) => i.id === 'unreconciled')
    expect(item?.state).toBe('blocked')
    expect(item?.count).toBe(3)
    expect(item?.perCurrency).toEqual([
      { currency: 'JPY', mode: 'live', count: 2, amount: 1500 },
      { currency: 'USD', mode: 'live', count: 1, amount: -250 },
    ])
    expect(stateOf(facts({ totals, exceptedWithNote: 3 }), 'unreconciled')).toBe('ok')
  })

  it('warns (without blocking) on records that can still change and on exceptions', () => {
    const list = closeChecklist(facts({ stillChanging: 4, differences: 1, otherStatus: 2 }))
    expect(list.items.find((i) => i.id === 'stillChanging')).toMatchObject({ state: 'warning', count: 4 })
    expect(list.items.find((i) => i.id === 'exceptions')).toMatchObject({ state: 'warning', count: 3 })
    expect(list.blocking).toBe(0)
  })

  it('knows which statuses can still change', () => {
    for (const s of ['pending', 'awaiting', 'authorized', 'something-new'])
      expect(canStillChange(s), s).toBe(true)
    for (const s of ['successful', 'failed', 'error', 'canceled', ' Successful '])
      expect(canStillChange(s), s).toBe(false)
  })
})

describe('changesSinceClose', () => {
  it('names records added, changed and gone since the close', () => {
    const snapshot = { 'charge:a': shortHash('1'), 'charge:b': shortHash('2'), 'refund:c': shortHash('3') }
    const now = new Map<RecordKey, string>([
      ['charge:a', shortHash('1')],
      ['charge:b', shortHash('2b')],
      ['charge:d', shortHash('4')],
    ])
    expect(changesSinceClose(snapshot, now)).toEqual({
      added: ['charge:d'],
      changed: ['charge:b'],
      removed: ['refund:c'],
    })
    expect(shortHash('x')).toMatch(/^[0-9a-f]{8}$/)
    expect(shortHash('x')).not.toBe(shortHash('y'))
  })
})
