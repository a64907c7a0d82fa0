/**
 * A restore writes history in the day parts a sync writes (history-parts.ts), built from scratch: the same
 * parts as a sync of the same records in time order, whatever order the file lists them in, so every
 * query answers as it does after a sync; no row per record is left; a key given twice is refused, within
 * a day and across days, with the line of its second copy.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { restoreBackupFile } from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { HistoryRepository } from '../../../../src/db/history-repository'
import {
  countHistory,
  hasMode,
  historyByKeys,
  historyInRange,
  historyWithStatus,
  newestHistoryTime,
  refundsInWindow,
  refundsOfCharges,
} from '../../../../src/db/history-part-reads'
import { byTimeThenKey, historyRecordOf } from '../../../../src/db/history-record'
import { HistoryWriter } from '../../../../src/db/history-writer'
import { KeySieve } from '../../../../src/db/key-sieve'
import { periodOfDay } from '../../../../src/db/restore-history'
import { searchDayOf } from '../../../../src/db/history-record'
import type { HistoryRecord, RecordKey } from '../../../../src/domain/records'
import {
  CONN,
  HOUR,
  T0,
  auditEntry,
  connectionRow,
  historyItem,
  mark,
  openDb,
  putMarks,
  uuid,
} from './fixtures'
import { appendAuditEntries } from '../../../../src/db/audit-repository'
import { backupText, fillCache, leftoverRows, refusal } from './backup-support'

/** Records per part in these tests: days of ~24 records fill several parts. */
const PART = 3

let synced: ClosebookDb
let restored: ClosebookDb

/**
 * 70 records an hour apart over three UTC days: charges, a refund of every fifth one's predecessor, some
 * pending, some in test mode, some in USD.
 */
function records(): HistoryRecord[] {
  return Array.from({ length: 70 }, (_, i) => {
    const n = i + 1
    const over =
      n % 5 === 0
        ? { type: 'refund' as const, charge_id: uuid(n - 1) }
        : {
            ...(n % 7 === 0 ? { status: 'pending' } : {}),
            ...(n % 4 === 0 ? { mode: 'test' as const } : {}),
            ...(n % 6 === 0 ? { currency: 'USD' } : {}),
          }
    return historyRecordOf(CONN, historyItem(n, over), T0)
  })
}

/** A cache synced page by page (pages of 7, in time order) by the history writer. */
async function sync(db: ClosebookDb, all: readonly HistoryRecord[]): Promise<void> {
  await db.connections.put(connectionRow())
  const writer = new HistoryWriter(db, undefined, undefined, undefined, PART)
  const inOrder = [...all].sort(byTimeThenKey)
  for (let i = 0; i < inOrder.length; i += 7)
    await db.transaction('rw', writer.historyTables(), () => writer.putHistory(inOrder.slice(i, i + 7)))
}

/** What the cache's history reads answer, each in a stable order. */
async function answers(db: ClosebookDb, all: readonly HistoryRecord[]): Promise<unknown> {
  const repo = new HistoryRepository(db, () => '')
  const range = { connectionId: CONN, from: 0, to: Number.MAX_SAFE_INTEGER }
  const keys: RecordKey[] = [...all.map((r) => r.key), 'charge:absent']
  const byKey = (a: HistoryRecord, b: HistoryRecord) => (a.key < b.key ? -1 : 1)
  return {
    all: await historyInRange(db, CONN, -Infinity, Infinity),
    window: await historyInRange(db, CONN, T0 + 10 * HOUR, T0 + 40 * HOUR),
    byKeys: await historyByKeys(db, CONN, keys),
    refunds: await refundsOfCharges(db, CONN, [uuid(4), uuid(9), uuid(64)]),
    refundsInWindow: (await refundsInWindow(db, CONN, T0, T0 + 50 * HOUR)).sort((a, b) =>
      a.resourceId < b.resourceId ? -1 : 1,
    ),
    pending: (await historyWithStatus(db, CONN, (s) => s === 'pending')).sort(byKey),
    modes: [await hasMode(db, CONN, 'test'), await hasMode(db, CONN, 'live')],
    count: await countHistory(db),
    newest: await newestHistoryTime(db, CONN),
    ledger: (await repo.queryAll(range)).map((r) => r.key),
    refundCount: await repo.count({ ...range, type: 'refund' }),
  }
}

/** `text` with its history section listed backwards: a file not in time order. */
function historyReversed(text: string): string {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.startsWith('{"table":"history"')) + 1
  const end = lines.findIndex((l, i) => i >= start && l.startsWith('{"table":'))
  lines.splice(start, end - start, ...lines.slice(start, end).reverse())
  return lines.join('\n')
}

beforeEach(() => {
  synced = openDb('synced')
  restored = openDb('restored')
})
afterEach(() => {
  synced.close()
  restored.close()
})

