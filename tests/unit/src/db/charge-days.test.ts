import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chargeDayOf, chargeDayRowsOf } from '../../../../src/db/charge-days'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { ChargesRepository } from '../../../../src/db/charges-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { HistoryWriter } from '../../../../src/db/history-writer'
import type { ChargeRecord } from '../../../../src/domain/records'
import type { ChargePartRecord } from '../../../../src/db/storage-rows'
import { CONN, HOUR, STORE_2, T0, chargeItem, checkpoint, historyItem, openDb } from './fixtures'

let db: ClosebookDb
beforeEach(() => {
  db = openDb()
})
afterEach(() => db.close())

const DAY = 24 * HOUR
const D0 = chargeDayOf(T0)
/** Charge `n`, created `n` hours after T0 (charges 0–23 on T0's day, 24–47 the next, …). */
const charge = (n: number, over: Parameters<typeof chargeItem>[1] = {}, syncedAt = T0): ChargeRecord =>
  chargeRecordOf(CONN, chargeItem(n, over), syncedAt)
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => charge(from + i))

/** The part each charge is held by, as `day:part`, read from the parts themselves. */
async function heldBy(): Promise<Map<string, string>> {
  const parts = await db.chargeParts.toArray()
  const out = new Map<string, string>()
  for (const p of parts) for (const c of p.charges) out.set(c.id, `${p.day}:${p.part}`)
  return out
}

/** Every charge the day rows file is held by the part they name, once; returns the filed ids. */
async function expectConsistent(): Promise<string[]> {
  const rows = await db.chargeDays.toArray()
  const held = await heldBy()
  const filed = rows.flatMap((r) => r.ids.map((id, i) => [id, `${r.day}:${r.parts[i]}`] as const))
  expect(new Set(filed.map(([id]) => id)).size).toBe(filed.length)
  for (const [id, at] of filed) expect(held.get(id), id).toBe(at)
  const parts = await db.chargeParts.toArray()
  expect(parts.reduce((n, p) => n + p.charges.length, 0)).toBe(filed.length)
  return filed.map(([id]) => id)
}

describe('charge day parts (charge-days.ts)', () => {
  const writer = () => new HistoryWriter(db, undefined, undefined, 3)
  const put = (records: ChargeRecord[]) =>
    db.transaction('rw', writer().chargeTables(), () => writer().putCharges(records))

  it('appends a page to its day’s last part, new parts when full, one day row per day', async () => {
    await put(range(1, 3))
    await put(range(3, 8))
    const parts = await db.chargeParts.toArray()
    expect(parts.map((p) => [p.day, p.part, p.charges.map((c) => c.id)])).toEqual([
      [D0, 0, [1, 2, 3].map((n) => charge(n).id)],
      [D0, 1, [4, 5, 6].map((n) => charge(n).id)],
      [D0, 2, [7].map((n) => charge(n).id)],
    ])
    expect(await db.chargeDays.count()).toBe(1)
    expect(await expectConsistent()).toHaveLength(7)
  })

  it('replaces a charge where it stands, leaving the other parts as they were', async () => {
    await put(range(1, 8))
    const before = await db.chargeParts.toArray()
    const updated = charge(2, { fee_amount: 99, store_id: STORE_2 }, T0 + 1)
    await put([updated])
    const after = await db.chargeParts.toArray()
    // Part 0 holds it, updated in place; parts 1 and 2 (the last) are the same rows as before.
    expect(after[0]?.charges[1]).toEqual(updated)
    expect(after.slice(1)).toEqual(before.slice(1))
    const row = await db.chargeDays.get([CONN, D0])
    expect(row?.storeIds[row.ids.indexOf(updated.id)]).toBe(STORE_2)
    expect(await expectConsistent()).toHaveLength(7)
  })

  it('files a charge again, once, when its part lost it', async () => {
    await put(range(1, 5))
    const part0 = (await db.chargeParts.get([CONN, D0, 0])) as ChargePartRecord
    await db.chargeParts.put({ ...part0, charges: part0.charges.filter((c) => c.id !== charge(2).id) })
    await put([charge(2)])
    expect(await expectConsistent()).toHaveLength(4)
  })

  it('builds from scratch the same filing as page by page, day by day', async () => {
    const records = range(1, 60)
    for (let i = 0; i < records.length; i += 7) await put(records.slice(i, i + 7))
    const fresh = chargeDayRowsOf(CONN, records, 3)
    const rows = await db.chargeDays.toArray()
    const sorted = (ids: string[]) => [...ids].sort()
    expect(rows.map((r) => [r.day, sorted(r.ids)])).toEqual(
      fresh.chargeDays.map((r) => [r.day, sorted(r.ids)]),
    )
    expect(await expectConsistent()).toHaveLength(59)
  })
})

