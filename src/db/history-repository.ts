/**
 * Transaction-history records: sync writes pages, the ledger reads filtered, ordered pages. Queries
 * walk one compound index bounded by connection (and one equality filter) and the time range, so
 * they never scan the whole table; a search starts from the `searchTokens` index instead (searchPlan).
 * Time ranges are half-open: `from` inclusive, `to` exclusive.
 */
import type { Collection } from 'dexie'
import type { HistoryType, Mode } from '../../electron/shared/payment-api'
import type { ClosebookDb } from './database'
import { matchesSearch, searchTermsOf, tokenScope } from './history-record'
import type { HistoryRecord, RecordKey, SyncCheckpoint } from './records'
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

type HistoryCollection = Collection<HistoryRecord, [string, RecordKey]>
type HistoryKey = [string, RecordKey]

/** Thresholds of the search plan; tests set them to drive every path on a small set. */
export interface SearchLimits {
  /**
   * Index entries read for one term before it counts as too common to be worth its keys (it is then
   * tested in memory on the other terms' candidates). A term with tens of thousands of entries (a
   * cardholder name on 1 record in 20 of 500k) costs more through the index than the scan, which stops
   * as soon as it has the page; an order number, an e-mail or an id has a handful.
   */
  termEntries: number
  /** Up to this many candidates are fetched by key and sorted in memory without looking at the range. */
  directCandidates: number
  /**
   * What fetching one record costs in keys read (measured in Chromium: a record by key ≈ 4–6 index keys).
   * Many candidates are ordered by the range's keys when the range has fewer than candidates × this.
   */
  recordCostInKeys: number
}

export const DEFAULT_SEARCH_LIMITS: SearchLimits = {
  termEntries: 5_000,
  directCandidates: 200,
  recordCostInKeys: 4,
}

/** How a search query is answered: the keys of the matching records in index order, or a scan. */
type SearchPlan = { kind: 'scan' } | { kind: 'keys'; keys: RecordKey[]; rows?: HistoryRecord[] }

