/**
 * The app's backup as it is written now: streamBackup's text, gzip-compressed in the renderer and sent as
 * base64 through writeFileThroughHost to a host that decodes each chunk as main's FileWriter does
 * (`Buffer.from(chunk, 'base64')`; its own tests cover the check and the file), then read back by the restore.
 */
import { gunzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import { countTables } from '../../../../src/db/backup'
import { checkBackupFile, restoreBackupFile, streamBackup } from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { setDesktopApiForTests } from '../../../../src/platform'
import { writeFileThroughHost } from '../../../../src/platform/files'
import { backupText, fillCache } from './backup-support'
import { T0, openDb } from './fixtures'

let db: ClosebookDb
let other: ClosebookDb
/** What the host was asked, in order, and the bytes of the file it delivered (null: none). */
let calls: string[]
let delivered: Buffer | null

/** A host that keeps the file's bytes in memory until finish delivers them, and drops them on cancel. */
function memoryHost(): Pick<DesktopApi, 'files'> {
  let parts: Buffer[] = []
  let bytes = 0
  return {
    files: {
      begin: (a) => {
        calls.push(`begin ${a.mediaType} ${a.encoding ?? 'utf-8'}`)
        return Promise.resolve({ fileId: 'backup-file-0000' })
      },
      append: (a) => {
        calls.push('append')
        const part = a.chunk.length % 4 === 0 ? Buffer.from(a.chunk, 'base64') : Buffer.alloc(0)
        if (part.length === 0) throw new Error(`not whole base64: ${a.chunk.length} characters`)
        parts.push(part)
        return Promise.resolve({ bytesWritten: (bytes += part.length) })
      },
      finish: (a) => {
        calls.push('finish')
        delivered = Buffer.concat(parts)
        return Promise.resolve({ savedTo: 'path', path: `/backups/${a.fileId}`, fileName: 'b.jsonl.gz' })
      },
      cancel: () => {
        calls.push('cancel')
        parts = []
        return Promise.resolve({ cancelled: true })
      },
    },
  }
}

beforeEach(async () => {
  calls = []
  delivered = null
  setDesktopApiForTests(memoryHost() as DesktopApi)
  db = openDb()
  other = openDb('other')
  await fillCache(db, 1, 40, 'sato')
})
afterEach(() => {
  setDesktopApiForTests(undefined)
  db.close()
  other.close()
})

describe('a gzip backup written through the host', () => {
  it('is the gzip of the backup text, and restores to the same cache', async () => {
    await writeFileThroughHost(
      'closebook-backup.jsonl.gz',
      'application/gzip',
      streamBackup(db, { now: new Date(T0), pageRows: 2, chunkChars: 512 }),
    )
    expect(calls[0]).toBe('begin application/gzip base64')
    expect(calls.at(-1)).toBe('finish')
    const bytes = delivered ?? Buffer.alloc(0)
    const text = await backupText(db)
    expect(gunzipSync(bytes).toString('utf8')).toBe(text)
    expect(bytes.length).toBeLessThan(Buffer.byteLength(text) / 3)

    const file = new Blob([new Uint8Array(bytes)])
    const check = await checkBackupFile(file)
    expect(check.digest).toBe((await checkBackupFile(new Blob([text]))).digest)
    await restoreBackupFile(other, file)
    // The restored cache writes the same backup (a payload's keys may come back in its schema's order),
    // and counts what the source counts in every table.
    const rows = (t: string): unknown[] =>
      t
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown)
    expect(rows(await backupText(other))).toEqual(rows(text))
    expect(await countTables(other)).toEqual(await countTables(db))
  })

  it('cancelled midway: the host is told to drop the file, and delivers nothing', async () => {
    const abort = new AbortController()
    let chunks = 0
    async function* cancelledAfterTwo(): AsyncGenerator<string> {
      for await (const chunk of streamBackup(db, { pageRows: 2, chunkChars: 256, signal: abort.signal })) {
        if (++chunks === 3) abort.abort()
        yield chunk
      }
    }
    await expect(
      writeFileThroughHost('closebook-backup.jsonl.gz', 'application/gzip', cancelledAfterTwo(), {
        signal: abort.signal,
      }),
    ).rejects.toThrow()
    expect(chunks).toBeGreaterThanOrEqual(3)
    // The host was told to drop the file, last, and never to finish it.
    expect(calls.at(-1)).toBe('cancel')
    expect(calls).not.toContain('finish')
    expect(delivered).toBeNull()
  })
})
