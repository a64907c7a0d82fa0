/**
 * Transaction-history records: sync writes pages, the ledger reads filtered, ordered pages. A date range
 * alone walks the date index bounded by connection and time, so it never scans the whole table. A filter
 * on a field (store, type, status, currency, mode, brand) walks the day digests (`dayDigests`,
 * day-digests.ts) a few days at a time, and a search the day token rows (`dayTokens`, day-tokens.ts); both
 * then read only the page's records, by key. (The stored rows leave those fields to `raw`, so their old
 * indexes no longer answer: history-row.ts.) Time ranges are half-open: `from` inclusive, `to` exclusive.
 */
import type { ClosebookDb } from './database'
import { byTimeThenKey, matchesSearch, searchTermsOf } from './history-record'
import { digestsInRange, markTargetOf } from './day-digests'
import { dayOfOffset, type DayCounts } from './day-counts'
import { fieldTests, pagedByDigests, type HistoryFilter, type HistoryQuery } from './history-filter'
import { digestHits, eachDigest, reconciledTest } from './history-digest-walk'
import { DEFAULT_SEARCH_LIMITS, searchHits, type SearchHit, type SearchLimits } from './history-search'
import {
  chargeWithRefunds,
  historyByKeys,
  historyInRange,
  historyOfHits,
  refundsOfCharges,
} from './history-part-reads'
import { stopWarming, warmTokenDays } from './token-warm'
import { HistoryWriter, type FingerprintOf, type PutPageResult } from './history-writer'
import { MarksRepository } from './marks-repository'
import {
  type HistoryRecord,
  type MarkTarget,
  type RecordDigest,
  type RecordKey,
  type SyncCheckpoint,
} from '../domain/records'
import { daySummariesOf } from './day-summaries'
import { countFromSummaries } from './summary-count'

