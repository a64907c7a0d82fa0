/**
 * A cache written by each released schema answers the ledger's, Month-end's and sync's queries exactly as
 * a fresh sync of the same data does, once opened by today's code. The released caches are the captured
 * fixtures in migrations/: versions 1–7 as migrations.test.ts describes them, versions 8–12 written by the
 * released code of each (scripts/capture-released-cache.sh: the v1 cache opened by it, then a connection
 * synced, charge list included, and marked through its own code: full rows up to v8, rows that leave
 * their item fields to `raw` from v9, the charge list in day parts from v10). The fresh cache gets the
 * same history items and charge-list items through today's sync store, then the same marks (marks are
 * the accountant's, not synced). Versions 13 and 14 converted no data, so a v14 cache is the v12 one opened
 * by them: its records are rows of `history`, and v15 keeps them there until sync writes them again into
 * day parts, so a cache holding both answers the same too.
 */
import Dexie from 'dexie'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { describe, expect, it } from 'vitest'
import type { ChargeItem, HistoryItem } from '../../../../electron/shared/payment-api'
import { ChargesRepository } from '../../../../src/db/charges-repository'
import { ClosebookDb } from '../../../../src/db/database'
import {
  HistoryRepository,
  type HistoryFilter,
  type ReconciledFilter,
} from '../../../../src/db/history-repository'
import { HistoryWriter } from '../../../../src/db/history-writer'
import {
  fileLegacyBatch,
  legacyHistoryLeft,
  legacyHistoryUnfiled,
  moveLegacyBatch,
  moveLegacyHistory,
} from '../../../../src/db/legacy-move'
import { MarksRepository } from '../../../../src/db/marks-repository'
import { MIGRATIONS } from '../../../../src/db/migrations'
import { historyWithStatus, newestCreatedAt } from '../../../../src/db/recency'
import type { HistoryRecord, RecordKey, SyncCheckpoint } from '../../../../src/domain/records'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { isChangeableStatus } from '../../../../src/domain/statuses'
import { CacheSyncStore } from '../../../../src/sync/cache-sync-store'

const caches = import.meta.glob<Record<string, object[]>>('./migrations/cache-v*.json', {
  eager: true,
  import: 'default',
})

interface CachedRow {
  connectionId: string
  key: RecordKey
  createdAt: number
  syncedAt: number
  raw: HistoryItem
}

interface CachedCharge {
  connectionId: string
  id: string
  raw: ChargeItem
  syncedAt: number
}

function cacheOf(version: number): Record<string, object[]> {
  const found = caches[`./migrations/cache-v${version}.json`]
  if (!found) throw new Error(`no fixture for v${version}`)
  return found
}

type Deps = { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }

/**
 * A cache as version `version` left it, opened by today's code (its upgrade steps run); `openedBy`: first
 * opened by that later version's code.
 */
async function upgradedCache(version: number, openedBy?: number): Promise<ClosebookDb> {
  const db = await openedCache(version, openedBy)
  // A cache of v6 or older set its history aside: it is all filed and moved before the questions.
  await moveLegacyHistory(db, new HistoryWriter(db), undefined, 3)
  return db
}

/** A cache as version `version` left it, opened by today's code (nothing set aside filed or moved yet). */
async function openedCache(version: number, openedBy?: number, deps?: Deps): Promise<ClosebookDb> {
  deps ??= { indexedDB: new IDBFactory(), IDBKeyRange }
  const old = new Dexie('closebook', deps)
  for (const step of MIGRATIONS.slice(0, version)) old.version(step.version).stores(step.stores)
  await old.open()
  for (const [table, rows] of Object.entries(cacheOf(version))) await old.table(table).bulkAdd(rows)
  old.close()
  if (openedBy !== undefined) {
    const between = new ClosebookDb('closebook', deps, { upToVersion: openedBy })
    await between.open()
    between.close()
  }
  const db = new ClosebookDb('closebook', deps)
  await db.open()
  return db
}

/** The charge-list records of a released cache, whichever layout it stored them in (rows or day parts). */
function cachedCharges(version: number): CachedCharge[] {
  const cache = cacheOf(version)
  const parts = (cache['chargeParts'] ?? []) as { charges: CachedCharge[] }[]
  return [...((cache['charges'] ?? []) as CachedCharge[]), ...parts.flatMap((p) => p.charges)]
}

/** A first sync's whole-window partition of `resource` for `connectionId`. */
function partitionOf(connectionId: string, resource: SyncCheckpoint['resource']): SyncCheckpoint {
  return {
    connectionId,
    partitionId: `initial|${resource}`,
    resource,
    storeId: null,
    from: 0,
    to: Number.MAX_SAFE_INTEGER,
    cursor: null,
    done: false,
    records: 0,
    requests: 0,
    updatedAt: 1,
  }
}

