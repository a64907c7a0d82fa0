/**
 * A cache of schema 6 or older has its history set aside by the version change (renamed, not converted),
 * its days filed and then its rows moved to day parts in the background, a batch per transaction: the
 * version change holds no per-record work, a batch that fails leaves nothing half-done, and a move stopped
 * between batches goes on from where it stopped. released-schemas.test.ts checks what the cache answers
 * before, during and after.
 */
import Dexie from 'dexie'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { describe, expect, it } from 'vitest'
import { ClosebookDb, CURRENT_VERSION } from '../../../../src/db/database'
import { countHistory, historyByKeys } from '../../../../src/db/history-part-reads'
import { HistoryWriter } from '../../../../src/db/history-writer'
import {
  fileLegacyBatch,
  LEGACY_FILED_KEY,
  legacyHistoryLeft,
  legacyHistoryUnfiled,
  moveLegacyBatch,
  moveLegacyHistory,
  type LegacyMoveProgress,
} from '../../../../src/db/legacy-move'
import { MIGRATIONS } from '../../../../src/db/migrations'
import { ORPHAN_MARK_DAY } from '../../../../src/db/marks-repository'
import type { HistoryRecord } from '../../../../src/domain/records'

const caches = import.meta.glob<Record<string, object[]>>('./migrations/cache-v*.json', {
  eager: true,
  import: 'default',
})

function cacheOf(version: number): Record<string, object[]> {
  const found = caches[`./migrations/cache-v${version}.json`]
  if (!found) throw new Error(`no fixture for v${version}`)
  return found
}

type Deps = { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }

/** A cache as version `version` left it, on its own IndexedDB. */
async function oldCache(version: number): Promise<Deps> {
  const deps: Deps = { indexedDB: new IDBFactory(), IDBKeyRange }
  const old = new Dexie('closebook', deps)
  for (const step of MIGRATIONS.slice(0, version)) old.version(step.version).stores(step.stores)
  await old.open()
  for (const [table, rows] of Object.entries(cacheOf(version))) await old.table(table).bulkAdd(rows)
  old.close()
  return deps
}

async function opened(deps: Deps): Promise<ClosebookDb> {
  const db = new ClosebookDb('closebook', deps)
  await db.open()
  return db
}

const keysOf = (version: number) =>
  (cacheOf(version)['history'] as HistoryRecord[]).map((r) => `${r.connectionId}\u0001${r.key}`).sort()

/** Every record key the cache holds anywhere (parts, rows, set aside), duplicates kept. */
async function heldKeys(db: ClosebookDb): Promise<string[]> {
  const parts = await db.historyParts.toArray()
  const rows = [...(await db.history.toArray()), ...(await db.legacyHistory.toArray())]
  return [
    ...parts.flatMap((p) => p.rows.map((r) => `${r.connectionId}\u0001${r.key}`)),
    ...rows.map((r) => `${r.connectionId}\u0001${r.key}`),
  ].sort()
}

