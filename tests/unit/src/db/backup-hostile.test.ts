/**
 * Backups built outside Closebook to do harm: a gzip bomb, rows that point at nothing, text fields far past
 * anything the app writes. Each is refused with its own code and leaves the cache as it was.
 */
import { gzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { countTables } from '../../../../src/db/backup'
import { checkBackupFile, restoreBackupFile, streamBackup } from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { CONN, HOUR, T0, auditEntry, mark, openDb } from './fixtures'
import { refusal, seedMarkedCache } from './backup-support'

const MIB = 1024 * 1024

let db: ClosebookDb
let other: ClosebookDb

/** Three records, a mark on one, its audit entry. */
async function backupText(source: ClosebookDb): Promise<string> {
  let text = ''
  for await (const chunk of streamBackup(source, { now: new Date(T0 + 40 * 24 * HOUR) })) text += chunk
  return text
}

/** The backup's lines with `extra` rows added to `table` (its section's and the end line's counts kept right). */
function withRows(text: string, table: string, extra: readonly object[]): string {
  const lines = text.split('\n').filter((l) => l !== '')
  const at = lines.findIndex((l) => l.startsWith(`{"table":"${table}"`))
  const section = JSON.parse(lines[at]!) as { rows: number }
  lines[at] = JSON.stringify({ table, rows: section.rows + extra.length })
  lines.splice(at + 1 + section.rows, 0, ...extra.map((r) => JSON.stringify(r)))
  const end = JSON.parse(lines[lines.length - 1]!) as { rows: number }
  lines[lines.length - 1] = JSON.stringify({ end: true, rows: end.rows + extra.length })
  return `${lines.join('\n')}\n`
}

/** The backup with the rows of `table` that `match` rewritten by `edit`. */
function editRows(
  text: string,
  match: (row: Record<string, unknown>) => boolean,
  edit: (row: Record<string, unknown>) => object,
): string {
  return text
    .split('\n')
    .map((l) => {
      if (!l) return l
      const row = JSON.parse(l) as Record<string, unknown>
      return match(row) ? JSON.stringify(edit(row)) : l
    })
    .join('\n')
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
  await seedMarkedCache(db, 3)
  await seedMarkedCache(other, 3)
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

describe('a backup cannot bring work that points at nothing, nor text past any limit', () => {
  const absent = 'charge:not-in-this-backup'
  const cases: [string, string, Record<string, unknown>, (text: string) => string][] = [
    [
      'a reconciled mark for a record the backup does not hold',
      'mark_without_record',
      { key: absent },
      (t) => withRows(t, 'marks', [mark(absent, { note: 'forged', updatedAt: T0 })]),
    ],
    [
      'an audit entry about a record the backup does not hold',
      'audit_without_record',
      { key: absent },
      (t) => withRows(t, 'audit', [auditEntry({ seq: 99, key: absent, actor: 'External Auditor' })]),
    ],
    [
      'a closed month (with its closing in the audit log) of a connection not in the backup',
      'unknown_connection',
      { table: 'locks', connection: 'conn-forged' },
      (t) =>
        withRows(
          withRows(t, 'locks', [
            { connectionId: 'conn-forged', period: '2026-10', lockedAt: T0, lockedBy: 'External Auditor' },
          ]),
          'audit',
          [
            auditEntry({
              seq: 98,
              connectionId: 'conn-forged',
              action: 'close-period',
              key: null,
              period: '2026-10',
              actor: 'External Auditor',
            }),
          ],
        ),
    ],
    [
      'a closing whose snapshot lists a record the backup does not hold',
      'lock_without_record',
      { period: '2026-10', key: absent },
      (t) =>
        withRows(
          withRows(t, 'locks', [
            {
              connectionId: CONN,
              period: '2026-10',
              lockedAt: T0 + 30 * 24 * HOUR,
              lockedBy: 'External Auditor',
              snapshot: { [absent]: 'abc' },
            },
          ]),
          'audit',
          [
            auditEntry({
              seq: 98,
              action: 'close-period',
              key: null,
              period: '2026-10',
              at: T0 + 30 * 24 * HOUR,
            }),
          ],
        ),
    ],
    [
      'a 100,000-character actor name',
      'text_too_long',
      { table: 'audit', field: 'actor', max: 200 },
      (t) =>
        editRows(
          t,
          (r) => r['action'] === 'mark',
          (r) => ({ ...r, actor: 'A'.repeat(100_000) }),
        ),
    ],
    [
      'a note of 10,000 characters',
      'text_too_long',
      { table: 'marks', field: 'note', max: 2_000 },
      (t) =>
        editRows(
          t,
          (r) => r['note'] === 'ok',
          (r) => ({ ...r, note: 'n'.repeat(10_000) }),
        ),
    ],
    [
      "a 1 MB string inside a record's API payload",
      'text_too_long',
      { table: 'history', max: 100_000 },
      (t) =>
        editRows(
          t,
          (r) => 'raw' in r,
          (r) => ({ ...r, raw: { ...(r['raw'] as object), description: 'x'.repeat(1_000_000) } }),
        ),
    ],
  ]

  it.each(cases)('refuses %s, naming it, and changes nothing', async (_, code, params, edit) => {
    const before = await countTables(other)
    const file = new Blob([edit(await backupText(db))])
    const error = await refusal(checkBackupFile(file).then(() => restoreBackupFile(other, file)))
    expect(error.code).toBe(code)
    expect(error.params).toMatchObject(params)
    expect(await countTables(other)).toEqual(before)
  })

  it('accepts a mark for a record it does not hold only from a backup whose signature verified', async () => {
    // A cache whose synced copy was cleared keeps its marks: its genuine (signed) backup still restores.
    const file = new Blob([withRows(await backupText(db), 'marks', [mark(absent, { updatedAt: T0 })])])
    await checkBackupFile(file)
    await expect(
      restoreBackupFile(other, file, { verification: { status: 'verified', warned: false } }),
    ).resolves.toBeDefined()
    const refused = await refusal(
      restoreBackupFile(other, file, { verification: { status: 'mismatch', warned: true } }),
    )
    expect(refused.code).toBe('mark_without_record')
  })

  it('records in the restore entry what the signature said and that the user was warned', async () => {
    const file = new Blob([await backupText(db)])
    await restoreBackupFile(other, file, {
      actor: 'Kim',
      verification: { status: 'unsigned', warned: true },
    })
    const rows = await other.audit.toArray()
    const restore = rows
      .flatMap((r) => r.changes.map((c) => ({ ...r, ...c })))
      .find((e) => e.action === 'restore')
    expect(restore).toMatchObject({ actor: 'Kim', after: { status: 'unsigned', warned: true } })
  })
})

describe('the restore says what it does to the end', () => {
  it('reports the switch row by row, then that every row is copied and being committed', async () => {
    const seen: { phase: string; done: number; total: number | null }[] = []
    await restoreBackupFile(other, new Blob([await backupText(db)]), {
      pageRows: 2,
      onProgress: (p) => void seen.push({ phase: p.phase ?? 'read', done: p.done, total: p.total }),
    })
    const switching = seen.filter((p) => p.phase === 'switch')
    expect(switching.length).toBeGreaterThan(2)
    const last = seen.at(-1)!
    expect(last.phase).toBe('commit')
    expect(last.done).toBe(last.total)
    expect(last.total).toBe(switching.at(-1)!.total)
  })
})
