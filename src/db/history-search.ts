/**
 * Text search over history through the day token rows (`dayTokens`, day-tokens.ts): the matches of a
 * filter's terms found a few days at a time, without reading a record.
 */
import type { RecordDigest, RecordKey } from '../domain/records'
import type { ClosebookDb } from './database'
import { dayPartsRange, partHits, termSearchOf, tokenFieldsTest, TOKEN_PART_SIZE } from './day-tokens'
import { nextBatch, type HistoryFilter } from './history-filter'
import { byTimeThenKey, searchDayOf } from './history-record'
import type { StoredDayTokensRow } from './storage-rows'
import { dayTokensCacheOf, type DayTokensCache } from './token-cache'

/** Sizes of the search's reads and writes; tests make them small to drive every path on a small set. */
export interface SearchLimits {
  /**
   * Token rows (day parts) the first request of a page's walk reads. Later requests read as many as the
   * hits per row so far say the page still needs (twice as many while nothing matched): a common name
   * fills a page within a day or two, a rare one reads on in bigger steps.
   */
  firstRows: number
  /** The most token rows one request reads, so a count over years holds a bounded batch at a time. */
  maxRows: number
  /** Records per token row that putPage fills (TOKEN_PART_SIZE). */
  partSize: number
}

export const DEFAULT_SEARCH_LIMITS: SearchLimits = {
  firstRows: 8,
  maxRows: 64,
  partSize: TOKEN_PART_SIZE,
}

/** A record a search matched: what ordering and paging need, and its digest when those were read. */
export interface SearchHit {
  key: RecordKey
  createdAt: number
  digest?: RecordDigest
}

/** One UTC day's token rows, as stored. */
export interface TokenDay {
  day: number
  parts: StoredDayTokensRow[]
}

/**
 * The records a search matches (`keyTest`: the reconciled filter's, if any), in `order`, found a few days at a time (tokenDays, newest or oldest
 * first) until at least `need` are in hand or the period ends. Whole days are taken and each is sorted,
 * so the first `need` hits are exactly the first `need` matches. Equality fields and brand are tested
 * on the token rows too, the reconciled state on the marks' keys. No record is read; the same days'
 * digests are, when `withDigests` asks (a mark needs the fingerprint).
 */
export async function searchHits(
  db: ClosebookDb,
  limits: SearchLimits,
  keyTest: ((key: RecordKey) => boolean) | null,
  filter: HistoryFilter,
  terms: readonly string[],
  order: 'asc' | 'desc',
  need: number,
  withDigests = false,
): Promise<SearchHit[]> {
  const { connectionId, from, to } = filter
  if (!(to > from)) return []
  const fieldsTest = tokenFieldsTest(filter)
  const search = termSearchOf(terms)
  const desc = order === 'desc'
  const hits: SearchHit[] = []
  let lo = searchDayOf(from)
  let hi = searchDayOf(to - 1)
  // A count reads big batches from the start; a page starts small (a common name fills it in a day).
  let batch = need === Infinity ? limits.maxRows : limits.firstRows
  let rowsRead = 0
  while (lo <= hi && hits.length < need) {
    const { days, next } = await tokenDays(db, dayTokensCacheOf(db), connectionId, lo, hi, desc, batch)
    const digests = withDigests
      ? await db.dayDigests.bulkGet(days.map((d): [string, number] => [connectionId, d.day]))
      : []
    days.forEach(({ parts }, i) => {
      let digestOf: Map<RecordKey, RecordDigest> | undefined
      const dayHits: SearchHit[] = []
      for (const row of parts) {
        for (const { key, createdAt, fields } of partHits(
          row,
          search,
          fieldsTest ? 'with fields' : 'without fields',
        )) {
          if (createdAt < from || createdAt >= to) continue
          if (fieldsTest && !fieldsTest(fields)) continue
          if (keyTest && !keyTest(key)) continue
          if (!withDigests) {
            dayHits.push({ key, createdAt })
            continue
          }
          digestOf ??= new Map((digests[i]?.records ?? []).map((d) => [d.key, d]))
          dayHits.push({ key, createdAt, digest: digestOf.get(key) })
        }
      }
      dayHits.sort(byTimeThenKey)
      if (desc) dayHits.reverse()
      for (const h of dayHits) hits.push(h)
    })
    if (desc) hi = next
    else lo = next
    // Next, as many rows as the hits per row so far say the rest needs (one more: the last day may
    // be cut), or twice as many when none matched yet.
    for (const d of days) rowsRead += d.parts.length
    batch = nextBatch(hits.length, need, rowsRead, batch, limits.maxRows)
  }
  return hits
}

