/**
 * The cache the ledger store tests run on: one UTC connection and `n` records a minute apart from T0
 * (October 2026), record i being the i-th oldest, installed as the app's cache.
 */
import { createCache, setAppCacheForTests, type Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { CONN, T0, checkpoint, historyItem, openDb } from '../db/fixtures'

export async function openLedgerCache(n: number): Promise<{ db: ClosebookDb; cache: Cache }> {
  const db = openDb()
  const cache = createCache(db)
  setAppCacheForTests(cache)
  await cache.connections.put({
    id: CONN,
    label: 'Test',
    baseUrl: 'http://127.0.0.1',
    timeZone: 'UTC',
    storeIds: [],
    isDemo: false,
    lastSyncedAt: null,
    highWater: {},
  })
  const records = Array.from({ length: n }, (_, i) =>
    historyRecordOf(CONN, historyItem(i, { created_on: new Date(T0 + i * 60_000).toISOString() }), 0),
  )
  await cache.history.putPage(CONN, records, checkpoint())
  return { db, cache }
}

export function closeLedgerCache(db: ClosebookDb): void {
  setAppCacheForTests(undefined)
  db.close()
}
