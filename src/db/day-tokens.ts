/**
 * The ledger's search index (schema v7, `dayTokens`): per connection × UTC day, the search tokens of that
 * day's records, in parts of at most TOKEN_PART_SIZE records (DayTokensRecord). A search reads the parts of
 * the days in its period, newest or oldest first, and stops once it has its page: a request returns a few
 * days of tokens, where the multi-entry index it replaces cost a request per day and term and a random
 * read per entry (~0.1 ms each at 500k), and made ingest write an index entry per token. Every write of
 * history keeps the parts in step — sync's putPage, restore, the v7 migration, clearing a connection.
 */
import type { Table } from 'dexie'
import { bareSearchTokensOf, byDayAndKey, searchDayOf } from './history-record'
import type { HistoryRecord, RecordKey } from '../domain/records'
import type { DayTokensRecord, PackedDayTokensRecord, StoredDayTokensRow } from './storage-rows'

/**
 * Records per part. Sync appends a page to its day's last part, so a page rewrites one part of a few
 * dozen kilobytes, not the whole day; a day of a busy merchant spans several parts.
 */
export const TOKEN_PART_SIZE = 512

/** Separates a record's tokens in its text: whitespace, which never occurs inside a token or a term. */
const SEPARATOR = '\n'

/**
 * The equality fields a search may be narrowed by, in the order a row's `fields` holds each record's
 * values: the walk tests them on the token row itself instead of reading the day's digests too.
 */
export const TOKEN_ROW_FIELDS = ['storeId', 'type', 'status', 'currency', 'mode', 'brand'] as const
export type TokenRowField = (typeof TOKEN_ROW_FIELDS)[number]
const FIELD_COUNT = TOKEN_ROW_FIELDS.length

/**
 * A test of record `i` of a row against the wanted values (unset: any), or null when nothing is wanted.
 */
export function tokenFieldsTest(
  wanted: Partial<Record<TokenRowField, string>>,
): ((row: Pick<DayTokensRecord, 'fields'>, i: number) => boolean) | null {
  const checks = TOKEN_ROW_FIELDS.flatMap((f, at) => {
    const value = wanted[f]
    return value === undefined ? [] : [[at, value] as const]
  })
  if (checks.length === 0) return null
  return (row, i) => checks.every(([at, value]) => row.fields[i * FIELD_COUNT + at] === value)
}

type PartKey = [string, number, number]

/**
 * A record's tokens as one string, each preceded by the separator: a term is a prefix of one of them
 * exactly when `separator + term` occurs in it. Built from the record's day-scoped tokens
 * (searchTokensOf, derived from `raw`), so the index and matchesSearch always agree.
 */
export function tokenTextOf(r: Pick<HistoryRecord, 'connectionId' | 'createdAt' | 'raw'>): string {
  let text = ''
  for (const token of bareSearchTokensOf(r.raw)) text += SEPARATOR + token
  return text
}

/** Joins a packed row's keys, texts and fields (PackedDayTokensRecord). */
const KEY_JOIN = '\n'
const TEXT_JOIN = SEPARATOR + SEPARATOR
const FIELD_JOIN = '\u0001'
const COMBO_JOIN = '\u0002'

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

/** The fields fieldCombosOf packed, record by record. */
function fieldsOfCombos(row: PackedDayTokensRecord): string[] {
  const combos = row.fieldCombos.split(COMBO_JOIN).map((c) => c.split(FIELD_JOIN))
  const fields: string[] = []
  for (let i = 0; i < row.fieldIndex.length; i++)
    for (const value of combos[row.fieldIndex.charCodeAt(i)] ?? []) fields.push(value)
  return fields
}

/**
 * The row the writer stores for a part: packed (PackedDayTokensRecord), or the columns as they are when a
 * value holds its column's joiner (never from the API's ids and fields; kept exact all the same).
 */
