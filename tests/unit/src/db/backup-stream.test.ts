import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendAuditEntries } from '../../../../src/db/audit-repository'
import { countTables, exportBackup } from '../../../../src/db/backup'
import {
  assertRestoreComplete,
  BackupError,
  checkBackupFile,
  pagesByKey,
  RESTORE_MARKER_KEY,
  restoreBackupFile,
  streamBackup,
  type BackupErrorCode,
} from '../../../../src/db/backup-stream'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import type { ClosebookDb } from '../../../../src/db/database'
import { dayDigestRowsOf, daySummaryRowOf } from '../../../../src/db/day-digests'
import { dayTokenRowsOf } from '../../../../src/db/day-tokens'
import { historyRecordOf } from '../../../../src/db/history-record'
import { countHistory, historyByKeys } from '../../../../src/db/history-part-reads'
import type { HistoryRecord } from '../../../../src/domain/records'
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

let db: ClosebookDb
let other: ClosebookDb

/** A consistent cache: 7 records over two days, marks on three, a closed September and its audit. */
async function seed(target: ClosebookDb): Promise<HistoryRecord[]> {
  const history = Array.from({ length: 7 }, (_, i) => historyRecordOf(CONN, historyItem(i * 5 + 1), T0))
  await target.connections.put(connectionRow())
  await target.stores.put({ connectionId: CONN, storeId: STORE_1, storeName: 'One', merchantName: 'M' })
  await target.history.bulkPut(history)
  await target.charges.bulkPut([1, 2, 3].map((n) => chargeRecordOf(CONN, chargeItem(n), T0)))
  const marked = [history[0]!, history[3]!, history[6]!]
  await putMarks(
    target,
    marked.map((h, i) => mark(h.key, { note: `n${i}`, updatedAt: T0 + 30 * 86_400_000 })),
    (m) => history.find((h) => h.key === m.key)!.createdAt,
  )
  await appendAuditEntries(target.audit, [
    auditEntry({ action: 'close-period', key: null, period: '2026-09', at: T0 - HOUR }),
  ])
  await appendAuditEntries(target.audit, [
    auditEntry({ key: marked[0]!.key, at: T0 + HOUR }),
    auditEntry({ key: marked[1]!.key, at: T0 + HOUR }),
  ])
  await appendAuditEntries(target.audit, [auditEntry({ key: marked[2]!.key, action: 'note', after: 'n2' })])
  await target.locks.put({ connectionId: CONN, period: '2026-09', lockedAt: T0 - HOUR, lockedBy: 'alice' })
  await target.checkpoints.put(checkpoint())
  await target.settings.put({ key: 'locale', value: { lang: 'ja' } })
  return history
}

async function backupText(source: ClosebookDb, pageRows = 2): Promise<string> {
  let text = ''
  for await (const chunk of streamBackup(source, { now: new Date(T0), pageRows })) text += chunk
  return text
}

const fileOf = (text: string): Blob => new Blob([text])

async function refusal(p: Promise<unknown>): Promise<BackupError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof BackupError)) throw new Error(`expected a BackupError, got ${String(error)}`)
  return error
}

/** Rewrites the line(s) of a backup that `match`, or drops them when `replace` returns null. */
function editLines(
  text: string,
  match: (row: Record<string, unknown>) => boolean,
  replace: (row: Record<string, unknown>) => object | null,
): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (!line) return [line]
      const row = JSON.parse(line) as Record<string, unknown>
      if (!match(row)) return [line]
      const next = replace(row)
      return next === null ? [] : [JSON.stringify(next)]
    })
    .join('\n')
}

beforeEach(async () => {
  db = openDb()
  other = openDb('other')
  await seed(db)
})
afterEach(() => {
  db.close()
  other.close()
})