describe('a restore writes history in day parts', () => {
  it.each([
    ['in time order', (t: string) => t],
    ['not in time order', historyReversed],
  ])('from a file %s: the parts a sync writes, answering every query as after the sync', async (_, edit) => {
    const all = records()
    await sync(synced, all)
    const file = new Blob([edit(await backupText(synced))])
    await (
      await restoreBackupFile(restored, file, { pageRows: 5, historyPartSize: PART })
    ).cleanup
    expect(await restored.historyParts.toArray()).toEqual(await synced.historyParts.toArray())
    expect(await restored.dayDigests.toArray()).toEqual(await synced.dayDigests.toArray())
    expect(await restored.dayTokens.toArray()).toEqual(await synced.dayTokens.toArray())
    expect(await answers(restored, all)).toEqual(await answers(synced, all))
    // Days of several parts, and no row per record in either slot.
    expect(await restored.historyParts.count()).toBeGreaterThan(3 * 2)
    const rows = [restored.generationTables(0), restored.generationTables(1)].map((t) => t.history.count())
    expect(await Promise.all(rows)).toEqual([0, 0])
  })
})

/** The history lines of `text` (indexes into its lines) with their records' keys and days. */
function historyLines(
  text: string,
): { at: number; key: string; day: number; raw: Record<string, unknown> }[] {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.startsWith('{"table":"history"')) + 1
  const end = lines.findIndex((l, i) => i >= start && l.startsWith('{"table":'))
  return lines.slice(start, end).map((l, i) => {
    const row = JSON.parse(l) as { raw: Record<string, unknown> }
    const raw = row.raw
    return {
      at: start + i,
      key: `${String(raw['type'])}:${String(raw['resource_id'])}`,
      day: searchDayOf(Date.parse(String(raw['created_on']))),
      raw,
    }
  })
}

/** `text` with line `at` given `raw`'s resource id (the same key, unless the types differ). */
function withResourceOf(text: string, at: number, raw: Record<string, unknown>): string {
  const lines = text.split('\n')
  const row = JSON.parse(lines[at]!) as { raw: Record<string, unknown> }
  row.raw = { ...row.raw, resource_id: raw['resource_id'] }
  lines[at] = JSON.stringify(row)
  return lines.join('\n')
}

describe('a restore refuses a record twice, leaving the cache as it was', () => {
  beforeEach(async () => {
    await sync(synced, records())
    await fillCache(restored, 1, 4, 'ja')
  })

  /** Restores `text`, expecting a refusal naming `line` (1-based) and the cache unchanged. */
  async function refusedAt(text: string, line: number): Promise<void> {
    const before = await backupText(restored)
    const error = await refusal(restoreBackupFile(restored, new Blob([text]), { pageRows: 2 }))
    expect(error.code).toBe('duplicate_key')
    expect(error.params).toMatchObject({ table: 'history', line })
    expect(await backupText(restored)).toBe(before)
    expect(await leftoverRows(restored)).toBe(0)
  }

  it('within a day: the second copy, several pages after the first', async () => {
    const text = await backupText(synced)
    const lines = historyLines(text)
    const first = lines[1]!
    const later = lines.find(
      (l) => l.day === first.day && l.at >= first.at + 6 && l.raw['type'] === first.raw['type'],
    )!
    await refusedAt(withResourceOf(text, later.at, first.raw), later.at + 1)
  })

  it('across days, in a file in time order: its copy on a later day', async () => {
    const text = await backupText(synced)
    const lines = historyLines(text)
    const first = lines[0]!
    const later = lines.find((l) => l.day > first.day + 1 && l.raw['type'] === first.raw['type'])!
    await refusedAt(withResourceOf(text, later.at, first.raw), later.at + 1)
  })

  it('across days, in a file not in time order: whichever copy comes second', async () => {
    const text = historyReversed(await backupText(synced))
    const lines = historyLines(text)
    const first = lines[0]!
    const later = lines.find((l) => l.day < first.day - 1 && l.raw['type'] === first.raw['type'])!
    await refusedAt(withResourceOf(text, later.at, first.raw), later.at + 1)
  })
})

