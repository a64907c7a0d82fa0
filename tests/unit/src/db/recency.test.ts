import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { ChargesRepository } from '../../../../src/db/charges-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { HistoryRepository } from '../../../../src/db/history-repository'
import { historyWithStatus, monthDigest, newestCreatedAt } from '../../../../src/db/recency'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { isChangeableStatus } from '../../../../src/sync/recheck'
import { checkpoint, chargeItem, CONN, historyItem, HOUR, openDb, STORE_1, STORE_2, T0 } from './fixtures'

let db: ClosebookDb
beforeEach(async () => {
  db = openDb()
  await db.open()
})
afterEach(async () => {
  db.close()
  await db.delete()
})

const statuses = ['successful', 'pending', 'authorized', 'failed', 'awaiting', 'weird_new_status']

async function fill(): Promise<void> {
  const items = Array.from({ length: 24 }, (_, n) =>
    historyItem(n + 1, {
      status: statuses[n % statuses.length] as string,
      store_id: n % 2 === 0 ? STORE_1 : STORE_2,
    }),
  )
  await new HistoryRepository(db, fingerprintOf).putPage(
    CONN,
    items.map((i) => historyRecordOf(CONN, i, 0)),
    checkpoint(),
  )
  await new ChargesRepository(db).putPage(
    CONN,
    [1, 2, 3].map((n) => chargeRecordOf(CONN, chargeItem(n, { store_id: n === 3 ? STORE_2 : STORE_1 }), 0)),
    checkpoint({ resource: 'charges' }),
  )
}

describe('newestCreatedAt', () => {
  it('is the newest cached record per resource and store, from the data', async () => {
    expect(await newestCreatedAt(db, CONN, 'transaction_history', null)).toBeNull()
    await fill()
    expect(await newestCreatedAt(db, CONN, 'transaction_history', null)).toBe(T0 + 24 * HOUR)
    expect(await newestCreatedAt(db, CONN, 'transaction_history', STORE_1)).toBe(T0 + 23 * HOUR)
    const charges = await new ChargesRepository(db).inRange(CONN, -Infinity, Infinity)
    expect(charges.length).toBeGreaterThan(0)
    const byStore = (s: string) => Math.max(...charges.filter((c) => c.storeId === s).map((c) => c.createdAt))
    expect(await newestCreatedAt(db, CONN, 'charges', STORE_1)).toBe(byStore(STORE_1))
    expect(await newestCreatedAt(db, CONN, 'charges', STORE_2)).toBe(byStore(STORE_2))
    expect(await newestCreatedAt(db, 'other', 'charges', null)).toBeNull()
  })

  it('finds a store’s newest record however many days back it is (newest day first, in batches)', async () => {
    const DAY = 24 * HOUR
    // STORE_1 every day for 20 days; STORE_2 on days 0 and 3 only, so its newest is 16 days before the last.
    const items = [
      ...Array.from({ length: 20 }, (_, d) =>
        historyItem(100 + d, { store_id: STORE_1, created_on: new Date(T0 + d * DAY).toISOString() }),
      ),
      historyItem(200, { store_id: STORE_2, created_on: new Date(T0 + HOUR).toISOString() }),
      historyItem(201, { store_id: STORE_2, created_on: new Date(T0 + 3 * DAY + 2 * HOUR).toISOString() }),
    ]
    await new HistoryRepository(db, fingerprintOf).putPage(
      CONN,
      items.map((i) => historyRecordOf(CONN, i, 0)),
      checkpoint(),
    )
    expect(await newestCreatedAt(db, CONN, 'transaction_history', STORE_1)).toBe(T0 + 19 * DAY)
    expect(await newestCreatedAt(db, CONN, 'transaction_history', STORE_2)).toBe(T0 + 3 * DAY + 2 * HOUR)
    expect(await newestCreatedAt(db, CONN, 'transaction_history', 'no-such-store')).toBeNull()
  })
})

describe('historyWithStatus', () => {
  it('finds every non-final status through the index, an unknown one included', async () => {
    await fill()
    const found = await historyWithStatus(db, CONN, isChangeableStatus)
    expect(new Set(found.map((r) => r.status))).toEqual(
      new Set(['pending', 'authorized', 'awaiting', 'weird_new_status']),
    )
    expect(found).toHaveLength(16)
  })
})

describe('monthDigest', () => {
  it('changes when a record of the range changes, not when one outside it does', async () => {
    await fill()
    const repo = new HistoryRepository(db, fingerprintOf)
    const range = [T0, T0 + 12 * HOUR] as const
    const before = await monthDigest(db, CONN, ...range)
    expect(before.records).toBe(11)
    // Outside the range: same digest.
    await repo.putPage(
      CONN,
      [historyRecordOf(CONN, historyItem(20, { status: 'canceled', store_id: STORE_2 }), 1)],
      checkpoint(),
    )
    expect((await monthDigest(db, CONN, ...range)).digest).toBe(before.digest)
    // Inside: a different digest.
    await repo.putPage(
      CONN,
      [historyRecordOf(CONN, historyItem(2, { status: 'successful', store_id: STORE_2 }), 1)],
      checkpoint(),
    )
    expect((await monthDigest(db, CONN, ...range)).digest).not.toBe(before.digest)
  })
})
