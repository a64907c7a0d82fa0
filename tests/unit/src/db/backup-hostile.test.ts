/**
 * Backups built outside Closebook to do harm: a gzip bomb, rows that point at nothing, text fields far past
 * anything the app writes. Each is refused with its own code and leaves the cache as it was.
 */
import { gzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendAuditEntries } from '../../../../src/db/audit-repository'
import { countTables } from '../../../../src/db/backup'
import {
  BackupError,
  checkBackupFile,
  restoreBackupFile,
  streamBackup,
} from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import {
  CONN,
  HOUR,
  STORE_1,
  T0,
  auditEntry,
  connectionRow,
  historyItem,
  mark,
  openDb,
  putMarks,
} from './fixtures'

const MIB = 1024 * 1024

let db: ClosebookDb
let other: ClosebookDb

/** Three records, a mark on one, its audit entry. */
async function seed(target: ClosebookDb): Promise<void> {
  const history = [1, 2, 3].map((n) => historyRecordOf(CONN, historyItem(n), T0))
  await target.connections.put(connectionRow())
  await target.stores.put({ connectionId: CONN, storeId: STORE_1, storeName: 'One', merchantName: 'M' })
  await target.history.bulkPut(history)
  await putMarks(target, [mark(history[0]!.key, { note: 'ok' })], () => history[0]!.createdAt)
  await appendAuditEntries(target.audit, [auditEntry({ key: history[0]!.key, at: T0 + HOUR })])
}

async function backupText(source: ClosebookDb): Promise<string> {
  let text = ''
  for await (const chunk of streamBackup(source, { now: new Date(T0 + 40 * 24 * HOUR) })) text += chunk
  return text
}

async function refusal(p: Promise<unknown>): Promise<BackupError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof BackupError)) throw new Error(`expected a BackupError, got ${String(error)}`)
  return error
}

/** A file read as a disk file is: in small chunks, only as fast as the reader takes them; counts them. */
class PulledBlob extends Blob {
  static readonly CHUNK = 4 * 1024
  /** The most bytes any one read of the file pulled. */
  mostPulled = 0
  constructor(private readonly content: Uint8Array) {
    super([new Uint8Array(content)])
  }
  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    let at = 0
    return new ReadableStream<Uint8Array<ArrayBuffer>>(
      {
        pull: (controller) => {
          if (at >= this.content.byteLength) return controller.close()
          const chunk = new Uint8Array(this.content.subarray(at, at + PulledBlob.CHUNK))
          at += chunk.byteLength
          this.mostPulled = Math.max(this.mostPulled, at)
          controller.enqueue(chunk)
        },
      },
      { highWaterMark: 0 },
    )
  }
}

beforeEach(async () => {
  db = openDb()
  other = openDb('other')
  await seed(db)
  await seed(other)
})
afterEach(() => {
  db.close()
  other.close()
})

describe('a compressed backup is inflated within a limit', () => {
  it('restores a gzip backup within its limit', async () => {
    const file = new Blob([gzipSync(await backupText(db))])
    await expect(checkBackupFile(file)).resolves.toMatchObject({ version: 2 })
  })

  it('refuses a gzip bomb as soon as it passes the limit, in the check and in the restore', async () => {
    // A real header line, then 64 MiB of blank lines: every line is harmless, the size is not.
    const header = `${JSON.stringify({ format: 'closebook-backup', version: 2, exportedAt: 'x' })}\n`
    const bomb = new PulledBlob(gzipSync(Buffer.concat([Buffer.from(header), Buffer.alloc(64 * MIB, 0x0a)])))
    const limits = { floorBytes: MIB, ratio: 2 }
    const error = await refusal(checkBackupFile(bomb, { inflateLimits: limits }))
    expect(error).toMatchObject({ code: 'inflated_too_large', params: { max: 1 } })
    // Inflating stopped a few slices past the limit: of the ~64 KiB file, only the first chunks were
    // ever read (1 MiB of blank lines is about 1 KiB of gzip).
    expect(bomb.mostPulled).toBeLessThanOrEqual(8 * PulledBlob.CHUNK)
    expect(bomb.mostPulled).toBeLessThan(bomb.size / 2)
    const before = await countTables(other)
    const again = await refusal(restoreBackupFile(other, bomb, { inflateLimits: limits }))
    expect(again.code).toBe('inflated_too_large')
    expect(await countTables(other)).toEqual(before)
  })

  it('refuses a bomb without line breaks (read as a version-1 document) the same way', async () => {
    const bomb = new Blob([gzipSync(Buffer.alloc(64 * MIB, 0x20))])
    const error = await refusal(checkBackupFile(bomb, { inflateLimits: { floorBytes: MIB, ratio: 2 } }))
    expect(error.code).toBe('inflated_too_large')
  })
})
