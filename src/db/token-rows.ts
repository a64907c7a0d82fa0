/**
 * The stored shapes of a search token part and how each is read: plain columns (schema v7), packed
 * (keys, texts and fields each in one value) and marked (marked-tokens.ts, what the writer stores now).
 * Every shape answers a search the same: a term matches a record when it begins one of its tokens.
 */
import type { RecordKey } from '../domain/records'
import {
  firstTokenOfText,
  impliedKey,
  joinMarked,
  MarkedPart,
  markedTermOf,
  markedTextOf,
  tokensOfMarked,
  type MarkedTerm,
  type MarkedText,
} from './marked-tokens'
import type {
  DayTokensRecord,
  MarkedDayTokensRecord,
  PackedDayTokensRecord,
  StoredDayTokensRow,
} from './storage-rows'

/** Separates a record's tokens in its text: whitespace, which never occurs inside a token or a term. */
export const SEPARATOR = '\n'

/**
 * The equality fields a search may be narrowed by, in the order a row's `fields` holds each record's
 * values: the walk tests them on the token row itself instead of reading the day's digests too.
 */
export const TOKEN_ROW_FIELDS = ['storeId', 'type', 'status', 'currency', 'mode', 'brand'] as const
export type TokenRowField = (typeof TOKEN_ROW_FIELDS)[number]
export const FIELD_COUNT = TOKEN_ROW_FIELDS.length
const TYPE_AT = TOKEN_ROW_FIELDS.indexOf('type')

/** A test of a record's fields (TOKEN_ROW_FIELDS' values) against the wanted values, or null when nothing is wanted. */
export function tokenFieldsTest(
  wanted: Partial<Record<TokenRowField, string>>,
): ((values: readonly string[]) => boolean) | null {
  const checks = TOKEN_ROW_FIELDS.flatMap((f, at) => {
    const value = wanted[f]
    return value === undefined ? [] : [[at, value] as const]
  })
  if (checks.length === 0) return null
  return (values) => checks.every(([at, value]) => values[at] === value)
}

/**
 * A part as the writer edits it: per record its key, time, fields and tokens, as a token text (each
 * token after a SEPARATOR) or, read from a marked part, as its marked text.
 */
export interface TokenColumns {
  connectionId: string
  day: number
  part: number
  keys: RecordKey[]
  times: number[]
  texts: (string | MarkedText)[]
  fields: string[]
}

/** Joins a packed row's keys, texts and fields (PackedDayTokensRecord). */
const KEY_JOIN = '\n'
const TEXT_JOIN = SEPARATOR + SEPARATOR
const FIELD_JOIN = '\u0001'
const COMBO_JOIN = '\u0002'

/** The tokens of a token text. */
const tokensOfText = (text: string): string[] => (text === '' ? [] : text.slice(1).split(SEPARATOR))

/** A record's tokens as a token text. */
function tokenTextOfAny(text: string | MarkedText): string {
  if (typeof text === 'string') return text
  let out = ''
  for (const token of tokensOfMarked(text)) out += SEPARATOR + token
  return out
}

/**
 * A part's fields as its distinct combinations (each FIELD_COUNT values joined, joined in turn) and, per
 * record, its combination's number as one character: a part of a day's records shares a few dozen.
 */
function fieldCombosOf(
  fields: readonly string[],
  records: number,
): { fieldCombos: string; fieldIndex: string } {
  const combos: string[] = []
  const numbers = new Map<string, number>()
  let fieldIndex = ''
  for (let i = 0; i < records; i++) {
    const combo = fields.slice(i * FIELD_COUNT, (i + 1) * FIELD_COUNT).join(FIELD_JOIN)
    let n = numbers.get(combo)
    if (n === undefined) numbers.set(combo, (n = combos.push(combo) - 1))
    fieldIndex += String.fromCharCode(n)
  }
  return { fieldCombos: combos.join(COMBO_JOIN), fieldIndex }
}

/**
 * A part's fields as each field's distinct values (joined, the fields' lists joined in turn) and, per
 * record, the number of each of its values as a character (FIELD_COUNT per record): a store id is then
 * stored once per part, not once per combination it occurs in.
 */
function fieldColumnsOf(
  fields: readonly string[],
  records: number,
): { fieldValues: string; fieldIndex: string } {
  const lists = TOKEN_ROW_FIELDS.map(() => new Map<string, number>())
  const codes: number[] = []
  for (let i = 0; i < records; i++)
    lists.forEach((values, f) => {
      const value = fields[i * FIELD_COUNT + f] as string
      let n = values.get(value)
      if (n === undefined) values.set(value, (n = values.size))
      codes.push(n)
    })
  let fieldIndex = ''
  for (let i = 0; i < codes.length; i += 4096) fieldIndex += String.fromCharCode(...codes.slice(i, i + 4096))
  return {
    fieldValues: lists.map((values) => [...values.keys()].join(FIELD_JOIN)).join(COMBO_JOIN),
    fieldIndex,
  }
}

