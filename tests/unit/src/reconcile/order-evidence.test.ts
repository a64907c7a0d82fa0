import { describe, expect, it } from 'vitest'
import type { RecordKey } from '../../../../src/domain/records'
import { DEFAULT_THRESHOLD, proposeMatches, type MatchInput } from '../../../../src/reconcile/matching'
import { RefIndex, decoratedRef } from '../../../../src/reconcile/order-refs'
import { methodAllows, paymentMethodOf } from '../../../../src/reconcile/payment-methods'
import { charge, history, orderRow, refund, uuid } from './fixtures'

const TOKYO = 'Asia/Tokyo'

const row = orderRow

const key = (n: number): RecordKey => `charge:${uuid(n)}`

function match(over: Partial<MatchInput>) {
  return proposeMatches({ rows: [], history: [], charges: [], timeZone: TOKYO, ...over })
}

/** Proposals "Accept all" would take: [line, keys, tie rule]. */
function accepted(result: ReturnType<typeof match>): [number, RecordKey[], unknown][] {
  return result.proposals
    .filter((p) => p.confidence >= DEFAULT_THRESHOLD)
    .map((p) => [p.rowLine, p.keys, p.explanation.params['tie'] ?? 'exact'])
}

/** Charges whose merchant_transaction_id an integration decorated: ORD-0004961 for order 4961. */
function decoratedCharges(...numbers: number[]) {
  return {
    history: numbers.map((n, i) => history(i + 1, { metadata: {} })),
    charges: numbers.map((n, i) =>
      charge(i + 1, { merchant_transaction_id: `ORD-${String(n).padStart(7, '0')}` }),
    ),
  }
}

describe('order numbers as shop systems write them', () => {
  it('ties a plain number to a known prefix decoration, names the rule, and never another number', () => {
    const result = match({
      rows: [
        row(2, { orderNumber: '4961' }),
        row(3, { orderNumber: '4962' }),
        row(4, { orderNumber: '4963' }),
      ],
      ...decoratedCharges(4961, 4962, 4964),
    })
    expect(accepted(result)).toEqual([
      [2, [key(1)], 'decoration'],
      [3, [key(2)], 'decoration'],
    ])
    expect(result.proposals[0]?.explanation.params['decoration']).toBe('ORD-…')
    // 4963 is not 4964: one digit apart is another order.
    expect(result.unmatchedRows).toContain(4)
  })

  it('ties a Shopify "#1234" name and zero padding under their own rules', () => {
    const result = match({
      rows: [row(2, { orderNumber: '#1234' }), row(3, { orderNumber: '0004918' })],
      history: [history(1, { metadata: {} }), history(2, { metadata: {} })],
      charges: [
        charge(1, { merchant_transaction_id: '1234' }),
        charge(2, { merchant_transaction_id: '4918' }),
      ],
    })
    expect(accepted(result)).toEqual([
      [2, [key(1)], 'shopify_name'],
      [3, [key(2)], 'zero_padding'],
    ])
  })

  it('does not learn a decoration that occurs once', () => {
    const refs = new RefIndex()
    refs.add('OTHER-12', 'a')
    expect(refs.lookup('12')).toBeNull()
    refs.add('OTHER-13', 'b')
    expect(refs.lookup('12')).toMatchObject({ chargeIds: ['a'], rule: 'decoration' })
  })

  it('never ties a decorated number to another decoration or to digits that differ', () => {
    expect(decoratedRef('ORD-0004961')).toEqual({ decoration: 'ORD-…', number: '4961' })
    expect(decoratedRef('4961-JP')).toEqual({ decoration: '…-JP', number: '4961' })
    expect(decoratedRef('A1B2C3')).toBeNull()
    const refs = new RefIndex()
    refs.add('ORD-1', 'a')
    refs.add('ORD-2', 'b')
    expect(refs.lookup('INV-1', new Map([['INV-…', 5]]))).toBeNull()
    expect(refs.lookup('10')).toBeNull()
    expect(refs.lookup('01')).toMatchObject({ chargeIds: ['a'] })
    // The same decoration padded otherwise is the same number; another number is not.
    expect(refs.lookup('ORD-0001')).toMatchObject({ chargeIds: ['a'], rule: 'zero_padding' })
    expect(refs.lookup('ORD-0011')).toBeNull()
  })

  it('leaves a plain number that two decorated references share ambiguous', () => {
    const result = match({
      rows: [row(2, { orderNumber: '7' })],
      history: [1, 2, 3, 4].map((n) => history(n, { metadata: {} })),
      charges: [
        charge(1, { merchant_transaction_id: 'ORD-7' }),
        charge(2, { merchant_transaction_id: 'WEB-7' }),
        charge(3, { merchant_transaction_id: 'WEB-8' }),
        charge(4, { merchant_transaction_id: 'ORD-9' }),
      ],
    })
    expect(accepted(result)).toEqual([])
    expect(result.ambiguous.map((a) => a.rowLine)).toEqual([2])
  })
})

