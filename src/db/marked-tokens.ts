/**
 * The marked layout of a search token part (MarkedDayTokensRecord): each record's tokens stored once per
 * value with its word starts marked, instead of one token per word start ("ord-2026-0001", "2026-0001",
 * "0001" become "ord-\u00012026-\u00010001"), in two strings — tokens of Latin-1 text in one (a byte a
 * character where it is stored), the rest in the other — so a name search reads about a quarter of the
 * bytes of a packed part. A term is found where it begins a token: after a token's start (CHUNK) or a
 * mark, with its own word starts marked the same way. The layout is built from a record's token list and
 * checked against it, so a part answers exactly what its token list (and matchesSearch) does.
 */
import type { RecordKey } from '../domain/records'
import {
  idHits,
  idsMayHold,
  idTermsOf,
  isUuidToken,
  packUuid,
  unpackUuid,
  UUID_SLOT,
  type IdTerm,
} from './uuid-tokens'

/** Precedes each stored token. */
const CHUNK = '\n'
/** Precedes each word start inside a stored token (every one of them is the start of a token too). */
const MARK = '\u0001'
/** Separates the records of a part in each string. */
const RECORD = '\u0002'

/**
 * A record's tokens in the marked layout: its Latin-1 tokens and its other tokens, each CHUNK-led, and its
 * UUID tokens packed (uuid-tokens.ts), a slot each.
 */
export interface MarkedText {
  latin: string
  wide: string
  /** The UUID tokens' slots ('' or absent: none). */
  ids?: string
  /** Whether the first slot holds the record's first token (its resource id). */
  idFirst?: boolean
}

/** A part's record texts joined (joinMarked). */
export interface JoinedMarked {
  latin: string
  wide: string
  /** Every record's slots, in record order; absent when no record has one. */
  ids?: string
  /** Per record, one character: its number of slots times two, plus one when the first is its first token. */
  idCounts?: string
}

const WORD = /[\p{L}\p{N}]/u

/** Is the code point a letter or a digit (the word characters of searchTokensOf's word starts)? */
function isWordPoint(c: number): boolean {
  if (c < 0x80) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90)
  return WORD.test(String.fromCodePoint(c))
}

/**
 * The offsets of a text's word starts after its first code point: a letter or digit after a code point
 * that is neither (where searchTokensOf starts a token inside a value).
 */
function wordStarts(s: string): number[] {
  const starts: number[] = []
  let previous = true
  for (let i = 0; i < s.length;) {
    const c = s.codePointAt(i) as number
    const word = isWordPoint(c)
    if (word && !previous) starts.push(i)
    previous = word
    i += c > 0xffff ? 2 : 1
  }
  return starts
}

/** The text with MARK before each of the given offsets (ascending). */
function marked(s: string, offsets: readonly number[]): string {
  let out = ''
  let last = 0
  for (const at of offsets) {
    out += s.slice(last, at) + MARK
    last = at
  }
  return last === 0 ? s : out + s.slice(last)
}

/** The text with MARK before each of its word starts (wordStarts). */
export const markedWords = (s: string): string => marked(s, wordStarts(s))

const isLatin1 = (s: string): boolean => !/[^\0-\xff]/.test(s)
/** Does a token or term hold a character the layout reserves? */
const reserved = (s: string): boolean => s.includes(CHUNK) || s.includes(MARK) || s.includes(RECORD)

/**
 * A record's token list (a token text split: searchTokensOf's tokens) in the marked layout, or null when
 * the layout cannot hold it exactly: a token holding a reserved character, or a word start inside a token
 * that begins no token of the list (a list cut at MAX_TOKENS). A token already begun at a stored start is
 * not stored again. Exact: a term begins a stored start exactly when it begins a token of the list.
 */
export function markedTextOf(tokens: readonly string[]): MarkedText | null {
  const starts: string[] = []
  const listed = new Set(tokens)
  let latin = ''
  let wide = ''
  let ids = ''
  // The first token (the resource id) stays first; the rest longest first, so that a name an e-mail
  // address begins with is found there and not stored again.
  const [first, ...rest] = tokens
  const order = first === undefined ? [] : [first, ...rest.sort((a, b) => b.length - a.length)]
  for (const token of order) {
    if (token === '' || reserved(token)) return null
    if (starts.some((s) => s.startsWith(token))) continue
    const offsets = wordStarts(token)
    const inner = offsets.map((at) => token.slice(at))
    if (!inner.every((s) => listed.has(s) || tokens.some((t) => t.startsWith(s)))) return null
    starts.push(token, ...inner)
    if (isUuidToken(token)) ids += packUuid(token)
    else if (isLatin1(token)) latin += CHUNK + marked(token, offsets)
    else wide += CHUNK + marked(token, offsets)
  }
  if (ids === '') return { latin, wide }
  return { latin, wide, ids, idFirst: first !== undefined && isUuidToken(first) }
}

