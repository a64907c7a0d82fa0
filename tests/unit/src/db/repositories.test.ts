import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AuditRepository } from '../../../../src/db/audit-repository'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { ChargesRepository } from '../../../../src/db/charges-repository'
import { CheckpointsRepository } from '../../../../src/db/checkpoints-repository'
import { ConnectionsRepository } from '../../../../src/db/connections-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import { dayDigestRowsOf } from '../../../../src/db/day-digests'
import { dayTokenRowsOf } from '../../../../src/db/day-tokens'
import { historyRecordOf } from '../../../../src/db/history-record'
import { LocksRepository } from '../../../../src/db/locks-repository'
import { MarksRepository } from '../../../../src/db/marks-repository'
import type { CachedConnection } from '../../../../src/domain/records'
import { SettingsRepository } from '../../../../src/db/settings-repository'
import {
  CONN,
  HOUR,
  STORE_1,
  STORE_2,
  T0,
  auditEntry,
  chargeItem,
  checkpoint,
  connectionRow,
  historyItem,
  mark,
  openDb,
  putMarks,
  storedAudit,
  storedMarks,
} from './fixtures'

let db: ClosebookDb
beforeEach(() => {
  db = openDb()
})
afterEach(() => db.close())

const connection: CachedConnection = connectionRow({ lastSyncedAt: null, highWater: {} })

describe('ChargesRepository', () => {
  it('stores a page with its checkpoint, in place by id, and queries a range', async () => {
    const repo = new ChargesRepository(db)
    const cp = checkpoint({ partitionId: 'charges:all', resource: 'charges' })
    await repo.putPage(
      CONN,
      [chargeRecordOf(CONN, chargeItem(1), T0), chargeRecordOf(CONN, chargeItem(2), T0)],
      cp,
    )
    await repo.putPage(CONN, [chargeRecordOf(CONN, chargeItem(1, { fee_amount: 40 }), T0)], {
      ...cp,
      cursor: 'x',
    })

    expect(await repo.inRange(CONN, -Infinity, Infinity)).toHaveLength(2)
    expect((await repo.get(CONN, chargeItem(1).id))?.feeAmount).toBe(40)
    expect(
      (await repo.inRange(CONN, T0 + 2 * HOUR, T0 + 3 * HOUR)).map((c) => c.merchantTransactionId),
    ).toEqual(['ORD-2'])
    expect((await db.checkpoints.get([CONN, 'charges:all']))?.cursor).toBe('x')
  })

  it('writes neither records nor checkpoint when the checkpoint fails', async () => {
    const repo = new ChargesRepository(db)
    const bad = { ...checkpoint(), connectionId: CONN, partitionId: null } as unknown as ReturnType<
      typeof checkpoint
    >
    await expect(repo.putPage(CONN, [chargeRecordOf(CONN, chargeItem(1), T0)], bad)).rejects.toThrow()
    expect(await db.charges.count()).toBe(0)
  })
})

describe('LocksRepository', () => {
  it('locks and reopens a period, auditing each change once', async () => {
    const repo = new LocksRepository(db)
    const lock = { connectionId: CONN, period: '2026-10', lockedAt: T0, lockedBy: 'alice' }
    expect(await repo.lock(lock, auditEntry({ action: 'close-period' }))).toBe(true)
    expect(await repo.lock(lock, auditEntry({ action: 'close-period' }))).toBe(false)
    expect(await repo.isLocked(CONN, '2026-10')).toBe(true)
    expect(await repo.list(CONN)).toEqual([lock])

    expect(
      await repo.unlock(CONN, '2026-10', auditEntry({ action: 'reopen-period', reason: 'late refund' })),
    ).toBe(true)
    expect(await repo.unlock(CONN, '2026-10', auditEntry({ action: 'reopen-period' }))).toBe(false)
    expect(await repo.isLocked(CONN, '2026-10')).toBe(false)
    expect((await storedAudit(db)).map((a) => [a.action, a.period, a.reason])).toEqual([
      ['close-period', '2026-10', undefined],
      ['reopen-period', '2026-10', 'late refund'],
    ])
  })
})

