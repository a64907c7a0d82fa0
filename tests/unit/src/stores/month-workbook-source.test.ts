import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import { unpackRows, type ExportRow, type PackedRows } from '../../../../electron/shared/contract'
import type { HistoryItem } from '../../../../electron/shared/payment-api'
import { createCache, setAppCacheForTests, type Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import { periodRange } from '../../../../src/domain/periods'
import type { AuditEntry, HistoryRecord, MarkRecord } from '../../../../src/domain/records'
import {
  buildMonthWorkbook,
  planMonthWorkbook,
  SHEETS,
  type MonthWorkbookMeta,
  type WorkbookPlan,
} from '../../../../src/export/month-workbook'
import { writeWorkbookThroughHost } from '../../../../src/export/workbook-client'
import { setDesktopApiForTests } from '../../../../src/platform'
import { UNAVAILABLE_CLOSE_FACTS, setCloseFactsProvider } from '../../../../src/reconcile/close-checklist'
import type { LinkedRow } from '../../../../src/reconcile/match-links'
import { loadMonth, type MonthData } from '../../../../src/stores/month-load'
import { cacheMonthSource, monthMerchantName } from '../../../../src/stores/month-workbook-source'
import { CONN, STORE_1, STORE_2, uuid } from '../../../support/api-items'
import {
  auditEntry,
  checkpoint,
  chargeRecord,
  connectionRow,
  historyRecord,
  mark,
  putMarks,
} from '../../../support/cache'
import { openDb } from '../db/fixtures'

const PERIOD = '2026-10'
const STORE_3 = '33333333-3333-4333-8333-333333333333'
const TOKYO = connectionRow({ timeZone: 'Asia/Tokyo', storeIds: [STORE_1, STORE_2, STORE_3] })
const RANGE = periodRange(PERIOD, TOKYO.timeZone)
const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const STATUSES = ['successful', 'successful', 'failed', 'pending', 'Successful', 'successful']
const CURRENCIES = ['JPY', 'USD', 'JPY', 'EUR', 'usd']
/** Records a day in the filled month: a day read at once holds this many. */
const PER_DAY = 40
const REFUND_LAG = 45

let db: ClosebookDb
let cache: Cache

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
async function fillMonth(): Promise<HistoryRecord[]> {
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

/** What the Month-end store gives the workbook besides its records, with audit entries and a deposit. */
function metaOf(
  month: MonthData,
  history: readonly HistoryRecord[],
  storeId: string | null,
): MonthWorkbookMeta {
  const named = (i: number) => (history[i] as HistoryRecord).key
  const audit: AuditEntry[] = [4, 9, 400, 1100].map((i, seq) =>
    auditEntry({ key: named(i), at: RANGE.from + seq * DAY, seq, after: { state: 'reconciled' } }),
  )
  const deposit: LinkedRow = {
    importId: 'b-1',
    line: 5,
    source: 'bank',
    fileName: 'bank.csv',
    orderNumber: null,
    at: RANGE.from + 10 * DAY,
    amount: 7200,
    currency: 'JPY',
    matchedKeys: [named(10), named(45), named(700)],
  }
  return {
    merchantName: 'Merchant K.K.',
    connection: { id: CONN, label: TOKYO.label, timeZone: TOKYO.timeZone },
    period: PERIOD,
    storeId,
    marks: month.marks,
    audit,
    generatedAt: RANGE.to + DAY,
    appVersion: 'test',
    close: { closedAt: RANGE.to + DAY, closedBy: 'rei', note: 'closed' },
    importedRows: [deposit],
    transferFee: 440,
  }
}

/** The month's records from the cache, as the Month-end store hands them to the workbook. */
function sourceOf(month: MonthData) {
  return cacheMonthSource({
    connectionId: CONN,
    period: PERIOD,
    timeZone: TOKYO.timeZone,
    digests: month.digests,
    chargeDigests: month.chargeDigests,
    storeNames: month.storeNames,
  })
}

/** Every sheet's rows, as the writer takes them. */
async function rowsOf(plan: WorkbookPlan): Promise<[string, number, ExportRow[]][]> {
  const out: [string, number, ExportRow[]][] = []
  for (const sheet of plan.sheets) {
    const rows: ExportRow[] = []
    for await (const row of sheet.rows()) rows.push(row)
    out.push([sheet.spec.name, sheet.rowCount, rows])
  }
  return out
}

/**
 * Counts whole records read from the cache by range (each day's read), and notes every range's length, so
 * that a read of more than a day shows.
 */
function countRangeReads() {
  const read = { history: 0, charges: 0, longest: 0 }
  const history = cache.history.inRange.bind(cache.history)
  vi.spyOn(cache.history, 'inRange').mockImplementation(async (id, from, to) => {
    read.longest = Math.max(read.longest, to - from)
    const records = await history(id, from, to)
    read.history += records.length
    return records
  })
  const charges = cache.charges.inRange.bind(cache.charges)
  vi.spyOn(cache.charges, 'inRange').mockImplementation(async (id, from, to) => {
    read.longest = Math.max(read.longest, to - from)
    const records = await charges(id, from, to)
    read.charges += records.length
    return records
  })
  return read
}

beforeEach(async () => {
  db = openDb()
  cache = createCache(db)
  setAppCacheForTests(cache)
  await cache.connections.put(TOKYO)
  setCloseFactsProvider({
    lastVerified: () => Promise.resolve({ available: true, value: null }),
    quarantined: () => Promise.resolve({ available: true, value: [] }),
  })
})
afterEach(() => {
  setCloseFactsProvider(UNAVAILABLE_CLOSE_FACTS)
  setDesktopApiForTests(undefined)
  setAppCacheForTests(undefined)
  vi.restoreAllMocks()
  db.close()
})

describe('the month workbook read from the cache a day at a time', () => {
  it.each([
    ['every store', null],
    ['one store named only by its charges', STORE_2],
    ['one store named by nothing', STORE_3],
  ])('gives every sheet of %s as the month’s whole records do', async (_, storeId) => {
    const history = await fillMonth()
    const month = await loadMonth(TOKYO, PERIOD)
    const meta = metaOf(month, history, storeId)
    const whole = buildMonthWorkbook({
      ...meta,
      history: await month.history(),
      charges: await month.charges(),
      storeNames: month.storeNames,
    })
    const source = await sourceOf(month)
    const streamed = planMonthWorkbook(meta, source)

    expect(streamed.suggestedName).toBe(whole.suggestedName)
    expect(streamed.title).toBe(whole.title)
    expect(streamed.summary).toEqual(whole.summary)
    expect(streamed.sheets.map((s) => s.spec)).toEqual(whole.sheets.map((s) => s.spec))
    const wholeRows = await rowsOf(whole)
    expect(await rowsOf(streamed)).toEqual(wholeRows)
    // The month is varied enough for the comparison to mean something.
    const count = (name: string) => wholeRows.find(([n]) => n === name)?.[2].length ?? 0
    expect(count(SHEETS.refunds)).toBeGreaterThan(10)
    expect(count(SHEETS.exceptions)).toBeGreaterThan(10)
    expect(count(SHEETS.deposits)).toBe(1)
    expect(count(SHEETS.audit)).toBeGreaterThan(0)
    const cells = wholeRows.flatMap(([, , rows]) => rows.flat())
    if (storeId !== STORE_3) expect(cells).toContain(storeId === null ? 'First store' : 'Second store')
    expect(cells).toEqual(expect.arrayContaining(['reconciled', 'unreconciled', 'USD', 'EUR', 'JPY']))
  })

  it('gives the merchant’s name as the month’s oldest record naming it, reading a few records', async () => {
    await fillMonth()
    const month = await loadMonth(TOKYO, PERIOD)
    const getMany = vi.spyOn(cache.history, 'getMany')
    expect(await monthMerchantName(CONN, month.digests)).toBe('Merchant K.K.')
    expect(getMany.mock.calls.map(([, keys]) => keys.length)).toEqual([16])
  })

  it('holds a day or two of records at a time: never more than that ahead of the rows the host took', async () => {
    const history = await fillMonth()
    const month = await loadMonth(TOKYO, PERIOD)
    const read = countRangeReads()
    const source = await sourceOf(month)
    const plan = planMonthWorkbook(metaOf(month, history, null), source)
    expect(read.history + read.charges).toBe(0) // the plan reads no record
    const ahead: Record<string, number> = {}
    let sent = 0
    let sheet = ''
    const api = {
      export: {
        begin: () => Promise.resolve({ exportId: 'x'.repeat(24) }),
        appendRows: async (args: { sheet: string; rows?: ExportRow[]; packed?: PackedRows }) => {
          if (args.sheet !== sheet) [sheet, sent] = [args.sheet, 0]
          sent += args.packed ? unpackRows(args.packed).length : (args.rows ?? []).length
          const readNow = sheet === SHEETS.charges ? read.charges : read.history
          ahead[sheet] = Math.max(ahead[sheet] ?? 0, readNow - sent)
          await new Promise((r) => setTimeout(r, 0))
          return { rowsWritten: sent }
        },
        finish: () => Promise.resolve({ savedTo: 'path', path: '/tmp/a.xlsx', fileName: 'a.xlsx' }),
        cancel: () => Promise.resolve({ cancelled: true }),
      },
    } as unknown as DesktopApi
    setDesktopApiForTests(api)
    await writeWorkbookThroughHost(plan, { rowsPerChunk: 10 })

    // No range read is longer than a UTC day: the month is never read whole.
    expect(read.longest).toBeLessThanOrEqual(DAY)
    // The records of the month, read once for Transactions and once for Refunds, and its charges once.
    expect(read.history).toBe(2 * month.digests.length)
    expect(read.charges).toBe(month.chargeDigests.length)
    // Two days (the one written and the one read ahead) and a chunk at most, of a month of 30 days.
    const bound = 2 * PER_DAY + 10
    expect(ahead[SHEETS.transactions]).toBeLessThanOrEqual(bound)
    expect(ahead[SHEETS.charges]).toBeLessThanOrEqual(bound)
    expect(month.digests.length).toBeGreaterThan(10 * bound)
  })
})
