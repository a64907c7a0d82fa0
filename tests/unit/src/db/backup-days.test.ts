import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { restoreBackupFile, streamBackup } from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { dayDigestRowsOf, daySummaryRowOf } from '../../../../src/db/day-digests'
import { dayTokenRowsOf } from '../../../../src/db/day-tokens'
import { byTimeThenKey, historyRecordOf, searchDayOf } from '../../../../src/db/history-record'
import { HistoryWriter } from '../../../../src/db/history-writer'
import { historyPartRowsOf } from '../../../../src/db/history-parts'
import type { StreamProgress } from '../../../../src/db/backup-format'
import { isCompact } from '../../../../src/db/charge-columns'
import { chargeDayRowsOf } from '../../../../src/db/charge-days'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { CONN, HOUR, T0, chargeItem, connectionRow, historyItem, openDb } from './fixtures'
import { allHistory, countHistory } from '../../../../src/db/history-part-reads'

const OTHER = 'conn-b'
let db: ClosebookDb
let other: ClosebookDb

/**
 * 40 records of each of two connections over five days, whose keys do not sort in time order (item n is
 * created at a scrambled hour), and two of them at the same instant (ties are ordered by key).
 */
async function seed(target: ClosebookDb): Promise<void> {
  const at = (n: number): string => new Date(T0 + ((n * 17) % 40) * 3 * HOUR).toISOString()
  const records = [CONN, OTHER].flatMap((connectionId) =>
    Array.from({ length: 40 }, (_, i) =>
      historyRecordOf(connectionId, historyItem(i + 1, { created_on: at(i === 39 ? 1 : i + 1) }), T0),
    ),
  )
  const charges = [CONN, OTHER].flatMap((connectionId) =>
    Array.from({ length: 40 }, (_, i) =>
      chargeRecordOf(connectionId, chargeItem(i + 1, { created_on: at(i === 39 ? 1 : i + 1) }), T0),
    ),
  )
  await target.connections.bulkPut([connectionRow(), connectionRow({ id: OTHER })])
  const writer = new HistoryWriter(target)
  await target.transaction('rw', [...writer.historyTables(), ...writer.chargeTables()], async () => {
    await writer.putHistory(records)
    await writer.putCharges(charges)
  })
}

async function backupText(source: ClosebookDb): Promise<string> {
  let text = ''
  for await (const chunk of streamBackup(source, { now: new Date(T0), pageRows: 3 })) text += chunk
  return text
}

/** The lines of a table of a backup and a rebuild of the file with them in another order. */
function historyLines(
  text: string,
  table: 'history' | 'charges' = 'history',
): { rows: string[]; withRows: (rows: string[]) => string } {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.startsWith(`{"table":"${table}"`)) + 1
  const end = lines.findIndex((l, i) => i >= start && l.startsWith('{"table":'))
  const rows = lines.slice(start, end)
  return { rows, withRows: (next) => [...lines.slice(0, start), ...next, ...lines.slice(end)].join('\n') }
}

/** A table's lines by connection and UTC day, each day's lines reversed (the days still in order). */
function daysReversed(rows: readonly string[]): Map<string, string[]> {
  const dayOf = (line: string): string => {
    const row = JSON.parse(line) as { connectionId: string; raw: { created_on: string } }
    return `${row.connectionId} ${searchDayOf(Date.parse(row.raw.created_on))}`
  }
  const days = new Map<string, string[]>()
  for (const line of rows) days.set(dayOf(line), [line, ...(days.get(dayOf(line)) ?? [])])
  return days
}

/** Restores `text` into `other`, returning the phases its progress named. */
/** Records per history part in these restores: a day's records fill several. */
const PART = 5

async function restore(text: string): Promise<Set<string | undefined>> {
  const phases = new Set<string | undefined>()
  await restoreBackupFile(other, new Blob([text]), {
    pageRows: 3,
    historyPartSize: PART,
    onProgress: (p: StreamProgress) => phases.add(p.phase),
  })
  return phases
}