describe('CheckpointsRepository', () => {
  it('gets, lists and resets per connection and resource', async () => {
    const repo = new CheckpointsRepository(db)
    await repo.put(checkpoint({ partitionId: 'h:1' }))
    await repo.put(checkpoint({ partitionId: 'c:1', resource: 'charges' }))
    await repo.put(checkpoint({ connectionId: 'other', partitionId: 'h:1' }))

    expect((await repo.get(CONN, 'h:1'))?.resource).toBe('transaction_history')
    expect((await repo.list(CONN)).map((c) => c.partitionId)).toEqual(['c:1', 'h:1'])
    expect(await repo.reset(CONN, 'charges')).toBe(1)
    expect((await repo.list(CONN)).map((c) => c.partitionId)).toEqual(['h:1'])
    expect(await repo.reset(CONN)).toBe(1)
    expect(await repo.list(CONN)).toEqual([])
    expect(await repo.list('other')).toHaveLength(1)
  })
})

describe('SettingsRepository', () => {
  it('reads values through a schema, falling back when absent or malformed', async () => {
    const repo = new SettingsRepository(db)
    const schema = z.enum(['en', 'ja'])
    expect(await repo.get('locale', schema, 'en')).toBe('en')
    await repo.set('locale', 'ja')
    expect(await repo.get('locale', schema, 'en')).toBe('ja')
    await repo.set('locale', 42)
    expect(await repo.get('locale', schema, 'en')).toBe('en')
    expect(await repo.getRaw('locale')).toBe(42)
    await repo.delete('locale')
    expect(await repo.list()).toEqual([])
  })
})

describe('ConnectionsRepository', () => {
  it('keeps the connection, its stores and a forward-only high-water mark', async () => {
    const repo = new ConnectionsRepository(db)
    await repo.put(connection)
    await repo.replaceStores(CONN, [
      { connectionId: CONN, storeId: STORE_1, storeName: 'One', merchantName: 'M' },
      { connectionId: CONN, storeId: STORE_2, storeName: 'Two', merchantName: 'M' },
    ])
    await repo.replaceStores(CONN, [
      { connectionId: CONN, storeId: STORE_2, storeName: 'Two!', merchantName: 'M' },
    ])
    expect((await repo.listStores(CONN)).map((s) => s.storeName)).toEqual(['Two!'])

    await repo.recordSync(CONN, T0 + 10, { transaction_history: T0 + 5, charges: T0 + 3 })
    const after = await repo.recordSync(CONN, T0 + 20, { transaction_history: T0 + 1 })
    expect(after.highWater).toEqual({ transaction_history: T0 + 5, charges: T0 + 3 })
    expect((await repo.get(CONN))?.lastSyncedAt).toBe(T0 + 20)
    await expect(repo.recordSync('nope', T0)).rejects.toThrow(/Unknown connection/)

    await repo.delete(CONN)
    expect(await repo.list()).toEqual([])
    expect(await repo.listStores(CONN)).toEqual([])
  })

  it('clears the synced copy for a full re-sync but keeps marks and audit', async () => {
    const repo = new ConnectionsRepository(db)
    await repo.put({ ...connection, highWater: { charges: T0 }, lastSyncedAt: T0 })
    const rec = historyRecordOf(CONN, historyItem(1), T0)
    const kept = historyRecordOf('other', historyItem(1), T0)
    await db.history.bulkPut([rec, kept])
    await db.dayDigests.bulkPut(dayDigestRowsOf([rec, kept]))
    await db.dayTokens.bulkPut(dayTokenRowsOf([rec, kept]))
    await db.charges.put(chargeRecordOf(CONN, chargeItem(1), T0))
    await db.checkpoints.put(checkpoint())
    await putMarks(db, [mark(rec.key)], () => rec.createdAt)
    await new AuditRepository(db).add(auditEntry({ key: rec.key }))

    await repo.clearSyncedData(CONN)
    expect(await db.history.count()).toBe(1) // the other connection's
    expect(await db.dayDigests.toArray()).toEqual(dayDigestRowsOf([kept]))
    expect(await db.dayTokens.toArray()).toEqual(dayTokenRowsOf([kept]))
    expect(await db.charges.count()).toBe(0)
    expect(await db.checkpoints.count()).toBe(0)
    expect(await storedMarks(db)).toEqual([mark(rec.key)])
    // Still in its record's day row: the re-synced record finds it.
    expect(await new MarksRepository(db).get(CONN, rec)).toEqual(mark(rec.key))
    expect((await storedAudit(db)).map((a) => [a.connectionId, a.key, a.action])).toEqual([
      [CONN, rec.key, 'mark'],
    ])
    expect(await repo.get(CONN)).toMatchObject({ highWater: {}, lastSyncedAt: null })
  })
})