describe('opening a cache of schema 6 or older', () => {
  for (const version of [1, 2, 3, 4, 5, 6]) {
    it(`sets the history of a v${version} cache aside whole, with no pass over it`, async () => {
      const db = await opened(await oldCache(version))
      expect(db.verno).toBe(CURRENT_VERSION)
      expect(await legacyHistoryLeft(db)).toBe(keysOf(version).length)
      expect(await db.history.count()).toBe(0)
      // The steps found no record: no digest or token row was built from one.
      expect(await db.historyParts.count()).toBe(0)
      expect(await db.dayTokens.count()).toBe(0)
      db.close()
    })
  }

  it('leaves a v7 cache its history where it was, and the legacy store empty', async () => {
    const db = await opened(await oldCache(7))
    expect(await legacyHistoryLeft(db)).toBe(0)
    expect(await db.history.count()).toBe(keysOf(7).length)
    db.close()
  })

  it('files every record once, reporting each batch, and drops each row as it is filed', async () => {
    const db = await opened(await oldCache(5))
    // v5 had no mark days: v6 filed the marks in the orphan row, with no record to place them by.
    const orphans = async () => (await db.markDays.get(['c1', ORPHAN_MARK_DAY]))?.marks.map((m) => m.key)
    expect(await orphans()).toEqual(['charge:ch1', 'charge:gone'])
    const seen: LegacyMoveProgress[] = []
    await moveLegacyHistory(db, new HistoryWriter(db), (p) => seen.push(p), 1)
    // Filing takes whole days of one connection: each of the fixture's records is alone on its own.
    expect(seen).toEqual([
      { stage: 'filing', moved: 0, left: 3 },
      { stage: 'filing', moved: 1, left: 2 },
      { stage: 'filing', moved: 2, left: 1 },
      { stage: 'filing', moved: 3, left: 0 },
      { stage: 'moving', moved: 0, left: 3 },
      { stage: 'moving', moved: 1, left: 2 },
      { stage: 'moving', moved: 2, left: 1 },
      { stage: 'moving', moved: 3, left: 0 },
    ])
    expect(await legacyHistoryLeft(db)).toBe(0)
    expect(await db.settings.get(LEGACY_FILED_KEY)).toBeUndefined()
    expect(await heldKeys(db)).toEqual(keysOf(5))
    expect(await countHistory(db)).toBe(3)
    // Each mark now lives in its record's day row; only the one whose record is not cached stays.
    expect(await orphans()).toEqual(['charge:gone'])
    db.close()
  })

  it('loses and duplicates nothing when a batch of either stage fails half-way, and the next run finishes', async () => {
    const db = await opened(await oldCache(6))
    const snapshot = async () => ({
      parts: await db.historyParts.toArray(),
      digests: await db.dayDigests.toArray(),
      tokens: await db.dayTokens.toArray(),
      marks: await db.markDays.toArray(),
      settings: await db.settings.toArray(),
      legacy: await db.legacyHistory.count(),
    })
    class FailingWriter extends HistoryWriter {
      override async putFiledParts(connectionId: string, records: readonly HistoryRecord[]): Promise<void> {
        await super.putFiledParts(connectionId, records)
        throw new Error('crashed after moving')
      }
    }
    // Filing: the day rows are written, then the batch fails as it saves how far it went.
    const before = await snapshot()
    const put = db.settings.put.bind(db.settings)
    db.settings.put = () => Promise.reject(new Error('crashed after filing')) as never
    await expect(fileLegacyBatch(db, new HistoryWriter(db), 2)).rejects.toThrow('crashed after filing')
    db.settings.put = put
    expect(await snapshot()).toEqual(before)
    expect(await legacyHistoryUnfiled(db)).toBe(true)
    // Moving: the parts are written and the rows taken out, then the batch fails.
    while ((await fileLegacyBatch(db, new HistoryWriter(db), 2)) > 0);
    const filed = await snapshot()
    await expect(moveLegacyBatch(db, new FailingWriter(db), 2)).rejects.toThrow('crashed after moving')
    expect(await snapshot()).toEqual(filed)
    await moveLegacyHistory(db, new HistoryWriter(db), undefined, 2)
    expect(await heldKeys(db)).toEqual(keysOf(6))
    db.close()
  })

  it('goes on after a reload from the rows still set aside', async () => {
    const deps = await oldCache(6)
    const first = await opened(deps)
    // Filing: one batch of three rows (a day each), the rest after a reload.
    expect(await fileLegacyBatch(first, new HistoryWriter(first), 1)).toBe(1)
    first.close()
    const second = await opened(deps)
    expect(await legacyHistoryUnfiled(second)).toBe(true)
    expect(await fileLegacyBatch(second, new HistoryWriter(second), 1)).toBe(1)
    expect(await fileLegacyBatch(second, new HistoryWriter(second), 1)).toBe(1)
    expect(await legacyHistoryUnfiled(second)).toBe(false)
    expect(await moveLegacyBatch(second, new HistoryWriter(second), 1)).toBe(1)
    second.close()
    const again = await opened(deps)
    expect(await legacyHistoryLeft(again)).toBe(2)
    await moveLegacyHistory(again, new HistoryWriter(again), undefined, 1)
    expect(await heldKeys(again)).toEqual(keysOf(6))
    again.close()
  })

  it("keeps sync's copy of a record filed again before its old row was moved", async () => {
    const db = await opened(await oldCache(6))
    const [row] = await db.legacyHistory.limit(1).toArray()
    if (!row) throw new Error('no row')
    const newer: HistoryRecord = { ...row, status: 'refunded', syncedAt: row.syncedAt + 1 }
    await db.transaction('rw', new HistoryWriter(db).historyTables(), () =>
      new HistoryWriter(db).putHistory([newer]),
    )
    // Sync's write takes the record out of the set-aside store: it is held once, sync's copy.
    expect(await heldKeys(db)).toEqual(keysOf(6))
    expect((await historyByKeys(db, row.connectionId, [row.key]))[0]).toEqual(newer)
    await moveLegacyHistory(db, new HistoryWriter(db))
    expect(await heldKeys(db)).toEqual(keysOf(6))
    const [held] = await historyByKeys(db, row.connectionId, [row.key])
    expect(held).toEqual(newer)
    db.close()
  })
})