describe('streamed backup (version 2)', () => {
  it('writes line-delimited JSON: header, a section per table, history as its API payload, an end line', async () => {
    const lines = (await backupText(db))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines[0]).toEqual({
      format: 'closebook-backup',
      version: 2,
      exportedAt: '2026-10-01T00:00:00.000Z',
    })
    expect(lines.at(-1)).toEqual({ end: true, rows: 1 + 1 + 1 + 7 + 3 + 3 + 4 + 1 + 1 })
    const history = lines.findIndex((l) => l['table'] === 'history')
    expect(lines[history]).toEqual({ table: 'history', rows: 7 })
    expect(Object.keys(lines[history + 1]!).sort()).toEqual(['connectionId', 'raw', 'syncedAt'])
    const sections = lines.filter((l) => 'table' in l).map((l) => l['table'])
    expect(sections).toEqual([
      'connections',
      'stores',
      'locks',
      'history',
      'charges',
      'marks',
      'audit',
      'checkpoints',
      'settings',
      'imports',
      'importedRows',
      'payoutBankAccounts',
      'payoutConfig',
      'payoutTransfers',
      'payoutStatusChanges',
      'payoutLedgers',
      'ledgerLinks',
    ])
  })

  it('round-trips into another cache, a page per transaction, rebuilding day rows and the search index', async () => {
    const before = await exportBackup(db, new Date(T0))
    await other.history.put(historyRecordOf('gone', historyItem(99), T0))
    await other.settings.put({ key: 'stale', value: 1 })
    const file = fileOf(await backupText(db))
    const progress: number[] = []
    const check = await checkBackupFile(file, { onProgress: (p) => progress.push(p.done) })
    expect(check.counts).toEqual(await countTables(db))
    expect(progress.at(-1)).toBe(file.size)
    await restoreBackupFile(other, file, { pageRows: 2 })
    expect(await exportBackup(other, new Date(T0))).toEqual(before)
    expect(await other.dayDigests.toArray()).toEqual(dayDigestRowsOf(await db.history.toArray()))
    expect(await other.daySummaries.toArray()).toEqual(
      dayDigestRowsOf(await db.history.toArray()).map(daySummaryRowOf),
    )
    expect(await other.dayTokens.toArray()).toEqual(dayTokenRowsOf(await db.history.toArray()))
    expect(await other.markDays.toArray()).toEqual(await db.markDays.toArray())
    await expect(assertRestoreComplete(other)).resolves.toBeUndefined()
  })

  it('reads a version-2 file only as a stream, never as one string', async () => {
    // Past ~512 MB, Chromium cannot make the string file.text() would return: the old restore's failure.
    class StreamOnly extends Blob {
      override text(): Promise<string> {
        throw new Error('file.text() called')
      }
      override arrayBuffer(): Promise<ArrayBuffer> {
        throw new Error('file.arrayBuffer() called')
      }
    }
    const file = new StreamOnly([await backupText(db)])
    await checkBackupFile(file)
    await restoreBackupFile(other, file)
    expect(await countTables(other)).toEqual(await countTables(db))
  })

  it('appends one restore audit entry per connection when an actor is given', async () => {
    await restoreBackupFile(other, fileOf(await backupText(db)), { actor: 'sato', at: T0 + 9 })
    const last = await other.audit.orderBy(':id').last()
    expect(last).toMatchObject({ connectionId: CONN, actor: 'sato', action: 'restore', at: T0 + 9 })
  })

  it('restores a gzip-compressed backup', async () => {
    const gz = new Blob([await backupText(db)]).stream().pipeThrough(new CompressionStream('gzip'))
    const file = new Blob([await new Response(gz).arrayBuffer()])
    await checkBackupFile(file)
    await restoreBackupFile(other, file)
    expect(await countTables(other)).toEqual(await countTables(db))
  })

  it('still restores a version-1 file (one JSON document)', async () => {
    const legacy = JSON.stringify(await exportBackup(db, new Date(T0)))
    await checkBackupFile(fileOf(legacy))
    await restoreBackupFile(other, fileOf(legacy))
    expect(await exportBackup(other, new Date(T0))).toEqual(await exportBackup(db, new Date(T0)))
  })

  it('derives every indexed field from the API payload, not from what the file says', async () => {
    const legacy = await exportBackup(db, new Date(T0))
    const forged = legacy.tables.history[0]!
    Object.assign(forged, { amount: 1, currency: 'USD', createdAt: 0, searchText: 'forged', storeId: 'x' })
    await restoreBackupFile(other, fileOf(JSON.stringify(legacy)))
    const [restored] = await historyByKeys(other, CONN, [forged.key])
    expect(restored).toEqual(historyRecordOf(CONN, forged.raw, forged.syncedAt))
    expect(restored?.amount).toBe(forged.raw.amount)
    // Version 2 lines with extra fields: ignored the same way.
    const text = editLines(
      await backupText(db),
      (r) =>
        'raw' in r &&
        'connectionId' in r &&
        'syncedAt' in r &&
        (r['raw'] as { resource_id?: string }).resource_id === forged.resourceId,
      (r) => ({ ...r, amount: 1 }),
    )
    await restoreBackupFile(other, fileOf(text))
    expect((await historyByKeys(other, CONN, [forged.key]))[0]?.amount).toBe(forged.raw.amount)
  })

  it('refuses a backup made while the cache changed', async () => {
    const chunks = streamBackup(db, { now: new Date(T0), pageRows: 1, chunkChars: 1 })
    await chunks.next()
    await appendAuditEntries(db.audit, [auditEntry({ action: 'note', key: null })])
    const error = await refusal(
      (async () => {
        for (;;) if ((await chunks.next()).done) return
      })(),
    )
    expect(error.code).toBe('changed_during_backup')
  })

  it('says so when a restore stopped half-way', async () => {
    await other.settings.put({ key: RESTORE_MARKER_KEY, value: { startedAt: T0 } })
    expect((await refusal(assertRestoreComplete(other))).code).toBe('restore_interrupted')
  })
})

