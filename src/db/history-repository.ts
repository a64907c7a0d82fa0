/**
 * Transaction-history records: sync writes pages, the ledger reads filtered, ordered pages. Queries
 * walk one compound index bounded by connection (and one equality filter) and the time range, so
 * they never scan the whole table; a search reads the `searchTokens` index day by day instead (searchDays).
 * Time ranges are half-open: `from` inclusive, `to` exclusive.
 */
import type { Collection } from 'dexie'
import type { HistoryType, Mode } from '../../electron/shared/payment-api'
import type { ClosebookDb } from './database'
import { matchesSearch, searchDayBounds, searchDayOf, searchTermsOf, tokenPrefix } from './history-record'
import { markTargetOf, putDigests } from './day-digests'
import { flagChangedMarks, MarksRepository } from './marks-repository'
import type { HistoryRecord, MarkTarget, RecordDigest, RecordKey, SyncCheckpoint } from './records'
import { assertSameConnection } from './repository-helpers'

/** The fingerprint rule lives with the reconciliation logic; the cache only compares. */
export type FingerprintOf = (record: HistoryRecord) => string

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

export interface PutPageResult {
  written: number
  /** Keys whose reconciled mark was flagged changed-since-reconciled by this page. */
  flagged: RecordKey[]
}

type EqualityField = 'storeId' | 'status' | 'currency' | 'type' | 'mode'

/** When several equality filters are set, the index on the likeliest-narrowest field is walked. */
const INDEX_PRIORITY: readonly EqualityField[] = ['storeId', 'status', 'currency', 'type', 'mode']

/** Day digest rows read per request when walking a filter's digests (a month's worth). */
const DIGEST_BATCH_DAYS = 31
/** Up to this many days, a count with an equality filter reads digests rather than its index. */
const DIGEST_COUNT_MAX_DAYS = 92

type HistoryCollection = Collection<HistoryRecord, [string, RecordKey]>
type HistoryKey = [string, RecordKey]

/** Thresholds of the search; tests set them to drive every path on a small set. */
export interface SearchLimits {
  /**
   * Days whose token entries the page walk reads in its first round. Later rounds read about as many days
   * as the rows found per day so far say are still needed (at most twice the last round): a page of a
   * common name is found in the newest day or two, a rare term reads more days per round.
   */
  firstDays: number
  /**
   * The page walk reads only the rarest-looking term's entries (the longest) and tests the others on the
   * fetched records: every entry read costs about as much as a record. When fewer than this share of a
   * round's fetched candidates pass the other terms, later rounds intersect every term's entries instead.
   */
  intersectBelow: number
  /** A period spanning more days than this is searched by the range scan: one request a day would cost more. */
  maxDays: number
  /**
   * A day with more candidates than this many times the rows still wanted is walked in order through the
   * date index (stopping at the page) instead of fetching all its candidates: a broad term such as "com".
   */
  dayWalkFactor: number
  /** Up to this many candidates are fetched by key for a count with record filters, without the range's keys. */
  directCandidates: number
  /**
   * What fetching one record costs in keys read (measured in Chromium: a record by key ≈ 4–6 index keys).
   * A count with record filters reads the range's keys when it has fewer than candidates × this.
   */
  recordCostInKeys: number
}

export const DEFAULT_SEARCH_LIMITS: SearchLimits = {
  firstDays: 1,
  intersectBelow: 0.5,
  maxDays: 4000,
  dayWalkFactor: 2,
  directCandidates: 200,
  recordCostInKeys: 4,
}

/** The search's candidates of one UTC day: the records whose tokens match every term. */
interface DayCandidates {
  day: number
  keys: RecordKey[]
}

/** The equality fields other than `indexed`, and the brand, as tests on a record or its digest. */
function fieldTests(
  filter: HistoryFilter,
  indexed: EqualityField | undefined,
): ((r: Pick<HistoryRecord, EqualityField | 'brand'>) => boolean)[] {
  const tests: ((r: Pick<HistoryRecord, EqualityField | 'brand'>) => boolean)[] = []
  for (const field of INDEX_PRIORITY) {
    const wanted = filter[field]
    if (field !== indexed && wanted !== undefined) tests.push((r) => r[field] === wanted)
  }
  const { brand } = filter
  if (brand !== undefined) tests.push((r) => r.brand === brand)
  return tests
}

