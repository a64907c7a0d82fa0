import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { dayDigestRowsOf } from '../../../../src/db/day-digests'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf, searchDayOf } from '../../../../src/db/history-record'
import { historyPartRowsOf } from '../../../../src/db/history-parts'
import {
  allHistory,
  countHistory,
  historyByKeys,
  historyInRange,
  refundsInWindow,
  refundsOfCharges,
} from '../../../../src/db/history-part-reads'
import { HistoryWriter } from '../../../../src/db/history-writer'
import type { HistoryRecord } from '../../../../src/domain/records'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { CHARGE_PART_SIZE } from '../../../../src/db/charge-days'
import { TOKEN_PART_SIZE } from '../../../../src/db/day-tokens'
import { CONN, HOUR, T0, checkpoint, historyItem, openDb, uuid } from './fixtures'

let db: ClosebookDb
beforeEach(() => {
  db = openDb()
})
afterEach(() => db.close())

/** Records n = from .. from + count - 1, an hour apart from T0 + n hours (a day holds 24). */
const records = (from: number, count: number, over = {}): HistoryRecord[] =>
  Array.from({ length: count }, (_, i) => historyRecordOf(CONN, historyItem(from + i, over), T0))

/** Files `rs` through the history writer with history parts of `size`, in one transaction. */
const put = (rs: readonly HistoryRecord[], size = 4) => {
  const writer = new HistoryWriter(db, fingerprintOf, 3, 3, size)
  return db.transaction('rw', writer.historyTables(), () => writer.putHistory(rs))
}

/** Each part as `day:part` → its records' resource numbers' keys, in filing order. */
async function layout(): Promise<Record<string, string[]>> {
  const parts = await db.historyParts.toArray()
  return Object.fromEntries(parts.map((p) => [`${p.day}:${p.part}`, p.rows.map((r) => r.key)]))
}

const day0 = searchDayOf(T0)

describe('history day parts', () => {
  it('appends to the day’s last part and starts a new part when it is full', async () => {
    const rs = records(0, 6)
    await put(rs.slice(0, 3))
    await put(rs.slice(3))
    const keys = rs.map((r) => r.key)
    expect(await layout()).toEqual({ [`${day0}:0`]: keys.slice(0, 4), [`${day0}:1`]: keys.slice(4) })
    expect(await countHistory(db)).toBe(6)
  })

  it('replaces a record where it stands, and keeps it once', async () => {
    const rs = records(0, 6)
    await put(rs)
    const before = await layout()
    const changed = historyRecordOf(CONN, historyItem(1, { status: 'refunded', amount: 7 }), T0 + 1)
    await put([changed])
    expect(await layout()).toEqual(before)
    expect((await historyByKeys(db, CONN, [changed.key]))[0]).toEqual(changed)
    expect(await countHistory(db)).toBe(6)
  })

  it('reads each day’s digest row once per write, for the parts and the digests together', async () => {
    const rs = records(0, 30)
    await put(rs.slice(0, 20))
    const bulkGet = vi.spyOn(db.dayDigests, 'bulkGet')
    const changed = historyRecordOf(CONN, historyItem(1, { status: 'refunded', amount: 7 }), T0 + 1)
    await put([changed, ...rs.slice(20)])
    expect(bulkGet.mock.calls.map(([keys]) => keys)).toEqual([
      [
        [CONN, day0],
        [CONN, day0 + 1],
      ],
    ])
    expect((await historyByKeys(db, CONN, [changed.key]))[0]).toEqual(changed)
    expect(await countHistory(db)).toBe(30)
    expect(await db.dayDigests.toArray()).toEqual(dayDigestRowsOf(await allHistory(db)))
  })

  it('keeps a record given twice in one write once, as its later copy, on that copy’s day', async () => {
    const [first] = records(0, 1)
    const later = historyRecordOf(
      CONN,
      historyItem(0, { created_on: new Date(T0 + 30 * HOUR).toISOString(), status: 'failed' }),
      T0,
    )
    await put([first!, later])
    expect(await layout()).toEqual({ [`${day0 + 1}:0`]: [later.key] })
    expect(historyPartRowsOf([first!, later]).flatMap((p) => p.keys)).toEqual([[CONN, later.key]])
  })

  it('builds from scratch the parts appending builds, whole days from part 0', () => {
    const rs = records(0, 30)
    const parts = historyPartRowsOf(rs, 4)
    expect(parts.map((p) => `${p.day}:${p.part}:${p.rows.length}`)).toEqual([
      `${day0}:0:4`,
      `${day0}:1:4`,
      `${day0}:2:4`,
      `${day0}:3:4`,
      `${day0}:4:4`,
      `${day0}:5:4`,
      `${day0 + 1}:0:4`,
      `${day0 + 1}:1:2`,
    ])
    expect(parts.flatMap((p) => p.keys)).toEqual(rs.map((r) => [CONN, r.key]))
  })

  it('holds as many records to a part as the search index does', async () => {
    const { HISTORY_PART_SIZE } = await import('../../../../src/db/history-parts')
    expect(HISTORY_PART_SIZE).toBe(TOKEN_PART_SIZE)
    expect(HISTORY_PART_SIZE).toBeGreaterThan(CHARGE_PART_SIZE)
  })
})