const byTimeThenKey = (a: HistoryRecord, b: HistoryRecord): number =>
  a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

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
    return db.transaction('rw', db.history, db.checkpoints, db.marks, async () => {
      await db.history.bulkPut(records)
      await db.checkpoints.put(checkpoint)
      const marks = await db.marks.bulkGet(records.map((r) => [connectionId, r.key] as [string, RecordKey]))
      const flagged: RecordKey[] = []
      marks.forEach((mark, i) => {
        const record = records[i] as HistoryRecord
        if (mark?.state !== 'reconciled' || mark.changedSinceReconciled === 1) return
        if (mark.fingerprint !== this.fingerprintOf(record)) flagged.push(mark.key)
      })
      if (flagged.length > 0) {
        // Only the flag changes: the note, state and fingerprint stay the accountant's.
        await db.marks.bulkUpdate(
          flagged.map((key) => ({ key: [connectionId, key], changes: { changedSinceReconciled: 1 } })),
        )
      }
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
    return db.transaction('r', db.history, db.marks, async () => {
      if (query.reconciled === 'changed') {
        const rows = await this.changedRows(query)
        return rows.slice(query.offset, query.offset + query.limit)
      }
      const plan = await this.searchPlan(query)
      if (plan.kind === 'keys') {
        const keys = query.order === 'desc' ? [...plan.keys].reverse() : plan.keys
        const page = keys.slice(query.offset, query.offset + query.limit)
        if (plan.rows) {
          const byKey = new Map(plan.rows.map((r) => [r.key, r]))
          return page.map((k) => byKey.get(k) as HistoryRecord)
        }
        return this.fetch(query.connectionId, page)
      }
      let coll = await this.collection(query)
      if (query.order === 'desc') coll = coll.reverse()
      return coll.offset(query.offset).limit(query.limit).toArray()
    })
  }

  /** How many records the same filter matches (for the ledger's pager and totals). */
  async count(filter: HistoryFilter): Promise<number> {
    const { db } = this
    return db.transaction('r', db.history, db.marks, async () => {
      if (filter.reconciled === 'changed') return (await this.changedRows(filter)).length
      const plan = await this.searchPlan(filter)
      if (plan.kind === 'keys') return plan.keys.length
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
    return this.db.history
      .where('[connectionId+createdAt]')
      .between([connectionId, from], [connectionId, to], true, false)
      .toArray()
  }

  private async collection(filter: HistoryFilter): Promise<HistoryCollection> {
    const { connectionId, from, to } = filter
    const indexed = INDEX_PRIORITY.find((f) => filter[f] !== undefined)
    let coll: HistoryCollection = indexed
      ? this.db.history
          .where(`[connectionId+${indexed}+createdAt]`)
          .between([connectionId, filter[indexed], from], [connectionId, filter[indexed], to], true, false)
      : this.db.history
          .where('[connectionId+createdAt]')
          .between([connectionId, from], [connectionId, to], true, false)

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
    const { connectionId, from, to } = filter
    const indexed = this.rangeIndex(filter)
    const coll = indexed
      ? this.db.history
          .where(`[connectionId+${indexed}+createdAt]`)
          .between([connectionId, filter[indexed], from], [connectionId, filter[indexed], to], true, false)
      : this.db.history
          .where('[connectionId+createdAt]')
          .between([connectionId, from], [connectionId, to], true, false)
    const pks = (await coll.limit(limit).primaryKeys()) as HistoryKey[]
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
    const tests: ((r: HistoryRecord) => boolean)[] = []
    for (const field of INDEX_PRIORITY) {
      const wanted = filter[field]
      if (field !== indexed && wanted !== undefined) tests.push((r) => r[field] === wanted)
    }
    const { brand } = filter
    if (brand !== undefined) tests.push((r) => r.brand === brand)
    if (terms.length > 0) {
      const search = terms.join(' ')
      tests.push((r) => matchesSearch(r, search))
    }
    return tests
  }

  private async reconciledTest(filter: HistoryFilter): Promise<((key: RecordKey) => boolean) | null> {
    if (filter.reconciled !== 'reconciled' && filter.reconciled !== 'unreconciled') return null
    const reconciled = await this.reconciledKeys(filter.connectionId)
    const want = filter.reconciled === 'reconciled'
    return (key) => reconciled.has(key) === want
  }

  private async fetch(connectionId: string, keys: readonly RecordKey[]): Promise<HistoryRecord[]> {
    const rows = await this.db.history.bulkGet(keys.map((k) => [connectionId, k] as HistoryKey))
    return rows.filter((r): r is HistoryRecord => r !== undefined)
  }

  /**
   * A search through the `searchTokens` index. Each term's candidates are the primary keys of the
   * tokens it is a prefix of; the terms' sets are intersected. Then either the candidates are fetched,
   * filtered and sorted in memory, or — when the filtered range has fewer keys than fetching them would
   * cost — the range walk's keys (no records) give the order and the candidates pick from them, so only
   * a page of records is fetched and a count fetches none.
   *
   * A term with more than `termEntries` index entries is not worth its keys: it is tested in memory on
   * the other terms' candidates. When every term is that common, reading the candidates would cost more
   * than walking the filtered range, which stops as soon as it has a page, so the plan falls back to the
   * range scan (collection()); it gives the same answer by the same matchesSearch rule.
   */
  private async searchPlan(filter: HistoryFilter): Promise<SearchPlan> {
    const terms = searchTermsOf(filter.search ?? '')
    if (terms.length === 0) return { kind: 'scan' }
    const { connectionId } = filter
    const limits = this.searchLimits
    const scope = tokenScope(connectionId)

    // Longer terms first: they tend to be rarer, and an empty intersection ends the search early.
    const byLength = [...terms].sort((a, b) => b.length - a.length)
    let candidates: Set<RecordKey> | null = null
    const common: string[] = []
    for (const term of byLength) {
      const pks = (await this.db.history
        .where('searchTokens')
        .startsWith(scope + term)
        .limit(limits.termEntries + 1)
        .primaryKeys()) as HistoryKey[]
      if (pks.length > limits.termEntries) {
        common.push(term)
        continue
      }
      // One record can have several tokens with the prefix: the set dedupes them.
      const keys = new Set<RecordKey>()
      for (const [, key] of pks) if (candidates === null || candidates.has(key)) keys.add(key)
      candidates = keys
      if (candidates.size === 0) return { kind: 'keys', keys: [], rows: [] }
    }
    if (candidates === null) return { kind: 'scan' }

    const keyTest = await this.reconciledTest(filter)
    // Many candidates: the range's keys (no records) give the order when there are fewer of them than
    // the candidates' records would cost; read with that cap, so a wide range costs no more than that.
    if (candidates.size > limits.directCandidates) {
      const cap = Math.min(Math.floor(candidates.size * limits.recordCostInKeys), 2 ** 31)
      const inRange = await this.rangeKeys(filter, cap + 1)
      if (inRange.length <= cap) {
        const picked = candidates
        const keys = inRange.filter((k) => picked.has(k) && (!keyTest || keyTest(k)))
        const tests = this.recordTests(filter, this.rangeIndex(filter), common)
        if (tests.length === 0) return { kind: 'keys', keys }
        // Fields no index answered need the records; fetched in index order, so the order holds.
        const rows = (await this.fetch(connectionId, keys)).filter((r) => tests.every((t) => t(r)))
        return { kind: 'keys', keys: rows.map((r) => r.key), rows }
      }
    }
    const tests = this.recordTests(filter, undefined, common)
    const rows = (await this.fetch(connectionId, [...candidates])).filter(
      (r) =>
        r.createdAt >= filter.from &&
        r.createdAt < filter.to &&
        (!keyTest || keyTest(r.key)) &&
        tests.every((t) => t(r)),
    )
    rows.sort(byTimeThenKey)
    return { kind: 'keys', keys: rows.map((r) => r.key), rows }
  }

  private async reconciledKeys(connectionId: string): Promise<Set<RecordKey>> {
    const pks = await this.db.marks
      .where('[connectionId+state]')
      .equals([connectionId, 'reconciled'])
      .primaryKeys()
    return new Set(pks.map(([, key]) => key))
  }

  /** Changed-since-reconciled rows are few: fetch them by key through the marks index, then sort. */
  private async changedRows(filter: HistoryFilter & { order?: 'asc' | 'desc' }): Promise<HistoryRecord[]> {
    const { connectionId } = filter
    const marks = await this.db.marks
      .where('[connectionId+changedSinceReconciled]')
      .equals([connectionId, 1])
      .filter((m) => m.state === 'reconciled')
      .toArray()
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
