import { describe, expect, it } from 'vitest'
import { closeChecklist, type CloseFacts } from '../../../../src/reconcile/close-checklist'
import { octoberRollForward } from '../../../support/payouts'

const END = Date.parse('2026-10-31T15:00:00Z')

function facts(over: Partial<CloseFacts>): CloseFacts {
  return {
    periodEnd: END,
    lastSyncedAt: END + 1,
    unfinishedPartitions: 0,
    lastVerified: { available: true, value: END + 1 },
    quarantined: { available: true, value: [] },
    stillChanging: 0,
    changedSinceReconciled: 0,
    totals: [],
    exceptedWithNote: 0,
    differences: 0,
    otherStatus: 0,
    ...over,
  }
}

const october = (previousClosing: Record<string, number>) => octoberRollForward({ previousClosing })

const payoutItem = (f: CloseFacts) => closeChecklist(f).items.find((i) => i.id === 'payouts')

describe('the close checklist’s payout roll-forward line', () => {
  it('passes when the opening is carried, the control is 0 and the closing is explained', () => {
    expect(payoutItem(facts({ payouts: { available: true, value: october({ JPY: 10_000 }) } }))).toEqual({
      id: 'payouts',
      state: 'ok',
      count: 0,
      payouts: [],
    })
  })

  it('blocks the close when last month’s closing was not carried, naming the currency and the difference', () => {
    const list = closeChecklist(facts({ payouts: { available: true, value: october({ JPY: 9_000 }) } }))
    expect(list.blocking).toBe(1)
    expect(list.items.find((i) => i.id === 'payouts')).toMatchObject({
      state: 'blocked',
      payouts: [{ currency: 'JPY', openingDifference: 1_000, control: 0, unexplained: 0 }],
    })
  })

  it('says payouts could not be read rather than passing; no line when the caller knows nothing of payouts', () => {
    expect(payoutItem(facts({ payouts: { available: false } }))?.state).toBe('unavailable')
    expect(payoutItem(facts({}))).toBeUndefined()
  })
})
