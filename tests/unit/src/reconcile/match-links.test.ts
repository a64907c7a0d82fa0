import { describe, expect, it } from 'vitest'
import {
  formatMatchLink,
  formatMatchRef,
  linksTo,
  parseMatchRef,
  recordsByRow,
  rowIdOf,
  withLink,
  withoutImport,
} from '../../../../src/reconcile/match-links'

describe('match links (a mark’s matchRef)', () => {
  it('parses both sides and formats them back', () => {
    const links = parseMatchRef('orders:orders-abc:12 bank:bank-x1:3')
    expect(links).toEqual({
      sales: { source: 'orders', importId: 'orders-abc', line: 12 },
      cash: { source: 'bank', importId: 'bank-x1', line: 3 },
      other: [],
    })
    expect(formatMatchRef(links)).toBe('orders:orders-abc:12 bank:bank-x1:3')
    expect(parseMatchRef(undefined)).toEqual({ sales: null, cash: null, other: [] })
    expect(formatMatchRef(parseMatchRef('  '))).toBeUndefined()
  })

  it('keeps parts it cannot read (refs of earlier versions) verbatim', () => {
    const links = parseMatchRef('bank:7 orders:o-1:2')
    expect(links.other).toEqual(['bank:7'])
    expect(links.sales?.line).toBe(2)
    expect(formatMatchRef(links)).toBe('bank:7 orders:o-1:2')
  })

  it('one link per side: a new link replaces its side and keeps the other', () => {
    let ref = withLink(undefined, { source: 'orders', importId: 'o-1', line: 2 })
    ref = withLink(ref, { source: 'bank', importId: 'b-1', line: 9 })
    ref = withLink(ref, { source: 'orders', importId: 'o-2', line: 5 })
    expect(ref).toBe('orders:o-2:5 bank:b-1:9')
    expect(linksTo(ref, 'b-1')).toBe(true)
    expect(linksTo(ref, 'o-1')).toBe(false)
    expect(withoutImport(ref, 'o-2')).toBe('bank:b-1:9')
    expect(withoutImport('bank:b-1:9', 'b-1')).toBeUndefined()
    // An import id that merely starts like another is not the same import.
    expect(withoutImport('orders:o-10:1', 'o-1')).toBe('orders:o-10:1')
  })

  it('refuses to format a link that would not read back', () => {
    expect(() => formatMatchLink({ source: 'orders', importId: 'a b', line: 1 })).toThrow(/import id/)
    expect(() => formatMatchLink({ source: 'orders', importId: 'a:b', line: 1 })).toThrow(/import id/)
    expect(() => formatMatchLink({ source: 'bank', importId: 'b', line: 1.5 })).toThrow(/line/)
  })

  it('finds the records linked to each row', () => {
    const byRow = recordsByRow([
      { key: 'charge:1', matchRef: 'orders:o-1:2 bank:b-1:9' },
      { key: 'refund:2', matchRef: 'bank:b-1:9' },
      { key: 'charge:3' },
    ])
    expect(byRow.get(rowIdOf({ importId: 'b-1', line: 9 }))).toEqual(['charge:1', 'refund:2'])
    expect(byRow.get(rowIdOf({ importId: 'o-1', line: 2 }))).toEqual(['charge:1'])
    expect(byRow.size).toBe(2)
  })
})