describe('marks find their records in the restored parts', () => {
  /** A synced cache with marks on a record of 1 October (a day two periods reach) and of 2 October. */
  async function marked(): Promise<string> {
    const all = records()
    await sync(synced, all)
    const onDays = [all[2]!, all[30]!]
    await putMarks(
      synced,
      onDays.map((r) => mark(r.key, { period: '2026-10' })),
      (m) => all.find((r) => r.key === m.key)!.createdAt,
    )
    return backupText(synced)
  }

  const orders: [string, (t: string) => string][] = [
    ['in time order', (t) => t],
    ['not in time order', historyReversed],
  ]

  it.each(orders)('from a file %s: each mark in its record’s day row', async (_, edit) => {
    const file = new Blob([edit(await marked())])
    await (
      await restoreBackupFile(restored, file, { pageRows: 5, historyPartSize: PART })
    ).cleanup
    expect(await restored.markDays.toArray()).toEqual(await synced.markDays.toArray())
  })

  it.each(orders)('from a file %s: a mark whose period its record contradicts', async (_, edit) => {
    const text = edit(await marked())
    for (const key of [records()[2]!.key, records()[30]!.key]) {
      const lines = text.split('\n').map((l) => {
        if (!l.includes(`"key":"${key}"`) || !l.includes('"state"')) return l
        return JSON.stringify({ ...(JSON.parse(l) as object), period: '2026-08' })
      })
      const error = await refusal(restoreBackupFile(restored, new Blob([lines.join('\n')]), { pageRows: 5 }))
      expect(error.code).toBe('mark_contradicts_record')
      expect(error.params).toMatchObject({ key, actual: '2026-10' })
    }
  })
})

describe('a restore reads a record’s time only where its period needs it', () => {
  /** A synced cache with marks and two audit entries each on a record of 1 October and of 2 October. */
  async function audited(): Promise<{ text: string; keys: RecordKey[] }> {
    const all = records()
    await sync(synced, all)
    const onDays = [all[2]!, all[30]!]
    await putMarks(
      synced,
      onDays.map((r) => mark(r.key)),
      (m) => all.find((r) => r.key === m.key)!.createdAt,
    )
    const entries = onDays.flatMap((r) => [
      auditEntry({ key: r.key }),
      auditEntry({ key: r.key, action: 'note', after: 'checked' }),
    ])
    await synced.transaction('rw', synced.audit, () => appendAuditEntries(synced.audit, entries))
    return { text: await backupText(synced), keys: onDays.map((r) => r.key) }
  }

  /** Counts the records' parts `db` reads by key (bulkGet) in either generation's slot. */
  function countPartReads(db: ClosebookDb): { keys: number } {
    const reads = { keys: 0 }
    db.use({
      stack: 'dbcore',
      name: 'part reads',
      create: (core) => ({
        ...core,
        table: (name) => {
          const table = core.table(name)
          if (!name.endsWith('historyParts')) return table
          return {
            ...table,
            getMany: (req) => {
              reads.keys += req.keys.length
              return table.getMany(req)
            },
          }
        },
      }),
    })
    return reads
  }

  it('from a file in time order: from its day’s digests, reading no part', async () => {
    const { text } = await audited()
    const reads = countPartReads(restored)
    await (
      await restoreBackupFile(restored, new Blob([text]), { pageRows: 5, historyPartSize: PART })
    ).cleanup
    expect(await restored.markDays.toArray()).toEqual(await synced.markDays.toArray())
    expect(reads.keys).toBe(0)
  })

  it('an audit entry whose period its record contradicts, beside another about the same record', async () => {
    const { text, keys } = await audited()
    const first = text.split('\n').findIndex((l) => l.includes(`"key":"${keys[0]}"`) && l.includes('"actor"'))
    const lines = text.split('\n')
    lines[first] = JSON.stringify({ ...(JSON.parse(lines[first]!) as object), period: '2026-08' })
    const error = await refusal(restoreBackupFile(restored, new Blob([lines.join('\n')]), { pageRows: 5 }))
    expect(error.code).toBe('audit_contradicts_record')
    expect(error.params).toMatchObject({ key: keys[0], period: '2026-08', actual: '2026-10' })
  })
})

describe('the key sieve', () => {
  it('never misses a key it was given, and rarely claims one it was not', () => {
    const sieve = new KeySieve()
    for (let n = 0; n < 50_000; n++) sieve.add(`conn\u0001charge:${uuid(n)}`)
    let missed = 0
    let claimed = 0
    for (let n = 0; n < 50_000; n++) if (!sieve.has(`conn\u0001charge:${uuid(n)}`)) missed++
    for (let n = 50_000; n < 100_000; n++) if (sieve.has(`conn\u0001charge:${uuid(n)}`)) claimed++
    expect(missed).toBe(0)
    expect(claimed).toBeLessThan(5)
  })
})

describe('a record’s period from its day', () => {
  it('is known for a day far from a month’s start, and left to the record’s time near one', () => {
    const day = (iso: string) => searchDayOf(Date.parse(iso))
    expect(periodOfDay(day('2026-10-15T00:00:00Z'))).toBe('2026-10')
    // UTC+14 reaches November from 10:00 UTC on 31 October; UTC−12 is in September until noon on 1 October.
    expect(periodOfDay(day('2026-10-31T00:00:00Z'))).toBeNull()
    expect(periodOfDay(day('2026-10-01T00:00:00Z'))).toBeNull()
    expect(periodOfDay(day('2026-10-02T00:00:00Z'))).toBe('2026-10')
  })
})
