/**
 * Transaction-history records: sync writes pages, the ledger reads filtered, ordered pages. A date range
 * alone walks the date index bounded by connection and time, so it never scans the whole table. A filter
 * on a field (store, type, status, currency, mode, brand) walks the day digests (`dayDigests`,
 * day-digests.ts) a few days at a time, and a search the day token rows (`dayTokens`, day-tokens.ts); both
 * then read only the page's records, by key. (The stored rows leave those fields to `raw`, so their old
 * indexes no longer answer: history-row.ts.) Time ranges are half-open: `from` inclusive, `to` exclusive.
 */
import type { Collection } from 'dexie'
import type { HistoryType, Mode } from '../../electron/shared/payment-api'
import type { ClosebookDb } from './database'
import { byTimeThenKey, matchesSearch, searchDayOf, searchTermsOf } from './history-record'
import { dayRowBatches, digestsInRange, markTargetOf } from './day-digests'
import { dayOfOffset, type DayCounts } from './day-counts'
import { dayPartsRange, tokenFieldsTest, tokenTextMatches, TOKEN_PART_SIZE } from './day-tokens'
import type { StoredHistoryRow } from './history-row'
import { HistoryWriter, type FingerprintOf, type PutPageResult } from './history-writer'
import { MarksRepository } from './marks-repository'
import {
  recordKeyOf,
  type HistoryRecord,
  type MarkTarget,
  type RecordDigest,
  type RecordKey,
  type SyncCheckpoint,
} from '../domain/records'
import { readInChunks } from './repository-helpers'
import type { DayTokensRecord } from './storage-rows'

export type { FingerprintOf, PutPageResult } from './history-writer'

export type ReconciledFilter = 'reconciled' | 'unreconciled' | 'changed'

export interface HistoryFilter {
  connectionId: string
  /** Epoch ms, inclusive. */
  from: number
  /** Epoch ms, exclusive. */
  to: number
  type?: HistoryType
  status?: string
  storeId?: string
  currency?: string
  mode?: Mode
  /** Exact card brand (`visa`, …); not indexed, tested in memory. */
  brand?: string
  /** Whitespace-separated terms; each must be a prefix of one of the record's search tokens. */
  search?: string
  reconciled?: ReconciledFilter
}

export interface HistoryQuery extends HistoryFilter {
  order: 'asc' | 'desc'
  offset: number
  limit: number
}

type EqualityField = 'storeId' | 'status' | 'currency' | 'type' | 'mode'

const EQUALITY_FIELDS: readonly EqualityField[] = ['storeId', 'status', 'currency', 'type', 'mode']

/** Day digest rows read per request when walking a filter's digests (a month's worth). */
const DIGEST_BATCH_DAYS = 31
/**
 * Day digest rows the first request of a page's walk reads; later requests read as many as the matches
 * per day so far say the page still needs (a common value fills a page in a day, a rare one reads on).
 */
const DIGEST_FIRST_DAYS = 2

type HistoryCollection = Collection<HistoryRecord, [string, RecordKey], StoredHistoryRow>
type HistoryKey = [string, RecordKey]

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
interface SearchHit {
  key: RecordKey
  createdAt: number
  digest?: RecordDigest
}

/** One UTC day's token rows. */
interface TokenDay {
  day: number
  parts: DayTokensRecord[]
}

/**
 * How many rows a walk that needs `need` hits reads next: as many as the hits per row so far say the rest
 * needs (one more: the last day may be cut), or twice as many while nothing matched; 1 to `max`.
 */
function nextBatch(hits: number, need: number, rowsRead: number, batch: number, max: number): number {
  const perRow = hits / rowsRead
  const wanted = perRow > 0 ? Math.ceil((need - hits) / perRow) + 1 : batch * 2
  return Math.max(1, Math.min(wanted, max))
}