describe('charge day parts of a first sync (new parts per commit)', () => {
  const put = (records: ChargeRecord[]) => {
    const writer = new HistoryWriter(db, undefined, undefined, 3)
    return db.transaction('rw', writer.chargeTables(), () => writer.putCharges(records))
  }
  const putFirstSync = (records: ChargeRecord[]) => {
    const writer = new HistoryWriter(db, undefined, undefined, 3)
    return db.transaction('rw', writer.pageTables(), async () =>
      writer.putPages([
        {
          resource: 'charges',
          connectionId: CONN,
          records,
          checkpoint: checkpoint({ resource: 'charges' }),
          firstSync: true,
        },
      ]),
    )
  }

  it('files each commit’s charges of a day in parts of its own, leaving the earlier commits’ parts as written', async () => {
    await putFirstSync(range(1, 3))
    const [written] = await db.chargeParts.toArray()
    await putFirstSync(range(3, 8))
    const parts = await db.chargeParts.toArray()
    expect(parts.map((p) => [p.day, p.part, p.charges.map((c) => c.id)])).toEqual([
      [D0, 0, [1, 2].map((n) => charge(n).id)],
      [D0, 1, [3, 4, 5].map((n) => charge(n).id)],
      [D0, 2, [6, 7].map((n) => charge(n).id)],
    ])
    expect(parts[0]).toEqual(written)
    expect(await db.chargeDays.count()).toBe(1)
    expect(await expectConsistent()).toHaveLength(7)
  })

  it('replaces a charge already held where it stands, and reads as the appending layout does', async () => {
    const records = range(1, 60)
    for (let i = 0; i < records.length; i += 7) await putFirstSync(records.slice(i, i + 7))
    const updated = charge(2, { fee_amount: 99, store_id: STORE_2 }, T0 + 1)
    await putFirstSync([updated, charge(60)])
    expect((await heldBy()).get(updated.id)).toBe(`${D0}:0`)
    expect(await expectConsistent()).toHaveLength(60)
    const repo = new ChargesRepository(db)
    const firstSync = await repo.inRange(CONN, T0, T0 + 5 * DAY)
    await db.transaction('rw', [db.chargeDays, db.chargeParts], () =>
      Promise.all([db.chargeDays.clear(), db.chargeParts.clear()]),
    )
    for (let i = 0; i < records.length; i += 7) await put(records.slice(i, i + 7))
    await put([updated, charge(60)])
    expect(firstSync).toEqual(await repo.inRange(CONN, T0, T0 + 5 * DAY))
    expect(firstSync.find((c) => c.id === updated.id)).toEqual(updated)
  })
})

describe('ChargesRepository over the day parts', () => {
  const repo = () => new ChargesRepository(db)
  const put = (records: ChargeRecord[]) =>
    new HistoryWriter(db).putChargesPage(CONN, records, checkpoint({ resource: 'charges' }))

  it('reads a period as [from, to), oldest first, charges from before v10 and day parts together', async () => {
    const older = [charge(5), charge(30)]
    await db.charges.bulkPut(older)
    await put([charge(29), charge(4), charge(50)])
    const all = await repo().inRange(CONN, -Infinity, Infinity)
    expect(all.map((c) => c.createdAt)).toEqual([4, 5, 29, 30, 50].map((n) => T0 + n * HOUR))
    expect(await repo().inRange(CONN, T0 + 5 * HOUR, T0 + 30 * HOUR)).toEqual([charge(5), charge(29)])
    expect(await repo().inRange(CONN, T0 + DAY, T0 + 2 * DAY)).toEqual([charge(29), charge(30)])
    expect(await repo().inRange('other', -Infinity, Infinity)).toEqual([])
  })

  it('a charge written again leaves the table from before v10, and is read once', async () => {
    await db.charges.bulkPut([charge(5), charge(6)])
    const again = charge(5, { fee_amount: 1 }, T0 + 1)
    await put([again])
    expect(await db.charges.toArray()).toEqual([charge(6)])
    expect(await repo().inRange(CONN, -Infinity, Infinity)).toEqual([again, charge(6)])
    expect(await repo().getMany(CONN, [again.id, charge(6).id])).toEqual([again, charge(6)])
  })

  it('finds charges by id from a hint, from their history record, or from the day rows alone', async () => {
    const lateEvening = charge(23, { created_on: new Date(T0 + DAY - 1).toISOString() })
    await put([charge(3), lateEvening, charge(50)])
    // The history lists charge 50, so no hint is needed.
    await new HistoryWriter(db).putHistoryPage(
      CONN,
      [historyRecordOf(CONN, historyItem(50), T0)],
      checkpoint(),
    )
    const ids = [charge(3).id, lateEvening.id, charge(50).id, 'no-such-charge']
    expect(await repo().getMany(CONN, ids, [T0 + 3 * HOUR, T0 + DAY - 1])).toEqual([
      charge(3),
      lateEvening,
      charge(50),
      undefined,
    ])
    // A hint a moment past midnight still finds the charge of the evening before.
    expect(await repo().get(CONN, lateEvening.id, T0 + DAY + 1)).toEqual(lateEvening)
    // Charge 3 has neither a hint nor a history record: the day rows are searched.
    expect(await repo().get(CONN, charge(3).id)).toEqual(charge(3))
    // A hint days off finds nothing (the lists agree on a charge's day, give or take midnight).
    expect(await repo().get(CONN, charge(3).id, T0 + 3 * DAY)).toBeUndefined()
  })

  it('reads the charges of history charge rows on their days, leaving out refunds and uncached charges', async () => {
    await put([charge(3), charge(30)])
    const rows = [
      historyRecordOf(CONN, historyItem(30), T0),
      historyRecordOf(CONN, historyItem(7, { type: 'refund', charge_id: charge(3).id }), T0),
      historyRecordOf(CONN, historyItem(3), T0),
      historyRecordOf(CONN, historyItem(8), T0),
    ]
    expect(await repo().ofChargeRows(CONN, rows)).toEqual([charge(30), charge(3)])
  })

  it('says whether a connection has any charge, old or new', async () => {
    expect(await repo().any(CONN)).toBe(false)
    await put([charge(1)])
    expect(await repo().any(CONN)).toBe(true)
    await db.charges.put({ ...charge(2), connectionId: 'other' })
    expect(await repo().any('other')).toBe(true)
  })
})
