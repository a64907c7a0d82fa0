import { describe, expect, it } from 'vitest'
import { payoutCloseIn } from '../../../../src/sync/team-sync'

describe("a pulled sign-off's payout closing", () => {
  const close = { closing: { JPY: 12_050, USD: -125 }, paidDifferences: { tr_1: 0, tr_2: 300 } }

  it('is read from the audit payload, with the transfers read in full when there are any', () => {
    expect(payoutCloseIn(JSON.stringify({ state: 'signed_off', payoutClose: close }))).toEqual(close)
    const repaid = { ...close, readInFull: ['tr_3'] }
    expect(payoutCloseIn(JSON.stringify({ payoutClose: repaid }))).toEqual(repaid)
  })

  it('is absent from an older sign-off, and never kept when it is not integers of the expected shape', () => {
    expect(payoutCloseIn(JSON.stringify({ state: 'signed_off', note: '', version: 2 }))).toBeUndefined()
    expect(payoutCloseIn('not json')).toBeUndefined()
    expect(payoutCloseIn('null')).toBeUndefined()
    for (const bad of [
      { closing: { JPY: 10.5 }, paidDifferences: {} },
      { closing: { JPY: 2 ** 60 }, paidDifferences: {} },
      { closing: { JPY: '100' }, paidDifferences: {} },
      { closing: { JPY: 1 } },
      { closing: { JPY: 1 }, paidDifferences: {}, extra: true },
      { closing: { JPY: 1 }, paidDifferences: {}, readInFull: [7] },
    ])
      expect(payoutCloseIn(JSON.stringify({ payoutClose: bad })), JSON.stringify(bad)).toBeUndefined()
  })
})