const byTimeThenKey = (
  a: Pick<HistoryRecord, 'createdAt' | 'key'>,
  b: Pick<HistoryRecord, 'createdAt' | 'key'>,
): number => a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

export class HistoryRepository {
  constructor(
    private readonly db: ClosebookDb,
    private readonly fingerprintOf: FingerprintOf,
    private readonly searchLimits: SearchLimits = DEFAULT_SEARCH_LIMITS,
  ) {}

  /**
   * Stores one page and its checkpoint in one transaction: both land or neither does. Records are
   * replaced in place by key; marks are never rewritten, only their changed-since-reconciled flag is
   * raised when a reconciled record's fingerprint no longer matches.
   */
  async putPage(
    connectionId: string,
    records: readonly HistoryRecord[],
    checkpoint: SyncCheckpoint,
  ): Promise<PutPageResult> {
    assertSameConnection(connectionId, records, 'history page')
    assertSameConnection(connectionId, [checkpoint], 'checkpoint')
    const { db } = this
    return db.transaction('rw', [db.history, db.dayDigests, db.checkpoints, db.markDays], async () => {
      await db.history.bulkPut(records)
      await putDigests(db.dayDigests, connectionId, records)
      await db.checkpoints.put(checkpoint)
      const flagged = await flagChangedMarks(db.markDays, connectionId, records, this.fingerprintOf)
      return { written: records.length, flagged }
    })
  }

  async get(connectionId: string, key: RecordKey): Promise<HistoryRecord | undefined> {
    return this.db.history.get([connectionId, key])
  }

  async getMany(connectionId: string, keys: readonly RecordKey[]): Promise<(HistoryRecord | undefined)[]> {
    return this.db.history.bulkGet(keys.map((k) => [connectionId, k] as [string, RecordKey]))
  }