/** Record i's fields in a marked row (fieldColumnsOf). */
function fieldColumnsReader(row: MarkedDayTokensRecord): (i: number) => readonly string[] {
  const lists = row.fieldValues.split(COMBO_JOIN).map((l) => l.split(FIELD_JOIN))
  if (lists.length !== FIELD_COUNT || row.fieldIndex.length !== row.times.length * FIELD_COUNT)
    throw unpackError(row)
  return (i) => lists.map((values, f) => values[row.fieldIndex.charCodeAt(i * FIELD_COUNT + f)] ?? '')
}

type ComboRow = Pick<PackedDayTokensRecord, 'fieldCombos' | 'fieldIndex'>

/** Record i's fields in a row of combinations (fieldCombosOf). */
function comboReader(row: ComboRow): (i: number) => readonly string[] {
  const combos = row.fieldCombos.split(COMBO_JOIN).map((c) => c.split(FIELD_JOIN))
  return (i) => combos[row.fieldIndex.charCodeAt(i)] ?? []
}

/** The fields of a packed or marked row, record by record. */
function fieldsOfRow(row: PackedDayTokensRecord | MarkedDayTokensRecord): string[] {
  const read = isMarked(row) ? fieldColumnsReader(row) : comboReader(row)
  const fields: string[] = []
  for (let i = 0; i < row.times.length; i++) for (const value of read(i)) fields.push(value)
  return fields
}

/** Whether keys and fields can be joined (no value holds a joiner; never from the API's ids and fields). */
function joinable(part: TokenColumns): boolean {
  const { keys, fields } = part
  return (
    keys.length > 0 &&
    keys.length <= 0xffff &&
    part.texts.length === keys.length &&
    part.times.length === keys.length &&
    keys.every((k) => !k.includes(KEY_JOIN)) &&
    fields.length === keys.length * FIELD_COUNT &&
    fields.every((f) => !f.includes(FIELD_JOIN) && !f.includes(COMBO_JOIN))
  )
}

/** The marked row of a part, or null when a record's tokens cannot be marked exactly (markedTextOf). */
function markedRowOf(part: TokenColumns): MarkedDayTokensRecord | null {
  const texts: MarkedText[] = []
  for (const text of part.texts) {
    const marked = typeof text === 'string' ? markedTextOf(tokensOfText(text)) : text
    if (!marked) return null
    texts.push(marked)
  }
  const { connectionId, day, part: n, keys, times, fields } = part
  const joined = joinMarked(texts)
  const implied = keys.every(
    (key, i) =>
      key === impliedKey(fields[i * FIELD_COUNT + TYPE_AT] ?? '', firstTokenOfText(texts[i] as MarkedText)),
  )
  return {
    connectionId,
    day,
    part: n,
    times,
    ...joined,
    ...(implied ? {} : { keyText: keys.join(KEY_JOIN) }),
    ...fieldColumnsOf(fields, keys.length),
  }
}

/**
 * The row the writer stores for a part: marked (MarkedDayTokensRecord); packed (PackedDayTokensRecord)
 * when a record's tokens cannot be marked exactly; the columns as they are when a value holds a joiner.
 */
export function packedTokenRowOf(part: TokenColumns): StoredDayTokensRow {
  if (joinable(part)) {
    const marked = markedRowOf(part)
    if (marked) return marked
  }
  const { connectionId, day, part: n, keys, times, fields } = part
  const texts = part.texts.map(tokenTextOfAny)
  const packable = joinable(part) && texts.every((t) => !t.includes(TEXT_JOIN) && !t.endsWith(SEPARATOR))
  if (!packable) return { connectionId, day, part: n, keys, times, texts, fields }
  return {
    connectionId,
    day,
    part: n,
    times,
    keyText: keys.join(KEY_JOIN),
    text: texts.join(TEXT_JOIN),
    ...fieldCombosOf(fields, keys.length),
  }
}

const isMarked = (row: StoredDayTokensRow): row is MarkedDayTokensRecord => 'latin' in row
const isPacked = (row: StoredDayTokensRow): row is PackedDayTokensRecord => 'text' in row

/** A marked row read: its texts with the offsets of each record's, checked against its record count. */
function markedPartOf(row: MarkedDayTokensRecord): MarkedPart {
  const { connectionId, day, part, latin, wide, ids, idCounts, times } = row
  const text = ids === undefined && idCounts === undefined ? { latin, wide } : { latin, wide, ids, idCounts }
  return new MarkedPart(text, times.length, `${connectionId} ${day}/${part}`)
}

