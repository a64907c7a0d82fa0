import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Cache } from '../../../../../src/db/cache'
import type { ClosebookDb } from '../../../../../src/db/database'
import { historyRecordOf } from '../../../../../src/db/history-record'
import { useLedgerStore } from '../../../../../src/stores/ledger-store'
import { BLOCK, useRowBlocks } from '../../../../../src/stores/ledger/row-blocks'
import { ref } from 'vue'
import { CONN, historyItem } from '../../db/fixtures'
import { closeLedgerCache, openLedgerCache } from '../ledger-cache'

const N = 1000

let db: ClosebookDb
let cache: Cache

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(N))
  setActivePinia(createPinia())
})
afterEach(() => {
  vi.restoreAllMocks()
  closeLedgerCache(db)
})

/** Grid row `index` (newest first) is record N - 1 - index. */
const keyAt = (ledger: ReturnType<typeof useLedgerStore>, index: number) => ledger.rows.get(index)?.key
const expectedKey = (index: number) => historyRecordOf(CONN, historyItem(N - 1 - index), 0).key

describe('ledger store: loading rows', () => {
  it('loads the first two blocks in one query, and adjacent missing blocks together as the grid scrolls', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    ledger.filters.period = '2026-10'
    const queries = vi.spyOn(cache.history, 'queryPage')
    await ledger.refresh()
    expect(queries).toHaveBeenCalledTimes(1)
    expect(queries.mock.calls[0]?.[0]).toMatchObject({ offset: 0, limit: 200, order: 'desc' })
    await vi.waitFor(() => expect(ledger.total).toBe(N))

    queries.mockClear()
    // Rows 150–649: block 1 is loaded, blocks 2–6 are not: one query for the five of them.
    await ledger.ensureRows(150, 650)
    expect(queries).toHaveBeenCalledTimes(1)
    expect(queries.mock.calls[0]?.[0]).toMatchObject({ offset: 200, limit: 500 })
    for (const i of [0, 199, 200, 450, 649]) expect(keyAt(ledger, i), `row ${i}`).toBe(expectedKey(i))

    queries.mockClear()
    // Loaded blocks are not asked for again; the block past the end is not asked for at all.
    await ledger.ensureRows(0, 5000)
    expect(queries).toHaveBeenCalledTimes(1)
    expect(queries.mock.calls[0]?.[0]).toMatchObject({ offset: 700, limit: 300 })
    expect(ledger.rows.size).toBe(N)
    expect(keyAt(ledger, N - 1)).toBe(expectedKey(N - 1))
  })
})

describe('ledger block cache', () => {
  it('drops the rows of a read that a reset overtook (a filter changed while it ran)', async () => {
    const total = ref(N)
    const blocks = useRowBlocks({
      currentFilter: () => ({ connectionId: CONN, from: 0, to: 8.64e15 }),
      order: ref('desc'),
      total,
      dayCounts: () => null,
      loadFacts: () => Promise.resolve(),
    })
    const stale = blocks.ensureRows(0, BLOCK)
    const gen = blocks.reset()
    await stale
    expect(blocks.rows.value.size).toBe(0)
    expect(blocks.isCurrent(gen)).toBe(true)
    // The reset also forgot the block: asked again, it is read again, for the new generation.
    await blocks.ensureRows(0, BLOCK)
    expect(blocks.rows.value.size).toBe(BLOCK)
    expect(blocks.rows.value.get(0)?.key).toBe(expectedKey(0))
  })

  it('reads nothing past the total, and installs a sorted set without reading', async () => {
    const queries = vi.spyOn(cache.history, 'queryPage')
    const blocks = useRowBlocks({
      currentFilter: () => ({ connectionId: CONN, from: 0, to: 8.64e15 }),
      order: ref('desc'),
      total: ref(150),
      dayCounts: () => null,
      loadFacts: () => Promise.resolve(),
    })
    await blocks.ensureRows(0, 1000)
    expect(queries).toHaveBeenCalledTimes(1)
    expect(queries.mock.calls[0]?.[0]).toMatchObject({ offset: 0, limit: 200 })

    queries.mockClear()
    blocks.reset()
    const sorted = Array.from({ length: 150 }, (_, i) => historyRecordOf(CONN, historyItem(i), 0))
    blocks.fill(sorted)
    await blocks.ensureRows(0, 150)
    expect(queries).not.toHaveBeenCalled()
    expect(blocks.rows.value.get(149)?.key).toBe(sorted[149]?.key)
  })
})
