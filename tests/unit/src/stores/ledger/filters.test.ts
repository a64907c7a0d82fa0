import { describe, expect, it } from 'vitest'
import {
  FOREVER,
  emptyFilters,
  historyFilterOf,
  isInitialConnectionChoice,
  periodLabelOf,
  rangeOf,
  type LedgerFilters,
} from '../../../../../src/stores/ledger/filters'

const TOKYO = 'Asia/Tokyo'
const with_ = (over: Partial<LedgerFilters>): LedgerFilters => ({ ...emptyFilters(), ...over })

describe('ledger filters: the instants a period covers', () => {
  it('takes a month and a day in the accounting time zone', () => {
    expect(rangeOf(with_({ period: '2026-10' }), TOKYO)).toEqual({
      from: Date.parse('2026-09-30T15:00:00Z'),
      to: Date.parse('2026-10-31T15:00:00Z'),
    })
    expect(rangeOf(with_({ periodKind: 'day', day: '2026-10-05' }), TOKYO)).toEqual({
      from: Date.parse('2026-10-04T15:00:00Z'),
      to: Date.parse('2026-10-05T15:00:00Z'),
    })
  })

  it('reads a range of whole days, with either end open, and never inverted', () => {
    const from = Date.parse('2026-10-01T00:00:00Z')
    const to = Date.parse('2026-10-11T00:00:00Z')
    expect(
      rangeOf(with_({ periodKind: 'range', rangeFrom: '2026-10-01', rangeTo: '2026-10-10' }), 'UTC'),
    ).toEqual({ from, to })
    expect(rangeOf(with_({ periodKind: 'range', rangeFrom: '2026-10-01' }), 'UTC')).toEqual({
      from,
      to: FOREVER,
    })
    expect(rangeOf(with_({ periodKind: 'range', rangeTo: '2026-10-10' }), 'UTC')).toEqual({ from: 0, to })
    // From after to: an empty range at `from`, not a range running backwards.
    expect(
      rangeOf(with_({ periodKind: 'range', rangeFrom: '2026-10-10', rangeTo: '2026-10-01' }), 'UTC'),
    ).toEqual({
      from: Date.parse('2026-10-10T00:00:00Z'),
      to: Date.parse('2026-10-10T00:00:00Z'),
    })
  })

  it('covers everything when the chosen kind has no value (a day kind ignores the month)', () => {
    expect(rangeOf(emptyFilters(), TOKYO)).toEqual({ from: 0, to: FOREVER })
    expect(rangeOf(with_({ periodKind: 'day', period: '2026-10' }), TOKYO)).toEqual({ from: 0, to: FOREVER })
  })
})

describe('ledger filters: the repository filter', () => {
  it('is null without a connection', () => {
    expect(historyFilterOf(null, with_({ period: '2026-10' }), 'UTC')).toBeNull()
  })

  it('carries only the filters set, and the search trimmed', () => {
    expect(historyFilterOf('c', emptyFilters(), 'UTC')).toEqual({ connectionId: 'c', from: 0, to: FOREVER })
    expect(historyFilterOf('c', with_({ search: '   ' }), 'UTC')).not.toHaveProperty('search')
    expect(
      historyFilterOf(
        'c',
        with_({
          storeId: 's',
          type: 'refund',
          status: 'successful',
          mode: 'live',
          currency: 'JPY',
          brand: 'visa',
          reconciled: 'changed',
          search: '  Tanaka ',
        }),
        'UTC',
      ),
    ).toEqual({
      connectionId: 'c',
      from: 0,
      to: FOREVER,
      storeId: 's',
      type: 'refund',
      status: 'successful',
      mode: 'live',
      currency: 'JPY',
      brand: 'visa',
      reconciled: 'changed',
      search: 'Tanaka',
    })
  })
})

describe('ledger filters: the period in a file name', () => {
  it('names a month, a day, a range with open ends, or all', () => {
    expect(periodLabelOf(with_({ period: '2026-09' }))).toBe('2026-09')
    expect(periodLabelOf(with_({ periodKind: 'day', day: '2026-09-15' }))).toBe('2026-09-15')
    expect(
      periodLabelOf(with_({ periodKind: 'range', rangeFrom: '2026-09-01', rangeTo: '2026-09-15' })),
    ).toBe('2026-09-01_2026-09-15')
    expect(periodLabelOf(with_({ periodKind: 'range', rangeTo: '2026-09-15' }))).toBe('start_2026-09-15')
    expect(periodLabelOf(with_({ periodKind: 'range', rangeFrom: '2026-09-01' }))).toBe('2026-09-01_now')
    expect(periodLabelOf(with_({ periodKind: 'day', period: '2026-09' }))).toBe('all')
  })
})

describe("ledger view: a refresh for init's own choice of connection is not repeated", () => {
  const at = (connectionId: string | null, over: Partial<LedgerFilters> = {}, order = 'desc') =>
    [connectionId, order, 'date', with_(over)] as const

  it('skips only none → a connection with everything else as it was', () => {
    expect(isInitialConnectionChoice(at('c1'), at(null))).toBe(true)
    // A filter, the order or a switch between connections changed too: the view refreshes.
    expect(isInitialConnectionChoice(at('c1', { period: '2026-09' }), at(null))).toBe(false)
    expect(isInitialConnectionChoice(at('c1', {}, 'asc'), at(null))).toBe(false)
    expect(isInitialConnectionChoice(at('c2'), at('c1'))).toBe(false)
    expect(isInitialConnectionChoice(at('c1', { period: '2026-09' }), at('c1'))).toBe(false)
    // No connection left (the last one removed): nothing to skip.
    expect(isInitialConnectionChoice(at(null), at('c1'))).toBe(false)
  })
})