/**
 * The days a walk's step gives, the day it goes on from (the first not covered, in its order), and whether
 * they were read (else taken from the cache).
 */
export interface TokenBatch {
  days: TokenDay[]
  next: number
  read: boolean
}

/**
 * The token rows of the next days of [lo, hi] in the walk's order, at least `limit` rows or to the end,
 * grouped by day, whole days only. Days the cache holds are taken from it, in a run while they follow
 * each other; else the rows up to the next held day are read (readTokenDays), and offered to the cache.
 */
export async function tokenDays(
  db: ClosebookDb,
  cache: DayTokensCache,
  connectionId: string,
  lo: number,
  hi: number,
  desc: boolean,
  limit: number,
): Promise<TokenBatch> {
  const step = desc ? -1 : 1
  const first = desc ? hi : lo
  const held: TokenDay[] = []
  let rows = 0
  for (let day = first; day >= lo && day <= hi && rows < limit; day += step) {
    const parts = cache.get(connectionId, day)
    if (!parts) break
    held.push({ day, parts: [...parts] })
    rows += parts.length
  }
  if (held.length > 0) return { days: held, next: first + step * held.length, read: false }
  // Up to the next held day, read as a walk without a cache reads.
  const until = cache.nearest(connectionId, lo, hi, desc)
  const [from, to] = until === undefined ? [lo, hi] : desc ? [until + 1, hi] : [lo, until - 1]
  const version = cache.begin()
  const days = await readTokenDays(db, connectionId, from, to, desc, limit)
  // Held in part order, whichever way the walk read them.
  for (const d of days)
    cache.put(
      version,
      connectionId,
      d.day,
      [...d.parts].sort((a, b) => a.part - b.part),
    )
  const edge = days[days.length - 1]
  const covered = days.reduce((n, d) => n + d.parts.length, 0) < limit || !edge
  return { days, next: covered ? (desc ? from - 1 : to + 1) : edge.day + step, read: true }
}

/** The token rows of `connectionId`'s days [lo, hi], ascending. */
const rangeOf = (db: ClosebookDb, connectionId: string, lo: number, hi: number) =>
  db.dayTokens
    .where('[connectionId+day+part]')
    .between(dayPartsRange(connectionId, lo)[0], dayPartsRange(connectionId, hi)[1])

/**
 * The token rows of the next days of [lo, hi] in the walk's order, at least `limit` rows or to the end,
 * grouped by day. Only whole days: when the rows fill the limit, the last day may go on past them, so the
 * rest of that day is read after them (no row is read twice).
 */
async function readTokenDays(
  db: ClosebookDb,
  connectionId: string,
  lo: number,
  hi: number,
  desc: boolean,
  limit: number,
): Promise<TokenDay[]> {
  let range = rangeOf(db, connectionId, lo, hi)
  if (desc) range = range.reverse()
  const rows = await range.limit(limit).toArray()
  const days: TokenDay[] = []
  for (const row of rows) {
    const last = days[days.length - 1]
    if (last?.day === row.day) last.parts.push(row)
    else days.push({ day: row.day, parts: [row] })
  }
  const edge = rows[rows.length - 1]
  const lastDay = days[days.length - 1]
  if (rows.length < limit || !edge || !lastDay) return days
  // The parts of the last day past the edge: higher numbers ascending, lower ones descending.
  const [dayStart, dayEnd] = dayPartsRange(connectionId, edge.day)
  const rest = desc
    ? db.dayTokens.where('[connectionId+day+part]').between(dayStart, [connectionId, edge.day, edge.part])
    : db.dayTokens
        .where('[connectionId+day+part]')
        .between([connectionId, edge.day, edge.part], dayEnd, false, false)
  for (const row of await rest.toArray()) lastDay.parts.push(row)
  return days
}
