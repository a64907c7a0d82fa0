import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConnectionsRepository } from '../../../../src/db/connections-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { HistoryWriter } from '../../../../src/db/history-writer'
import { CONN, HOUR, STORE_1, STORE_2, T0, historyItem, openDb } from './fixtures'

let db: ClosebookDb
beforeEach(() => {
  db = openDb('closebook-stores-test')
})
afterEach(() => db.close())

const at = (n: number) => new Date(T0 + n * HOUR).toISOString()

async function write(records: ReturnType<typeof historyRecordOf>[]): Promise<void> {
  const writer = new HistoryWriter(db)
  await db.transaction('rw', writer.historyTables(), () => writer.putHistory(records))
}

describe('the store list the history writer keeps', () => {
  it('lists each store of the connection once, named as its newest record names it, and no other connection’s', async () => {
    await write([
      historyRecordOf(
        CONN,
        historyItem(1, { store_id: STORE_1, store_name: 'Old name', created_on: at(1) }),
        T0,
      ),
      historyRecordOf(
        CONN,
        historyItem(2, { store_id: STORE_2, store_name: '梅田店', created_on: at(2) }),
        T0,
      ),
      historyRecordOf(
        CONN,
        historyItem(3, { store_id: STORE_1, store_name: 'Shibuya', created_on: at(3) }),
        T0,
      ),
      historyRecordOf(
        'conn-other',
        historyItem(4, { store_id: '33333333-3333-4333-8333-333333333333', created_on: at(4) }),
        T0,
      ),
    ])
    const repo = new ConnectionsRepository(db)
    const names = async () => (await repo.listStores(CONN)).map((s) => [s.storeId, s.storeName]).sort()
    expect(await names()).toEqual([
      [STORE_1, 'Shibuya'],
      [STORE_2, '梅田店'],
    ])
    expect(await db.stores.count()).toBe(3)
    // A later page of older records (a look-back, a quarantine re-fetch) does not rename a store.
    await write([
      historyRecordOf(
        CONN,
        historyItem(5, { store_id: STORE_1, store_name: 'Older', created_on: at(0) }),
        T0,
      ),
    ])
    expect(await names()).toEqual([
      [STORE_1, 'Shibuya'],
      [STORE_2, '梅田店'],
    ])
    // A newer one does.
    await write([
      historyRecordOf(
        CONN,
        historyItem(6, { store_id: STORE_2, store_name: '梅田本店', created_on: at(9) }),
        T0,
      ),
    ])
    expect(await names()).toEqual([
      [STORE_1, 'Shibuya'],
      [STORE_2, '梅田本店'],
    ])
  })

  it('names a store kept before the writer kept the list by the next record it sees', async () => {
    const repo = new ConnectionsRepository(db)
    await repo.replaceStores(CONN, [
      { connectionId: CONN, storeId: STORE_1, storeName: 'From v9', merchantName: 'M' },
    ])
    await write([
      historyRecordOf(
        CONN,
        historyItem(1, { store_id: STORE_1, store_name: 'Shibuya', created_on: at(1) }),
        T0,
      ),
    ])
    expect((await repo.listStores(CONN)).map((s) => s.storeName)).toEqual(['Shibuya'])
  })

  it('leaves an empty list for a connection with no records', async () => {
    expect(await new ConnectionsRepository(db).listStores(CONN)).toEqual([])
  })
})
