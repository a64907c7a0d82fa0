import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Cache } from '../../../../../src/db/cache'
import type { ClosebookDb } from '../../../../../src/db/database'
import { dayTokensCacheOf } from '../../../../../src/db/token-cache'
import { useLedgerStore } from '../../../../../src/stores/ledger-store'
import { CONN } from '../../db/fixtures'
import { closeLedgerCache, openLedgerCache } from '../ledger-cache'

const N = 3000

let db: ClosebookDb
let cache: Cache

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(N))
  setActivePinia(createPinia())
})
afterEach(() => {
  vi.restoreAllMocks()
  dayTokensCacheOf(db).close()
  closeLedgerCache(db)
})

describe("ledger store: a period's search parts read ahead", () => {
  it('warms the period it opens, so a search typed then counts without reading a token part', async () => {
    const warms = vi.spyOn(cache.history, 'warmSearch')
    const ledger = useLedgerStore()
    await ledger.init()
    ledger.filters.period = '2026-10'
    await ledger.refresh()
    await vi.waitFor(() => expect(warms).toHaveBeenCalledTimes(1))
    const [connectionId, from, to] = warms.mock.calls[0]!
    expect([connectionId, from, to]).toEqual([
      CONN,
      Date.parse('2026-10-01T00:00:00Z'),
      Date.parse('2026-11-01T00:00:00Z'),
    ])
    await warms.mock.results[0]!.value

    let parts = 0
    const count = (row: unknown) => {
      parts++
      return row
    }
    db.dayTokens.hook('reading', count)
    ledger.filters.search = '00000000-0000-4000-8000-0000000001'
    await ledger.refresh()
    await vi.waitFor(() => expect(ledger.counted).toBe(true))
    db.dayTokens.hook('reading').unsubscribe(count)
    // Records 256–511 (0x100–0x1ff) carry the term.
    expect(ledger.total).toBe(256)
    expect(parts).toBe(0)
  })

  it('stops the warm of a period no longer shown', async () => {
    const stops = vi.spyOn(cache.history, 'stopWarmingSearch')
    const ledger = useLedgerStore()
    await ledger.init()
    ledger.filters.period = '2026-10'
    await ledger.refresh()
    await vi.waitFor(() => expect(ledger.counted).toBe(true))
    stops.mockClear()
    ledger.filters.search = 'x'
    await ledger.refresh()
    expect(stops).not.toHaveBeenCalled()
    ledger.filters.period = '2026-11'
    await ledger.refresh()
    expect(stops).toHaveBeenCalledTimes(1)
  })
})