/** Each connection's `rows` grouped into one page per sync time (syncedAt is part of a record). */
function pagesOf<Row extends { connectionId: string; syncedAt: number }>(
  rows: readonly Row[],
): { connectionId: string; syncedAt: number; rows: Row[] }[] {
  const pages = new Map<string, { connectionId: string; syncedAt: number; rows: Row[] }>()
  for (const row of rows) {
    const at = `${row.connectionId}\u0001${row.syncedAt}`
    const page = pages.get(at) ?? { connectionId: row.connectionId, syncedAt: row.syncedAt, rows: [] }
    page.rows.push(row)
    pages.set(at, page)
  }
  return [...pages.values()]
}

/**
 * The same history and charge-list items written by a fresh first sync of each connection, one page per
 * sync time as the released code stored them, then `upgraded`'s marks.
 */
async function freshlySynced(version: number, upgraded: ClosebookDb): Promise<ClosebookDb> {
  const db = new ClosebookDb('closebook', { indexedDB: new IDBFactory(), IDBKeyRange })
  await db.open()
  await syncHistory(db, cacheOf(version)['history'] as CachedRow[])
  for (const page of pagesOf(cachedCharges(version))) {
    const cp = { ...partitionOf(page.connectionId, 'charges'), done: true }
    const store = new CacheSyncStore(db)
    await store.putPage({ resource: 'charges', items: page.rows.map((c) => c.raw) }, cp, page.syncedAt)
  }
  await db.markDays.clear()
  await db.markDays.bulkPut(await upgraded.markDays.toArray())
  return db
}

/** `rows`' items written through today's sync store, a page per connection and sync time. */
async function syncHistory(db: ClosebookDb, rows: readonly CachedRow[]): Promise<void> {
  const store = new CacheSyncStore(db)
  for (const connectionId of new Set(rows.map((r) => r.connectionId)))
    await store.savePlan(connectionId, [partitionOf(connectionId, 'transaction_history')])
  for (const page of pagesOf(rows)) {
    const cp = { ...partitionOf(page.connectionId, 'transaction_history'), done: true }
    const items = page.rows.map((r) => r.raw)
    await store.putPage({ resource: 'transaction_history', items }, cp, page.syncedAt)
  }
  // The run's pages are in: what the first sync held back is filed, as the engine has it done.
  for (const connectionId of new Set(rows.map((r) => r.connectionId))) await store.endPages(connectionId)
}

/** A record as the app reads it, without the fields of old rows that nothing reads any more. */
function asRead(r: HistoryRecord | undefined): unknown {
  if (!r) return r
  const {
    searchText: _text,
    searchTokens: _tokens,
    ...rest
  } = r as HistoryRecord & {
    searchText?: unknown
    searchTokens?: unknown
  }
  return rest
}

/** The charge list's queries (by id, near a time, by range, of history rows), answered by `db`. */
async function chargeAnswers(
  db: ClosebookDb,
  connectionId: string,
  rows: readonly CachedRow[],
  from: number,
  to: number,
): Promise<Record<string, unknown>> {
  const history = new HistoryRepository(db, fingerprintOf)
  const charges = new ChargesRepository(db)
  const out: Record<string, unknown> = {}
  const chargeIds = ['ch1', 'ch9', 'ch31', 'ch32', 'ch33', 'ch34', 'nothing-like-it']
  out[`${connectionId}: charges by id`] = await charges.getMany(connectionId, chargeIds)
  // `near`: when the caller knows the charge's time (its history record's), as sync and the ledger do.
  const timeOf = new Map(rows.map((r) => [r.raw.resource_id, r.createdAt]))
  out[`${connectionId}: charges by id, near`] = await charges.getMany(
    connectionId,
    chargeIds,
    chargeIds.map((id) => timeOf.get(id)),
  )
  out[`${connectionId}: charges in range`] = await charges.inRange(connectionId, from, to)
  // Month-end's: a released cache's day rows lack the compact columns, a fresh sync's carry them.
  out[`${connectionId}: charge digests in range`] = await charges.digestsInRange(connectionId, from, to)
  out[`${connectionId}: charges of rows`] = await charges.ofChargeRows(
    connectionId,
    await history.inRange(connectionId, from, to),
  )
  out[`${connectionId}: any charge`] = await charges.any(connectionId)
  return out
}