/** The equality fields and the brand, as tests on a record or its digest. */
function fieldTests(filter: HistoryFilter): ((r: Pick<HistoryRecord, EqualityField | 'brand'>) => boolean)[] {
  const tests: ((r: Pick<HistoryRecord, EqualityField | 'brand'>) => boolean)[] = []
  for (const field of EQUALITY_FIELDS) {
    const wanted = filter[field]
    if (wanted !== undefined) tests.push((r) => r[field] === wanted)
  }
  const { brand } = filter
  if (brand !== undefined) tests.push((r) => r.brand === brand)
  return tests
}

/** Whether a filter's pages are read from the day digests (its matches counted per day, countByDay). */
function pagedByDigests(filter: HistoryFilter): boolean {
  if (searchTermsOf(filter.search ?? '').length > 0 || filter.reconciled === 'changed') return false
  return fieldTests(filter).length > 0 || filter.reconciled !== undefined
}

export class HistoryRepository {
  /** Writes go through the history writer, the one owner of the day indexes. */
  readonly writer: HistoryWriter

  constructor(
    private readonly db: ClosebookDb,
    fingerprintOf: FingerprintOf,
    private readonly searchLimits: SearchLimits = DEFAULT_SEARCH_LIMITS,
  ) {
    this.writer = new HistoryWriter(db, fingerprintOf, searchLimits.partSize)
  }

  /**
   * Stores one page and its checkpoint in one transaction: both land or neither does. Records are
   * replaced in place by key; marks are never rewritten, only their changed-since-reconciled flag is
   * raised when a reconciled record's fingerprint no longer matches.
   */
  putPage(
    connectionId: string,
    records: readonly HistoryRecord[],
    checkpoint: SyncCheckpoint,
  ): Promise<PutPageResult> {
    return this.writer.putHistoryPage(connectionId, records, checkpoint)
  }

  async get(connectionId: string, key: RecordKey): Promise<HistoryRecord | undefined> {
    return this.db.history.get([connectionId, key])
  }

  async getMany(connectionId: string, keys: readonly RecordKey[]): Promise<(HistoryRecord | undefined)[]> {
    return this.db.history.bulkGet(keys.map((k) => [connectionId, k] as [string, RecordKey]))
  }

  /**
   * One page of the ledger. `counts` (countByDay of the same filter) lets a page deep in a filter's
   * result start at the day holding its first row.
   */
  async queryPage(query: HistoryQuery, counts?: DayCounts | null): Promise<HistoryRecord[]> {
    const { db } = this
    return db.transaction('r', [db.history, db.markDays, db.dayTokens, db.dayDigests], async () => {
      if (query.reconciled === 'changed') {
        const rows = await this.changedRows(query)
        return rows.slice(query.offset, query.offset + query.limit)
      }
      const terms = searchTermsOf(query.search ?? '')
      if (terms.length > 0) return this.searchPage(query, terms)
      if (pagedByDigests(query)) return this.digestPage(query, counts ?? null)
      let coll = await this.dateCollection(query)
      if (query.order === 'desc') coll = coll.reverse()
      return coll.offset(query.offset).limit(query.limit).toArray()
    })
  }

  /**
   * Every record the filter matches, oldest first, without counting them first: a count costs as much as
   * the read here (each index entry is checked against its record), and ascending order lets IndexedDB
   * return a plain range in one request (getAll) instead of stepping a cursor. For "mark all matching".
   */
  async queryAll(filter: HistoryFilter): Promise<HistoryRecord[]> {
    return this.queryPage({ ...filter, order: 'asc', offset: 0, limit: Infinity })
  }

