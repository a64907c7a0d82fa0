import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import {
  monthWindow,
  readMonthVerification,
  recordMonthVerification,
} from '../../../../src/stores/month-verification'
import { CONN, T0, checkpoint, historyItem } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'

let db: ClosebookDb
let cache: Cache

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(5))
})
afterEach(() => closeLedgerCache(db))

const recordAt = (i: number, over = {}) =>
  historyRecordOf(CONN, historyItem(i, { created_on: new Date(T0 + i * 60_000).toISOString(), ...over }), 0)

describe('month verification (the store behind Verify month)', () => {
  it('has nothing to say about a month never verified', async () => {
    expect(await readMonthVerification(CONN, '2026-10')).toEqual({
      last: null,
      changedSince: null,
      changedRecords: [],
      timeZone: null,
    })
  })

  it('remembers a run, lists the changed records it still has, and sees a later change to the month', async () => {
    const window = await monthWindow(CONN, '2026-10')
    expect(window).toEqual({ from: T0, to: Date.parse('2026-11-01T00:00:00Z'), timeZone: 'UTC' })
    const changed = recordAt(1).key
    await recordMonthVerification(CONN, '2026-10', window, [changed, changed, 'charge-list:x'])

    const fresh = await readMonthVerification(CONN, '2026-10')
    expect(fresh.last).toMatchObject({ changedKeys: [changed, 'charge-list:x'], changedCount: 2 })
    expect(fresh.changedSince).toBe(false)
    expect(fresh.changedRecords.map((r) => r.key)).toEqual([changed])
    expect(fresh.timeZone).toBe('UTC')
    // Another month's verification is another entry.
    expect((await readMonthVerification(CONN, '2026-09')).last).toBeNull()

    // A record of the month changes status after the run: the digest no longer matches.
    await cache.history.putPage(CONN, [recordAt(2, { status: 'canceled' })], checkpoint())
    expect((await readMonthVerification(CONN, '2026-10')).changedSince).toBe(true)
  })
})