describe('history day parts of a first sync (new parts per commit)', () => {
  /** Files `rs` as one commit of a first sync: new records in new parts after the day's last one. */
  const putFirstSync = (rs: readonly HistoryRecord[], size = 4) => {
    const writer = new HistoryWriter(db, fingerprintOf, 3, 3, size)
    return db.transaction('rw', writer.pageTables(), async () =>
      writer.putPages([
        {
          resource: 'transaction_history',
          connectionId: CONN,
          records: rs,
          checkpoint: checkpoint(),
          firstSync: true,
        },
      ]),
    )
  }

  it('files each commit’s records of a day in parts of its own, leaving the earlier commits’ parts as written', async () => {
    const rs = records(0, 9)
    const keys = rs.map((r) => r.key)
    await putFirstSync(rs.slice(0, 3))
    const [written] = await db.historyParts.toArray()
    await putFirstSync(rs.slice(3, 9))
    expect(await layout()).toEqual({
      [`${day0}:0`]: keys.slice(0, 3),
      [`${day0}:1`]: keys.slice(3, 7),
      [`${day0}:2`]: keys.slice(7, 9),
    })
    expect(await db.historyParts.get([CONN, day0, 0])).toEqual(written)
    expect(await countHistory(db)).toBe(9)
  })

  it('replaces a record already held where it stands, once', async () => {
    const rs = records(0, 6)
    await putFirstSync(rs.slice(0, 3))
    await putFirstSync(rs.slice(3))
    const before = await layout()
    const changed = historyRecordOf(CONN, historyItem(1, { status: 'refunded', amount: 7 }), T0 + 1)
    await putFirstSync([changed, ...records(6, 1)])
    expect(await layout()).toEqual({ ...before, [`${day0}:2`]: [records(6, 1)[0]!.key] })
    expect((await historyByKeys(db, CONN, [changed.key]))[0]).toEqual(changed)
    expect(await countHistory(db)).toBe(7)
  })

  it('answers every read as the appending layout does', async () => {
    const rs = [
      ...records(0, 30),
      historyRecordOf(
        CONN,
        historyItem(40, {
          type: 'refund',
          charge_id: uuid(2),
          created_on: new Date(T0 + 5 * HOUR).toISOString(),
        }),
        T0,
      ),
    ]
    const commits = [rs.slice(0, 5), rs.slice(5, 12), rs.slice(12, 26), rs.slice(26)]
    for (const c of commits) await putFirstSync(c)
    const reads = async () => ({
      all: await allHistory(db),
      range: await historyInRange(db, CONN, T0, T0 + 48 * HOUR),
      byKey: await historyByKeys(
        db,
        CONN,
        rs.map((r) => r.key),
      ),
      refunds: await refundsOfCharges(db, CONN, [uuid(2)]),
      window: await refundsInWindow(db, CONN, T0, T0 + 48 * HOUR),
      count: await countHistory(db),
    })
    const firstSync = await reads()
    const byKey = (a: HistoryRecord, b: HistoryRecord) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
    await db.historyParts.clear()
    for (const c of commits) await put(c)
    const appended = await reads()
    expect({ ...firstSync, all: [...firstSync.all].sort(byKey) }).toEqual({
      ...appended,
      all: [...appended.all].sort(byKey),
    })
    expect(firstSync.byKey).toEqual(rs)
  })

  it('appends as usual when a commit also holds a page that is not of a first sync', async () => {
    const rs = records(0, 6)
    await put(rs.slice(0, 3))
    const writer = new HistoryWriter(db, fingerprintOf, 3, 3, 4)
    await db.transaction('rw', writer.pageTables(), async () =>
      writer.putPages([
        {
          resource: 'transaction_history',
          connectionId: CONN,
          records: rs.slice(3, 5),
          checkpoint: checkpoint(),
          firstSync: true,
        },
        {
          resource: 'transaction_history',
          connectionId: CONN,
          records: rs.slice(5),
          checkpoint: checkpoint(),
        },
      ]),
    )
    const keys = rs.map((r) => r.key)
    expect(await layout()).toEqual({ [`${day0}:0`]: keys.slice(0, 4), [`${day0}:1`]: keys.slice(4) })
  })
})