async function expectSameDayRows(): Promise<void> {
  // In the time index's order (ties by key): the order a day's rows list their records in.
  const records = (await allHistory(db)).sort((a, b) =>
    a.connectionId < b.connectionId ? -1 : a.connectionId > b.connectionId ? 1 : byTimeThenKey(a, b),
  )
  expect(await countHistory(other)).toBe(80)
  expect(await other.dayDigests.toArray()).toEqual(dayDigestRowsOf(records))
  expect(await other.daySummaries.toArray()).toEqual(dayDigestRowsOf(records).map(daySummaryRowOf))
  expect(await other.dayTokens.toArray()).toEqual(dayTokenRowsOf(records))
  // The day parts built from scratch, whatever order the file listed them in; no row per record.
  expect(await other.historyParts.toArray()).toEqual(historyPartRowsOf(records, PART))
  expect(await other.history.count()).toBe(0)
}

/** The charge days and parts `other` holds are those built from scratch from `db`'s charges. */
async function expectSameChargeRows(): Promise<void> {
  const charges = (await db.chargeParts.toArray()).flatMap((p) => p.charges)
  // The staged charges' time index order: connection, time, then id.
  charges.sort(
    (a, b) =>
      (a.connectionId < b.connectionId ? -1 : a.connectionId > b.connectionId ? 1 : 0) ||
      a.createdAt - b.createdAt ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  )
  const built = [CONN, OTHER].map((c) =>
    chargeDayRowsOf(
      c,
      charges.filter((r) => r.connectionId === c),
    ),
  )
  const byKey = (a: { connectionId: string; day: number }, b: { connectionId: string; day: number }) =>
    (a.connectionId < b.connectionId ? -1 : 1) * (a.connectionId === b.connectionId ? 0 : 1) || a.day - b.day
  expect(charges).toHaveLength(80)
  // Each day row carries its charges' compact columns (charge-columns.ts), as a sync's write does.
  expect((await other.chargeDays.toArray()).every(isCompact)).toBe(true)
  expect(await other.chargeDays.toArray()).toEqual(built.flatMap((b) => b.chargeDays).sort(byKey))
  expect(await other.chargeParts.toArray()).toEqual(built.flatMap((b) => b.chargeParts).sort(byKey))
  expect(await other.staged('charges').count()).toBe(0)
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

describe('a restore files the history day rows as it reads a file in time order', () => {
  it('a backup lists history a connection at a time, oldest first, ties by key', async () => {
    const rows = historyLines(await backupText(db)).rows.map(
      (l) => JSON.parse(l) as { connectionId: string; raw: { created_on: string; resource_id: string } },
    )
    const order = rows.map((r) => [r.connectionId, Date.parse(r.raw.created_on), r.raw.resource_id] as const)
    const sorted = [...order].sort(
      (a, b) => a[0].localeCompare(b[0]) || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0),
    )
    expect(order).toEqual(sorted)
    expect(rows).toHaveLength(80)
    expect(new Set(rows.map((r) => searchDayOf(Date.parse(r.raw.created_on)))).size).toBe(5)
  })

  it('pages through records of one instant (more than a page of them, in parts and older rows) without repeating or losing one', async () => {
    const same = new Date(T0 + 5 * HOUR).toISOString()
    const records = Array.from({ length: 11 }, (_, i) =>
      historyRecordOf(CONN, historyItem(100 + i, i < 8 ? { created_on: same } : {}), T0),
    )
    await other.connections.put(connectionRow())
    // Some in day parts, the rest rows of `history` as a cache from before parts holds them.
    await other.transaction('rw', new HistoryWriter(other).historyTables(), () =>
      new HistoryWriter(other).putHistory(records.filter((_, i) => i % 2 === 0)),
    )
    await other.history.bulkPut(records.filter((_, i) => i % 2 === 1))
    expect(await other.history.count()).toBe(5)
    const ids = historyLines(await backupText(other)).rows.map(
      (l) => (JSON.parse(l) as { raw: { resource_id: string } }).raw.resource_id,
    )
    expect(ids).toEqual([...records].sort(byTimeThenKey).map((r) => r.resourceId))
    expect(new Set(ids).size).toBe(11)
  })

  it('files every day while reading (nothing read back afterwards) with the rows the index pass makes', async () => {
    const phases = await restore(await backupText(db))
    expect(phases.has('index')).toBe(false)
    await expectSameDayRows()
  })

  it('files a day whose records the file lists in any order within it, in time-then-key order', async () => {
    const file = historyLines(await backupText(db))
    const days = daysReversed(file.rows)
    const phases = await restore(file.withRows([...days.values()].flat()))
    expect(phases.has('index')).toBe(false)
    await expectSameDayRows()
  })

  it.each([
    ['reversed', (rows: string[]) => [...rows].reverse()],
    // In order for all but its last line: the days filed while reading are filed again, whole.
    ['one record late', (rows: string[]) => [...rows.slice(1, 40), rows[0]!, ...rows.slice(40)]],
    [
      'connections interleaved',
      (rows: string[]) => rows.flatMap((r, i) => (i < 40 ? [r, rows[i + 40]!] : [])),
    ],
  ])(
    'a file in another order (%s) is filed afterwards, through the time index, the same',
    async (_, edit) => {
      const file = historyLines(await backupText(db))
      const phases = await restore(file.withRows(edit(file.rows)))
      expect(phases.has('index')).toBe(true)
      await expectSameDayRows()
    },
  )
})

