/**
 * The backup's bytes do not depend on how the writer reads the cache: `v2-varied.ndjson` is the file
 * streamBackup wrote, before its history lines were built from the stored rows, for the varied cache of
 * fillVariedCache (history in day parts, in older rows and in both, two connections, charges in both
 * layouts, text the JSON escapes). Any page size writes the same file.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { streamBackup } from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { T0, openDb } from './fixtures'
import { fillVariedCache } from './backup-support'

const reference = readFileSync(join(__dirname, 'backup-formats', 'v2-varied.ndjson'), 'utf8')

let db: ClosebookDb
beforeEach(async () => {
  db = openDb('varied')
  await fillVariedCache(db)
})
afterEach(() => db.close())

async function backupOf(pageRows?: number): Promise<string> {
  let text = ''
  for await (const chunk of streamBackup(db, { now: new Date(T0), pageRows, chunkChars: 4_096 }))
    text += chunk
  return text
}

describe('the backup file', () => {
  it.each([1, 2, 7, undefined])(
    'is byte for byte the released writer’s for the same cache (pages of %s)',
    async (pageRows) => {
      const text = await backupOf(pageRows)
      const lines = text.split('\n')
      const expected = reference.split('\n')
      for (let i = 0; i < Math.max(lines.length, expected.length); i++)
        if (lines[i] !== expected[i]) expect(lines[i], `line ${i + 1}`).toBe(expected[i])
      expect(text).toBe(reference)
    },
  )
})