/** Every query the ledger, Month-end, matching and sync ask of history and the charge list, answered by `db`. */
async function answers(db: ClosebookDb, rows: readonly CachedRow[]): Promise<Record<string, unknown>> {
  const history = new HistoryRepository(db, fingerprintOf)
  const marks = new MarksRepository(db)
  const out: Record<string, unknown> = {}
  const times = rows.map((r) => r.createdAt)
  const from = Math.min(...times) - 86_400_000
  const to = Math.max(...times) + 86_400_000
  for (const connectionId of ['c1', 'c2', 'c3']) {
    const mine = rows.filter((r) => r.connectionId === connectionId)
    const base: HistoryFilter = { connectionId, from, to }
    const filters: Record<string, HistoryFilter> = { all: base }
    for (const r of rows) {
      filters[`type ${r.raw.type}`] = { ...base, type: r.raw.type }
      filters[`status ${r.raw.status}`] = { ...base, status: r.raw.status }
      filters[`store ${r.raw.store_id}`] = { ...base, storeId: r.raw.store_id }
      filters[`currency ${r.raw.currency}`] = { ...base, currency: r.raw.currency }
      filters[`mode ${r.raw.mode}`] = { ...base, mode: r.raw.mode }
    }
    for (const brand of ['visa', 'master']) filters[`brand ${brand}`] = { ...base, brand }
    for (const search of ['taro', 'ORD-1', 'gift wrap', 'example.com', 'ch9', 'nothing-like-it'])
      filters[`search ${search}`] = { ...base, search }
    for (const reconciled of ['reconciled', 'unreconciled', 'changed'] as ReconciledFilter[])
      filters[`reconciled ${reconciled}`] = { ...base, reconciled }
    filters['a day only'] = { connectionId, from: (times[0] ?? 0) - 1, to: (times[0] ?? 0) + 1 }
    for (const [name, filter] of Object.entries(filters)) {
      const at = `${connectionId} ${name}`
      out[`${at}: count`] = await history.count(filter)
      for (const order of ['asc', 'desc'] as const)
        out[`${at}: page ${order}`] = (
          await history.queryPage({ ...filter, order, offset: 0, limit: 50 })
        ).map(asRead)
      out[`${at}: all`] = (await history.queryAll(filter)).map(asRead)
      out[`${at}: mark targets`] = await history.markTargets(filter)
    }
    out[`${connectionId}: in range`] = (await history.inRange(connectionId, from, to)).map(asRead)
    out[`${connectionId}: by key`] = (
      await history.getMany(
        connectionId,
        rows.map((r) => r.key),
      )
    ).map(asRead)
    for (const r of rows) {
      const chargeId = r.raw.charge_id ?? r.raw.resource_id
      out[`${connectionId}: by charge ${chargeId}`] = (await history.byChargeId(connectionId, chargeId)).map(
        asRead,
      )
    }
    out[`${connectionId}: refunds`] = (
      await history.refundsOf(
        connectionId,
        rows.map((r) => r.raw.resource_id),
      )
    ).map(asRead)
    out[`${connectionId}: marks`] = await marks.getMany(
      connectionId,
      rows.map((r) => ({ key: r.key, createdAt: r.createdAt })),
    )
    out[`${connectionId}: changeable`] = (await historyWithStatus(db, connectionId, isChangeableStatus)).map(
      asRead,
    )
    Object.assign(out, await chargeAnswers(db, connectionId, rows, from, to))
    for (const storeId of [null, ...new Set(mine.map((r) => r.raw.store_id))])
      out[`${connectionId}: newest ${storeId}`] = await newestCreatedAt(
        db,
        connectionId,
        'transaction_history',
        storeId,
      )
  }
  return out
}

describe('a cache of each released schema, once opened', () => {
  for (const version of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) {
    it(`answers every history, mark and charge-list query as a fresh sync of the same data does (v${version})`, async () => {
      const rows = cacheOf(version)['history'] as CachedRow[]
      const upgraded = await upgradedCache(version)
      const fresh = await freshlySynced(version, upgraded)
      const expected = await answers(fresh, rows)
      expect(await answers(upgraded, rows)).toEqual(expected)
      // The comparison has something to compare: each connection's records are found.
      expect(expected['c1 all: count']).toBe(rows.filter((r) => r.connectionId === 'c1').length)
      expect(expected['c1 search taro: count']).toBeGreaterThan(0)
      if (version >= 8) {
        // The connection the released code synced and marked itself, charge list included.
        expect(expected['c3 all: count']).toBe(rows.filter((r) => r.connectionId === 'c3').length)
        expect(expected['c3 reconciled reconciled: count']).toBe(2)
        expect(expected['c3 reconciled changed: count']).toBe(1)
        expect(expected['c3: charges in range']).toHaveLength(cachedCharges(version).length)
        expect(expected['c3: charge digests in range']).toHaveLength(cachedCharges(version).length)
      }
      upgraded.close()
      fresh.close()
    })
  }
})

