import { describe, expect, it } from 'vitest'
import type { HistoryRecord, RecordKey } from '../../../../src/domain/records'
import { isSortColumn, sortRows, type SortContext } from '../../../../src/stores/ledger-sort'

function row(over: Omit<Partial<HistoryRecord>, 'key'> & { key: string }): HistoryRecord {
  return {
    connectionId: 'c',
    resourceId: over.key,
    type: 'charge',
    chargeId: over.key,
    storeId: 's1',
    createdAt: 0,
    amount: 100,
    currency: 'JPY',
    status: 'successful',
    mode: 'live',
    brand: 'visa',
    cardholderName: '',
    cardholderEmail: '',
    orderRef: null,
    raw: {} as HistoryRecord['raw'],
    syncedAt: 0,
    ...over,
    key: over.key as RecordKey,
  }
}

const ctx = (fees: SortContext['fees'] = new Map()): SortContext => ({
  fees,
  storeName: (id) => ({ s1: 'Shibuya', s2: 'Akihabara' })[id] ?? id,
  locale: 'en',
})

const keys = (rows: HistoryRecord[]): string[] => rows.map((r) => r.key)

describe('sortRows', () => {
  const rows = [
    row({ key: 'a', amount: 300, createdAt: 3, storeId: 's1', cardholderName: 'Yamada' }),
    row({ key: 'b', amount: 100, createdAt: 1, storeId: 's2', type: 'refund', cardholderName: '' }),
    row({ key: 'c', amount: 200, createdAt: 2, storeId: 's1', cardholderName: 'abe' }),
    row({ key: 'd', amount: 300, createdAt: 4, storeId: 's2', cardholderName: 'Ito' }),
  ]

  it('sorts amounts signed (a refund is negative), ties in date order of the same direction', () => {
    expect(keys(sortRows(rows, 'amount', 'asc', ctx()))).toEqual(['b', 'c', 'a', 'd'])
    expect(keys(sortRows(rows, 'amount', 'desc', ctx()))).toEqual(['d', 'a', 'c', 'b'])
  })

  it('sorts stores by their name, text case-insensitively, empty values last either way', () => {
    expect(keys(sortRows(rows, 'store', 'asc', ctx()))).toEqual(['b', 'd', 'c', 'a'])
    expect(keys(sortRows(rows, 'holder', 'asc', ctx()))).toEqual(['c', 'd', 'a', 'b'])
    expect(keys(sortRows(rows, 'holder', 'desc', ctx()))).toEqual(['a', 'd', 'c', 'b'])
  })

  it('sorts by fee and net from the charge list, rows without a fee last', () => {
    const fees = new Map([
      ['a', { feeAmount: 30, feeCurrency: 'JPY' }],
      ['c', { feeAmount: 10, feeCurrency: 'JPY' }],
    ])
    expect(keys(sortRows(rows, 'fee', 'desc', ctx(fees)))).toEqual(['a', 'c', 'd', 'b'])
    // net: a 270, b −100, c 190, d 300
    expect(keys(sortRows(rows, 'net', 'asc', ctx(fees)))).toEqual(['b', 'c', 'a', 'd'])
  })

  it('compares money within its currency: currencies group first, in the same order either way', () => {
    const mixed = [
      row({ key: 'usd-big', amount: 17_492, currency: 'USD', createdAt: 1 }),
      row({ key: 'jpy-small', amount: 300, currency: 'JPY', createdAt: 2 }),
      row({ key: 'jpy-big', amount: 8_300, currency: 'JPY', createdAt: 3 }),
      row({ key: 'usd-small', amount: 500, currency: 'USD', createdAt: 4 }),
    ]
    expect(keys(sortRows(mixed, 'amount', 'asc', ctx()))).toEqual([
      'jpy-small',
      'jpy-big',
      'usd-small',
      'usd-big',
    ])
    expect(keys(sortRows(mixed, 'amount', 'desc', ctx()))).toEqual([
      'jpy-big',
      'jpy-small',
      'usd-big',
      'usd-small',
    ])
  })

  it('leaves the input untouched and is total on equal values', () => {
    const same = [
      row({ key: 'y', createdAt: 5 }),
      row({ key: 'x', createdAt: 5 }),
      row({ key: 'z', createdAt: 1 }),
    ]
    expect(keys(sortRows(same, 'status', 'asc', ctx()))).toEqual(['z', 'x', 'y'])
    expect(keys(same)).toEqual(['y', 'x', 'z'])
  })
})

describe('isSortColumn', () => {
  it('names the sortable columns and no other', () => {
    expect(['date', 'amount', 'holder', 'net'].every(isSortColumn)).toBe(true)
    expect(['rec', 'note', 'select', ''].some(isSortColumn)).toBe(false)
  })
})
