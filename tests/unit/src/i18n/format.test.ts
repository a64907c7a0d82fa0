import { describe, expect, it } from 'vitest'
import { formatCount, formatPeriod } from '../../../../src/i18n/format'
import { createAppI18n } from '../../../../src/i18n'

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

describe('formatCount', () => {
  it("formats a count as vue-i18n's n() does, in each display language", () => {
    for (const locale of ['en', 'ja'] as const) {
      const { n } = createAppI18n(locale).global
      for (const value of [0, 7, 1234, 20786, 1234567.5, -42])
        expect(formatCount(value, locale)).toBe(n(value))
    }
    expect(formatCount(20786, 'en')).toBe('20,786')
  })
})
