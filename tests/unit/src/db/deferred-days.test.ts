import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { deferredDaysKey } from '../../../../src/db/deferred-days'
import { historyRecordOf } from '../../../../src/db/history-record'
import { countHistory, historyByKeys } from '../../../../src/db/history-part-reads'
import { HistoryWriter } from '../../../../src/db/history-writer'
import type { HistoryRecord } from '../../../../src/domain/records'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { CONN, T0, checkpoint, historyItem, openDb } from './fixtures'

let db: ClosebookDb
let reference: ClosebookDb
beforeEach(() => {
  db = openDb()
  reference = openDb('closebook-reference')
})
afterEach(() => {
  db.close()
  reference.close()
})

/** Records n = from .. from + count - 1, an hour apart (a day holds 24). */
const records = (from: number, count: number, over = {}): HistoryRecord[] =>
  Array.from({ length: count }, (_, i) => historyRecordOf(CONN, historyItem(from + i, over), T0))

/** A writer with small parts that files a first sync's days once 20 records wait. */
const writerOf = (target: ClosebookDb) => new HistoryWriter(target, fingerprintOf, 3, 3, 4, 20)

/** One commit of pages (a first sync's, or a later sync's) through `writer`. */
const commit = (target: ClosebookDb, writer: HistoryWriter, rs: readonly HistoryRecord[], firstSync = true) =>
  target.transaction('rw', writer.pageTables(), async () =>
    writer.putPages([
      {
        resource: 'transaction_history',
        connectionId: CONN,
        records: rs,
        checkpoint: checkpoint(),
        firstSync,
      },
    ]),
  )

/** The day rows a first sync defers: digests, summaries and search token parts. */
const dayRows = async (target: ClosebookDb) => ({
  digests: await target.dayDigests.toArray(),
  summaries: await target.daySummaries.toArray(),
  tokens: await target.dayTokens.toArray(),
})

/** The day rows of the same commits written commit by commit, as a later sync writes them. */
async function rowsWrittenAtOnce(commits: readonly (readonly HistoryRecord[])[]) {
  const writer = writerOf(reference)
  for (const rs of commits) await commit(reference, writer, rs, false)
  return dayRows(reference)
}

/** 60 records over three days, in commits of 7 that each reach one or two days. */
const commitsOf = (rs: readonly HistoryRecord[], size = 7) =>
  Array.from({ length: Math.ceil(rs.length / size) }, (_, i) => rs.slice(i * size, (i + 1) * size))