describe('a v14 cache at v15: records in rows of `history` until sync writes them again', () => {
  it('answers every query as a fresh sync does, with its records in rows, in day parts, or some in each', async () => {
    const rows = cacheOf(12)['history'] as CachedRow[]
    const upgraded = await upgradedCache(12, 14)
    const fresh = await freshlySynced(12, upgraded)
    const expected = await answers(fresh, rows)
    // Opened at v15, nothing moved: every record is still a row of `history`, and answers as before.
    expect(await upgraded.history.count()).toBe(rows.length)
    expect(await upgraded.historyParts.count()).toBe(0)
    expect(await answers(upgraded, rows)).toEqual(expected)
    // Sync writes some of them again (c3's and every second record of the others): those leave `history`.
    // (The marks are put back as they were: a fixture's mark may flag on a sync, which is not storage.)
    const marks = await upgraded.markDays.toArray()
    const resync = async (some: readonly CachedRow[]) => {
      await syncHistory(upgraded, some)
      await upgraded.markDays.clear()
      await upgraded.markDays.bulkPut(marks)
    }
    const again = rows.filter((r, i) => r.connectionId === 'c3' || i % 2 === 0)
    await resync(again)
    expect(await upgraded.history.count()).toBe(rows.length - again.length)
    expect(await upgraded.historyParts.count()).toBeGreaterThan(0)
    expect(await answers(upgraded, rows)).toEqual(expected)
    // And all of them: none is left in rows.
    await resync(rows)
    expect(await upgraded.history.count()).toBe(0)
    expect(await answers(upgraded, rows)).toEqual(expected)
    upgraded.close()
    fresh.close()
  })
})

describe('a cache of schema 6 or older while its set-aside history is filed and moved', () => {
  /** A writer whose move of a batch fails once its parts are written (a crash inside the transaction). */
  class CrashingWriter extends HistoryWriter {
    override async putFiledParts(connectionId: string, records: readonly HistoryRecord[]): Promise<void> {
      await super.putFiledParts(connectionId, records)
      throw new Error('crashed mid-batch')
    }
  }

  for (const version of [1, 2, 3, 4, 5, 6]) {
    it(`answers as a fresh sync does once filed, half moved and reloaded, after a crashed batch, and moved (v${version})`, async () => {
      const rows = cacheOf(version)['history'] as CachedRow[]
      const deps: Deps = { indexedDB: new IDBFactory(), IDBKeyRange }
      const reopened = async (db: ClosebookDb) => {
        db.close()
        const again = new ClosebookDb('closebook', deps)
        await again.open()
        return again
      }
      let db = await openedCache(version, undefined, deps)
      const fresh = await freshlySynced(version, await upgradedCache(version))
      const expected = await answers(fresh, rows)
      expect(expected['c1 all: count']).toBe(rows.filter((r) => r.connectionId === 'c1').length)
      // Before filing: the day rows do not list the records yet, and the cache says so (Month-end waits);
      // a record read by key or by time is found already.
      expect(await legacyHistoryUnfiled(db)).toBe(true)
      const early = await answers(db, rows)
      expect(early['c1: by key']).toEqual(expected['c1: by key'])
      expect(early['c1: in range']).toEqual(expected['c1: in range'])
      // Filed, nothing moved: every record is still set aside, and every answer is a fresh sync's.
      while ((await fileLegacyBatch(db, new HistoryWriter(db), 1)) > 0);
      db = await reopened(db)
      expect(await legacyHistoryUnfiled(db)).toBe(false)
      expect(await legacyHistoryLeft(db)).toBe(rows.length)
      expect(await answers(db, rows)).toEqual(expected)
      // Half moved, then the app reloaded: a new Database instance on the same cache.
      expect(await moveLegacyBatch(db, new HistoryWriter(db), 1)).toBe(1)
      db = await reopened(db)
      expect(await legacyHistoryLeft(db)).toBe(rows.length - 1)
      expect(await db.historyParts.count()).toBeGreaterThan(0)
      expect(await answers(db, rows)).toEqual(expected)
      // A batch that crashes after writing its parts leaves the cache as it was.
      await expect(moveLegacyBatch(db, new CrashingWriter(db), 1)).rejects.toThrow('crashed mid-batch')
      expect(await legacyHistoryLeft(db)).toBe(rows.length - 1)
      expect(await answers(db, rows)).toEqual(expected)
      // Moved: the store is empty, and the answers are the same.
      await moveLegacyHistory(db, new HistoryWriter(db), undefined, 1)
      expect(await legacyHistoryLeft(db)).toBe(0)
      expect(await answers(db, rows)).toEqual(expected)
      db.close()
      fresh.close()
    })
  }
})
