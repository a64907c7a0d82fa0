import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChargeItem } from '../../../../electron/shared/payment-api'
import { chargeDigestOf, digestsOfRow, dropColumns, isCompact } from '../../../../src/db/charge-columns'
import { chargeDayOf, chargeDayRowsOf } from '../../../../src/db/charge-days'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { ChargesRepository } from '../../../../src/db/charges-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import { HistoryWriter } from '../../../../src/db/history-writer'
import type { ChargeRecord } from '../../../../src/domain/records'
import type { ChargeDayRecord, ChargePartRecord } from '../../../../src/db/storage-rows'
import { CONN, HOUR, STORE_2, T0, chargeItem, countWholeChargeReads, openDb } from './fixtures'

let db: ClosebookDb
beforeEach(() => {
  db = openDb()
})
afterEach(() => db.close())

const DAY = 24 * HOUR
/** Charge `n`, created `n` hours after T0, varied by n: status, amounts, currencies, fee, mode, store. */
function charge(n: number, over: Partial<ChargeItem> = {}, syncedAt = T0): ChargeRecord {
  const usd = n % 3 === 1
  return chargeRecordOf(
    CONN,
    chargeItem(n, {
      status: ['successful', 'pending', 'failed', 'Successful'][n % 4] ?? 'successful',
      charged_amount: n % 4 === 1 ? null : 1000 + n,
      requested_amount: 2000 + n,
      charged_currency: usd ? 'usd' : 'JPY',
      fee_amount: n % 5 === 2 ? null : 30 + n,
      fee_currency: n % 7 === 3 ? null : n % 7 === 4 ? 'EUR' : 'JPY',
      mode: n % 6 === 5 ? 'test' : 'live',
      ...(n % 2 ? { store_id: STORE_2 } : {}),
      ...over,
    }),
    syncedAt,
  )
}
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => charge(from + i))

const writer = () => new HistoryWriter(db, undefined, undefined, 3)
const put = (records: ChargeRecord[]) =>
  db.transaction('rw', writer().chargeTables(), () => writer().putCharges(records))

/** Each compact row's columns are its parts' charges, entry for entry; returns how many rows were compact. */
async function expectColumnsOfParts(): Promise<number> {
  const parts = await db.chargeParts.toArray()
  const held = new Map<string, ChargeRecord>()
  for (const p of parts) for (const c of p.charges) held.set(`${p.day}:${c.id}`, c)
  let compact = 0
  for (const row of await db.chargeDays.toArray()) {
    if (!isCompact(row)) continue
    compact++
    const wanted = row.ids.map((id) => held.get(`${row.day}:${id}`))
    expect(wanted.every((c) => c !== undefined)).toBe(true)
    expect(digestsOfRow(row, -Infinity, Infinity)).toEqual(
      wanted.map((c) => chargeDigestOf(c as ChargeRecord)),
    )
  }
  return compact
}

/** Takes the columns out of every day row (or those of `days`): rows as an older release wrote them. */
async function asWrittenBefore(days?: readonly number[]): Promise<void> {
  const rows = await db.chargeDays.toArray()
  const older = rows.filter((r) => !days || days.includes(r.day))
  older.forEach((r) => dropColumns(r))
  await db.chargeDays.bulkPut(older)
}