describe('restore refuses, with a specific error, and changes nothing', () => {
  const cases: [string, BackupErrorCode, (text: string) => string][] = [
    [
      'a connection in an unknown time zone',
      'unknown_time_zone',
      (t) =>
        editLines(
          t,
          (r) => r['id'] === CONN,
          (r) => ({ ...r, timeZone: 'Mars/Olympus_Mons' }),
        ),
    ],
    [
      "a mark whose period is not its record's",
      'mark_contradicts_record',
      (t) =>
        editLines(
          t,
          (r) => r['note'] === 'n1',
          (r) => ({ ...r, period: '2026-03' }),
        ),
    ],
    [
      'a mark changed after its month was closed',
      'mark_after_lock',
      (t) =>
        editLines(
          t,
          (r) => r['note'] === 'n1',
          (r) => ({ ...r, period: '2026-09', key: 'charge:not-in-file', updatedAt: T0 }),
        ),
    ],
    [
      "an audit entry whose period is not its record's",
      'audit_contradicts_record',
      (t) =>
        editLines(
          t,
          (r) => r['action'] === 'note',
          (r) => ({ ...r, period: '2025-01' }),
        ),
    ],
    [
      'a closed month without its closing in the audit log',
      'lock_contradicts_audit',
      (t) =>
        editLines(
          t,
          (r) => r['action'] === 'close-period',
          (r) => ({ ...r, action: 'reopen-period' }),
        ),
    ],
    [
      'a row that is not valid',
      'invalid_row',
      (t) =>
        editLines(
          t,
          (r) => 'raw' in r && 'syncedAt' in r,
          (r) => ({ ...r, raw: { ...(r['raw'] as object), amount: 'lots' } }),
        ),
    ],
    [
      'a record twice',
      'duplicate_key',
      (t) => {
        const lines = t.split('\n')
        const at = lines.findIndex((l) => l.includes('"table":"history"'))
        lines[at + 2] = lines[at + 1]!
        return lines.join('\n')
      },
    ],
    ['a file cut off before its end line', 'truncated', (t) => t.split('\n').slice(0, -2).join('\n')],
    [
      'a table missing rows',
      'truncated',
      (t) =>
        editLines(
          t,
          (r) => r['note'] === 'n1',
          () => null,
        ),
    ],
    [
      'a line that is not JSON',
      'invalid_line',
      (t) => t.replace('\n{"table":"charges"', '\n{oops\n{"table":"charges"'),
    ],
    ['a newer format', 'unsupported_version', (t) => t.replace('"version":2', '"version":3')],
    ['something else entirely', 'not_a_backup', () => 'hello\nworld\n'],
  ]
  it.each(cases)('%s', async (_, code, edit) => {
    await seed(other)
    const countsBefore = await countTables(other)
    const file = fileOf(edit(await backupText(db)))
    // The check (pass one) or the restore (pass two, against its staged copy) refuses it.
    const error = await refusal(checkBackupFile(file).then(() => restoreBackupFile(other, file)))
    expect(error.code).toBe(code)
    expect(await countTables(other)).toEqual(countsBefore)
  })

  it('the check keeps nothing per record: what refers to records is refused by the restore, before the switch', async () => {
    await seed(other)
    const countsBefore = await countTables(other)
    const lines = (await backupText(db)).split('\n')
    const at = lines.findIndex((l) => l.includes('"table":"history"'))
    lines[at + 2] = lines[at + 1]!
    const twice = fileOf(lines.join('\n'))
    await expect(checkBackupFile(twice)).resolves.toMatchObject({ version: 2 })
    const error = await refusal(restoreBackupFile(other, twice))
    expect(error.code).toBe('duplicate_key')
    expect(error.params).toMatchObject({ table: 'history', line: at + 3 })
    expect(await countTables(other)).toEqual(countsBefore)
    // A mark twice, found in its day's staged row.
    const marks = (await backupText(db)).split('\n')
    const m = marks.findIndex((l) => l.includes('"table":"marks"'))
    marks.splice(m + 2, 0, marks[m + 1]!)
    const fixed = marks.map((l) =>
      l.replace(/"table":"marks","rows":(\d+)/, (_, n: string) => `"table":"marks","rows":${Number(n) + 1}`),
    )
    const end = fixed.findIndex((l) => l.startsWith('{"end"'))
    fixed[end] = fixed[end]!.replace(/"rows":(\d+)/, (_, n: string) => `"rows":${Number(n) + 1}`)
    const markTwice = fileOf(fixed.join('\n'))
    await expect(checkBackupFile(markTwice)).resolves.toMatchObject({ version: 2 })
    expect((await refusal(restoreBackupFile(other, markTwice))).params).toMatchObject({ table: 'marks' })
    expect(await countTables(other)).toEqual(countsBefore)
  })

  it('refuses an unknown time zone in a version-1 file too', async () => {
    const legacy = await exportBackup(db, new Date(T0))
    legacy.tables.connections[0]!.timeZone = 'Not/AZone'
    expect((await refusal(checkBackupFile(fileOf(JSON.stringify(legacy))))).code).toBe('unknown_time_zone')
  })
})

