/**
 * A varied month in the cache for the month's readers (the workbook, the journal): 30 days of Tokyo's
 * October, refunds a day after their charges, reconciled, changed and noted marks, four currencies, test
 * mode, a store named only by its charges and one named by nothing, and records at the month's edges.
 */
import type { HistoryItem } from '../../../../electron/shared/payment-api'
import { createCache, setAppCacheForTests, type Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { periodRange } from '../../../../src/domain/periods'
import type { HistoryRecord, MarkRecord } from '../../../../src/domain/records'
import { UNAVAILABLE_CLOSE_FACTS, setCloseFactsProvider } from '../../../../src/reconcile/close-checklist'
import { CONN, STORE_1, STORE_2, uuid } from '../../../support/api-items'
import {
  checkpoint,
  chargeRecord,
  connectionRow,
  historyRecord,
  mark,
  putMarks,
} from '../../../support/cache'
import { openDb } from '../db/fixtures'

export const PERIOD = '2026-10'
export const STORE_3 = '33333333-3333-4333-8333-333333333333'
export const TOKYO = connectionRow({ timeZone: 'Asia/Tokyo', storeIds: [STORE_1, STORE_2, STORE_3] })
export const RANGE = periodRange(PERIOD, TOKYO.timeZone)
export const MINUTE = 60_000
export const DAY = 24 * 60 * MINUTE
const STATUSES = ['successful', 'successful', 'failed', 'pending', 'Successful', 'successful']
const CURRENCIES = ['JPY', 'USD', 'JPY', 'EUR', 'usd']
/** Records a day in the filled month: a day read at once holds this many. */
export const PER_DAY = 40
const REFUND_LAG = 45

const STORES = [STORE_1, STORE_2, STORE_3]

/**
 * Record `n` at `at`: three stores (the second named by no record but by its charges, the third by
 * nothing), currencies, statuses and modes varied; every seventh a refund of a charge of its store made a
 * day before (REFUND_LAG records: the same store, and a charge).
 */
function varied(n: number, at: number): HistoryRecord {
  const store = STORES[n % 3] ?? STORE_1
  const currency = CURRENCIES[n % CURRENCIES.length] ?? 'JPY'
  const refund = n % 7 === 3 && n > REFUND_LAG
  const over: Partial<HistoryItem> = {
    created_on: new Date(at).toISOString(),
    store_id: store,
    store_name: store === STORE_1 && n % 4 !== 1 ? 'First store' : '',
    merchant_name: n < 5 ? '' : 'Merchant K.K.',
    currency,
    amount: currency === 'JPY' ? 1000 + n : 1999 + n * 3,
    status: STATUSES[n % STATUSES.length] ?? 'successful',
    mode: n % 11 === 5 ? 'test' : 'live',
  }
  return historyRecord(n, refund ? { ...over, type: 'refund', charge_id: uuid(n - REFUND_LAG) } : over)
}

/** A month in Tokyo of 30 days of PER_DAY records, with its edges, charges, marks, audit and a deposit. */
export async function fillMonth(db: ClosebookDb, cache: Cache): Promise<HistoryRecord[]> {
  const at = [RANGE.from - 1, RANGE.from, RANGE.to - 1, RANGE.to]
  for (let n = 0; n < 30 * PER_DAY; n++)
    at.push(RANGE.from + Math.floor(n / PER_DAY) * DAY + ((n % PER_DAY) + 1) * 17 * MINUTE)
  const history = at.map((t, n) => varied(n, t))
  await cache.history.putPage(CONN, history, checkpoint())
  const charges = history
    .filter((r, i) => r.type === 'charge' && i % 13 !== 6)
    .map((r, i) =>
      chargeRecord(Number.parseInt(r.resourceId.slice(-12), 16), {
        created_on: new Date(r.createdAt).toISOString(),
        store_id: r.storeId,
        store_name:
          r.storeId === STORE_2 && i > 2 ? 'Second store' : r.storeId === STORE_1 ? 'First store' : '',
        charged_amount: i % 17 === 1 ? r.amount + 1 : r.amount,
        charged_currency: i % 19 === 2 ? 'GBP' : r.currency,
        status: i % 23 === 3 ? 'pending' : r.status,
        fee_amount: i % 6 === 4 ? null : 36 + i,
        fee_currency: i % 8 === 5 ? null : i % 8 === 6 ? 'JPY' : r.currency,
        mode: r.mode,
      }),
    )
  await cache.charges.putPage(CONN, charges, checkpoint({ resource: 'charges', partitionId: 'charges:all' }))
  const marks: MarkRecord[] = history.flatMap((r, n): MarkRecord[] => {
    const kind = n % 5
    if (kind === 0) return [mark(r.key, { fingerprint: fingerprintOf(r), note: n % 3 ? '' : `ok ${n}` })]
    if (kind === 1) return [mark(r.key, { fingerprint: n % 2 ? null : 'made on other data' })]
    if (kind === 2) return [mark(r.key, { state: 'unreconciled', note: `waits for deposit ${n}` })]
    return []
  })
  const timeOf = new Map(history.map((r) => [r.key, r.createdAt]))
  await putMarks(db, marks, (m) => timeOf.get(m.key) ?? 0)
  return history
}

/** A fresh cache as the app's, holding the Tokyo connection, with close facts that answer (nothing pending). */
export async function openMonthCache(): Promise<{ db: ClosebookDb; cache: Cache }> {
  const db = openDb()
  const cache = createCache(db)
  setAppCacheForTests(cache)
  await cache.connections.put(TOKYO)
  setCloseFactsProvider({
    lastVerified: () => Promise.resolve({ available: true, value: null }),
    quarantined: () => Promise.resolve({ available: true, value: [] }),
  })
  return { db, cache }
}

/** Undoes openMonthCache. */
export function closeMonthCache(db: ClosebookDb): void {
  setCloseFactsProvider(UNAVAILABLE_CLOSE_FACTS)
  setAppCacheForTests(undefined)
  db.close()
}