describe('order numbers under any metadata key that names an order', () => {
  it('ties a Shopify name an integration kept under its own key', () => {
    const result = match({
      rows: [row(2, { orderNumber: '#1234' }), row(3, { orderNumber: '77' })],
      history: [
        history(1, { metadata: { shopify_order_name: '#1234', customer: 'x' } }),
        history(2, { metadata: { 注文番号: 77 } }),
      ],
    })
    expect(accepted(result)).toEqual([
      [2, [key(1)], 'exact'],
      [3, [key(2)], 'exact'],
    ])
  })
})

describe("an order's other numbers (shop id, payment reference)", () => {
  it('ties by the shop id or the payment reference an integration sent, as given, and says so', () => {
    const result = match({
      rows: [
        row(2, { orderNumber: '#1001', otherRefs: [{ via: 'orderId', ref: '450789469' }] }),
        row(3, {
          orderNumber: '#1002',
          otherRefs: [
            { via: 'orderId', ref: '450789470' },
            { via: 'paymentReference', ref: 'c21433374261.1' },
          ],
        }),
        // A payment reference alone is still named as one.
        row(5, { orderNumber: '#1004', otherRefs: [{ via: 'paymentReference', ref: 'c21433374262.1' }] }),
        // A shop id one digit off names nothing: it never ties.
        row(4, { orderNumber: '#1003', otherRefs: [{ via: 'orderId', ref: '450789479' }] }),
      ],
      history: [
        history(1, { metadata: { shopify_order_id: '450789469' } }),
        history(2, { metadata: { order_reference: 'c21433374261.1' } }),
        history(3, { metadata: { shopify_order_id: '450789471' } }),
        history(4, { metadata: { order_reference: 'c21433374262.1' } }),
      ],
    })
    expect(accepted(result)).toEqual([
      [2, [key(1)], 'orderId'],
      [3, [key(2)], 'paymentReference'],
      [5, [key(4)], 'paymentReference'],
    ])
    expect(result.unmatchedRows).toContain(4)
  })

  it('prefers the order number when it names a charge', () => {
    const result = match({
      rows: [row(2, { orderNumber: '1001', otherRefs: [{ via: 'orderId', ref: '450789469' }] })],
      history: [
        history(1, { metadata: { order_id: '1001' } }),
        history(2, { metadata: { shopify_order_id: '450789469' } }),
      ],
    })
    expect(accepted(result)).toEqual([[2, [key(1)], 'exact']])
  })
})

describe('orders of several lines', () => {
  it('takes the lines’ sum as the total when the payment is that sum', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'A-1', amount: 3000, linesTotal: 6880, lines: [2, 3, 4] })],
      history: [history(1, { amount: 6880, metadata: { order_id: 'A-1' } })],
    })
    expect(accepted(result)).toEqual([[2, [key(1)], 'exact']])
    expect(result.proposals[0]?.explanation).toMatchObject({
      code: 'reference_lines_summed',
      params: { amount: 6880, lines: 3 },
    })
  })
})