  /** One page of the ledger. */
  async queryPage(query: HistoryQuery): Promise<HistoryRecord[]> {
    const { db } = this
    return db.transaction('r', db.history, db.markDays, async () => {
      if (query.reconciled === 'changed') {
        const rows = await this.changedRows(query)
        return rows.slice(query.offset, query.offset + query.limit)
      }
      const terms = searchTermsOf(query.search ?? '')
      const days = terms.length > 0 ? await this.searchDays(query) : 'scan'
      if (days !== 'scan') return this.searchPage(query, terms, days)
      let coll = await this.collection(query)
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
   * from the day digests of the filter's days — a few rows, not thousands of records — unless the filter
   * searches text (tokens are not in the digests) or asks for changed-since-reconciled records (few,
   * read through the marks): those read the records.
   */
  async markTargets(filter: HistoryFilter): Promise<MarkTarget[]> {
    const { connectionId } = filter
    if (searchTermsOf(filter.search ?? '').length > 0 || filter.reconciled === 'changed') {
      return (await this.queryAll(filter)).map(markTargetOf)
    }
    const { db } = this
    return db.transaction('r', db.dayDigests, db.markDays, async () => {
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
  private async eachDigest(filter: HistoryFilter, visit: (d: RecordDigest) => void): Promise<void> {
    const { connectionId, from, to } = filter
    if (!(to > from)) return
    const tests = fieldTests(filter, undefined)
    const keyTest = await this.reconciledTest(filter)
    const last = searchDayOf(to - 1)
    for (let day = searchDayOf(from); day <= last;) {
      const rows = await this.db.dayDigests
        .where('[connectionId+day]')
        .between([connectionId, day], [connectionId, last], true, true)
        .limit(DIGEST_BATCH_DAYS)
        .toArray()
      for (const row of rows)
        for (const d of row.records) {
          if (d.createdAt < from || d.createdAt >= to || !tests.every((t) => t(d))) continue
          if (keyTest && !keyTest(d.key)) continue
          visit(d)
        }
      const next = rows[rows.length - 1]
      if (rows.length < DIGEST_BATCH_DAYS || !next) break
      day = next.day + 1
    }
  }

  /** How many records the same filter matches (for the ledger's pager and totals). */
  async count(filter: HistoryFilter): Promise<number> {
    const { db } = this
    return db.transaction('r', db.history, db.markDays, db.dayDigests, async () => {
      if (filter.reconciled === 'changed') return (await this.changedRows(filter)).length
      const terms = searchTermsOf(filter.search ?? '')
      if (terms.length === 0 && (await this.countsByDigest(filter))) {
        let n = 0
        await this.eachDigest(filter, () => void n++)
        return n
      }
      const days = terms.length > 0 ? await this.searchDays(filter) : 'scan'
      if (days !== 'scan') return this.searchCount(filter, terms, days)
      return (await this.collection(filter)).count()
    })
  }

  /** A charge and its refunds, oldest first. */
  async byChargeId(connectionId: string, chargeId: string): Promise<HistoryRecord[]> {
    return this.db.history
      .where('[connectionId+chargeId]')
      .equals([connectionId, chargeId])
      .sortBy('createdAt')
  }

  /** Every record of a connection in [from, to), oldest first. */
  async inRange(connectionId: string, from: number, to: number): Promise<HistoryRecord[]> {
    return this.dateRange(connectionId, from, to).toArray()
  }

  /** A connection's records in [from, to) through the date index: createdAt, then key. */
  private dateRange(connectionId: string, from: number, to: number): HistoryCollection {
    return this.db.history
      .where('[connectionId+createdAt]')
      .between([connectionId, from], [connectionId, to], true, false)
  }

  /** The filter's range on the index rangeIndex() picks (its first equality field, else the date). */
  private indexRange(filter: HistoryFilter): HistoryCollection {
    const { connectionId, from, to } = filter
    const indexed = this.rangeIndex(filter)
    return indexed
      ? this.db.history
          .where(`[connectionId+${indexed}+createdAt]`)
          .between([connectionId, filter[indexed], from], [connectionId, filter[indexed], to], true, false)
      : this.dateRange(connectionId, from, to)
  }

  private async collection(filter: HistoryFilter): Promise<HistoryCollection> {
    const indexed = this.rangeIndex(filter)
    let coll = this.indexRange(filter)
    const tests = this.recordTests(filter, indexed, searchTermsOf(filter.search ?? ''))
    const keyTest = await this.reconciledTest(filter)
    if (keyTest) tests.push((r) => keyTest(r.key))
    if (tests.length > 0) coll = coll.filter((r) => tests.every((t) => t(r)))
    return coll
  }

  /** The index a filter's range walk uses: the first equality field set, else the date index. */
  private rangeIndex(filter: HistoryFilter): EqualityField | undefined {
    return INDEX_PRIORITY.find((f) => filter[f] !== undefined)
  }

  /** Primary keys of the range walk collection() would do, in its order (createdAt, then key). */
  private async rangeKeys(filter: HistoryFilter, limit: number): Promise<RecordKey[]> {
    const pks = (await this.indexRange(filter).limit(limit).primaryKeys()) as HistoryKey[]
    return pks.map(([, key]) => key)
  }

  /**
   * Tests a record must pass beyond what an index already answered: equality fields other than
   * `indexed`, the brand and the given search terms. The reconciled filter is a key test (reconciledTest).
   */
  private recordTests(
    filter: HistoryFilter,
    indexed: EqualityField | undefined,
    terms: readonly string[],
  ): ((r: HistoryRecord) => boolean)[] {
    const tests: ((r: HistoryRecord) => boolean)[] = fieldTests(filter, indexed)
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

  private async fetch(connectionId: string, keys: readonly RecordKey[]): Promise<HistoryRecord[]> {
    const rows = await this.db.history.bulkGet(keys.map((k) => [connectionId, k] as HistoryKey))
    return rows.filter((r): r is HistoryRecord => r !== undefined)
  }

  /**
   * The UTC days a search reads (tokenPrefix), oldest first: those from the first to the last record of
   * the filter's range, so "all periods" costs the days the cache holds, not the days since 1970. 'scan'
   * when they are more than `maxDays`; the range scan (collection()) then answers by the same rule.
   */
  private async searchDays(filter: HistoryFilter): Promise<number[] | 'scan'> {
    const { connectionId, from, to } = filter
    const range = () => this.dateRange(connectionId, from, to)
    const [first, last] = await Promise.all([range().first(), range().last()])
    if (!first || !last) return []
    const d0 = searchDayOf(first.createdAt)
    const d1 = searchDayOf(last.createdAt)
    if (d1 - d0 + 1 > this.searchLimits.maxDays) return 'scan'
    return Array.from({ length: d1 - d0 + 1 }, (_, i) => d0 + i)
  }

  /**
   * The keys of one day's records that match every term: each term's keys are the primary keys of the
   * day's tokens it is a prefix of, and the terms' sets are intersected (longest term first: it tends to
   * be the rarest, and an empty intersection ends the day early).
   */
  private async dayCandidates(
    connectionId: string,
    day: number,
    terms: readonly string[],
  ): Promise<DayCandidates> {
    const prefix = tokenPrefix(connectionId, day)
    let keys: Set<RecordKey> | null = null
    for (const term of terms) {
      const pks = (await this.db.history
        .where('searchTokens')
        .startsWith(prefix + term)
        .primaryKeys()) as HistoryKey[]
      // One record can have several tokens with the prefix: the set dedupes them.
      const next = new Set<RecordKey>()
      for (const [, key] of pks) if (keys === null || keys.has(key)) next.add(key)
      keys = next
      if (keys.size === 0) break
    }
    return { day, keys: [...(keys ?? [])] }
  }

  /** Candidates of many days, requested together so IndexedDB answers them back to back. */
  private async daysCandidates(
    connectionId: string,
    days: readonly number[],
    terms: readonly string[],
  ): Promise<DayCandidates[]> {
    const byLength = [...terms].sort((a, b) => b.length - a.length)
    return Promise.all(days.map((d) => this.dayCandidates(connectionId, d, byLength)))
  }

  /** Every test a search candidate must pass besides its terms: range, equality fields, brand, reconciled. */
  private async candidateTest(filter: HistoryFilter): Promise<(r: HistoryRecord) => boolean> {
    const tests = this.recordTests(filter, undefined, [])
    const keyTest = await this.reconciledTest(filter)
    return (r) =>
      r.createdAt >= filter.from &&
      r.createdAt < filter.to &&
      (!keyTest || keyTest(r.key)) &&
      tests.every((t) => t(r))
  }

  /**
   * One page of a search: the days are walked in the page's order, a batch of days' candidates at a time,
   * until the rows before and on the page are in hand. A day's candidates are fetched whole (their order
   * within the day is not in the index), unless they are many more than the rows still wanted: then the
   * day is walked in order through the date index, testing membership, and the walk stops at the page.
   * Whole days in order, then sorted, give exactly the first `offset + limit` rows. Measured on 500k
   * records in Chromium, reading an index entry costs about as much as reading a record (~0.15 ms), so the
   * walk reads as few days and entries as it can (SearchLimits.firstDays, intersectBelow).
   */
  private async searchPage(
    query: HistoryQuery,
    terms: readonly string[],
    days: readonly number[],
  ): Promise<HistoryRecord[]> {
    const { connectionId } = query
    const limits = this.searchLimits
    const need = query.offset + query.limit
    const desc = query.order === 'desc'
    const ordered = desc ? [...days].reverse() : days
    const byLength = [...terms].sort((a, b) => b.length - a.length)
    const driver = byLength.slice(0, 1)
    const others = byLength.slice(1)
    const test = await this.candidateTest(query)
    const otherSearch = others.join(' ')
    const matchesOthers = (r: HistoryRecord): boolean => others.length === 0 || matchesSearch(r, otherSearch)
    const fullTest = (r: HistoryRecord): boolean => test(r) && matchesOthers(r)
    let intersect = false
    const rows: HistoryRecord[] = []
    let batch = Math.max(1, limits.firstDays)
    let daysRead = 0
    for (let i = 0; i < ordered.length && rows.length < need;) {
      const slice = ordered.slice(i, i + batch)
      i += slice.length
      daysRead += slice.length
      let pending = await this.daysCandidates(connectionId, slice, intersect ? byLength : driver)
      let fetchedCount = 0
      let passed = 0
      while (pending.length > 0 && rows.length < need) {
        const wanted = need - rows.length
        const head = pending[0] as DayCandidates
        if (head.keys.length > wanted * limits.dayWalkFactor) {
          rows.push(...(await this.walkDay(query, head, wanted, fullTest)))
          pending = pending.slice(1)
          continue
        }
        // Whole days, in order, while they are likely to be needed: one request fetches them all.
        let n = 0
        let size = 0
        while (n < pending.length && size < wanted) {
          const next = (pending[n] as DayCandidates).keys.length
          if (size + next > wanted * limits.dayWalkFactor) break
          size += next
          n++
        }
        const keys = pending.slice(0, n).flatMap((d) => d.keys)
        if (keys.length > 0) {
          for (const r of await this.fetch(connectionId, keys)) {
            if (!test(r)) continue
            fetchedCount++
            if (intersect || matchesOthers(r)) {
              passed++
              rows.push(r)
            }
          }
        }
        pending = pending.slice(n)
      }
      // The other terms rejected most of what the driver found: intersect the terms' entries from now on.
      if (
        !intersect &&
        others.length > 0 &&
        fetchedCount > 0 &&
        passed < fetchedCount * limits.intersectBelow
      )
        intersect = true
      const perDay = rows.length / daysRead
      const stillWanted = need - rows.length
      batch = perDay > 0 ? Math.min(batch * 2, Math.ceil(stillWanted / perDay) + 1) : batch * 2
    }
    rows.sort(byTimeThenKey)
    if (desc) rows.reverse()
    return rows.slice(query.offset, need)
  }

  /** Up to `wanted` of a day's candidates in the query's order, walking the date index over the day. */
  private async walkDay(
    query: HistoryQuery,
    { day, keys }: DayCandidates,
    wanted: number,
    test: (r: HistoryRecord) => boolean,
  ): Promise<HistoryRecord[]> {
    const { connectionId } = query
    const picked = new Set(keys)
    const [dayStart, dayEnd] = searchDayBounds(day)
    let walk = this.dateRange(connectionId, Math.max(dayStart, query.from), Math.min(dayEnd, query.to))
    if (query.order === 'desc') walk = walk.reverse()
    return walk
      .filter((r) => picked.has(r.key) && test(r))
      .limit(wanted)
      .toArray()
  }

  /**
   * How many records a search matches. With no record filter, a day's candidates are all in range except
   * on the first and last day, which the period may cut: those are checked against the date index's keys
   * of their part in range, so no record is fetched. With record filters (store, type, brand…), the
   * filter's range keys pick from the candidates when they are fewer than fetching the candidates would
   * cost, else the candidates are fetched and tested.
   */
  private async searchCount(
    filter: HistoryFilter,
    terms: readonly string[],
    days: readonly number[],
  ): Promise<number> {
    const { connectionId, from, to } = filter
    const limits = this.searchLimits
    const perDay = await this.daysCandidates(connectionId, days, terms)
    const keyTest = (await this.reconciledTest(filter)) ?? (() => true)
    if (this.recordTests(filter, undefined, []).length === 0) {
      let n = 0
      for (const { day, keys } of perDay) {
        if (keys.length === 0) continue
        const [dayStart, dayEnd] = searchDayBounds(day)
        if (dayStart >= from && dayEnd <= to) {
          for (const k of keys) if (keyTest(k)) n++
          continue
        }
        const part = { connectionId, from: Math.max(from, dayStart), to: Math.min(to, dayEnd) }
        const inRange = new Set(await this.rangeKeys(part, 2 ** 31))
        for (const k of keys) if (inRange.has(k) && keyTest(k)) n++
      }
      return n
    }
    const candidates = new Set(perDay.flatMap((d) => d.keys))
    if (candidates.size > limits.directCandidates) {
      const cap = Math.min(Math.floor(candidates.size * limits.recordCostInKeys), 2 ** 31)
      const inRange = await this.rangeKeys(filter, cap + 1)
      if (inRange.length <= cap) {
        const keys = inRange.filter((k) => candidates.has(k) && keyTest(k))
        const tests = this.recordTests(filter, this.rangeIndex(filter), [])
        if (tests.length === 0) return keys.length
        // Fields no index answered need the records.
        return (await this.fetch(connectionId, keys)).filter((r) => tests.every((t) => t(r))).length
      }
    }
    const test = await this.candidateTest(filter)
    return (await this.fetch(connectionId, [...candidates])).filter(test).length
  }

  /**
   * Whether a count reads the day digests rather than an index. An index count checks each entry against
   * its record (~0.1 ms each at 500k), digests cost a row per day: they win on a date range alone, or on
   * an equality filter over a few months; a selective field over years is counted through its index.
   */
  private async countsByDigest(filter: HistoryFilter): Promise<boolean> {
    if (this.rangeIndex(filter) === undefined) return true
    const days = await this.searchDays(filter)
    return days !== 'scan' && days.length <= DIGEST_COUNT_MAX_DAYS
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
    const tests = this.recordTests(filter, undefined, searchTermsOf(filter.search ?? ''))
    const matched = rows.filter(
      (r) => r.createdAt >= filter.from && r.createdAt < filter.to && tests.every((t) => t(r)),
    )
    // Same order as the index walk: createdAt, then key.
    matched.sort(byTimeThenKey)
    if (filter.order === 'desc') matched.reverse()
    return matched
  }
}
