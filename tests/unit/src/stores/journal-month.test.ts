import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { defaultJournalSettings, type JournalSettings } from '../../../../src/export/journal/settings'
import { buildJournal } from '../../../../src/export/journal/vouchers'
import { useJournalStore } from '../../../../src/stores/journal-store'
import { loadMonth } from '../../../../src/stores/month-load'
import { CONN } from '../../../support/api-items'
import { closeMonthCache, fillMonth, openMonthCache, PERIOD, TOKYO } from './varied-month'

let db: ClosebookDb
let cache: Cache

/**
 * Every read of whole records or charges (by range or by key), with the longest range read, so that a read
 * of the month (or of more than a day) shows.
 */
function recordReads() {
  const read = { calls: 0, records: 0, longest: 0 }
  const spy = <T extends object>(target: T, method: keyof T & string) => {
    const original = (target[method] as (...a: unknown[]) => Promise<unknown[]>).bind(target)
    vi.spyOn(target, method as never).mockImplementation((async (...a: unknown[]) => {
      read.calls++
      if (method === 'inRange') read.longest = Math.max(read.longest, Number(a[2]) - Number(a[1]))
      const found = await original(...a)
      read.records += found.length
      return found
    }) as never)
  }
  spy(cache.history, 'inRange')
  spy(cache.history, 'getMany')
  spy(cache.charges, 'inRange')
  spy(cache.charges, 'getMany')
  return read
}

beforeEach(async () => {
  ;({ db, cache } = await openMonthCache())
  setActivePinia(createPinia())
})
afterEach(() => {
  vi.restoreAllMocks()
  closeMonthCache(db)
})

describe('the journal of a month in the cache', () => {
  it.each<[string, Partial<JournalSettings>]>([
    ['by day, stores merged, gross', {}],
    [
      'by month, per store, net, USD at a rate',
      { granularity: 'month', perStore: true, booking: 'net', rates: { USD: '151.25' } },
    ],
  ])('%s: the entries the month’s whole records give, with no record read', async (_, over) => {
    await fillMonth(db, cache)
    const settings: JournalSettings = { ...defaultJournalSettings(), ...over }
    // The reference from the month's whole records, read through a load of its own.
    const whole = await loadMonth(TOKYO, PERIOD)
    const expected = buildJournal({
      period: PERIOD,
      timeZone: TOKYO.timeZone,
      history: await whole.history(),
      charges: await whole.charges(),
      storeNames: whole.storeNames,
      settings,
    })
    const month = await loadMonth(TOKYO, PERIOD)
    const journal = useJournalStore()
    expect(await journal.saveSettings(CONN, settings)).toBe(true)
    const read = recordReads()
    await journal.prepare(month)

    expect(journal.problem).toBeNull()
    expect(journal.preview).toEqual(expected)
    // No whole record or charge is read: no read spans a day, or any time at all.
    expect(read).toEqual({ calls: 0, records: 0, longest: 0 })
    // Each traced record names its record's own id (the trace file's reference column).
    const idOf = new Map((await whole.history()).map((r) => [r.key as string, r.resourceId]))
    const traced = (journal.preview?.vouchers ?? [])
      .flatMap((v) => v.lines.flatMap((l) => l.records))
      .filter((t) => t.type === 'charge' || t.type === 'refund')
    expect(traced.length).toBeGreaterThan(100)
    expect(traced.map((t) => t.resourceId)).toEqual(traced.map((t) => idOf.get(t.key)))
    // The month is varied enough for the comparison to mean something.
    expect(expected.vouchers.length).toBeGreaterThan(over.granularity === 'month' ? 2 : 20)
    expect(expected.vouchers.flatMap((v) => v.lines.map((l) => l.kind))).toEqual(
      expect.arrayContaining(over.booking === 'net' ? ['sales', 'refunds'] : ['sales', 'refunds', 'fees']),
    )
    expect(new Set(expected.exceptions.map((e) => e.reason))).toEqual(
      new Set([
        'test_mode',
        'fee_without_currency',
        'currency_without_rate',
      ] satisfies (typeof expected.exceptions)[number]['reason'][]),
    )
    if (over.rates) expect(expected.vouchers.some((v) => v.convertedFrom?.currency === 'USD')).toBe(true)
  })
})
