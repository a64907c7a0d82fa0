/**
 * A backup or a restore started while records an older version stored are still set aside first finishes
 * filing and moving them: the backup reads every record from where the current layout keeps it, and a
 * restore leaves none to move into the cache it writes.
 */
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { useCacheAdminStore } from '../../../../src/stores/cache-admin-store'
import { CONN, T0, historyItem } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'

/** What the set-aside store held when the backup stream and the restore began. */
const leftAt = vi.hoisted(() => ({
  backup: -1,
  restore: -1,
  db: null as null | { count: () => Promise<number> },
}))

vi.mock('../../../../src/platform/files', () => ({
  writeFileThroughHost: async () => {
    leftAt.backup = (await leftAt.db?.count()) ?? -1
    return { fileName: 'backup.jsonl' }
  },
}))
vi.mock('../../../../src/db/backup-stream', async (original) => ({
  ...(await original<typeof import('../../../../src/db/backup-stream')>()),
  restoreBackupFile: async () => {
    leftAt.restore = (await leftAt.db?.count()) ?? -1
  },
}))

let db: ClosebookDb

beforeEach(async () => {
  ;({ db } = await openLedgerCache(3))
  setActivePinia(createPinia())
  const older = [5, 6, 7].map((i) =>
    historyRecordOf(CONN, historyItem(90 + i, { created_on: new Date(T0 + i * 3_600_000).toISOString() }), 0),
  )
  await db.legacyHistory.bulkAdd(older)
  leftAt.db = db.legacyHistory
  leftAt.backup = leftAt.restore = -1
})
afterEach(() => closeLedgerCache(db))

describe('cache admin with records of an older version set aside', () => {
  it('moves them all before the backup is written', async () => {
    expect(await db.legacyHistory.count()).toBe(3)
    expect(await useCacheAdminStore().backup()).toBe('backup.jsonl')
    expect(leftAt.backup).toBe(0)
    expect(await db.historyParts.orderBy('keys').count()).toBe(6)
  })

  it('moves them all before a restore replaces the cache', async () => {
    const store = useCacheAdminStore()
    store.pending = {
      file: new File([''], 'backup.jsonl'),
      summary: { exportedAt: '', tables: {} as never },
      digest: '',
      verification: { status: 'verified' },
    }
    // (What the store does after the restore, reading counts and storage, is not this test's concern.)
    await store.confirmRestore()
    expect(leftAt.restore).toBe(0)
  })
})