describe('restore is all or nothing (pass two stages, then switches in one transaction)', () => {
  /** `other` holds a cache of its own: what a failed restore must leave exactly as it was. */
  async function previousCache(): Promise<string> {
    await seed(other)
    await other.settings.put({ key: 'mine', value: 'before the restore' })
    await other.history.put(historyRecordOf(CONN, historyItem(77), T0))
    return JSON.stringify(await exportBackup(other, new Date(T0)))
  }

  /** The backup of `db`, made different from `other` so a half-done restore would show. */
  async function incoming(): Promise<Blob> {
    await db.settings.put({ key: 'locale', value: { lang: 'en' } })
    await db.history.put(historyRecordOf(CONN, historyItem(88), T0))
    return fileOf(await backupText(db))
  }

  const stagedRows = leftoverRows

  /** A disk-backed file whose read fails part-way (a removed drive, a dropped network share). */
  class FailingFile extends Blob {
    constructor(
      parts: BlobPart[],
      private readonly failAfter: number,
    ) {
      super(parts)
    }
    override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
      const reader = super.stream().getReader()
      let read = 0
      return new ReadableStream({
        pull: async (controller) => {
          const { done, value } = await reader.read()
          if (done) return controller.close()
          if (read + value.byteLength > this.failAfter) {
            controller.enqueue(value.slice(0, this.failAfter - read))
            return controller.error(new DOMException('the file could not be read', 'NotReadableError'))
          }
          read += value.byteLength
          controller.enqueue(value)
        },
      })
    }
  }

  it('a file that stops being readable inside pass two leaves the previous cache readable, and says so', async () => {
    const before = await previousCache()
    const text = await (await incoming()).text()
    // Fails in the charges section: connections, history and more are read already.
    const file = new FailingFile([text], text.indexOf('{"table":"charges"') + 10)
    const error = await refusal(restoreBackupFile(other, file, { pageRows: 2 }))
    expect(error.code).toBe('restore_failed')
    expect(error.params['reason']).toContain('could not be read')
    expect(JSON.stringify(await exportBackup(other, new Date(T0)))).toBe(before)
    await expect(assertRestoreComplete(other)).resolves.toBeUndefined()
    expect(await stagedRows(other)).toBe(0)
  })

  it.each([
    ['history', 3],
    ['marks', 0],
    ['settings', 0],
  ] as const)('a crash before staging page %s #%i changes nothing', async (table, page) => {
    const before = await previousCache()
    const file = await incoming()
    const error = await refusal(
      restoreBackupFile(other, file, {
        pageRows: 2,
        faults: {
          beforeStagePage: (t, n) => {
            if (t === table && n >= 0 && page-- === 0) throw new Error(`crash at ${t}`)
          },
        },
      }),
    )
    expect(error.code).toBe('restore_failed')
    expect(JSON.stringify(await exportBackup(other, new Date(T0)))).toBe(before)
    await expect(assertRestoreComplete(other)).resolves.toBeUndefined()
  })

  it('a crash inside the switch (after the first tables were copied) rolls the whole switch back', async () => {
    const before = await previousCache()
    const digests = await other.dayDigests.toArray()
    const tokens = await other.dayTokens.toArray()
    const error = await refusal(
      restoreBackupFile(other, await incoming(), {
        pageRows: 2,
        faults: {
          afterSwitchTable: (name) => {
            if (name === 'stores') throw new Error('crash inside the switch')
          },
        },
      }),
    )
    expect(error.code).toBe('restore_failed')
    expect(JSON.stringify(await exportBackup(other, new Date(T0)))).toBe(before)
    expect(await other.dayDigests.toArray()).toEqual(digests)
    expect(await other.dayTokens.toArray()).toEqual(tokens)
    expect(await stagedRows(other)).toBe(0)
  })

  it.each([
    ['reading the file', 'beforeStagePage', 'marks'],
    ['switching in', 'afterSwitchTable', 'connections'],
  ] as const)('Cancel while %s stops the restore and leaves the cache as it was', async (_, hook, table) => {
    const before = await previousCache()
    const abort = new AbortController()
    const progress: string[] = []
    const outcome = await restoreBackupFile(other, await incoming(), {
      pageRows: 2,
      signal: abort.signal,
      onProgress: (p) => void progress.push(p.phase ?? 'read'),
      faults: {
        beforeStagePage: (t) => void (hook === 'beforeStagePage' && t === table && abort.abort()),
        afterSwitchTable: (t) => void (hook === 'afterSwitchTable' && t === table && abort.abort()),
      },
    }).then(
      () => 'finished',
      (e: unknown) => (e instanceof DOMException ? e.name : String(e)),
    )
    expect(outcome).toBe('AbortError')
    expect(JSON.stringify(await exportBackup(other, new Date(T0)))).toBe(before)
    expect(await stagedRows(other)).toBe(0)
    // A file in time order is filed as it is read: no index phase.
    if (hook === 'afterSwitchTable') expect(new Set(progress)).toEqual(new Set(['read', 'switch']))
  })

  it('stages every table a page at a time, so memory holds one page, not a table', async () => {
    // A page test that never split a table let: 500k records were one page (1.8 GiB).
    for (let n = 0; n < 30; n++) await db.history.put(historyRecordOf(CONN, historyItem(200 + n), T0))
    const pages = new Map<string, number[]>()
    await restoreBackupFile(other, fileOf(await backupText(db)), {
      pageRows: 4,
      faults: { beforeStagePage: (t, _, rows) => void pages.set(t, [...(pages.get(t) ?? []), rows]) },
    })
    expect(pages.get('history')).toEqual([4, 4, 4, 4, 4, 4, 4, 4, 4, 1])
    expect(Math.max(...[...pages.values()].flat())).toBeLessThanOrEqual(4)
    expect(await countHistory(other)).toBe(37)
    // Written in day parts: no row per record.
    expect(await other.history.count()).toBe(0)
  })

  it('a tab closed while staging leaves the cache readable; the next restore ignores the leftovers', async () => {
    const before = await previousCache()
    // What a closed tab leaves: rows of a restore that never switched, in the next generation and staging.
    await other.generationTables(1).history.put(historyRecordOf(CONN, historyItem(99), T0))
    await other.staged('settings').put({ key: 'leftover', value: 1 })
    expect(JSON.stringify(await exportBackup(other, new Date(T0)))).toBe(before)
    await expect(assertRestoreComplete(other)).resolves.toBeUndefined()
    const file = await incoming()
    await restoreBackupFile(other, file)
    expect(await exportBackup(other, new Date(T0))).toEqual(await exportBackup(db, new Date(T0)))
    expect(await stagedRows(other)).toBe(0)
  })

  it('a second restore started meanwhile (another tab) makes the first refuse to switch', async () => {
    await previousCache()
    const file = await incoming()
    let started = false
    const error = await refusal(
      restoreBackupFile(other, file, {
        pageRows: 2,
        faults: {
          beforeStagePage: (t) => {
            if (t !== 'settings' || started) return
            started = true
            // Another tab's restore takes over the staging tables.
            void other.staged('settings').put({ key: 'restoreStagingOwner', value: 'someone else' })
          },
        },
      }),
    )
    expect(error.code).toBe('restore_failed')
    expect(error.params['reason']).toBe('another restore started')
  })
})