export type { FingerprintOf, PutPageResult } from './history-writer'
export type { HistoryFilter, HistoryQuery, ReconciledFilter } from './history-filter'
export { DEFAULT_SEARCH_LIMITS, type SearchLimits } from './history-search'

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
    const [found] = await this.getMany(connectionId, [key])
    return found
  }

  /** Records by key, in the keys' order (undefined where not cached): day parts, then older rows. */
  async getMany(connectionId: string, keys: readonly RecordKey[]): Promise<(HistoryRecord | undefined)[]> {
    const { db } = this
    return db.transaction('r', db.historyRecordTables(), () => historyByKeys(db, connectionId, keys))
  }

  /**
   * One page of the ledger. `counts` (countByDay of the same filter) lets a page deep in a filter's
   * result start at the day holding its first row.
   */
  async queryPage(query: HistoryQuery, counts?: DayCounts | null): Promise<HistoryRecord[]> {
    const { db } = this
    return db.transaction(
      'r',
      [...this.recordTables(), db.markDays, db.dayTokens, db.dayDigests, db.daySummaries],
      async () => {
        if (query.reconciled === 'changed') {
          const rows = await this.changedRows(query)
          return rows.slice(query.offset, query.offset + query.limit)
        }
        const terms = searchTermsOf(query.search ?? '')
        if (terms.length > 0) return this.searchPage(query, terms)
        if (pagedByDigests(query)) return this.digestPage(query, counts ?? null)
        return this.rangePage(query, counts ?? null)
      },
    )
  }

  /** The tables whole records are read from: day parts, the rows from before them, set-aside rows. */
  private recordTables() {
    return this.db.historyRecordTables()
  }

  /**
   * One page of a range-only filter: the digests of its days in order, then the page's records by key.
   * Deep in the range the day summaries say which day holds the page's first row.
   */
  private async rangePage(query: HistoryQuery, counts: DayCounts | null): Promise<HistoryRecord[]> {
    const { db } = this
    if (query.limit === Infinity && query.offset === 0 && query.order === 'asc') {
      const all = await this.inRange(query.connectionId, query.from, query.to)
      const keyTest = await reconciledTest(this.db, query)
      return keyTest ? all.filter((r) => keyTest(r.key)) : all
    }
    const byDay =
      counts ?? (query.offset > 0 ? await countFromSummaries(db, daySummariesOf(db), query) : null)
    return this.digestPage(query, byDay)
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
    return db.transaction(
      'r',
      [db.dayDigests, db.dayTokens, db.markDays, ...this.recordTables()],
      async () => {
        if (terms.length > 0) {
          const hits = await this.search(filter, terms, 'asc', Infinity, true)
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
        await eachDigest(this.db, filter, (d) => {
          targets.push({ connectionId, key: d.key, createdAt: d.createdAt, fingerprint: d.fingerprint })
        })
        return targets
      },
    )
  }

  /**
   * How many records the filter matches on each day, where its pages are read from day digests (a field
   * or reconciled filter without search); null otherwise. The count of such a filter walks the same rows.
   */
  async countByDay(filter: HistoryFilter): Promise<DayCounts | null> {
    if (!pagedByDigests(filter)) return null
    const { db } = this
    return db.transaction('r', [db.markDays, db.dayDigests, db.daySummaries], async () => {
      // Without a reconciled state the day summaries answer for every day the range covers whole.
      if (filter.reconciled === undefined) return countFromSummaries(db, daySummariesOf(db), filter)
      const days: { day: number; n: number }[] = []
      let total = 0
      await eachDigest(this.db, filter, (_, day) => {
        const last = days[days.length - 1]
        if (last?.day === day) last.n++
        else days.push({ day, n: 1 })
        total++
      })
      return { days, total }
    })
  }

  /**
   * How many records a connection has on each UTC day of [from, to): the day summaries for the days the
   * range holds whole, the digests for a day it cuts (countFromSummaries), no record read.
   */
  async countRangeByDay(connectionId: string, from: number, to: number): Promise<DayCounts> {
    const { db } = this
    return db.transaction('r', [db.dayDigests, db.daySummaries], () =>
      countFromSummaries(db, daySummariesOf(db), { connectionId, from, to }),
    )
  }

  /** How many records the same filter matches (for the ledger's pager and totals). */
  async count(filter: HistoryFilter): Promise<number> {
    const { db } = this
    const tables = [...this.recordTables(), db.markDays, db.dayDigests, db.daySummaries, db.dayTokens]
    return db.transaction('r', tables, async () => {
      if (filter.reconciled === 'changed') return (await this.changedRows(filter)).length
      const terms = searchTermsOf(filter.search ?? '')
      if (terms.length > 0) return (await this.search(filter, terms, 'asc', Infinity)).length
      if (filter.reconciled === undefined)
        return (await countFromSummaries(db, daySummariesOf(db), filter)).total
      // A row per day, not an index entry per record checked against its record (~0.1 ms each at 500k).
      let n = 0
      await eachDigest(this.db, filter, () => void n++)
      return n
    })
  }

  /**
   * Starts reading a period's search token parts into memory (token-warm.ts), superseding the period
   * warmed before, so a name searched in it later counts from held parts. Resolves when the warm ends.
   */
  warmSearch(connectionId: string, from: number, to: number): Promise<void> {
    return warmTokenDays(this.db, connectionId, from, to, this.searchLimits.maxRows)
  }

  /** Stops the period's warm under way, if any (another period is shown now). */
  stopWarmingSearch(): void {
    stopWarming(this.db)
  }

  /**
   * A charge and its refunds, oldest first: the charge by its key, its refunds through the charge id
   * index (which rows written by the current history writer fill for refunds only: history-row.ts).
   */
  async byChargeId(connectionId: string, chargeId: string): Promise<HistoryRecord[]> {
    const { db } = this
    return db.transaction('r', this.recordTables(), () => chargeWithRefunds(db, connectionId, chargeId))
  }

  /**
   * The refunds of some charges, whenever they were made (the charge id index): an order file's refunds
   * come weeks after its last order, and are read as far as the cache holds them.
   */
  async refundsOf(connectionId: string, chargeIds: readonly string[]): Promise<HistoryRecord[]> {
    const { db } = this
    return db.transaction('r', this.recordTables(), () => refundsOfCharges(db, connectionId, chargeIds))
  }

  /** Every record of a connection in [from, to), oldest first. */
  async inRange(connectionId: string, from: number, to: number): Promise<HistoryRecord[]> {
    const { db } = this
    return db.transaction('r', this.recordTables(), () => historyInRange(db, connectionId, from, to))
  }

  /**
   * The digests of a connection's records in [from, to), oldest first: what inRange's records are, as
   * their day digests (a day's row, not a record at a time).
   */
  async digestsInRange(connectionId: string, from: number, to: number): Promise<RecordDigest[]> {
    return digestsInRange(this.db.dayDigests, connectionId, from, to)
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

  /** Records by key, in the keys' order, a few hundred per request (each request is cloned in one task). */
  private async fetch(connectionId: string, keys: readonly RecordKey[]): Promise<HistoryRecord[]> {
    const rows = await historyByKeys(this.db, connectionId, keys)
    return rows.filter((r): r is HistoryRecord => r !== undefined)
  }

  /**
   * One page of a field or reconciled filter: its digests in order, then only the page's records, by key.
   * With the filter's day counts the walk starts at the day of the page's first row.
   */
  private async digestPage(query: HistoryQuery, counts: DayCounts | null): Promise<HistoryRecord[]> {
    const start = counts ? dayOfOffset(counts, query.offset, query.order) : null
    if (!start)
      return this.fetchPage(query, await digestHits(this.db, query, query.order, query.offset + query.limit))
    const offset = query.offset - start.skipped
    const hits = await digestHits(this.db, query, query.order, offset + query.limit, start.day)
    return this.fetchPage({ ...query, offset }, hits)
  }

  /**
   * The page's records from the hits of its walk in order (at least offset + limit when there are): read
   * from the parts of the hits' days, which their times name, so no key is looked up one by one.
   */
  private async fetchPage(
    query: HistoryQuery,
    hits: readonly { key: RecordKey; createdAt: number }[],
  ): Promise<HistoryRecord[]> {
    const page = hits.slice(query.offset, query.offset + query.limit)
    const rows = await historyOfHits(this.db, query.connectionId, page)
    return rows.filter((r): r is HistoryRecord => r !== undefined)
  }

  /** The search's matches of `filter` (history-search.ts), with its reconciled test. */
  private async search(
    filter: HistoryFilter,
    terms: readonly string[],
    order: 'asc' | 'desc',
    need: number,
    withDigests = false,
  ): Promise<SearchHit[]> {
    const keyTest = await reconciledTest(this.db, filter)
    return searchHits(this.db, this.searchLimits, keyTest, filter, terms, order, need, withDigests)
  }

  /** One page of a search: its hits in order, then only the page's records, by key. */
  private async searchPage(query: HistoryQuery, terms: readonly string[]): Promise<HistoryRecord[]> {
    return this.fetchPage(query, await this.search(query, terms, query.order, query.offset + query.limit))
  }

  /** Changed-since-reconciled rows are few: fetch them by key through the marks' flag index, then sort. */
  private async changedRows(filter: HistoryFilter & { order?: 'asc' | 'desc' }): Promise<HistoryRecord[]> {
    const { connectionId } = filter
    const marks = await new MarksRepository(this.db).listChangedSinceReconciled(connectionId)
    const rows = await this.fetch(
      connectionId,
      marks.map((m) => m.key),
    )
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
