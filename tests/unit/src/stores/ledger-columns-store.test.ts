import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import {
  DEFAULT_WIDTHS,
  MAX_WIDTH,
  MIN_WIDTH,
  SELECT_WIDTH,
  useLedgerColumnsStore,
} from '../../../../src/stores/ledger-columns-store'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'

let db: ClosebookDb
let cache: Cache

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(0))
  setActivePinia(createPinia())
})
afterEach(() => closeLedgerCache(db))

describe('ledger columns', () => {
  it('remembers hidden columns and widths across loads; saved widths are checked', async () => {
    // A width out of bounds: the saved widths are not trusted, the defaults apply.
    await cache.settings.set('ledgerColumnWidths', { store: 200, note: 5000 })
    const columns = useLedgerColumnsStore()
    await columns.load()
    expect(columns.widthOf('store')).toBe(DEFAULT_WIDTHS.store)
    // A width of no column (one removed since) is dropped, the others kept.
    await cache.settings.set('ledgerColumnWidths', { store: 200, ghost: 100 })
    await columns.load()
    expect(columns.widthOf('store')).toBe(200)
    expect(columns.widthOf('note')).toBe(DEFAULT_WIDTHS.note)
    expect(Object.keys(columns.widths)).toEqual(['store'])

    await columns.toggleColumn('fee', false)
    columns.setWidth('date', 10_000)
    columns.setWidth('amount', 3)
    columns.saveWidths()
    expect(columns.widthOf('date')).toBe(MAX_WIDTH)
    expect(columns.widthOf('amount')).toBe(MIN_WIDTH)

    setActivePinia(createPinia())
    const again = useLedgerColumnsStore()
    await again.load()
    expect(again.shown('fee')).toBe(false)
    expect(again.headerColumns).not.toContain('fee')
    expect(again.headerColumns[0]).toBe('date')
    expect(again.widthOf('date')).toBe(MAX_WIDTH)
    expect(again.rowWidth).toBe(SELECT_WIDTH + again.headerColumns.reduce((s, c) => s + again.widthOf(c), 0))
    expect(again.columnVars['--w-date']).toBe(`${MAX_WIDTH}px`)
  })
})
