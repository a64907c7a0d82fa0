/**
 * UUID tokens packed for the marked token layout (marked-tokens.ts): a lower-case UUID value
 * ("a36f9d18-3c29-4c96-9b79-e75d1133ac52", 41 characters as a marked chunk) is stored as its 32 hex digits
 * two to a character, 16 Latin-1 characters in a fixed slot, so a part's ids are read as a third of the
 * bytes. Its tokens are the value from each of its five word starts (hex digit 0, 8, 12, 16 and 20, each a
 * whole character of the slot), and a term begins one of them exactly when its hex digits, with its hyphens
 * where the value has them, begin the slot at one of those starts: idHits finds that, exactly.
 */

/** Characters a packed UUID takes: its 32 hex digits, two to a character. */
export const UUID_SLOT = 16

/** Offsets of the hyphens in a UUID's text. */
const HYPHENS = [8, 13, 18, 23]
/** Offsets in a UUID's text where a word starts (a token of it begins), and the slot character there. */
const STARTS: readonly (readonly [text: number, slot: number])[] = [
  [0, 0],
  [9, 4],
  [14, 6],
  [19, 8],
  [24, 10],
]
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Is the token a lower-case UUID (what a token of an id is: values are lower-cased)? */
export const isUuidToken = (token: string): boolean => token.length === 36 && UUID_TEXT.test(token)

/** A lower-case hex digit's value, or -1. */
function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 97 && c <= 102) return c - 87
  return -1
}

/** A UUID token (isUuidToken) as its slot. */
export function packUuid(token: string): string {
  const hex = token.replaceAll('-', '')
  let slot = ''
  for (let i = 0; i < 32; i += 2)
    slot += String.fromCharCode((nibble(hex.charCodeAt(i)) << 4) | nibble(hex.charCodeAt(i + 1)))
  return slot
}

/** A slot (packUuid) as the UUID token it holds. */
export function unpackUuid(slot: string): string {
  let hex = ''
  for (let i = 0; i < UUID_SLOT; i++) hex += slot.charCodeAt(i).toString(16).padStart(2, '0')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * Where a term may begin a UUID token: at a slot character `at`, its whole bytes (`bytes`, two hex digits
 * each) then, when it has an odd number of digits, `half` as the next character's high four bits.
 */
export interface IdTerm {
  at: number
  bytes: string
  half: number | null
}

/** The ways a term (lower-case) can begin one of a UUID's tokens: one per word start it fits at. */
export function idTermsOf(term: string): IdTerm[] {
  const found: IdTerm[] = []
  for (const [start, at] of STARTS) {
    if (term.length > 36 - start) continue
    const digits: number[] = []
    let fits = true
    for (let j = 0; j < term.length && fits; j++) {
      const c = term.charCodeAt(j)
      if (HYPHENS.includes(start + j)) fits = c === 45
      else digits.push(nibble(c))
    }
    if (!fits || digits.some((d) => d < 0)) continue
    let bytes = ''
    for (let i = 0; i + 1 < digits.length; i += 2)
      bytes += String.fromCharCode(((digits[i] as number) << 4) | (digits[i + 1] as number))
    found.push({ at, bytes, half: digits.length % 2 === 1 ? (digits[digits.length - 1] as number) : null })
  }
  return found
}

/** Could the slots hold a token the term begins (a quick test before idHits)? */
export function idsMayHold(ids: string, terms: readonly IdTerm[]): boolean {
  return terms.some((t) => t.bytes === '' || ids.includes(t.bytes))
}

/** Calls `hit` with each slot (its number in `ids`) that a token the term begins starts in, in order. */
export function idHits(ids: string, terms: readonly IdTerm[], hit: (slot: number) => void): void {
  for (const { at, bytes, half } of terms) {
    const ends = (i: number): boolean => half === null || ids.charCodeAt(i + bytes.length) >> 4 === half
    if (bytes === '') {
      for (let i = at; i < ids.length; i += UUID_SLOT) if (ends(i)) hit((i - at) / UUID_SLOT)
      continue
    }
    for (let i = ids.indexOf(bytes); i >= 0; i = ids.indexOf(bytes, i + 1))
      if (i % UUID_SLOT === at && ends(i)) hit((i - at) / UUID_SLOT)
  }
}
