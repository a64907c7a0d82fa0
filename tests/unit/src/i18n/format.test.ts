import { describe, expect, it } from 'vitest'
import { formatPeriod } from '../../../../src/i18n/format'

describe('formatPeriod', () => {
  it('words an accounting month in the display language, whatever the browser', () => {
    expect(formatPeriod('2026-10', 'ja')).toBe('2026年10月')
    expect(formatPeriod('2026-10', 'en')).toBe('October 2026')
    // A month is a calendar label: no time zone can move January into December.
    expect(formatPeriod('2026-01', 'en')).toBe('January 2026')
  })

  it('shows anything that is not a month as it is', () => {
    expect(formatPeriod('2026-13', 'en')).toBe('2026-13')
    expect(formatPeriod('all', 'ja')).toBe('all')
  })
})