describe('totals that leave out shipping or a fee', () => {
  it('offers the payment with the shipping named, never for "Accept all"', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'A-1', amount: 5000, shipping: 880 })],
      history: [history(1, { amount: 5880, metadata: { order_id: 'A-1' } })],
    })
    expect(accepted(result)).toEqual([])
    expect(result.proposals[0]).toMatchObject({
      keys: [key(1)],
      explanation: { code: 'reference_differs_shipping', params: { extra: 880, difference: -880 } },
    })
  })

  it('names a fee column and shipping with fee the same way', () => {
    const result = match({
      rows: [
        row(2, { orderNumber: 'A-1', amount: 5000, shipping: 880, fee: 330 }),
        row(3, { orderNumber: 'A-2', amount: 5000, fee: 330 }),
      ],
      history: [
        history(1, { amount: 6210, metadata: { order_id: 'A-1' } }),
        history(2, { amount: 5330, metadata: { order_id: 'A-2' } }),
      ],
    })
    expect(result.proposals.map((p) => [p.rowLine, p.explanation.code, p.confidence < 0.9])).toEqual([
      [2, 'reference_differs_shipping_fee', true],
      [3, 'reference_differs_fee', true],
    ])
  })
})

describe('payment-method words', () => {
  it('reads Google Pay and Apple Pay as card, 後払い as uncertain', () => {
    expect(paymentMethodOf('Google Pay')).toEqual({ family: 'card', certain: true })
    expect(paymentMethodOf('クレジットカード(Apple Pay)')).toEqual({ family: 'card', certain: true })
    expect(paymentMethodOf('NP後払い')).toEqual({ family: 'paidy', certain: false })
    expect(paymentMethodOf('コンビニ決済')).toEqual({ family: 'konbini', certain: true })
  })

  it('rules out only when both sides are certain', () => {
    const konbini = history(1, { payment_type: 'konbini' })
    const googlePay = history(2, { payment_type: 'google_pay' })
    const unknown = history(3, { payment_type: 'some_wallet' })
    const card = paymentMethodOf('クレジットカード')
    expect(methodAllows(card, konbini)).toBe(false)
    expect(methodAllows(card, googlePay)).toBe(true)
    expect(methodAllows(card, unknown)).toBe(true)
    expect(methodAllows(paymentMethodOf('後払い決済'), konbini)).toBe(true)
  })

  it('matches a クレジットカード order to its Google Pay payment by number and amount', () => {
    const result = match({
      rows: [row(2, { orderNumber: 'A-1', paymentMethod: 'クレジットカード' })],
      history: [history(1, { payment_type: 'google_pay', metadata: { order_id: 'A-1' } })],
    })
    expect(accepted(result)).toEqual([[2, [key(1)], 'exact']])
  })
})

describe('near misses are never accepted', () => {
  it('an order number one digit off, an amount one yen off, a refund of another order', () => {
    const result = match({
      rows: [
        row(2, { orderNumber: '1235' }),
        row(3, { orderNumber: 'B-2', amount: 999 }),
        row(4, { orderNumber: 'C-3', amount: -400 }),
        row(5, { orderNumber: 'ORD-0001235' }),
      ],
      history: [
        history(1, { metadata: { order_id: '1234' } }),
        history(2, { metadata: { order_id: 'B-2' } }),
        history(3, { metadata: { order_id: 'C-3' } }),
        history(4, { metadata: { order_id: 'D-4' } }),
        refund(5, 4, { amount: 400 }),
        history(6, { metadata: { order_id: 'ORD-1234' } }),
        history(7, { metadata: { order_id: 'ORD-1236' } }),
      ],
    })
    expect(accepted(result)).toEqual([])
  })
})
