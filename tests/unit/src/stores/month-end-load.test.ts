import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import type { ClosebookDb } from '../../../../src/db/database'
import { setDesktopApiForTests } from '../../../../src/platform'
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

describe('month-end store: the workbook export', () => {
  afterEach(() => setDesktopApiForTests(undefined))

  it('reads the month’s whole records and its charges side by side, then writes the workbook', async () => {
    setCloseFactsProvider({
      lastVerified: () => Promise.resolve({ available: true, value: null }),
      quarantined: () => Promise.resolve({ available: true, value: [] }),
    })
    const sheets: string[] = []
    setDesktopApiForTests({
      export: {
        begin: () => Promise.resolve({ exportId: 'x'.repeat(24) }),
        appendRows: (a: { sheet: string }) => {
          sheets.push(a.sheet)
          return Promise.resolve({ rowsWritten: 0 })
        },
        finish: () => Promise.resolve({ savedTo: 'path', path: '/tmp/w.xlsx', fileName: 'w.xlsx' }),
        cancel: () => Promise.resolve({ cancelled: true }),
      },
    } as unknown as DesktopApi)
    const store = useMonthEndStore()
    store.choosePeriod('2026-10')
    await store.init()
    const month = store.data
    if (!month) throw new Error('no month')
    // Which read was under way when each began.
    const log: string[] = []
    const logged =
      <T>(name: string, read: () => Promise<T>) =>
      async () => {
        log.push(`${name} begins`)
        await new Promise((r) => setTimeout(r, 10))
        const value = await read()
        log.push(`${name} ends`)
        return value
      }
    store.data = {
      ...month,
      history: logged('records', month.history),
      charges: logged('charges', month.charges),
    }

    await store.exportWorkbook(null)
    expect(store.error).toBeNull()
    expect(store.exported).toBe('w.xlsx')
    expect(sheets).toContain('Transactions')
    expect(log.slice(0, 2).sort()).toEqual(['charges begins', 'records begins'])
  })
})
