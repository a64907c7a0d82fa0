import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { ChargesRepository } from '../../../../src/db/charges-repository'
import { chargeDayRowsOf } from '../../../../src/db/charge-days'
import type { ClosebookDb } from '../../../../src/db/database'
import { dayDigestRowsOf, daySummaryRowOf } from '../../../../src/db/day-digests'
import { dayTokenRowsOf, tokenColumnsOf } from '../../../../src/db/day-tokens'
import { historyRecordOf } from '../../../../src/db/history-record'
import { HistoryWriter } from '../../../../src/db/history-writer'
import type { HistoryRecord } from '../../../../src/domain/records'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { CONN, T0, chargeItem, checkpoint, historyItem, openDb } from './fixtures'
import { countHistory } from '../../../../src/db/history-part-reads'

let db: ClosebookDb
let writer: HistoryWriter
beforeEach(() => {
  db = openDb()
  writer = new HistoryWriter(db, fingerprintOf, 3)
})
afterEach(() => db.close())

const records = (conn: string, from: number, count: number, over = {}): HistoryRecord[] =>
  Array.from({ length: count }, (_, i) => historyRecordOf(conn, historyItem(from + i, over), T0))

/** The day index rows a cache holding exactly `held` must have (built from scratch). */
async function expectIndexesOf(held: HistoryRecord[]): Promise<void> {
  const sort = <T extends { connectionId: string; day: number; part?: number }>(rows: T[]) =>
    rows.sort((a, b) =>
      a.connectionId === b.connectionId
        ? a.day - b.day || (a.part ?? 0) - (b.part ?? 0)
        : a.connectionId < b.connectionId
          ? -1
          : 1,
    )
  expect(sort(await db.dayDigests.toArray())).toEqual(sort(dayDigestRowsOf(held)))
  // Each digest row's summary, as counting it whole would give.
  expect(sort(await db.daySummaries.toArray())).toEqual(sort(dayDigestRowsOf(held).map(daySummaryRowOf)))
  const tokens = sort((await db.dayTokens.toArray()).map((row) => tokenColumnsOf(row)))
  const keysOf = (rows: typeof tokens) =>
    rows.flatMap((r) => r.keys.map((k) => `${r.connectionId}|${r.day}|${k}`))
  const fresh = sort(dayTokenRowsOf(held).map((row) => tokenColumnsOf(row)))
  expect(keysOf(tokens).sort()).toEqual(keysOf(fresh).sort())
  expect(tokens.flatMap((r) => r.texts).sort()).toEqual(fresh.flatMap((r) => r.texts).sort())
}

describe('HistoryWriter: the one owner of history and its day indexes', () => {
  it('pages written one by one leave the same day indexes as building them from scratch', async () => {
    const first = records(CONN, 0, 40)
    const again = records(CONN, 20, 40, { status: 'refunded' }) // 20 replaced, 20 new
    await writer.putHistoryPage(CONN, first, checkpoint())
    await writer.putHistoryPage(CONN, again, checkpoint())
    const held = [...first.slice(0, 20), ...again]
    expect(await countHistory(db)).toBe(60)
    await expectIndexesOf(held)
    expect(await db.checkpoints.count()).toBe(1)
  })

  it('files records of several connections under their own connection', async () => {
    const mixed = [...records(CONN, 0, 5), ...records('other', 0, 5)]
    await db.transaction('rw', writer.historyTables(), () => writer.putHistory(mixed))
    await expectIndexesOf(mixed)
  })

  it('addFresh (restore into an empty cache) builds the same indexes', async () => {
    const held = records(CONN, 0, 30)
    await db.transaction('rw', writer.historyTables(), () => writer.addFresh(held))
    await expectIndexesOf(held)
  })

  it("clearConnection drops one connection's history, day rows, charges and checkpoints only", async () => {
    const mine = records(CONN, 0, 10)
    const theirs = records('other', 0, 10)
    await writer.putHistoryPage(CONN, mine, checkpoint())
    await writer.putHistoryPage('other', theirs, checkpoint({ connectionId: 'other' }))
    await writer.putChargesPage(CONN, [chargeRecordOf(CONN, chargeItem(1), T0)], checkpoint())
    const other = chargeRecordOf('other', chargeItem(2), T0)
    await writer.putChargesPage('other', [other], checkpoint({ connectionId: 'other' }))
    const tables = [...writer.historyTables(), ...writer.chargeTables(), db.checkpoints]
    await db.transaction('rw', tables, () => writer.clearConnection(CONN))
    expect(await countHistory(db)).toBe(10)
    await expectIndexesOf(theirs)
    const charges = new ChargesRepository(db)
    expect(await charges.inRange(CONN, -Infinity, Infinity)).toEqual([])
    expect(await charges.inRange('other', -Infinity, Infinity)).toEqual([other])
    const { chargeDays, chargeParts } = chargeDayRowsOf('other', [other])
    expect(await db.chargeDays.toArray()).toEqual(chargeDays)
    expect(await db.chargeParts.toArray()).toEqual(chargeParts)
    expect((await db.checkpoints.toArray()).map((c) => c.connectionId)).toEqual(['other'])
  })

  it('a page of another connection is refused whole', async () => {
    await expect(writer.putHistoryPage(CONN, records('other', 0, 2), checkpoint())).rejects.toThrow(
      /expected connection conn-a/,
    )
    expect(await countHistory(db)).toBe(0)
    expect(await db.dayDigests.count()).toBe(0)
  })
})

describe('no other code writes the day indexes or the charges', () => {
  const SRC = resolve(__dirname, '../../../../src')
  // The writer, the modules that shape the rows it writes, and the schema's (frozen) migrations.
  const ALLOWED = new Set([
    'db/history-writer.ts',
    'db/deferred-days.ts',
    'db/day-digests.ts',
    'db/day-tokens.ts',
    'db/charge-days.ts',
    'db/database.ts',
  ])
  const WRITES =
    /\b(dayDigests|daySummaries|dayTokens|charges|chargeDays)\b[^;\n]*\.(put|bulkPut|add|bulkAdd|delete|bulkDelete|clear|update|modify)\(|\b(putDigests|putDigestRows|putTokens|putChargeDays)\(/
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? files(path) : /\.(ts|vue)$/.test(name) ? [path] : []
    })

  it('finds every write of dayDigests, daySummaries, dayTokens, charges or chargeDays inside the history writer', () => {
    const offenders = files(SRC)
      .map((path) => relative(SRC, path).split('\\').join('/'))
      .filter((rel) => !ALLOWED.has(rel) && !rel.startsWith('db/migrations/'))
      .filter((rel) => WRITES.test(readFileSync(join(SRC, rel), 'utf8')))
    expect(offenders).toEqual([])
  })
})
