/**
 * The restore's switch is all or nothing: whatever stops it before it commits (a crash after any table it
 * copied, Cancel) leaves every table of the cache as it was, derived day rows included, and the next
 * restore of the same file succeeds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BackupError, restoreBackupFile, streamBackup } from '../../../../src/db/backup-stream'
import { STAGED_TABLE_NAMES, type ClosebookDb } from '../../../../src/db/database'
import { T0, openDb } from './fixtures'
import { fillCache as fill, leftoverRows } from './backup-support'

let source: ClosebookDb
let target: ClosebookDb

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