  /**
   * What "mark all matching" needs of every record the filter matches (MarkTarget), oldest first. Read
   * from the day digests of the filter's days — a few rows, not thousands of records — with a search's
   * matches taken from the day tokens first. Changed-since-reconciled records (few, found through the
   * marks) are read whole.
   */
  async markTargets(filter: HistoryFilter): Promise<MarkTarget[]> {
    const { connectionId } = filter
    if (filter.reconciled === 'changed') return (await this.queryAll(filter)).map(markTargetOf)
    const { db } = this
    const terms = searchTermsOf(filter.search ?? '')
    return db.transaction('r', [db.dayDigests, db.dayTokens, db.markDays, db.history], async () => {
      if (terms.length > 0) {
        const hits = await this.searchHits(filter, terms, 'asc', Infinity, true)
        // A hit without a digest (never expected: both are written together) is read from its record.
        const unDigested = hits.filter((h) => !h.digest).map((h) => h.key)
        const read = new Map(
          (await this.fetch(connectionId, unDigested)).map((r) => [r.key, markTargetOf(r)]),
        )
        return hits.flatMap((h): MarkTarget[] => {
          const target = h.digest
            ? { connectionId, key: h.key, createdAt: h.createdAt, fingerprint: h.digest.fingerprint }
            : read.get(h.key)
          return target ? [target] : []
        })
      }
      const targets: MarkTarget[] = []
      await this.eachDigest(filter, (d) => {
        targets.push({ connectionId, key: d.key, createdAt: d.createdAt, fingerprint: d.fingerprint })
      })
      return targets
    })
  }

  /**
   * Visits, oldest first, the digest of every record the filter matches (range, equality fields, brand,
   * reconciled; not text search, not the changed filter). Reads the day rows a month at a time, so
   * memory stays bounded over all periods. In a transaction that includes dayDigests and markDays.
   */
  private async eachDigest(
    filter: HistoryFilter,
    visit: (d: RecordDigest, day: number) => void,
  ): Promise<void> {
    const { connectionId, from, to } = filter
    if (!(to > from)) return
    const matches = await this.digestTest(filter)
    const days = { lo: searchDayOf(from), hi: searchDayOf(to - 1), desc: false }
    for await (const rows of dayRowBatches(this.db.dayDigests, connectionId, days, () => DIGEST_BATCH_DAYS))
      for (const row of rows) for (const d of row.records) if (matches(d)) visit(d, row.day)
  }

  /** What a digest must pass to match the filter: its range, equality fields, brand and reconciled state. */
  private async digestTest(filter: HistoryFilter): Promise<(d: RecordDigest) => boolean> {
    const { from, to } = filter
    const tests = fieldTests(filter)
    const keyTest = await this.reconciledTest(filter)
    return (d) =>
      d.createdAt >= from &&
      d.createdAt < to &&
      tests.every((t) => t(d)) &&
      (keyTest === null || keyTest(d.key))
  }

  /**
   * How many records the filter matches on each day, where its pages are read from day digests (a field
   * or reconciled filter without search); null otherwise. The count of such a filter walks the same rows.
   */
  async countByDay(filter: HistoryFilter): Promise<DayCounts | null> {
    if (!pagedByDigests(filter)) return null
    const { db } = this
    return db.transaction('r', [db.markDays, db.dayDigests], async () => {
      const days: { day: number; n: number }[] = []
      let total = 0
      await this.eachDigest(filter, (_, day) => {
        const last = days[days.length - 1]
        if (last?.day === day) last.n++
        else days.push({ day, n: 1 })
        total++
      })
      return { days, total }
    })
  }

  /** How many records the same filter matches (for the ledger's pager and totals). */
  async count(filter: HistoryFilter): Promise<number> {
    const { db } = this
    return db.transaction('r', [db.history, db.markDays, db.dayDigests, db.dayTokens], async () => {
      if (filter.reconciled === 'changed') return (await this.changedRows(filter)).length
      const terms = searchTermsOf(filter.search ?? '')
      if (terms.length > 0) return (await this.searchHits(filter, terms, 'asc', Infinity)).length
      // A row per day, not an index entry per record checked against its record (~0.1 ms each at 500k).
      let n = 0
      await this.eachDigest(filter, () => void n++)
      return n
    })
  }

