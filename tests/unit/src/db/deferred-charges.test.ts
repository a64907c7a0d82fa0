import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chargeDayOf, putChargeDays } from '../../../../src/db/charge-days'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { ChargesRepository } from '../../../../src/db/charges-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import { deferredChargeDaysKey } from '../../../../src/db/deferred-days'
import { HistoryWriter } from '../../../../src/db/history-writer'
import type { ChargeRecord } from '../../../../src/domain/records'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { CONN, HOUR, STORE_2, T0, chargeItem, checkpoint, openDb } from './fixtures'

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

/** Parts of 4 charges. */
const PART = 4
/** Charge `n`, created `n` hours after T0 (a day holds 24). */
const charge = (n: number, over: Parameters<typeof chargeItem>[1] = {}, syncedAt = T0): ChargeRecord =>
  chargeRecordOf(CONN, chargeItem(n, over), syncedAt)
const charges = (from: number, count: number) => Array.from({ length: count }, (_, i) => charge(from + i))
const D0 = chargeDayOf(T0)

/** A writer with parts of 4 charges that files a first sync's day rows once 20 charges wait. */
const writerOf = (target: ClosebookDb) => new HistoryWriter(target, fingerprintOf, 3, PART, 4, 20)

/** One commit of a charge page (a first sync's, or a later sync's) through `writer`. */
const commit = (target: ClosebookDb, writer: HistoryWriter, cs: readonly ChargeRecord[], firstSync = true) =>
  target.transaction('rw', writer.pageTables(), async () =>
    writer.putPages([
      {
        resource: 'charges',
        connectionId: CONN,
        records: cs,
        checkpoint: checkpoint({ resource: 'charges' }),
        firstSync,
      },
    ]),
  )

/** The charge list as stored: day rows and parts. */
const chargeRows = async (target: ClosebookDb) => ({
  days: await target.chargeDays.toArray(),
  parts: await target.chargeParts.toArray(),
})

/**
 * The same commits written one by one, each filing its day rows at once: a first sync's commits in new
 * parts (`firstSync`), a later sync's appended to the day's last part.
 */
async function writtenOneByOne(
  commits: readonly (readonly ChargeRecord[])[],
  later: readonly boolean[] = [],
) {
  for (const [i, cs] of commits.entries())
    await reference.transaction('rw', [reference.chargeDays, reference.chargeParts], () =>
      putChargeDays(reference, CONN, cs, PART, later[i] !== true),
    )
  return chargeRows(reference)
}

/** 60 charges over three days, in commits of 7 that each reach one or two days. */
const commitsOf = (cs: readonly ChargeRecord[], size = 7) =>
  Array.from({ length: Math.ceil(cs.length / size) }, (_, i) => cs.slice(i * size, (i + 1) * size))

/** What Month-end and the ledger read of the charges: digests of a period, a period, and charges by id. */
async function reads(target: ClosebookDb, ids: readonly string[]) {
  const repo = new ChargesRepository(target)
  return {
    digests: await repo.digestsInRange(CONN, -Infinity, Infinity),
    month: await repo.inRange(CONN, T0, T0 + 48 * HOUR),
    byId: await repo.getMany(CONN, ids),
  }
}

