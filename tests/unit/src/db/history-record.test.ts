import { describe, expect, it } from 'vitest'
import {
  bareSearchTokensOf,
  MAX_TOKEN_LENGTH,
  MAX_TOKENS,
  historyRecordOf,
  matchesSearch,
  orderRefOf,
  searchDayOf,
  searchTermsOf,
  searchTokensOf,
  tokenPrefix,
} from '../../../../src/db/history-record'
import { CONN, T0, historyItem, uuid } from './fixtures'

describe('history record fields', () => {
  it('finds the order number under the usual metadata keys', () => {
    expect(orderRefOf(historyItem(1, { metadata: { 'Order-Number': 'A-9' } }))).toBe('A-9')
    expect(orderRefOf(historyItem(1, { metadata: { note: 'x', order_id: 123 } }))).toBe('123')
    expect(orderRefOf(historyItem(1, { metadata: { note: 'x' } }))).toBeNull()
  })

  it('tokenizes ids, metadata, name, e-mail and last four by word, scoped by connection and UTC day', () => {
    const item = historyItem(1, {
      type: 'refund',
      charge_id: uuid(7),
      metadata: { order_number: 'ORD-2026-0001', nested: { a: 'Deep' }, n: 42 },
    })
    item.user_data = { ...item.user_data, cardholder_name: 'Hiroshi Tanaka', last_four: 4242 }
    const createdAt = Date.parse(item.created_on)
    const tokens = searchTokensOf(CONN, createdAt, item)
    // Filed under the record's UTC day, zero-padded so the index sorts days in time order.
    const day = Math.floor(createdAt / 86_400_000)
    const scope = `${CONN}\u0001${String(day).padStart(6, '0')}\u0001`
    expect(tokenPrefix(CONN, searchDayOf(createdAt))).toBe(scope)
    expect(tokens.every((t) => t.startsWith(scope))).toBe(true)
    const bare = tokens.map((t) => t.slice(scope.length))
    expect(bare).toEqual(
      expect.arrayContaining([
        uuid(1),
        '4000-8000-000000000001',
        '000000000001',
        uuid(7),
        'hiroshi',
        'tanaka',
        'holder1@example.com',
        'example.com',
        'com',
        '4242',
        'ord-2026-0001',
        '2026-0001',
        '0001',
        'deep',
        '42',
      ]),
    )
    // Deduplicated and lower-cased.
    expect(new Set(bare).size).toBe(bare.length)
    expect(bare.some((t) => t !== t.toLowerCase())).toBe(false)
    // Japanese script counts as letters: "山田 太郎" gives both words.
    const jp = historyItem(2)
    jp.user_data = { ...jp.user_data, cardholder_name: '山田 太郎' }
    expect(searchTokensOf(CONN, createdAt, jp)).toEqual(
      expect.arrayContaining([`${scope}山田`, `${scope}太郎`]),
    )
  })

  it('keeps the token list bounded in count and length, ids before metadata', () => {
    const metadata = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, `value${i}`]))
    const item = historyItem(1, { metadata: { ...metadata, long: 'x'.repeat(200) } })
    const prefix = tokenPrefix(CONN, 20_000)
    const tokens = searchTokensOf(CONN, 20_000 * 86_400_000 + 5, item)
    expect(tokens).toHaveLength(MAX_TOKENS)
    expect(tokens[0]).toBe(`${prefix}${uuid(1)}`)
    expect(Math.max(...tokens.map((t) => t.length))).toBeLessThanOrEqual(prefix.length + MAX_TOKEN_LENGTH)
    expect(tokens).not.toContain(`${prefix}value79`)
  })

  it('matches when every term is a prefix of some token', () => {
    const item = historyItem(1, { metadata: { order_number: 'ORD-2026-0001' } })
    item.user_data = { ...item.user_data, cardholder_name: 'Hiroshi Tanaka', last_four: '4242' }
    const r = historyRecordOf(CONN, item, T0)
    for (const hit of [
      'tana',
      'TANAKA hiro',
      '0001',
      'ord-2026',
      '2026-0001',
      '4242',
      'holder1@ex',
      'example',
    ]) {
      expect(matchesSearch(r, hit), hit).toBe(true)
    }
    // Not a prefix of any token (inside a word), one term missing, or across two fields.
    for (const miss of ['naka', 'tanaka smith', '242', 'rd-2026', 'tanaka4242']) {
      expect(matchesSearch(r, miss), miss).toBe(false)
    }
    // The tokens come from the record's API item, not from a stored copy (records no longer keep one).
    expect('searchTokens' in r).toBe(false)
    const renamed = { ...r, raw: { ...r.raw, user_data: { ...r.raw.user_data, cardholder_name: 'Sato' } } }
    expect(matchesSearch(renamed, 'tanaka')).toBe(false)
    expect(matchesSearch(renamed, 'sato')).toBe(true)
  })

  it('files times before 1970 or invalid under day 0', () => {
    expect(searchDayOf(-1)).toBe(0)
    expect(searchDayOf(Number.NaN)).toBe(0)
    expect(searchDayOf(86_400_000 - 1)).toBe(0)
    expect(searchDayOf(86_400_000)).toBe(1)
  })

  it('normalizes search terms: lower case, no duplicates, no term implied by a longer one', () => {
    expect(searchTermsOf('  Tana  TANAKA hiro ')).toEqual(['tanaka', 'hiro'])
    expect(searchTermsOf('')).toEqual([])
    expect(searchTermsOf('y'.repeat(100))).toEqual(['y'.repeat(MAX_TOKEN_LENGTH)])
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

describe('search tokens of plain ASCII text', () => {
  /** The rule as stated, with Unicode's letters and digits: what every value's tokens must equal. */
  const byRule = (value: string): string[] => {
    const out = new Set<string>()
    for (const chunk of value.toLowerCase().split(/\s+/)) {
      if (chunk === '') continue
      out.add(chunk.slice(0, MAX_TOKEN_LENGTH))
      for (const word of chunk.matchAll(/[\p{L}\p{N}]+/gu))
        out.add(chunk.slice(word.index, word.index + MAX_TOKEN_LENGTH))
    }
    return [...out]
  }
  const tokensOf = (value: string): string[] =>
    bareSearchTokensOf(historyItem(1, { resource_id: value, metadata: {}, user_data: null }))

  it('are the tokens the Unicode rule gives, for every printable ASCII character and beside non-ASCII', () => {
    let seed = 7
    const next = (n: number): number => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n
    const alphabet = [
      ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
      'é',
      '山',
      '\t',
      '\u0000',
    ]
    for (let n = 0; n < 2_000; n++) {
      const value = Array.from({ length: 1 + next(70) }, () => alphabet[next(alphabet.length)]).join('')
      expect(tokensOf(value), JSON.stringify(value)).toEqual(byRule(value).slice(0, MAX_TOKENS))
    }
  })
})
