import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { UNAVAILABLE_CLOSE_FACTS, setCloseFactsProvider } from '../../../../src/reconcile/close-checklist'
import { useMonthEndStore } from '../../../../src/stores/month-end-store'
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
