/**
 * Transaction-history records: sync writes pages, the ledger reads filtered, ordered pages. Queries
 * walk one compound index bounded by connection (and one equality filter) and the time range, so
 * they never scan the whole table. Time ranges are half-open: `from` inclusive, `to` exclusive.
 */
import type { Collection } from 'dexie'
import type { HistoryType, Mode } from '../../electron/shared/payment-api'
import type { ClosebookDb } from './database'
import { matchesSearch } from './history-record'
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
  search?: string
  brand?: string
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

export class HistoryRepository {
  constructor(
    private readonly db: ClosebookDb,
    private readonly fingerprintOf: FingerprintOf,
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

    const tests: ((r: HistoryRecord) => boolean)[] = []
    for (const field of INDEX_PRIORITY) {
      const wanted = filter[field]
      if (field !== indexed && wanted !== undefined) tests.push((r) => r[field] === wanted)
    }
    const { brand } = filter
    if (brand !== undefined) tests.push((r) => r.brand === brand)
    const search = filter.search?.trim()
    if (search) tests.push((r) => matchesSearch(r.searchText, search))
    if (filter.reconciled === 'reconciled' || filter.reconciled === 'unreconciled') {
      const reconciled = await this.reconciledKeys(connectionId)
      const want = filter.reconciled === 'reconciled'
      tests.push((r) => reconciled.has(r.key) === want)
    }
    if (tests.length > 0) coll = coll.filter((r) => tests.every((t) => t(r)))
    return coll
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
    const search = filter.search?.trim()
    const matched = rows.filter(
      (r) =>
        r.createdAt >= filter.from &&
        r.createdAt < filter.to &&
        INDEX_PRIORITY.every((f) => filter[f] === undefined || r[f] === filter[f]) &&
        (!search || matchesSearch(r.searchText, search)),
    )
    // Same order as the index walk: createdAt, then key.
    matched.sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    if (filter.order === 'desc') matched.reverse()
    return matched
  }
}
