import { describe, expect, it } from 'vitest'
import { timeSpanOf } from '../../../../src/domain/time-span'

describe('timeSpanOf', () => {
  it('finds the earliest and latest time in any order', () => {
    const rows = [{ at: 30 }, { at: 10 }, { at: 50 }, { at: 20 }]
    expect(timeSpanOf(rows, (r) => r.at)).toEqual({ first: 10, last: 50 })
  })

  it('spans half a million rows (a large statement) without overflowing the call stack', () => {
    const rows = Array.from({ length: 500_000 }, (_, i) => ({ at: 1_000_000 - i }))
    expect(timeSpanOf(rows, (r) => r.at)).toEqual({ first: 500_001, last: 1_000_000 })
  })

  it('is empty (first after last) for no rows', () => {
    expect(timeSpanOf([], (r: { at: number }) => r.at)).toEqual({ first: Infinity, last: -Infinity })
  })
})