describe('a restore files the charge list in its day parts as it reads a file in time order', () => {
  it('a backup lists charges a connection at a time, a day at a time', async () => {
    const rows = historyLines(await backupText(db), 'charges').rows.map(
      (l) => JSON.parse(l) as { connectionId: string; raw: { created_on: string } },
    )
    const order = rows.map((r) => `${r.connectionId} ${searchDayOf(Date.parse(r.raw.created_on))}`)
    expect(order).toEqual([...order].sort())
    expect(new Set(order).size).toBe(10)
  })

  it('files every charge while reading (nothing staged, no index pass) as the index pass would', async () => {
    const phases = await restore(await backupText(db))
    expect(phases.has('index')).toBe(false)
    await expectSameChargeRows()
  })

  it('files a day listed in any order within it, and a charge listed twice there once', async () => {
    const file = historyLines(await backupText(db), 'charges')
    const days = daysReversed(file.rows)
    // The first day's first charge listed again at its day's end.
    const first = [...days.values()][0]!
    first.push(first[0]!)
    // The file's counts say one more row.
    const text = file
      .withRows([...days.values()].flat())
      .replace('{"table":"charges","rows":80}', '{"table":"charges","rows":81}')
      .replace(/\{"end":true,"rows":(\d+)\}/, (_, n: string) => `{"end":true,"rows":${Number(n) + 1}}`)
    const phases = await restore(text)
    expect(phases.has('index')).toBe(false)
    await expectSameChargeRows()
  })

  it.each([
    ['reversed', (rows: string[]) => [...rows].reverse()],
    // In order for all but its last line: the days filed while reading move to staging, filed again.
    ['one charge late', (rows: string[]) => [...rows.slice(1, 40), rows[0]!, ...rows.slice(40)]],
    ['one day late', (rows: string[]) => [...rows.slice(8, 40), ...rows.slice(0, 8), ...rows.slice(40)]],
    [
      'connections interleaved',
      (rows: string[]) => rows.flatMap((r, i) => (i < 40 ? [r, rows[i + 40]!] : [])),
    ],
  ])('a file whose charges are in another order (%s) is filed after reading, the same', async (_, edit) => {
    const file = historyLines(await backupText(db), 'charges')
    const phases = await restore(file.withRows(edit(file.rows)))
    expect(phases.has('index')).toBe(true)
    await expectSameChargeRows()
  })
})