/** The tokens of a UUID token: the value from each of its word starts. */
const uuidTokens = (token: string): string[] => [token, ...wordStarts(token).map((at) => token.slice(at))]

/** The tokens a marked text holds: every stored token and the rest of it from each of its marks. */
export function tokensOfMarked(text: MarkedText): string[] {
  const tokens: string[] = []
  for (const chunk of (text.latin + text.wide).split(CHUNK)) {
    if (chunk === '') continue
    const pieces = chunk.split(MARK)
    for (let i = 0; i < pieces.length; i++) tokens.push(pieces.slice(i).join(''))
  }
  const ids = text.ids ?? ''
  for (let at = 0; at < ids.length; at += UUID_SLOT)
    tokens.push(...uuidTokens(unpackUuid(ids.slice(at, at + UUID_SLOT))))
  return [...new Set(tokens)]
}

/**
 * A search term as the marked layout is searched for: a record's text holds it right after a CHUNK or a
 * MARK, or its slots hold it at a word start (idTermsOf), exactly when the term begins one of its tokens.
 */
export function markedTermOf(term: string): MarkedTerm {
  return { text: reserved(term) ? null : markedWords(term), ids: idTermsOf(term) }
}

/** Does a token of the text begin at `at` (right after a CHUNK or a MARK)? */
function beginsToken(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1)
  return before === 10 || before === 1
}

/** A record's first stored token: its first slot's UUID where that is its first token, else firstTokenOf. */
export function firstTokenOfText(text: MarkedText): string {
  return text.idFirst && text.ids ? unpackUuid(text.ids.slice(0, UUID_SLOT)) : firstTokenOf(text.latin)
}

/** The first stored Latin-1 token of a text, without its marks ('' when it has none). */
export function firstTokenOf(latin: string): string {
  const end = latin.indexOf(CHUNK, 1)
  return latin
    .slice(1, end < 0 ? undefined : end)
    .split(MARK)
    .join('')
}

/**
 * A part's record texts joined: each string (latin, wide) with RECORD between records, the slots one after
 * another with each record's count in idCounts (left out when no record has a slot).
 */
export function joinMarked(texts: readonly MarkedText[]): JoinedMarked {
  const joined = {
    latin: texts.map((t) => t.latin).join(RECORD),
    wide: texts.map((t) => t.wide).join(RECORD),
  }
  if (!texts.some((t) => t.ids)) return joined
  const ids = texts.map((t) => t.ids ?? '').join('')
  const idCounts = texts
    .map((t) => String.fromCharCode(((t.ids ?? '').length / UUID_SLOT) * 2 + (t.idFirst && t.ids ? 1 : 0)))
    .join('')
  return { ...joined, ids, idCounts }
}

/** The offsets where each record's text starts in a joined string; null unless it holds `records`. */
function recordStarts(text: string, records: number): Int32Array | null {
  const starts = new Int32Array(records)
  let at = 0
  for (let i = 1; i < records; i++) {
    at = text.indexOf(RECORD, at)
    if (at < 0) return null
    starts[i] = ++at
  }
  return text.indexOf(RECORD, at) < 0 ? starts : null
}

