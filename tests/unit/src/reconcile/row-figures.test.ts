import { describe, expect, it } from 'vitest'
import { rowFigures } from '../../../../src/reconcile/row-figures'

describe('rowFigures', () => {
  it('nets a charge by its fee in the same currency', () => {
    expect(
      rowFigures(
        { type: 'charge', amount: 10_000, currency: 'JPY', status: 'successful' },
        { feeAmount: 360, feeCurrency: 'jpy' },
      ),
    ).toEqual({
      fee: 360,
      net: 9_640,
      foreignFeeCurrency: null,
      moneyMoved: true,
    })
  })

  it('nets a refund as minus its amount, with no fee', () => {
    expect(
      rowFigures(
        { type: 'refund', amount: 1_250, currency: 'USD', status: 'successful' },
        { feeAmount: 99, feeCurrency: 'USD' },
      ),
    ).toEqual({
      fee: null,
      net: -1_250,
      foreignFeeCurrency: null,
      moneyMoved: true,
    })
  })

  it('takes a charge with no charge-list record or no fee at its amount', () => {
    expect(
      rowFigures({ type: 'charge', amount: 500, currency: 'JPY', status: 'successful' }, undefined).net,
    ).toBe(500)
    expect(
      rowFigures(
        { type: 'charge', amount: 500, currency: 'JPY', status: 'successful' },
        { feeAmount: null, feeCurrency: null },
      ).net,
    ).toBe(500)
  })

  it('never converts a fee in another currency: the net is unknown and the fee currency is named', () => {
    expect(
      rowFigures(
        { type: 'charge', amount: 1_999, currency: 'USD', status: 'successful' },
        { feeAmount: 30, feeCurrency: 'JPY' },
      ),
    ).toEqual({
      fee: null,
      net: null,
      foreignFeeCurrency: 'JPY',
      moneyMoved: true,
    })
    expect(
      rowFigures(
        { type: 'charge', amount: 1_999, currency: 'USD', status: 'successful' },
        { feeAmount: 30, feeCurrency: null },
      ).foreignFeeCurrency,
    ).toBe('?')
  })

  it('refuses amounts that are not integer minor units', () => {
    expect(() =>
      rowFigures({ type: 'charge', amount: 10.5, currency: 'JPY', status: 'successful' }, undefined),
    ).toThrow(/row amount/)
    expect(() =>
      rowFigures(
        { type: 'charge', amount: 100, currency: 'JPY', status: 'successful' },
        { feeAmount: 1.5, feeCurrency: 'JPY' },
      ),
    ).toThrow(/fee/)
  })

  it('shows no fee and no net where no money moved (failed, canceled, pending, authorized)', () => {
    for (const status of ['failed', 'canceled', 'pending', 'authorized', 'awaiting']) {
      const charge = rowFigures(
        { type: 'charge', amount: 10_000, currency: 'JPY', status },
        { feeAmount: 360, feeCurrency: 'JPY' },
      )
      expect(charge, status).toEqual({ fee: null, net: null, foreignFeeCurrency: null, moneyMoved: false })
      expect(rowFigures({ type: 'refund', amount: 500, currency: 'JPY', status }, undefined).net).toBeNull()
    }
    // Status spelling from the API is not guaranteed: case and padding do not hide a successful charge.
    expect(
      rowFigures({ type: 'charge', amount: 100, currency: 'JPY', status: ' Successful' }, undefined).net,
    ).toBe(100)
  })
})
