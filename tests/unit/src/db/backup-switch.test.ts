/**
 * The restore's switch is all or nothing: whatever stops it before it commits (a crash after any table it
 * copied, Cancel) leaves every table of the cache as it was, derived day rows included, and the next
 * restore of the same file succeeds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendAuditEntries } from '../../../../src/db/audit-repository'
import { BackupError, restoreBackupFile, streamBackup } from '../../../../src/db/backup-stream'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { STAGED_TABLE_NAMES, type ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import {
  CONN,
  HOUR,
  STORE_1,
  T0,
  auditEntry,
  chargeItem,
  checkpoint,
  connectionRow,
  historyItem,
  mark,
  openDb,
  putMarks,
} from './fixtures'
import { leftoverRows } from './backup-support'

let source: ClosebookDb
let target: ClosebookDb

/** A cache with rows in every table a restore replaces that a sync and the accountant fill. */
async function fill(db: ClosebookDb, first: number, count: number, note: string): Promise<void> {
  const history = Array.from({ length: count }, (_, i) =>
    historyRecordOf(CONN, historyItem(first + i * 5), T0),
  )
  await db.connections.put(connectionRow())
  await db.stores.put({ connectionId: CONN, storeId: STORE_1, storeName: note, merchantName: 'M' })
  await db.history.bulkPut(history)
  await db.charges.bulkPut([first, first + 1].map((n) => chargeRecordOf(CONN, chargeItem(n), T0)))
  await putMarks(
    db,
    history.slice(0, 3).map((h) => mark(h.key, { note, updatedAt: T0 + HOUR })),
    (m) => history.find((h) => h.key === m.key)!.createdAt,
  )
  await appendAuditEntries(db.audit, [auditEntry({ key: history[0]!.key, at: T0 + HOUR })])
  await db.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0 - HOUR, lockedBy: note })
  await db.checkpoints.put(checkpoint())
  await db.settings.put({ key: 'locale', value: { lang: note } })
}

async function backupText(db: ClosebookDb): Promise<string> {
  let text = ''
  for await (const chunk of streamBackup(db, { now: new Date(T0), pageRows: 2 })) text += chunk
  return text
}

/** Every table of the cache, rows in key order: what a half-done switch would change. */
async function everyTable(db: ClosebookDb): Promise<Record<string, unknown[]>> {
  const tables = await Promise.all(db.allTables().map(async (t) => [t.name, await t.toArray()] as const))
  return Object.fromEntries(tables)
}

const stagedRows = leftoverRows

beforeEach(async () => {
  source = openDb('source')
  target = openDb('target')
  await fill(source, 100, 9, 'en')
  await fill(target, 1, 4, 'ja')
})
afterEach(() => {
  source.close()
  target.close()
})

// The switch copies every staged table but the charges (held as their day parts), then moves the live
// generation.
const SWITCHED = [...STAGED_TABLE_NAMES.filter((name) => name !== 'charges'), 'liveGeneration']

describe('the restore switch', () => {
  it.each(SWITCHED)(
    'a crash after it copied %s leaves every table as it was, and the next restore succeeds',
    async (table) => {
      const before = await everyTable(target)
      const file = new Blob([await backupText(source)])
      const error = await restoreBackupFile(target, file, {
        pageRows: 2,
        faults: {
          afterSwitchTable: (name) => {
            if (name === table) throw new Error(`crash after ${name}`)
          },
        },
      }).then(
        () => null,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(BackupError)
      expect(await everyTable(target)).toEqual(before)
      expect(await stagedRows(target)).toBe(0)

      await restoreBackupFile(target, file, { pageRows: 2 })
      // What a restore of the same file into an empty cache gives.
      const fresh = openDb('fresh')
      try {
        await restoreBackupFile(fresh, file, { pageRows: 2 })
        expect(await backupText(target)).toBe(await backupText(fresh))
      } finally {
        fresh.close()
      }
    },
  )
})
