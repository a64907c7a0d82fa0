import Dexie from 'dexie'
import { describe, expect, it } from 'vitest'
import { ClosebookDb, CURRENT_VERSION, SCHEMA_V7 } from '../../../../src/db/database'
import { quarantineCountForMonth, QuarantineRepository } from '../../../../src/db/quarantine-repository'
import { CacheSyncStore } from '../../../../src/sync/cache-sync-store'
import { checkpoint, CONN, freshDeps, historyItem, openDb, quarantinedItem, T0, uuid } from './fixtures'
import { countHistory } from '../../../../src/db/history-part-reads'

const bad = quarantinedItem

describe('schema v8: quarantine', () => {
  it('opens a version-7 cache at version 8 with an empty quarantine and nothing else touched', async () => {
    const deps = freshDeps()
    const v7 = new Dexie('closebook', deps)
    v7.version(7).stores(SCHEMA_V7)
    await v7.table('settings').put({ key: 'k', value: 1 })
    v7.close()
    const db = new ClosebookDb('closebook', deps)
    await db.open()
    // v9 (restore staging) came after: opening still adds an empty quarantine.
    expect(CURRENT_VERSION).toBeGreaterThanOrEqual(8)
    expect(db.verno).toBe(CURRENT_VERSION)
    expect(await db.quarantine.count()).toBe(0)
    expect(await db.settings.get('k')).toEqual({ key: 'k', value: 1 })
    db.close()
  })
})

describe('QuarantineRepository', () => {
  it('files an item once however often it is seen, keeping when it was first seen', async () => {
    const db = openDb()
    const repo = new QuarantineRepository(db)
    await repo.putMany(CONN, [bad(1), bad(2)], T0)
    await repo.putMany(CONN, [bad(1, { reason: 'amount: still wrong' })], T0 + 1000)
    const rows = await repo.list(CONN)
    expect(rows.map((r) => [r.itemId, r.reason, r.firstSeenAt, r.lastSeenAt])).toEqual([
      [uuid(1), 'amount: still wrong', T0, T0 + 1000],
      [uuid(2), 'amount: expected number, received string', T0, T0],
    ])
    expect(await repo.count('another')).toBe(0)
    // Without a readable id, the payload names the row.
    await repo.putMany(CONN, [bad(3, { itemId: null }), bad(3, { itemId: null })], T0)
    expect(await repo.count(CONN)).toBe(3)
    db.close()
  })

  it('counts an item for the month it lies in, in the accounting time zone; undated ones by their window', async () => {
    const db = openDb()
    await db.connections.put({
      id: CONN,
      label: 'Tokyo',
      baseUrl: 'https://x.test',
      timeZone: 'Asia/Tokyo',
      storeIds: [],
      isDemo: false,
      lastSyncedAt: null,
      highWater: {},
    })
    const repo = new QuarantineRepository(db)
    await repo.putMany(
      CONN,
      [
        // 2026-10-31T16:30Z is November in Tokyo.
        bad(1, { createdOn: '2026-10-31T16:30:00.000000Z' }),
        bad(2, { createdOn: '2026-10-15T00:00:00Z' }),
        // Undated: placed by the window its request asked for (October and November UTC).
        bad(3, { requestedFrom: '2026-10-20T00:00:00.000Z', requestedTo: '2026-11-05T00:00:00.000Z' }),
        // Placed nowhere: it may belong to any month.
        bad(4),
      ],
      T0,
    )
    expect(await quarantineCountForMonth(db, CONN, '2026-10')).toBe(3)
    expect(await quarantineCountForMonth(db, CONN, '2026-11')).toBe(3)
    expect(await quarantineCountForMonth(db, CONN, '2026-12')).toBe(1)
    expect(await repo.countForMonth(CONN, '2026-11', 'UTC')).toBe(2)
    // Without a zone, the repository reads the connection's own (Tokyo) from the cache.
    expect(await repo.countForMonth(CONN, '2026-11')).toBe(3)
    db.close()
  })
})

describe('CacheSyncStore and the quarantine', () => {
  it('writes a page with its quarantined items, and releases one once a valid copy is stored', async () => {
    const db = openDb()
    const store = new CacheSyncStore(db)
    await store.savePlan(CONN, [checkpoint()])
    await store.loadPlan(CONN)
    const good = historyItem(1)
    await store.putPage(
      { resource: 'transaction_history', items: [good], quarantined: [bad(2)] },
      checkpoint({ cursor: uuid(2), records: 1, requests: 1 }),
      T0,
    )
    expect(await countHistory(db)).toBe(1)
    expect((await store.quarantine.list(CONN)).map((r) => r.itemId)).toEqual([uuid(2)])
    expect((await store.checkpoints.list(CONN))[0]?.cursor).toBe(uuid(2))
    // The service fixed the item: the next page that brings it releases it.
    await store.putPage(
      { resource: 'transaction_history', items: [historyItem(2)] },
      checkpoint({ cursor: uuid(2), records: 2, requests: 2 }),
      T0,
    )
    expect(await store.quarantine.count(CONN)).toBe(0)
    expect(await countHistory(db)).toBe(2)
    db.close()
  })
})
