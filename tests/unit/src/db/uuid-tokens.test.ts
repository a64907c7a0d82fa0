import { describe, expect, it } from 'vitest'
import {
  idHits,
  idsMayHold,
  idTermsOf,
  isUuidToken,
  packUuid,
  unpackUuid,
  UUID_SLOT,
} from '../../../../src/db/uuid-tokens'

/** A UUID's tokens as searchTokensOf lists them: the value from each of its word starts. */
const tokensOf = (id: string): string[] => [0, 9, 14, 19, 24].map((at) => id.slice(at))

/** Slots whose UUID has a token the term begins, found through the packed slots. */
function slotsHit(ids: string, term: string): number[] {
  const found = new Set<number>()
  idHits(ids, idTermsOf(term), (slot) => found.add(slot))
  return [...found].sort((a, b) => a - b)
}

// Zeros and repeats make the same bytes occur at every offset of a slot and across slots' edges.
const IDS = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-00000000000a',
  'a36f9d18-3c29-4c96-9b79-e75d1133ac52',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '0a0a0a0a-a0a0-0a0a-a0a0-0a0a0a0a0a0a',
  '12345678-9abc-def0-1234-56789abcdef0',
]

describe('UUID tokens packed two hex digits to a character', () => {
  it('round-trips every id and stores it in 16 Latin-1 characters', () => {
    for (const id of IDS) {
      expect(isUuidToken(id)).toBe(true)
      const slot = packUuid(id)
      expect(slot).toHaveLength(UUID_SLOT)
      expect(/^[\0-\xff]*$/.test(slot)).toBe(true)
      expect(unpackUuid(slot)).toBe(id)
    }
    for (const other of [
      'A36F9D18-3C29-4C96-9B79-E75D1133AC52',
      'a36f9d18-3c29-4c96-9b79-e75d1133ac5',
      'a36f9d183c294c969b79e75d1133ac52',
      'g36f9d18-3c29-4c96-9b79-e75d1133ac52',
    ])
      expect(isUuidToken(other), other).toBe(false)
  })

  it('finds a term in exactly the slots whose UUID has a token it begins: every piece of every id', () => {
    const ids = IDS.map(packUuid).join('')
    const terms = new Set<string>()
    for (const id of IDS)
      for (let from = 0; from < id.length; from++)
        for (let to = from + 1; to <= id.length; to++) terms.add(id.slice(from, to))
    for (const extra of [
      'a36f9d18-3c29-4c96-9b79-e75d1133ac52x',
      'A36F',
      'a36g',
      '-3c29',
      '3c29 ',
      '0-',
      '00000000-0000-4000-8000-0000000000010',
    ])
      terms.add(extra)
    let matched = 0
    for (const term of terms) {
      const want = IDS.flatMap((id, slot) => (tokensOf(id).some((t) => t.startsWith(term)) ? [slot] : []))
      expect(slotsHit(ids, term), term).toEqual(want)
      if (want.length > 0) {
        matched++
        expect(idsMayHold(ids, idTermsOf(term)), term).toBe(true)
      }
    }
    // Both kinds occur: pieces that begin a token, and pieces that lie inside one only.
    expect(matched).toBeGreaterThan(400)
    expect(terms.size - matched).toBeGreaterThan(500)
  })
})