export function packedTokenRowOf(part: DayTokensRecord): StoredDayTokensRow {
  const { connectionId, day, part: n, keys, times, texts, fields } = part
  const packable =
    keys.length > 0 &&
    keys.every((k) => !k.includes(KEY_JOIN)) &&
    texts.every((t) => !t.includes(TEXT_JOIN) && !t.endsWith(SEPARATOR)) &&
    keys.length <= 0xffff &&
    fields.length === keys.length * FIELD_COUNT &&
    fields.every((f) => !f.includes(FIELD_JOIN) && !f.includes(COMBO_JOIN))
  if (!packable) return part
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

const isPacked = (row: StoredDayTokensRow): row is PackedDayTokensRecord => 'keyText' in row

/**
 * A stored part as columns, whichever shape it was written in. 'without fields' leaves a packed part's
 * fields out (empty) where nothing tests them: splitting them is most of the work of reading it.
 */
export function tokenColumnsOf(
  row: StoredDayTokensRow,
  fields: 'with fields' | 'without fields' = 'with fields',
): DayTokensRecord {
  if (!isPacked(row)) return row
  const { connectionId, day, part, times } = row
  const columns: DayTokensRecord = {
    connectionId,
    day,
    part,
    keys: row.keyText.split(KEY_JOIN) as RecordKey[],
    times,
    texts: row.text.split(TEXT_JOIN),
    fields: fields === 'with fields' ? fieldsOfCombos(row) : [],
  }
  if (columns.keys.length !== times.length || columns.texts.length !== times.length)
    throw new Error(`token part ${connectionId} ${day}/${part} does not unpack to ${times.length} records`)
  return columns
}

/**
 * Whether any record of a stored part may match every term: false only when some term occurs nowhere in
 * a packed part's text (one native search over the part, instead of a test per record).
 */
export function partMayMatch(row: StoredDayTokensRow, terms: readonly string[]): boolean {
  return !isPacked(row) || terms.every((t) => row.text.includes(SEPARATOR + t))
}

/** Does a record's token text match every term (searchTermsOf)? */
export function tokenTextMatches(text: string, terms: readonly string[]): boolean {
  return terms.every((t) => text.includes(SEPARATOR + t))
}

/** The rows of `connectionId`'s day `day` (every part), as a key range of the table. */
export function dayPartsRange(connectionId: string, day: number): [[string, number], [string, number]] {
  // [c, d] sorts before every [c, d, part] and [c, d + 1] after them.
  return [
    [connectionId, day],
    [connectionId, day + 1],
  ]
}

interface Entry {
  key: RecordKey
  createdAt: number
  text: string
  fields: string[]
}

function entryOf(r: HistoryRecord): Entry {
  return {
    key: r.key,
    createdAt: r.createdAt,
    text: tokenTextOf(r),
    fields: TOKEN_ROW_FIELDS.map((f) => r[f]),
  }
}

function partsOf(
  connectionId: string,
  day: number,
  entries: readonly Entry[],
  partSize: number,
  first = 0,
): DayTokensRecord[] {
  const rows: DayTokensRecord[] = []
  for (let i = 0; i < entries.length; i += partSize) {
    const slice = entries.slice(i, i + partSize)
    rows.push({
      connectionId,
      day,
      part: first + rows.length,
      keys: slice.map((e) => e.key),
      times: slice.map((e) => e.createdAt),
      texts: slice.map((e) => e.text),
      fields: slice.flatMap((e) => e.fields),
    })
  }
  return rows
}

/** Collects records into day parts, one record at a time (a migration's cursor, a restore). */
export class DayTokensCollector {
  readonly #days = new Map<string, { connectionId: string; day: number; entries: Entry[] }>()

  constructor(private readonly partSize = TOKEN_PART_SIZE) {}

  add(r: HistoryRecord): void {
    const day = searchDayOf(r.createdAt)
    const id = `${r.connectionId}\u0001${day}`
    let group = this.#days.get(id)
    if (!group) this.#days.set(id, (group = { connectionId: r.connectionId, day, entries: [] }))
    group.entries.push(entryOf(r))
  }

  /** The parts, as the writer stores them (packedTokenRowOf). */
  rows(): StoredDayTokensRow[] {
    return [...this.#days.values()].flatMap((g) =>
      partsOf(g.connectionId, g.day, g.entries, this.partSize).map(packedTokenRowOf),
    )
  }
}

/** Builds the stored parts of `records` from scratch (restore). */
export function dayTokenRowsOf(records: Iterable<HistoryRecord>): StoredDayTokensRow[] {
  const collector = new DayTokensCollector()
  for (const r of records) collector.add(r)
  return collector.rows()
}

/**
 * Files the tokens of `records` (one connection's page): a record already filed on its day is replaced
 * where it stands, a new one is appended to the day's last part (new parts when it is full). Only the
 * parts that change are written. In a transaction that includes `table` and writes the records.
 */
export async function putTokens(
  table: Table<StoredDayTokensRow, PartKey>,
  connectionId: string,
  records: readonly HistoryRecord[],
  partSize = TOKEN_PART_SIZE,
): Promise<void> {
  const written = await Promise.all(
    [...byDayAndKey(records, entryOf)].map(async ([day, fresh]) => {
      const stored = await table
        .where('[connectionId+day+part]')
        .between(...dayPartsRange(connectionId, day))
        .toArray()
      const parts = stored.map((row) => tokenColumnsOf(row))
      const changed = new Set<DayTokensRecord>()
      for (const part of parts) {
        for (let i = 0; i < part.keys.length; i++) {
          const entry = fresh.get(part.keys[i] as RecordKey)
          if (!entry) continue
          part.times[i] = entry.createdAt
          part.texts[i] = entry.text
          part.fields.splice(i * FIELD_COUNT, FIELD_COUNT, ...entry.fields)
          fresh.delete(entry.key)
          changed.add(part)
        }
      }
      let rest = [...fresh.values()]
      const last = parts[parts.length - 1]
      if (last && last.keys.length < partSize && rest.length > 0) {
        const room = rest.slice(0, partSize - last.keys.length)
        for (const e of room) {
          last.keys.push(e.key)
          last.times.push(e.createdAt)
          last.texts.push(e.text)
          last.fields.push(...e.fields)
        }
        changed.add(last)
        rest = rest.slice(room.length)
      }
      return [...changed, ...partsOf(connectionId, day, rest, partSize, last ? last.part + 1 : 0)]
    }),
  )
  await table.bulkPut(written.flat().map(packedTokenRowOf))
}