describe('pages of grouped tables are sized by what their rows hold', () => {
  it("a page of day rows holds about pageRows marks, not pageRows days (a 500k cache's whole day index)", async () => {
    await db.markDays.clear()
    const day = (d: number) => ({
      connectionId: CONN,
      day: d,
      marks: Array.from({ length: 40 }, (_, i) => ({ ...mark(`charge:d${d}-${i}`), updatedAt: T0 })),
      changed: 0 as const,
    })
    await db.markDays.bulkPut(Array.from({ length: 30 }, (_, d) => day(d)))
    const pages: number[][] = []
    const keyOf = (r: { connectionId: string; day: number }) => [r.connectionId, r.day]
    for await (const page of pagesByKey(db.markDays, 100, keyOf))
      pages.push((page as { day: number; marks: unknown[] }[]).map((r) => r.day))
    // Every day once, in key order, and no page past 100 marks (2 days of 40) once the weight is known.
    expect(pages.flat()).toEqual(Array.from({ length: 30 }, (_, d) => d))
    expect(Math.max(...pages.map((p) => p.length * 40))).toBeLessThanOrEqual(100)
    // Ungrouped tables keep pages of pageRows rows.
    const history: unknown[][] = []
    for await (const page of pagesByKey(db.history, 3, (r: HistoryRecord) => [r.connectionId, r.key]))
      history.push(page)
    expect(history.map((p) => p.length)).toEqual([3, 3, 1])
  })
})
