import { describe, expect, it } from 'vitest'
import { businessDaysBetween } from '../../../../../src/reconcile/payouts/business-days'

describe('business days between two calendar days', () => {
  it('skips weekends and listed holidays, both ways', () => {
    // 2026-10-30 is a Friday.
    expect(businessDaysBetween('2026-10-30', '2026-10-30')).toBe(0)
    expect(businessDaysBetween('2026-10-30', '2026-11-02')).toBe(1)
    expect(businessDaysBetween('2026-10-31', '2026-11-02')).toBe(1)
    expect(businessDaysBetween('2026-11-02', '2026-10-30')).toBe(-1)
    expect(businessDaysBetween('2026-11-02', '2026-11-04', new Set(['2026-11-03']))).toBe(1)
  })

  it('refuses a day that is not one', () => {
    expect(() => businessDaysBetween('2026-02-30', '2026-03-01')).toThrow(
      'not a day (YYYY-MM-DD): 2026-02-30',
    )
  })
})
