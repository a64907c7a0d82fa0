import { describe, expect, it } from 'vitest'
import {
  checkFormatted,
  currencyExponent,
  DEFAULT_EXPONENT,
  formatAmount,
  sumByCurrency,
  toMajorUnits,
} from '../../../../src/domain/currency'

describe('currencyExponent', () => {
  it('knows zero-, two- and three-decimal currencies, case-insensitively', () => {
    expect(currencyExponent('JPY')).toBe(0)
    expect(currencyExponent('krw')).toBe(0)
    expect(currencyExponent('USD')).toBe(2)
    expect(currencyExponent('TWD')).toBe(2)
    expect(currencyExponent('KWD')).toBe(3)
    expect(currencyExponent('BHD')).toBe(3)
  })

  it('falls back to 2 decimals for an unknown currency', () => {
    expect(DEFAULT_EXPONENT).toBe(2)
    expect(currencyExponent('XYZ')).toBe(2)
  })
})

describe('toMajorUnits', () => {
  it('divides by the exponent without float noise', () => {
    expect(toMajorUnits(1050, 'JPY')).toBe(1050)
    expect(toMajorUnits(1234, 'USD')).toBe(12.34)
    expect(toMajorUnits(30, 'EUR')).toBe(0.3)
    expect(toMajorUnits(-1234, 'KWD')).toBe(-1.234)
  })

  it('gives exactly what the decimal round trip gives, for any amount and exponent', () => {
    const reference = (minor: number, e: number) => Number((minor / 10 ** e).toFixed(e))
    const amounts = [
      0,
      -0,
      1,
      -1,
      5,
      15,
      105,
      1005,
      999_999_999,
      2 ** 50,
      -(2 ** 50),
      2 ** 50 + 1,
      2 ** 53 - 1,
    ]
    // A fixed pseudo-random walk over all magnitudes: no seed to drift, same cases every run.
    for (let i = 0, x = 12345; i < 20_000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31
      amounts.push((x % 2 ? -1 : 1) * Math.floor((x / 2 ** 31) * 10 ** (i % 16)))
    }
    for (const [currency, e] of [
      ['JPY', 0],
      ['USD', 2],
      ['KWD', 3],
      ['xyz', 2],
    ] as const)
      for (const minor of amounts)
        expect(Object.is(toMajorUnits(minor, currency), reference(minor, e)), `${minor} ${currency}`).toBe(
          true,
        )
  })

  it('rejects an amount that is not in minor units', () => {
    expect(() => toMajorUnits(12.5, 'USD')).toThrow(/integer in minor units/)
  })
})

describe('formatAmount', () => {
  it("uses the currency's decimals, never more or fewer", () => {
    expect(formatAmount(1050, 'JPY', 'en-US')).toBe('¥1,050')
    expect(formatAmount(1234, 'USD', 'en-US')).toBe('$12.34')
    expect(formatAmount(100, 'USD', 'en-US')).toBe('$1.00')
    expect(formatAmount(1234, 'KWD', 'en-US')).toMatch(/1\.234$/)
    expect(formatAmount(1050, 'jpy', 'ja-JP')).toMatch(/1,050$/)
  })
})

describe('checkFormatted', () => {
  it('accepts amount_formatted consistent with the exponent', () => {
    expect(checkFormatted(1050, 'JPY', 1050)).toBe(true)
    expect(checkFormatted(1234, 'USD', 12.34)).toBe(true)
    expect(checkFormatted(1234, 'KWD', 1.234)).toBe(true)
    expect(checkFormatted(0, 'USD', 0)).toBe(true)
  })

  it('rejects a value off by a digit or a wrong exponent', () => {
    expect(checkFormatted(1050, 'JPY', 10.5)).toBe(false)
    expect(checkFormatted(1234, 'USD', 1234)).toBe(false)
    expect(checkFormatted(1235, 'USD', 12.345)).toBe(false)
    expect(checkFormatted(1234, 'USD', Number.NaN)).toBe(false)
  })
})

describe('sumByCurrency', () => {
  it('sums integers per currency and never mixes currencies', () => {
    const sums = sumByCurrency([
      { amount: 1000, currency: 'JPY' },
      { amount: 1234, currency: 'USD' },
      { amount: 500, currency: 'jpy' },
      { amount: -34, currency: 'USD' },
    ])
    expect([...sums]).toEqual([
      ['JPY', 1500],
      ['USD', 1200],
    ])
  })

  it('throws a clear error on a non-integer amount', () => {
    expect(() => sumByCurrency([{ amount: 10.5, currency: 'USD' }])).toThrow(
      'amount (USD) must be an integer in minor units, got 10.5',
    )
  })

  it('throws when a sum leaves the safe integer range', () => {
    expect(() =>
      sumByCurrency([
        { amount: Number.MAX_SAFE_INTEGER, currency: 'JPY' },
        { amount: 1, currency: 'JPY' },
      ]),
    ).toThrow(/sum \(JPY\)/)
  })
})