describe('history from before day parts (rows of `history`)', () => {
  it('answers by key, range and refunds beside the parts, and leaves when its record is written again', async () => {
    const rs = records(0, 6)
    const refund = historyRecordOf(
      CONN,
      historyItem(40, {
        type: 'refund',
        charge_id: uuid(2),
        created_on: new Date(T0 + 3 * HOUR).toISOString(),
      }),
      T0,
    )
    // Older rows (as a v14 cache holds them) for the first half and the refund; parts for the rest.
    await db.history.bulkPut([...rs.slice(0, 3), refund])
    await put(rs.slice(3))
    const all = [...rs, refund].sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : 1))
    expect(
      await historyByKeys(
        db,
        CONN,
        [...rs, refund].map((r) => r.key),
      ),
    ).toEqual([...rs, refund])
    expect(await historyInRange(db, CONN, T0, T0 + 24 * HOUR)).toEqual(all)
    expect(await refundsOfCharges(db, CONN, [uuid(2)])).toEqual([refund])
    expect(await refundsInWindow(db, CONN, T0, T0 + HOUR * 24)).toEqual([
      { chargeId: uuid(2), resourceId: uuid(40) },
    ])
    expect(await countHistory(db)).toBe(7)
    // Written again: the old row goes in the same transaction, the record is held once, in a part.
    await put([rs[0]!, refund])
    expect((await db.history.toArray()).map((r) => r.key)).toEqual([rs[1]!, rs[2]!].map((r) => r.key).sort())
    expect(await countHistory(db)).toBe(7)
    expect(await allHistory(db)).toHaveLength(7)
    expect(await refundsOfCharges(db, CONN, [uuid(2)])).toEqual([refund])
  })

  it('clearing a connection empties its parts and older rows, and no other connection’s', async () => {
    const writer = new HistoryWriter(db, fingerprintOf, 3)
    await db.history.bulkPut(records(0, 2))
    await writer.putHistoryPage(CONN, records(2, 5), checkpoint())
    const other = records(0, 4).map((r) => ({ ...r, connectionId: 'other' }))
    await db.transaction('rw', writer.historyTables(), () => writer.putHistory(other))
    expect(await countHistory(db)).toBe(11)
    await db.transaction('rw', [...writer.historyTables(), ...writer.chargeTables(), db.checkpoints], () =>
      writer.clearConnection(CONN),
    )
    expect(await allHistory(db)).toEqual(other)
    expect((await db.historyParts.toArray()).every((p) => p.connectionId === 'other')).toBe(true)
  })
})
