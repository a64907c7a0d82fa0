import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConnectionsRepository } from '../../../../src/db/connections-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { CONN, STORE_1, STORE_2, T0, historyItem, openDb } from './fixtures'

let db: ClosebookDb
beforeEach(() => {
  db = openDb('closebook-stores-test')
})
afterEach(() => db.close())

describe('ConnectionsRepository.rememberStoresFromHistory', () => {
  it('lists each store of the connection once, named as its newest record names it, and no other connection’s', async () => {
    await db.history.bulkPut([
      historyRecordOf(CONN, historyItem(1, { store_id: STORE_1, store_name: 'Old name' }), T0),
      historyRecordOf(CONN, historyItem(2, { store_id: STORE_2, store_name: '梅田店' }), T0),
      historyRecordOf(CONN, historyItem(3, { store_id: STORE_1, store_name: 'Shibuya' }), T0),
      historyRecordOf('conn-other', historyItem(4, { store_id: '33333333-3333-4333-8333-333333333333' }), T0),
    ])
    const repo = new ConnectionsRepository(db)
    const stores = await repo.rememberStoresFromHistory(CONN)
    expect(stores.map((s) => [s.storeId, s.storeName]).sort()).toEqual(
      [
        [STORE_1, 'Shibuya'],
        [STORE_2, '梅田店'],
      ].sort(),
    )
    expect(await repo.listStores(CONN)).toHaveLength(2)
    expect(await db.stores.count()).toBe(2)
  })

  it('leaves an empty list for a connection with no records', async () => {
    const repo = new ConnectionsRepository(db)
    expect(await repo.rememberStoresFromHistory(CONN)).toEqual([])
  })
})
