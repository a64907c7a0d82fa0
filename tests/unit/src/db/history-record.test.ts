import { describe, expect, it } from 'vitest'
import { historyRecordOf, matchesSearch, orderRefOf, searchTextOf } from '../../../../src/db/history-record'
import { CONN, T0, historyItem, uuid } from './fixtures'

describe('history record fields', () => {
  it('finds the order number under the usual metadata keys', () => {
    expect(orderRefOf(historyItem(1, { metadata: { 'Order-Number': 'A-9' } }))).toBe('A-9')
    expect(orderRefOf(historyItem(1, { metadata: { note: 'x', order_id: 123 } }))).toBe('123')
    expect(orderRefOf(historyItem(1, { metadata: { note: 'x' } }))).toBeNull()
  })

  it('builds search text from ids, metadata, cardholder and last four', () => {
    const item = historyItem(1, {
      type: 'refund',
      charge_id: uuid(7),
      metadata: { sku: 'ABC', nested: { a: 'Deep' } },
    })
    item.user_data = { ...item.user_data, last_four: 4242 }
    const text = searchTextOf(item)
    for (const part of [uuid(1), uuid(7), 'abc', 'deep', 'holder 1', 'holder1@example.com', '4242']) {
      expect(text).toContain(part)
    }
    expect(matchesSearch(text, 'Holder 4242')).toBe(true)
    // A term does not match across a field boundary.
    expect(matchesSearch(text, 'abcdeep')).toBe(false)
  })

  it('keys a refund by its own id and groups it under its charge', () => {
    const r = historyRecordOf(
      CONN,
      historyItem(2, { type: 'refund', charge_id: uuid(1), currency: 'jpy' }),
      T0,
    )
    expect(r.key).toBe(`refund:${uuid(2)}`)
    expect(r.chargeId).toBe(uuid(1))
    expect(r.currency).toBe('JPY')
    expect(r.createdAt).toBe(T0 + 2 * 3_600_000)
  })
})