/** The record whose text holds offset `at` (starts ascending, the first 0). */
function recordAt(starts: Int32Array, at: number): number {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if ((starts[mid] as number) <= at) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** A search term as a marked part is searched for (markedTermOf). */
export interface MarkedTerm {
  /** The term with its word starts marked; null when it holds a reserved character (no token does). */
  text: string | null
  /** Where it may begin a UUID token (uuid-tokens.ts idTermsOf). */
  ids: readonly IdTerm[]
}

/** Per slot its record, and per record the number of its first slot (one past the end last). */
interface SlotMap {
  recordOf: Int32Array
  firstOf: Int32Array
}

/** The slots of a joined part by record (idCounts); null unless they add up to `records` and to the slots held. */
function slotMapOf(text: JoinedMarked, records: number): SlotMap | null {
  const ids = text.ids ?? ''
  const counts = text.idCounts ?? ''
  if (text.idCounts !== undefined && counts.length !== records) return null
  const slots = ids.length / UUID_SLOT
  if (!Number.isInteger(slots)) return null
  const recordOf = new Int32Array(slots)
  const firstOf = new Int32Array(records + 1)
  let slot = 0
  for (let i = 0; i < records; i++) {
    firstOf[i] = slot
    const n = counts === '' ? 0 : counts.charCodeAt(i) >> 1
    if (slot + n > slots) return null
    recordOf.fill(i, slot, slot + n)
    slot += n
  }
  firstOf[records] = slot
  return slot === slots ? { recordOf, firstOf } : null
}

/**
 * A joined part (joinMarked) as read: its strings, with the offsets of each record's text in each found
 * when first needed (a string that holds none of a search's terms is never walked) and checked then.
 */
export class MarkedPart {
  readonly #starts: { latin?: Int32Array; wide?: Int32Array } = {}
  #slots: SlotMap | undefined

  constructor(
    readonly text: JoinedMarked,
    readonly records: number,
    private readonly what: string,
  ) {
    // Slots without their counts, or counts without slots, cannot be read (the rest is checked when used).
    if ((text.ids === undefined) !== (text.idCounts === undefined)) throw this.#unpackError()
  }

  #unpackError(): Error {
    return new Error(`token part ${this.what} does not unpack to ${this.records} records`)
  }

  /** The offsets of each record's text in one string; throws unless it holds `records` records. */
  starts(which: 'latin' | 'wide'): Int32Array {
    let starts = this.#starts[which]
    if (!starts) {
      const found = this.records > 0 ? recordStarts(this.text[which], this.records) : new Int32Array(0)
      if (!found) throw this.#unpackError()
      this.#starts[which] = starts = found
    }
    return starts
  }

  /** The records' slots; throws unless they add up (slotMapOf). */
  slots(): SlotMap {
    this.#slots ??= slotMapOf(this.text, this.records) ?? undefined
    if (!this.#slots) throw this.#unpackError()
    return this.#slots
  }

  /**
   * The records (ascending) whose tokens every term (markedTermOf) begins. A term found nowhere ends the
   * search with one native scan of each string.
   */
  hits(terms: readonly MarkedTerm[]): number[] {
    const { latin, wide } = this.text
    const ids = this.text.ids ?? ''
    const anywhere = ({ text, ids: idTerms }: MarkedTerm): boolean =>
      text !== null && (latin.includes(text) || wide.includes(text) || idsMayHold(ids, idTerms))
    if (!terms.every(anywhere)) return []
    // Per record, how many of the terms (in order) it has shown so far.
    const level = new Int32Array(this.records)
    terms.forEach(({ text: term, ids: idTerms }, n) => {
      if (term === null) return
      for (const which of ['latin', 'wide'] as const) {
        const text = this.text[which]
        let at = text.indexOf(term)
        if (at < 0) continue
        const starts = this.starts(which)
        for (; at >= 0; at = text.indexOf(term, at + 1)) {
          if (!beginsToken(text, at)) continue
          const record = recordAt(starts, at)
          if (level[record] === n) level[record] = n + 1
        }
      }
      if (ids === '' || !idsMayHold(ids, idTerms)) return
      const { recordOf } = this.slots()
      idHits(ids, idTerms, (slot) => {
        const record = recordOf[slot] as number
        if (level[record] === n) level[record] = n + 1
      })
    })
    const found: number[] = []
    for (let i = 0; i < this.records; i++) if (level[i] === terms.length) found.push(i)
    return found
  }

  /** Record `i`'s text. */
  textOf(i: number): MarkedText {
    const text = { latin: this.#slice('latin', i), wide: this.#slice('wide', i) }
    const ids = this.#ids(i)
    if (ids === '') return text
    return { ...text, ids, idFirst: ((this.text.idCounts ?? '').charCodeAt(i) & 1) === 1 }
  }

  /** Record `i`'s first stored token, without its marks ('' when it has none). */
  firstToken(i: number): string {
    const ids = this.#ids(i)
    if (ids !== '' && ((this.text.idCounts ?? '').charCodeAt(i) & 1) === 1)
      return firstTokenOfText({ latin: '', wide: '', ids, idFirst: true })
    return firstTokenOf(this.#slice('latin', i))
  }

  #ids(i: number): string {
    if (this.text.ids === undefined) return ''
    const { firstOf } = this.slots()
    return this.text.ids.slice((firstOf[i] as number) * UUID_SLOT, (firstOf[i + 1] as number) * UUID_SLOT)
  }

  #slice(which: 'latin' | 'wide', i: number): string {
    const text = this.text[which]
    const starts = this.starts(which)
    const end = i + 1 < this.records ? (starts[i + 1] as number) - 1 : text.length
    return text.slice(starts[i], end)
  }
}

/**
 * The key a marked part stores for a record implicitly: its type and its first Latin-1 token (the
 * resource id, lower-cased, as searchTokensOf lists it first). Used only where it gives the record's key
 * for every record of the part (the writer checks), else the part stores its keys.
 */
export function impliedKey(type: string, firstToken: string): RecordKey {
  return `${type}:${firstToken}` as RecordKey
}
