import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { UNAVAILABLE_CLOSE_FACTS, setCloseFactsProvider } from '../../../../src/reconcile/close-checklist'
import { appCache } from '../../../../src/db/cache'
import { historyRecordOf } from '../../../../src/db/history-record'
import { fileLegacyBatch } from '../../../../src/db/legacy-move'
import { useMonthEndStore } from '../../../../src/stores/month-end-store'
import { CONN, T0, historyItem } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'

let db: ClosebookDb

/** Close facts whose read of `slowPeriod` waits until `release()`, or fails then when `fail` is set. */
function slowFactsFor(slowPeriod: string, fail = false): { release: () => void } {
  let release = () => {}
  const gate = new Promise<void>((resolve) => (release = resolve))
  setCloseFactsProvider({
    async lastVerified(_connectionId, period) {
      if (period === slowPeriod) {
        await gate
        if (fail) throw new Error(`read of ${period} failed`)
      }
      return { available: true, value: null }
    },
    quarantined: () => Promise.resolve({ available: true, value: [] }),
  })
  return { release }
}

beforeEach(async () => {
  ;({ db } = await openLedgerCache(5))
  setActivePinia(createPinia())
})
afterEach(() => {
  setCloseFactsProvider(UNAVAILABLE_CLOSE_FACTS)
  closeLedgerCache(db)
})

/** Month-end opens on October, whose read waits (then fails when `octoberFails`); September is chosen and read. */
async function openOctoberThenChooseSeptember(octoberFails: boolean) {
  const october = slowFactsFor('2026-10', octoberFails)
  const store = useMonthEndStore()
  store.choosePeriod('2026-10')
  const opening = store.init()
  await new Promise((r) => setTimeout(r, 20))
  store.choosePeriod('2026-09')
  await store.load()
  return { store, october, opening }
}

describe('month-end store: overlapping reads', () => {
  it('a slow read of the month left behind, ending last, does not replace the month chosen since', async () => {
    const { store, october, opening } = await openOctoberThenChooseSeptember(false)
    expect(store.data?.period).toBe('2026-09')

    october.release()
    await opening
    expect(store.period).toBe('2026-09')
    expect(store.data?.period).toBe('2026-09')
    expect(store.loading).toBe(false)
    expect(store.error).toBeNull()
  })

  it("a stale read's failure is not shown over the month chosen since; the newest read's failure is", async () => {
    const { store, october, opening } = await openOctoberThenChooseSeptember(true)
    october.release()
    await opening
    expect(store.data?.period).toBe('2026-09')
    expect(store.error).toBeNull()

    store.choosePeriod('2026-10')
    await store.load()
    expect(store.error).toMatchObject({ code: 'unexpected', detail: 'read of 2026-10 failed' })
    expect(store.data?.period).toBe('2026-09')
  })
})

describe('month-end store: records of an older version not yet filed', () => {
  it('shows no month (so none is closed or exported) while set-aside records wait for their days, then the month', async () => {
    slowFactsFor('none')
    const store = useMonthEndStore()
    store.choosePeriod('2026-10')
    // A row an older version stored, set aside and not yet filed: the month's figures would leave it out.
    const older = historyRecordOf(
      CONN,
      historyItem(99, { created_on: new Date(T0 + 3_600_000).toISOString() }),
      0,
    )
    await db.legacyHistory.add(older)
    await store.init()
    expect(store.data).toBeNull()
    expect(store.error?.code).toBe('history_filing')
    expect(store.canClose).toBe(false)
    // Filed: the month is read, with that record in it.
    while ((await fileLegacyBatch(db, appCache().history.writer)) > 0);
    await store.load()
    expect(store.error).toBeNull()
    expect(store.data?.period).toBe('2026-10')
    expect(store.data?.digests.some((d) => d.key === older.key)).toBe(true)
  })
})