describe('a first sync’s day rows, filed in batches', () => {
  it('waits for a batch, then files the days as writing each commit would have', async () => {
    const commits = commitsOf(records(0, 60))
    const writer = writerOf(db)
    await commit(db, writer, commits[0] ?? [])
    // Held back: the records are stored, their days listed, their rows not yet written.
    expect(await countHistory(db)).toBe(7)
    expect(await db.dayDigests.count()).toBe(0)
    expect((await db.settings.get(deferredDaysKey(CONN)))?.value).toEqual([20727])
    for (const rs of commits.slice(1)) await commit(db, writer, rs)
    // 60 records: filed at 21 and 42; the last 18 wait.
    const digested = (await db.dayDigests.toArray()).reduce((n, row) => n + row.records.length, 0)
    expect(digested).toBe(42)
    await writer.fileDeferredDays(CONN)
    expect(await dayRows(db)).toEqual(await rowsWrittenAtOnce(commits))
    expect(await db.settings.get(deferredDaysKey(CONN))).toBeUndefined()
  })

  it('keeps one copy of a record fetched twice, its later version, before and after a filing', async () => {
    const rs = records(0, 40)
    const again = historyRecordOf(CONN, historyItem(3, { status: 'refunded', amount: 7 }), T0 + 1)
    const lateAgain = historyRecordOf(CONN, historyItem(30, { status: 'refunded', amount: 9 }), T0 + 2)
    // Record 3 comes again before the first filing, record 30 after it (in the same commit as new ones).
    const commits = [
      rs.slice(0, 10),
      [again, ...rs.slice(10, 20)],
      rs.slice(20, 35),
      [lateAgain, ...rs.slice(35)],
    ]
    const writer = writerOf(db)
    for (const c of commits) await commit(db, writer, c)
    await writer.fileDeferredDays(CONN)
    expect(await countHistory(db)).toBe(40)
    expect(await historyByKeys(db, CONN, [again.key, lateAgain.key])).toEqual([again, lateAgain])
    expect(await dayRows(db)).toEqual(await rowsWrittenAtOnce(commits))
  })

  it('after a reload, files the days an unfinished first sync left unfiled from the stored records', async () => {
    const commits = commitsOf(records(0, 30))
    const before = writerOf(db)
    for (const c of commits) await commit(db, before, c)
    // Filed at 21 records; the last 9 wait, on two days.
    expect((await db.settings.get(deferredDaysKey(CONN)))?.value).toEqual([20727, 20728])
    // A new writer, as after a crash or a reload: it holds none of the waiting records.
    await writerOf(db).fileDeferredDays(CONN)
    expect(await dayRows(db)).toEqual(await rowsWrittenAtOnce(commits))
    expect(await db.settings.get(deferredDaysKey(CONN))).toBeUndefined()
  })

  it('files every stopped first sync’s days when the cache opens, before any sync starts', async () => {
    const commits = commitsOf(records(0, 30))
    const stopped = writerOf(db)
    for (const c of commits) await commit(db, stopped, c)
    expect((await db.settings.get(deferredDaysKey(CONN)))?.value).toEqual([20727, 20728])
    // The cache opened again: a new writer, holding none of the waiting records.
    expect(await writerOf(db).fileStoppedFirstSyncs()).toEqual([CONN])
    expect(await dayRows(db)).toEqual(await rowsWrittenAtOnce(commits))
    expect(await db.settings.get(deferredDaysKey(CONN))).toBeUndefined()
    expect(await writerOf(db).fileStoppedFirstSyncs()).toEqual([])
  })

  it('a failed commit leaves neither its records nor their rows, and the next filing is right', async () => {
    const rs = records(0, 36)
    const writer = writerOf(db)
    await commit(db, writer, rs.slice(0, 12))
    await expect(
      db.transaction('rw', writer.pageTables(), async () => {
        await writer.putPages([
          {
            resource: 'transaction_history',
            connectionId: CONN,
            records: rs.slice(12, 30),
            checkpoint: checkpoint(),
            firstSync: true,
          },
        ])
        throw new Error('disk full')
      }),
    ).rejects.toThrow('disk full')
    await commit(db, writer, rs.slice(30))
    await writer.fileDeferredDays(CONN)
    expect(await countHistory(db)).toBe(18)
    expect(await dayRows(db)).toEqual(await rowsWrittenAtOnce([rs.slice(0, 12), rs.slice(30)]))
  })

  it('a later sync’s write files the waiting days first, and is filed at once itself', async () => {
    const rs = records(0, 30)
    const writer = writerOf(db)
    await commit(db, writer, rs.slice(0, 15))
    const changed = historyRecordOf(CONN, historyItem(2, { status: 'refunded', amount: 5 }), T0 + 3)
    await commit(db, writer, [changed, ...rs.slice(15)], false)
    expect(await dayRows(db)).toEqual(await rowsWrittenAtOnce([rs.slice(0, 15), [changed, ...rs.slice(15)]]))
    expect(await countHistory(db)).toBe(30)
  })

  it('files nothing back for a connection whose synced data was cleared meanwhile', async () => {
    const writer = writerOf(db)
    await commit(db, writer, records(0, 10))
    const clearing = writerOf(db)
    await db.transaction(
      'rw',
      [...clearing.historyTables(), ...clearing.chargeTables(), db.checkpoints],
      () => clearing.clearConnection(CONN),
    )
    await writer.fileDeferredDays(CONN)
    expect(await dayRows(db)).toEqual({ digests: [], summaries: [], tokens: [] })
    expect(await countHistory(db)).toBe(0)
  })
})