/** A marked row's keys: stored, or each its record's type and first token. */
function markedKeyReader(row: MarkedDayTokensRecord, read: MarkedPart): (i: number) => RecordKey {
  if (row.keyText !== undefined) {
    const keys = row.keyText.split(KEY_JOIN) as RecordKey[]
    if (keys.length !== row.times.length) throw unpackError(row)
    return (i) => keys[i] as RecordKey
  }
  const types = row.fieldValues.split(COMBO_JOIN)[TYPE_AT]?.split(FIELD_JOIN) ?? []
  return (i) =>
    impliedKey(types[row.fieldIndex.charCodeAt(i * FIELD_COUNT + TYPE_AT)] ?? '', read.firstToken(i))
}

function unpackError(row: StoredDayTokensRow): Error {
  const { connectionId, day, part, times } = row
  return new Error(`token part ${connectionId} ${day}/${part} does not unpack to ${times.length} records`)
}

/**
 * A stored part as columns the writer edits (texts of a marked part stay marked), whichever shape it was
 * written in. 'without fields' leaves the fields out (empty) where nothing tests them.
 */
export function tokenColumnsOfAny(
  row: StoredDayTokensRow,
  fields: 'with fields' | 'without fields' = 'with fields',
): TokenColumns {
  if (!isPacked(row) && !isMarked(row)) return row
  const { connectionId, day, part, times } = row
  const n = times.length
  const fieldValues = fields === 'with fields' ? fieldsOfRow(row) : []
  if (isMarked(row)) {
    const read = markedPartOf(row)
    read.starts('latin')
    read.starts('wide')
    read.slots()
    const keyOf = markedKeyReader(row, read)
    const keys = Array.from({ length: n }, (_, i) => keyOf(i))
    const texts = Array.from({ length: n }, (_, i) => read.textOf(i))
    return { connectionId, day, part, keys, times, texts, fields: fieldValues }
  }
  const columns = {
    connectionId,
    day,
    part,
    keys: row.keyText.split(KEY_JOIN) as RecordKey[],
    times,
    texts: row.text.split(TEXT_JOIN),
    fields: fieldValues,
  }
  if (columns.keys.length !== n || columns.texts.length !== n) throw unpackError(row)
  return columns
}

/** A stored part as plain columns (DayTokensRecord: each text a token text), whichever shape it was written in. */
export function tokenColumnsOf(
  row: StoredDayTokensRow,
  fields: 'with fields' | 'without fields' = 'with fields',
): DayTokensRecord {
  const columns = tokenColumnsOfAny(row, fields)
  return { ...columns, texts: columns.texts.map(tokenTextOfAny) }
}

/** Does a record's token text match every term (searchTermsOf)? */
export function tokenTextMatches(text: string, terms: readonly string[]): boolean {
  return terms.every((t) => text.includes(SEPARATOR + t))
}

/** A search's terms, with what each shape of part is searched for. */
export interface TermSearch {
  terms: readonly string[]
  /** Per term, its markedTermOf. */
  marked: readonly MarkedTerm[]
}

export function termSearchOf(terms: readonly string[]): TermSearch {
  return { terms, marked: terms.map(markedTermOf) }
}

/** A record of a part that every term of a search begins a token of. */
export interface PartHit {
  key: RecordKey
  createdAt: number
  /** Its TOKEN_ROW_FIELDS' values (none unless asked for). */
  fields: readonly string[]
}

/**
 * The records of a stored part (any shape) that match every term, in part order. A marked or packed part
 * that lacks a term anywhere is passed over with a native search of its texts.
 */
export function partHits(
  row: StoredDayTokensRow,
  search: TermSearch,
  fields: 'with fields' | 'without fields',
): PartHit[] {
  const none = (): readonly string[] => []
  if (isMarked(row)) {
    const read = markedPartOf(row)
    const found = read.hits(search.marked)
    if (found.length === 0) return []
    const keyOf = markedKeyReader(row, read)
    const fieldsOf = fields === 'with fields' ? fieldColumnsReader(row) : none
    return found.map((i) => ({ key: keyOf(i), createdAt: row.times[i] as number, fields: fieldsOf(i) }))
  }
  if (isPacked(row) && !search.terms.every((t) => row.text.includes(SEPARATOR + t))) return []
  const part = tokenColumnsOf(row, 'without fields')
  const fieldsOf =
    fields === 'without fields'
      ? none
      : isPacked(row)
        ? comboReader(row)
        : (i: number) => row.fields.slice(i * FIELD_COUNT, (i + 1) * FIELD_COUNT)
  const hits: PartHit[] = []
  part.texts.forEach((text, i) => {
    if (tokenTextMatches(text, search.terms))
      hits.push({ key: part.keys[i] as RecordKey, createdAt: part.times[i] as number, fields: fieldsOf(i) })
  })
  return hits
}
