/**
 * The restore's switch is all or nothing: whatever stops it before it commits (a crash after any table it
 * copied, Cancel) leaves every table of the cache as it was, derived day rows included, and the next
 * restore of the same file succeeds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BackupError, restoreBackupFile } from '../../../../src/db/backup-stream'
import { STAGED_TABLE_NAMES, type ClosebookDb } from '../../../../src/db/database'
import { openDb } from './fixtures'
import { backupText, everyTable, fillCache as fill, leftoverRows } from './backup-support'

let source: ClosebookDb
let target: ClosebookDb

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