  /**
   * A charge and its refunds, oldest first: the charge by its key, its refunds through the charge id
   * index (which rows written by the current history writer fill for refunds only: history-row.ts).
   */
  async byChargeId(connectionId: string, chargeId: string): Promise<HistoryRecord[]> {
    const { db } = this
    return db.transaction('r', db.history, async () => {
      const [charge, linked] = await Promise.all([
        db.history.get([connectionId, recordKeyOf('charge', chargeId)]),
        db.history.where('[connectionId+chargeId]').equals([connectionId, chargeId]).toArray(),
      ])
      const byKey = new Map(linked.map((r) => [r.key, r]))
      if (charge) byKey.set(charge.key, charge)
      return [...byKey.values()].sort(byTimeThenKey)
    })
  }

  /**
   * The refunds of some charges, whenever they were made (the charge id index): an order file's refunds
   * come weeks after its last order, and are read as far as the cache holds them.
   */
  async refundsOf(connectionId: string, chargeIds: readonly string[]): Promise<HistoryRecord[]> {
    if (chargeIds.length === 0) return []
    const { db } = this
    const rows = await db.history
      .where('[connectionId+chargeId]')
      .anyOf(chargeIds.map((id) => [connectionId, id]))
      .toArray()
    return rows.filter((r) => r.type === 'refund').sort(byTimeThenKey)
  }

  /** Every record of a connection in [from, to), oldest first. */
  async inRange(connectionId: string, from: number, to: number): Promise<HistoryRecord[]> {
    return this.dateRange(connectionId, from, to).toArray()
  }

  /**
   * The digests of a connection's records in [from, to), oldest first: what inRange's records are, as
   * their day digests (a day's row, not a record at a time).
   */
  async digestsInRange(connectionId: string, from: number, to: number): Promise<RecordDigest[]> {
    return digestsInRange(this.db.dayDigests, connectionId, from, to)
  }

  /** A connection's records in [from, to) through the date index: createdAt, then key. */
  private dateRange(connectionId: string, from: number, to: number): HistoryCollection {
    return this.db.history
      .where('[connectionId+createdAt]')
      .between([connectionId, from], [connectionId, to], true, false)
  }

  /**
   * A filter without field, search or changed filter: its range on the date index, and the reconciled
   * state tested on each key. (A Dexie filter sees the stored row, which may lack the item's fields.)
   */
  private async dateCollection(filter: HistoryFilter): Promise<HistoryCollection> {
    const coll = this.dateRange(filter.connectionId, filter.from, filter.to)
    const keyTest = await this.reconciledTest(filter)
    return keyTest ? coll.filter((r) => keyTest(r.key)) : coll
  }

  /**
   * Tests a whole record must pass: equality fields, the brand and the given search terms. The
   * reconciled filter is a key test (reconciledTest).
   */
  private recordTests(filter: HistoryFilter, terms: readonly string[]): ((r: HistoryRecord) => boolean)[] {
    const tests: ((r: HistoryRecord) => boolean)[] = fieldTests(filter)
    if (terms.length > 0) {
      const search = terms.join(' ')
      tests.push((r) => matchesSearch(r, search))
    }
    return tests
  }

  private async reconciledTest(filter: HistoryFilter): Promise<((key: RecordKey) => boolean) | null> {
    if (filter.reconciled !== 'reconciled' && filter.reconciled !== 'unreconciled') return null
    const reconciled = await this.reconciledKeys(filter)
    const want = filter.reconciled === 'reconciled'
    return (key) => reconciled.has(key) === want
  }

  /** Records by key, in the keys' order, a few hundred per request (each request is cloned in one task). */
  private async fetch(connectionId: string, keys: readonly RecordKey[]): Promise<HistoryRecord[]> {
    const rows = await readInChunks(
      keys.map((k): HistoryKey => [connectionId, k]),
      (chunk) => this.db.history.bulkGet(chunk),
    )
    return rows.filter((r): r is HistoryRecord => r !== undefined)
  }

