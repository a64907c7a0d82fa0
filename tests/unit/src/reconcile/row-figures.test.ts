import { describe, expect, it } from 'vitest'
import { rowFigures } from '../../../../src/reconcile/row-figures'

describe('rowFigures', () => {
  it('nets a charge by its fee in the same currency', () => {
    expect(
      rowFigures({ type: 'charge', amount: 10_000, currency: 'JPY' }, { feeAmount: 360, feeCurrency: 'jpy' }),
    ).toEqual({
      fee: 360,
      net: 9_640,
      foreignFeeCurrency: null,
    })
  })

  it('nets a refund as minus its amount, with no fee', () => {
    expect(
      rowFigures({ type: 'refund', amount: 1_250, currency: 'USD' }, { feeAmount: 99, feeCurrency: 'USD' }),
    ).toEqual({
      fee: null,
      net: -1_250,
      foreignFeeCurrency: null,
    })
  })

  it('takes a charge with no charge-list record or no fee at its amount', () => {
    expect(rowFigures({ type: 'charge', amount: 500, currency: 'JPY' }, undefined).net).toBe(500)
    expect(
      rowFigures({ type: 'charge', amount: 500, currency: 'JPY' }, { feeAmount: null, feeCurrency: null })
        .net,
    ).toBe(500)
  })

  it('never converts a fee in another currency: the net is unknown and the fee currency is named', () => {
    expect(
      rowFigures({ type: 'charge', amount: 1_999, currency: 'USD' }, { feeAmount: 30, feeCurrency: 'JPY' }),
    ).toEqual({
      fee: null,
      net: null,
      foreignFeeCurrency: 'JPY',
    })
    expect(
      rowFigures({ type: 'charge', amount: 1_999, currency: 'USD' }, { feeAmount: 30, feeCurrency: null })
        .foreignFeeCurrency,
    ).toBe('?')
  })

  it('refuses amounts that are not integer minor units', () => {
    expect(() => rowFigures({ type: 'charge', amount: 10.5, currency: 'JPY' }, undefined)).toThrow(
      /row amount/,
    )
    expect(() =>
      rowFigures({ type: 'charge', amount: 100, currency: 'JPY' }, { feeAmount: 1.5, feeCurrency: 'JPY' }),
    ).toThrow(/fee/)
  })
})