describe('a first sync’s charge day rows, filed in batches', () => {
  it('writes parts at once, waits for a batch, then files the rows as writing each commit would have', async () => {
    const commits = commitsOf(charges(0, 60))
    const writer = writerOf(db)
    await commit(db, writer, commits[0] ?? [])
    // Held back: the charges are in their parts, their day listed, its row not yet written.
    expect((await db.chargeParts.toArray()).flatMap((p) => p.charges)).toEqual(commits[0])
    expect(await db.chargeDays.count()).toBe(0)
    expect((await db.settings.get(deferredChargeDaysKey(CONN)))?.value).toEqual([D0])
    for (const cs of commits.slice(1)) await commit(db, writer, cs)
    // 60 charges: filed at 21 and 42; the last 18 wait.
    expect((await db.chargeDays.toArray()).reduce((n, row) => n + row.ids.length, 0)).toBe(42)
    await writer.fileDeferredDays(CONN)
    expect(await chargeRows(db)).toEqual(await writtenOneByOne(commits))
    expect(await db.settings.get(deferredChargeDaysKey(CONN))).toBeUndefined()
  })

  it('waits for as many charges as the earlier filings filed, so the rows are rewritten fewer times', async () => {
    const commits = commitsOf(charges(0, 140))
    const writer = writerOf(db)
    const puts: number[] = []
    for (const cs of commits) {
      await commit(db, writer, cs)
      puts.push((await db.chargeDays.toArray()).reduce((n, row) => n + row.ids.length, 0))
    }
    // Filed at 21, 42 (21 more) and 84 (42 more) charges; the last 56 wait for 84, or the run's end.
    expect([...new Set(puts)]).toEqual([0, 21, 42, 84])
    await writer.fileDeferredDays(CONN)
    expect(await chargeRows(db)).toEqual(await writtenOneByOne(commits))
  })

  it('files a batch spread over more days than one read of day rows takes, every day of it', async () => {
    // 60 charges 30 hours apart, one a day on 60 days: each filing of 21 or more reaches 21 days or more.
    const commits = commitsOf(Array.from({ length: 60 }, (_, i) => charge(i * 30)))
    const writer = writerOf(db)
    for (const cs of commits) await commit(db, writer, cs)
    await writer.fileDeferredDays(CONN)
    expect(await db.chargeDays.count()).toBe(60)
    expect(await chargeRows(db)).toEqual(await writtenOneByOne(commits))
  })

  it('keeps one copy of a charge fetched twice, its later version, before and after a filing', async () => {
    const cs = charges(0, 40)
    const again = charge(3, { status: 'failed', fee_amount: 7 }, T0 + 1)
    const lateAgain = charge(30, { fee_amount: 9, store_id: STORE_2 }, T0 + 2)
    // Charge 3 comes again before the first filing, charge 30 after it (in the same commit as new ones).
    const commits = [
      cs.slice(0, 10),
      [again, ...cs.slice(10, 20)],
      cs.slice(20, 35),
      [lateAgain, ...cs.slice(35)],
    ]
    const writer = writerOf(db)
    for (const c of commits) await commit(db, writer, c)
    await writer.fileDeferredDays(CONN)
    expect(await chargeRows(db)).toEqual(await writtenOneByOne(commits))
    expect((await db.chargeParts.toArray()).reduce((n, p) => n + p.charges.length, 0)).toBe(40)
    expect((await reads(db, [again.id, lateAgain.id])).byId).toEqual([again, lateAgain])
  })

  it('after a reload, files the days an unfinished first sync left unfiled from the stored parts', async () => {
    const commits = commitsOf(charges(0, 30))
    const before = writerOf(db)
    for (const c of commits) await commit(db, before, c)
    // Filed at 21 charges; the last 9 wait, on two days.
    expect((await db.settings.get(deferredChargeDaysKey(CONN)))?.value).toEqual([D0, D0 + 1])
    // A new writer, as after a crash or a reload: it holds none of the waiting charges.
    await writerOf(db).fileDeferredDays(CONN)
    expect(await chargeRows(db)).toEqual(await writtenOneByOne(commits))
    expect(await db.settings.get(deferredChargeDaysKey(CONN))).toBeUndefined()
  })

  it('files every stopped first sync’s charge days when the cache opens, before any sync starts', async () => {
    const commits = commitsOf(charges(0, 30))
    const stopped = writerOf(db)
    for (const c of commits) await commit(db, stopped, c)
    expect(await writerOf(db).fileStoppedFirstSyncs()).toEqual([CONN])
    expect(await chargeRows(db)).toEqual(await writtenOneByOne(commits))
    expect(await writerOf(db).fileStoppedFirstSyncs()).toEqual([])
  })

  it('a failed commit leaves neither its charges nor their rows, and the next filing is right', async () => {
    const cs = charges(0, 36)
    const writer = writerOf(db)
    await commit(db, writer, cs.slice(0, 12))
    await expect(
      db.transaction('rw', writer.pageTables(), async () => {
        await writer.putPages([
          {
            resource: 'charges',
            connectionId: CONN,
            records: cs.slice(12, 30),
            checkpoint: checkpoint({ resource: 'charges' }),
            firstSync: true,
          },
        ])
        throw new Error('disk full')
      }),
    ).rejects.toThrow('disk full')
    await commit(db, writer, cs.slice(30))
    await writer.fileDeferredDays(CONN)
    const kept = [...cs.slice(0, 12), ...cs.slice(30)]
    expect((await chargeRows(db)).days.flatMap((d) => d.ids)).toEqual(kept.map((c) => c.id))
    expect(
      await reads(
        db,
        kept.map((c) => c.id),
      ),
    ).toEqual(await readsOf(kept))
    // The failed page comes again (the sieve knows its ids): filed once each.
    await commit(db, writer, cs.slice(12, 30))
    await writer.fileDeferredDays(CONN)
    const days = (await chargeRows(db)).days
    expect(days.flatMap((d) => d.ids).sort()).toEqual(cs.map((c) => c.id).sort())
    expect(
      await reads(
        db,
        cs.map((c) => c.id),
      ),
    ).toEqual(await readsOf(cs))
  })

  it('a later sync’s write files the waiting days first, and is written as before', async () => {
    const cs = charges(0, 30)
    const writer = writerOf(db)
    await commit(db, writer, cs.slice(0, 15))
    const changed = charge(2, { status: 'failed', fee_amount: 5 }, T0 + 3)
    await commit(db, writer, [changed, ...cs.slice(15)], false)
    expect(await chargeRows(db)).toEqual(
      await writtenOneByOne([cs.slice(0, 15), [changed, ...cs.slice(15)]], [false, true]),
    )
  })

  it('Month-end and the ledger read the same charges after the run as after commits filed one by one', async () => {
    const cs = charges(0, 60)
    const again = charge(50, { status: 'failed' }, T0 + 1)
    const commits = [...commitsOf(cs), [again]]
    const writer = writerOf(db)
    for (const c of commits) await commit(db, writer, c)
    await writer.fileDeferredDays(CONN)
    await writtenOneByOne(commits)
    const ids = cs.map((c) => c.id)
    const after = await reads(db, ids)
    expect(after).toEqual(await reads(reference, ids))
    expect(after.byId[50]).toEqual(again)
    expect(after.digests).toHaveLength(60)
  })

  it('files nothing back for a connection whose synced data was cleared meanwhile', async () => {
    const writer = writerOf(db)
    await commit(db, writer, charges(0, 10))
    const clearing = writerOf(db)
    await db.transaction('rw', [...clearing.pageTables()], () => clearing.clearConnection(CONN))
    await writer.fileDeferredDays(CONN)
    expect(await chargeRows(db)).toEqual({ days: [], parts: [] })
    expect(await db.settings.get(deferredChargeDaysKey(CONN))).toBeUndefined()
  })
})

/** What `reads` gives for `cs` written by a later sync's path, one commit, in a fresh reference. */
async function readsOf(cs: readonly ChargeRecord[]) {
  await reference.transaction('rw', [reference.chargeDays, reference.chargeParts], () =>
    Promise.all([reference.chargeDays.clear(), reference.chargeParts.clear()]),
  )
  await reference.transaction('rw', [reference.chargeDays, reference.chargeParts], () =>
    putChargeDays(reference, CONN, cs, PART, false),
  )
  return reads(
    reference,
    cs.map((c) => c.id),
  )
}