  /**
   * The digests a field filter matches, in `order`, read a few days at a time until at least `need` are
   * in hand or the range ends. A day's row is whole, and its matches are sorted, so the first `need` hits
   * are exactly the first `need` matches (as searchHits does with token rows).
   */
  private async digestHits(
    filter: HistoryFilter,
    order: 'asc' | 'desc',
    need: number,
    startDay?: number,
  ): Promise<RecordDigest[]> {
    const { connectionId, from, to } = filter
    if (!(to > from) || need <= 0) return []
    const matches = await this.digestTest(filter)
    const desc = order === 'desc'
    const hits: RecordDigest[] = []
    let batch = need === Infinity ? DIGEST_BATCH_DAYS : DIGEST_FIRST_DAYS
    let daysRead = 0
    const days = { lo: searchDayOf(from), hi: searchDayOf(to - 1), desc }
    if (startDay !== undefined && desc) days.hi = Math.min(days.hi, startDay)
    if (startDay !== undefined && !desc) days.lo = Math.max(days.lo, startDay)
    for await (const rows of dayRowBatches(this.db.dayDigests, connectionId, days, () => batch)) {
      for (const row of rows) {
        const dayHits = row.records.filter(matches)
        dayHits.sort(byTimeThenKey)
        if (desc) dayHits.reverse()
        for (const d of dayHits) hits.push(d)
      }
      if (hits.length >= need) break
      daysRead += rows.length
      batch = nextBatch(hits.length, need, daysRead, batch, DIGEST_BATCH_DAYS)
    }
    return hits
  }

  /**
   * One page of a field or reconciled filter: its digests in order, then only the page's records, by key.
   * With the filter's day counts the walk starts at the day of the page's first row.
   */
  private async digestPage(query: HistoryQuery, counts: DayCounts | null): Promise<HistoryRecord[]> {
    const start = counts ? dayOfOffset(counts, query.offset, query.order) : null
    if (!start)
      return this.fetchPage(query, await this.digestHits(query, query.order, query.offset + query.limit))
    const offset = query.offset - start.skipped
    const hits = await this.digestHits(query, query.order, offset + query.limit, start.day)
    return this.fetchPage({ ...query, offset }, hits)
  }

  /** The page's records, by key, from the hits of its walk in order (at least offset + limit when there are). */
  private async fetchPage(
    query: HistoryQuery,
    hits: readonly { key: RecordKey }[],
  ): Promise<HistoryRecord[]> {
    return this.fetch(
      query.connectionId,
      hits.slice(query.offset, query.offset + query.limit).map((h) => h.key),
    )
  }