describe('charge day rows carry each charge’s compact columns', () => {
  it('the writer keeps them in step with the parts: appends, replacements, new parts, a lost part', async () => {
    await put(range(1, 8))
    await put([...range(6, 12), charge(30)])
    expect(await expectColumnsOfParts()).toBe(2)
    // Every column changes on a replacement: status, amount, currency, fee, fee currency, mode, sync time.
    await put([
      charge(
        2,
        {
          status: 'refunded',
          charged_amount: 7,
          charged_currency: 'EUR',
          fee_amount: 1,
          fee_currency: 'USD',
          mode: 'test',
        },
        T0 + 5,
      ),
      charge(9, { fee_amount: null, fee_currency: null }, T0 + 6),
    ])
    expect(await expectColumnsOfParts()).toBe(2)
    const day0 = (await db.chargeDays.get([CONN, chargeDayOf(T0)])) as ChargeDayRecord
    const at = day0.ids.indexOf(charge(2).id)
    expect([day0.statuses?.[at], day0.amounts?.[at], day0.currencies?.[at], day0.syncedAts?.[at]]).toEqual([
      'refunded',
      7,
      'EUR',
      T0 + 5,
    ])
    // A part that lost a charge: the charge is filed again, and its entries with it.
    const part0 = (await db.chargeParts.get([CONN, chargeDayOf(T0), 0])) as ChargePartRecord
    await db.chargeParts.put({ ...part0, charges: part0.charges.filter((c) => c.id !== charge(1).id) })
    await put([charge(1, { status: 'failed' }, T0 + 7)])
    expect(await expectColumnsOfParts()).toBe(2)
  })

  it('rows built from scratch (a restore’s filing) carry them', async () => {
    const records = range(1, 60)
    const built = chargeDayRowsOf(CONN, records, 3)
    expect(built.chargeDays.every(isCompact)).toBe(true)
    await db.transaction('rw', writer().chargeTables(), () => writer().addFreshCharges(records))
    expect(await expectColumnsOfParts()).toBe(3)
  })

  it('a row written before them gets them on its day’s next write, from all its parts', async () => {
    await put(range(1, 30))
    await asWrittenBefore()
    expect(await expectColumnsOfParts()).toBe(0)
    await put([charge(4, { status: 'failed' }, T0 + 1), charge(31)])
    // Day 0 (charges 1–23) and day 1 (24–31) were both written: both carry the columns again.
    expect(await expectColumnsOfParts()).toBe(2)
  })
})

describe('ChargesRepository.digestsInRange', () => {
  const repo = () => new ChargesRepository(db)
  const fromWhole = async (from: number, to: number) =>
    (await repo().inRange(CONN, from, to)).map(chargeDigestOf)
  const ranges: [number, number][] = [
    [-Infinity, Infinity],
    [T0 + 5 * HOUR, T0 + 30 * HOUR],
    [T0 + DAY, T0 + 2 * DAY],
    [T0 + DAY - 1, T0 + DAY + 1],
    [T0 + 3 * DAY, T0 + 4 * DAY],
  ]

  /** Charges on three days, one id copied onto a second day later, and two from before schema v10. */
  async function fill(): Promise<void> {
    await put(range(1, 60))
    await put([charge(5, { created_on: new Date(T0 + 26 * HOUR).toISOString() }, T0 + 9)])
    await db.charges.bulkPut([charge(70), charge(40, {}, T0 - 1)])
  }

  it('gives what inRange gives of each charge, reading no whole charge of a compact day', async () => {
    await fill()
    const reads = countWholeChargeReads(db)
    for (const [from, to] of ranges) {
      reads.charges = 0
      const digests = await repo().digestsInRange(CONN, from, to)
      // Only the two charges from before v10, where the range holds them.
      expect(reads.charges).toBeLessThanOrEqual(2)
      expect(digests).toEqual(await fromWhole(from, to))
    }
    expect((await repo().digestsInRange(CONN, -Infinity, Infinity)).length).toBe(60)
  })

  it('reads a day whose row lacks the columns from its parts, the same', async () => {
    await fill()
    const all = await fromWhole(-Infinity, Infinity)
    await asWrittenBefore([chargeDayOf(T0 + DAY)])
    const reads = countWholeChargeReads(db)
    expect(await repo().digestsInRange(CONN, -Infinity, Infinity)).toEqual(all)
    // The second day's parts (charges 24–47 and charge 5's second copy), and the two older charges.
    expect(reads.charges).toBe(25 + 2)
    for (const [from, to] of ranges)
      expect(await repo().digestsInRange(CONN, from, to)).toEqual(await fromWhole(from, to))
  })
})
