import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import { unpackRows, type ExportRow, type PackedRows } from '../../../../electron/shared/contract'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import type { AuditEntry, HistoryRecord } from '../../../../src/domain/records'
import { RF, TX } from '../../../../src/export/month-record-sheets'
import {
  buildMonthWorkbook,
  planMonthWorkbook,
  SHEETS,
  type MonthWorkbookMeta,
  type WorkbookPlan,
} from '../../../../src/export/month-workbook'
import { writeWorkbookThroughHost } from '../../../../src/export/workbook-client'
import { setDesktopApiForTests } from '../../../../src/platform'
import type { LinkedRow } from '../../../../src/reconcile/match-links'
import { loadMonth, type MonthData } from '../../../../src/stores/month-load'
import { cacheMonthSource, monthMerchantName } from '../../../../src/stores/month-workbook-source'
import { CONN, STORE_2 } from '../../../support/api-items'
import { auditEntry } from '../../../support/cache'
import {
  closeMonthCache,
  DAY,
  fillMonth,
  openMonthCache,
  PER_DAY,
  PERIOD,
  RANGE,
  STORE_3,
  TOKYO,
} from './varied-month'

let db: ClosebookDb
let cache: Cache

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
  ;({ db, cache } = await openMonthCache())
})
afterEach(() => {
  setDesktopApiForTests(undefined)
  vi.restoreAllMocks()
  closeMonthCache(db)
})

describe('the month workbook read from the cache a day at a time', () => {
  it.each([
    ['every store', null],
    ['one store named only by its charges', STORE_2],
    ['one store named by nothing', STORE_3],
  ])('gives every sheet of %s as the month’s whole records do', async (_, storeId) => {
    const history = await fillMonth(db, cache)
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
    // A Refunds row says what its record's Transactions row says, in every column the two have in common.
    const common = ['created', 'chargeId', 'storeId', 'storeName', 'mode', 'status', 'currency']
      .concat(['amount', 'reconciliation', 'changed', 'note', 'cardholder', 'orderRef'])
      .map((key) => [TX.list.findIndex((c) => c.key === key), RF.list.findIndex((c) => c.key === key)])
    const rowsNamed = (name: string) => wholeRows.find(([n]) => n === name)?.[2] ?? []
    const txById = new Map(rowsNamed(SHEETS.transactions).map((row) => [row[2], row]))
    const refundRows = rowsNamed(SHEETS.refunds)
    const asRefunds = refundRows.map((row) => common.map(([t]) => txById.get(row[1])?.[t ?? -1]))
    expect(refundRows.map((row) => common.map(([, r]) => row[r ?? -1]))).toEqual(asRefunds)
    // Among them reconciled refunds that changed since and that did not.
    const changedAt = RF.list.findIndex((c) => c.key === 'changed')
    const reconciledAt = RF.list.findIndex((c) => c.key === 'reconciliation')
    const reconciled = refundRows.filter((row) => row[reconciledAt] === 'reconciled')
    expect(new Set(reconciled.map((row) => row[changedAt]))).toEqual(new Set(['Yes', 'No']))
    const cells = wholeRows.flatMap(([, , rows]) => rows.flat())
    if (storeId !== STORE_3) expect(cells).toContain(storeId === null ? 'First store' : 'Second store')
    expect(cells).toEqual(expect.arrayContaining(['reconciled', 'unreconciled', 'USD', 'EUR', 'JPY']))
  })

  it('gives the merchant’s name as the month’s oldest record naming it, reading a few records', async () => {
    await fillMonth(db, cache)
    const month = await loadMonth(TOKYO, PERIOD)
    const getMany = vi.spyOn(cache.history, 'getMany')
    expect(await monthMerchantName(CONN, month.digests)).toBe('Merchant K.K.')
    expect(getMany.mock.calls.map(([, keys]) => keys.length)).toEqual([16])
  })

  it('holds a day or two of records at a time: never more than that ahead of the rows the host took', async () => {
    const history = await fillMonth(db, cache)
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
    // The records of the month read once (the Refunds sheet's rows are built on the way), its charges once.
    expect(read.history).toBe(month.digests.length)
    expect(read.charges).toBe(month.chargeDigests.length)
    // Two days (the one written and the one read ahead) and a chunk at most, of a month of 30 days.
    const bound = 2 * PER_DAY + 10
    expect(ahead[SHEETS.transactions]).toBeLessThanOrEqual(bound)
    expect(ahead[SHEETS.charges]).toBeLessThanOrEqual(bound)
    expect(month.digests.length).toBeGreaterThan(10 * bound)
  })
})