  /**
   * The records a search matches, in `order`, found a few days at a time (tokenDays, newest or oldest
   * first) until at least `need` are in hand or the period ends. Whole days are taken and each is sorted,
   * so the first `need` hits are exactly the first `need` matches. Equality fields and brand are tested
   * on the token rows too, the reconciled state on the marks' keys. No record is read; the same days'
   * digests are, when `withDigests` asks (a mark needs the fingerprint).
   */
  private async searchHits(
    filter: HistoryFilter,
    terms: readonly string[],
    order: 'asc' | 'desc',
    need: number,
    withDigests = false,
  ): Promise<SearchHit[]> {
    const { connectionId, from, to } = filter
    if (!(to > from)) return []
    const limits = this.searchLimits
    const fieldsTest = tokenFieldsTest(filter)
    const keyTest = await this.reconciledTest(filter)
    const desc = order === 'desc'
    const hits: SearchHit[] = []
    let lo = searchDayOf(from)
    let hi = searchDayOf(to - 1)
    // A count reads big batches from the start; a page starts small (a common name fills it in a day).
    let batch = need === Infinity ? limits.maxRows : limits.firstRows
    let rowsRead = 0
    while (lo <= hi && hits.length < need) {
      const days = await this.tokenDays(connectionId, lo, hi, desc, batch)
      const edge = days[days.length - 1]
      if (!edge) break
      const digests = withDigests
        ? await this.db.dayDigests.bulkGet(days.map((d): [string, number] => [connectionId, d.day]))
        : []
      days.forEach(({ parts }, i) => {
        let digestOf: Map<RecordKey, RecordDigest> | undefined
        const dayHits: SearchHit[] = []
        for (const part of parts) {
          for (let j = 0; j < part.keys.length; j++) {
            const createdAt = part.times[j] as number
            if (createdAt < from || createdAt >= to) continue
            if (!tokenTextMatches(part.texts[j] as string, terms)) continue
            if (fieldsTest && !fieldsTest(part, j)) continue
            const key = part.keys[j] as RecordKey
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
      if (desc) hi = edge.day - 1
      else lo = edge.day + 1
      // Next, as many rows as the hits per row so far say the rest needs (one more: the last day may
      // be cut), or twice as many when none matched yet.
      for (const d of days) rowsRead += d.parts.length
      batch = nextBatch(hits.length, need, rowsRead, batch, limits.maxRows)
    }
    return hits
  }

  /**
   * The token rows of the next days of [lo, hi] in the walk's order, at most `limit` rows, grouped by day.
   * Only whole days: when the rows fill the limit, the last day may go on past them, so it is left for the
   * next call — or, when it is the only day, read whole.
   */
  private async tokenDays(
    connectionId: string,
    lo: number,
    hi: number,
    desc: boolean,
    limit: number,
  ): Promise<TokenDay[]> {
    let range = this.db.dayTokens
      .where('[connectionId+day+part]')
      .between(dayPartsRange(connectionId, lo)[0], dayPartsRange(connectionId, hi)[1])
    if (desc) range = range.reverse()
    const rows = await range.limit(limit).toArray()
    const days: TokenDay[] = []
    for (const row of rows) {
      const last = days[days.length - 1]
      if (last?.day === row.day) last.parts.push(row)
      else days.push({ day: row.day, parts: [row] })
    }
    const [only] = days
    if (rows.length < limit || !only) return days
    if (days.length > 1) return days.slice(0, -1)
    const parts = await this.db.dayTokens
      .where('[connectionId+day+part]')
      .between(...dayPartsRange(connectionId, only.day))
      .toArray()
    return [{ day: only.day, parts }]
  }

  /** One page of a search: its hits in order, then only the page's records, by key. */
  private async searchPage(query: HistoryQuery, terms: readonly string[]): Promise<HistoryRecord[]> {
    return this.fetchPage(query, await this.searchHits(query, terms, query.order, query.offset + query.limit))
  }

  /** Keys of the reconciled records of the filter's days (a few outside its range: a key test only). */
  private async reconciledKeys(filter: HistoryFilter): Promise<Set<RecordKey>> {
    const marks = await new MarksRepository(this.db).overlapping(filter.connectionId, filter.from, filter.to)
    return new Set(marks.filter((m) => m.state === 'reconciled').map((m) => m.key))
  }

  /** Changed-since-reconciled rows are few: fetch them by key through the marks' flag index, then sort. */
  private async changedRows(filter: HistoryFilter & { order?: 'asc' | 'desc' }): Promise<HistoryRecord[]> {
    const { connectionId } = filter
    const marks = await new MarksRepository(this.db).listChangedSinceReconciled(connectionId)
    const keys = marks.map((m) => [connectionId, m.key] as [string, RecordKey])
    const rows = (await this.db.history.bulkGet(keys)).filter((r): r is HistoryRecord => r !== undefined)
    const tests = this.recordTests(filter, searchTermsOf(filter.search ?? ''))
    const matched = rows.filter(
      (r) => r.createdAt >= filter.from && r.createdAt < filter.to && tests.every((t) => t(r)),
    )
    // Same order as the index walk: createdAt, then key.
    matched.sort(byTimeThenKey)
    if (filter.order === 'desc') matched.reverse()
    return matched
  }
}
