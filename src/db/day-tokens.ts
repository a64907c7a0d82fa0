/**
 * The ledger's search index (schema v7, `dayTokens`): per connection × UTC day, the search tokens of that
 * day's records, in parts of at most TOKEN_PART_SIZE records (DayTokensRecord). A search reads the parts of
 * the days in its period, newest or oldest first, and stops once it has its page: a request returns a few
 * days of tokens, where the multi-entry index it replaces cost a request per day and term and a random
 * read per entry (~0.1 ms each at 500k), and made ingest write an index entry per token. Every write of
 * history keeps the parts in step — sync's putPage, restore, the v7 migration, clearing a connection.
 * How a part is stored and read, in each shape it has had: token-rows.ts.
 */
import type { Table } from 'dexie'
import { bareSearchTokensOf, byDayAndKey, searchDayOf } from './history-record'
import type { HistoryRecord, RecordKey } from '../domain/records'
import { markedTextOf, type MarkedText } from './marked-tokens'
import type { StoredDayTokensRow } from './storage-rows'
import {
  FIELD_COUNT,
  packedTokenRowOf,
  SEPARATOR,
  tokenColumnsOfAny,
  TOKEN_ROW_FIELDS,
  type TokenColumns,
} from './token-rows'

export {
  packedTokenRowOf,
  partHits,
  termSearchOf,
  tokenColumnsOf,
  tokenFieldsTest,
  tokenTextMatches,
  TOKEN_ROW_FIELDS,
  type PartHit,
  type TermSearch,
  type TokenRowField,
} from './token-rows'

/**
 * Records per part. Sync appends a page to its day's last part, so a page rewrites one part of a few
 * dozen kilobytes, not the whole day; a day of a busy merchant spans several parts.
 */
export const TOKEN_PART_SIZE = 512

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
  text: string | MarkedText
  fields: string[]
}

/** A record as a part holds it: its tokens marked (marked-tokens.ts) where they can be, exactly. */
function entryOf(r: HistoryRecord): Entry {
  const tokens = bareSearchTokensOf(r.raw)
  return {
    key: r.key,
    createdAt: r.createdAt,
    text: markedTextOf(tokens) ?? tokens.map((t) => SEPARATOR + t).join(''),
    fields: TOKEN_ROW_FIELDS.map((f) => r[f]),
  }
}

function partsOf(
  connectionId: string,
  day: number,
  entries: readonly Entry[],
  partSize: number,
  first = 0,
): TokenColumns[] {
  const rows: TokenColumns[] = []
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
export function dayTokenRowsOf(
  records: Iterable<HistoryRecord>,
  partSize = TOKEN_PART_SIZE,
): StoredDayTokensRow[] {
  const collector = new DayTokensCollector(partSize)
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
      const parts = stored.map((row) => tokenColumnsOfAny(row))
      const changed = new Set<TokenColumns>()
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
