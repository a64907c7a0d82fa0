/**
 * A backup written by every released format restores, into a cache that held other data, to the cache it
 * was taken from. The files in backup-formats/ were written by the released writers from the same cache
 * (six records, three marked, an audit entry, a closed month, a checkpoint, a setting): `v2.ndjson` by
 * streamBackup (format 2, line-delimited), `v1.json` by exportBackup (format 1, one document), and
 * `v1-early.json` is that document as the first format-1 writers left it: no imports or payout tables,
 * stores without `seenAt`, history rows with the `searchText` and `searchTokens` they no longer store.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkBackupFile, restoreBackupFile } from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { countHistory } from '../../../../src/db/history-part-reads'
import { openDb } from './fixtures'
import { backupText, fillCache, leftoverRows } from './backup-support'

const fixture = (name: string): string => readFileSync(join(__dirname, 'backup-formats', name), 'utf8')

/** A format-2 text as its parsed lines (a payload's key order is not part of the format). */
const linesOf = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown)

let target: ClosebookDb
beforeEach(async () => {
  target = openDb('target')
  await fillCache(target, 1, 4, 'ja')
})
afterEach(() => target.close())

// The cache the files were taken from, as format 2 writes it.
const taken = fixture('v2.ndjson')

describe('a backup of each released format restores', () => {
  it.each([
    ['format 2 (line-delimited)', 'v2.ndjson', taken],
    ['format 1 (one document)', 'v1.json', taken],
    // The first format-1 files had no store's `seenAt`; the restored store has none either.
    ['format 1 as first released', 'v1-early.json', taken.replace(/,"seenAt":\d+/g, '')],
  ])('%s', async (_, name, expected) => {
    const file = new Blob([fixture(name)])
    await checkBackupFile(file)
    await (
      await restoreBackupFile(target, file, { pageRows: 2 })
    ).cleanup
    expect(linesOf(await backupText(target))).toEqual(linesOf(expected))
    // Every record in the day parts a sync writes, none as a row of the table from before them.
    expect(await countHistory(target)).toBe(6)
    expect(await target.history.count()).toBe(0)
    expect(await leftoverRows(target)).toBe(0)
    expect((await target.storedGeneration()).generation).toBe(1)
  })
})
