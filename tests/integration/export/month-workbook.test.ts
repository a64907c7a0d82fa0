/**
 * The month-end workbook end to end: rows built from the cache by src/export, written by main's
 * streaming writer, read back with exceljs, Summary results checked against summarizeMonth.
 */
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exportBeginArgsSchema, exportRowSchema } from '../../../electron/shared/contract/export'
import { buildMonthWorkbook, type MonthWorkbookInput } from '../../../src/export/month-workbook'
import { wallClockMs } from '../../../src/export/sheet-values'
import type { LinkedRow } from '../../../src/reconcile/match-links'
import { summarizeMonth } from '../../../src/reconcile/month-summary'
import { chargeRecordOf } from '../../../src/db/charge-record'
import type { ChargeRecord } from '../../../src/domain/records'
import { chargeItem, CONN } from '../../support/api-items'
import { EVIL_NAME, EVIL_NOTE, GENERATED_AT, PERIOD, STORE_1, TZ, jpyMonth, mixedMonth } from './fixtures'
import { expectedSummary } from './expected'
import { allRows, builtRows, readWorkbook, removeDir, tempDir, tmpFiles, writePlanTo } from './support'

let dir: string
beforeEach(async () => {
  dir = await tempDir()
})
afterEach(async () => {
  await removeDir(dir)
})

const SHEET_ORDER = [
  'Summary',
  'Transactions',
  'Charges',
  'Refunds',
  'Deposits',
  'Exceptions',
  'Not reconciled',
  'Audit',
]
const HEADER_ROW = 15 // Summary: 14 rows of header block, then the table's header

async function exportMonth(input: MonthWorkbookInput): Promise<ExcelJS.Workbook> {
  const target = join(dir, 'out.xlsx')
  await writePlanTo(buildMonthWorkbook(input), dir, target)
  expect(await tmpFiles(dir)).toEqual([])
  return readWorkbook(target)
}

/** A cell's text for keys and messages (exceljs values may be objects). */
function text(value: ExcelJS.CellValue | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null)
}

function sheet(book: ExcelJS.Workbook, name: string): ExcelJS.Worksheet {
  const ws = book.getWorksheet(name)
  if (!ws) throw new Error(`no sheet ${name}`)
  return ws
}

/** Header text → column number of a sheet's header row. */
function columnsOf(ws: ExcelJS.Worksheet, headerRow = 1): Map<string, number> {
  const map = new Map<string, number>()
  ws.getRow(headerRow).eachCell((cell, n) => map.set(text(cell.value), n))
  return map
}

/** Rows below the header as header → cell, up to the first empty row (the Summary's footer follows it). */
function records(ws: ExcelJS.Worksheet, headerRow = 1): Map<string, ExcelJS.Cell>[] {
  const columns = columnsOf(ws, headerRow)
  const out: Map<string, ExcelJS.Cell>[] = []
  for (let r = headerRow + 1; r <= ws.rowCount; r++) {
    if (ws.getRow(r).cellCount === 0) break
    out.push(new Map([...columns].map(([h, n]) => [h, ws.getRow(r).getCell(n)])))
  }
  return out
}

function frozenRows(ws: ExcelJS.Worksheet): number | undefined {
  const view = ws.views[0]
  return view?.state === 'frozen' ? view.ySplit : undefined
}

function formulaOf(cell: ExcelJS.Cell): { formula: string; result: unknown } {
  const value = cell.value as { formula?: string; result?: unknown }
  if (typeof value?.formula !== 'string') throw new Error(`${cell.address} is not a formula`)
  return { formula: value.formula, result: value.result ?? 0 } // exceljs reads a cached 0 as no result
}

function checkSummary(book: ExcelJS.Workbook, input: MonthWorkbookInput): void {
  const ws = sheet(book, 'Summary')
  const expected = expectedSummary(input)
  expect(frozenRows(ws)).toBe(HEADER_ROW)
  expect(ws.autoFilter).toBe(`A${HEADER_ROW}:Q${HEADER_ROW + expected.size}`)
  const rows = records(ws, HEADER_ROW)
  expect(rows).toHaveLength(expected.size)
  for (const row of rows) {
    const key = ['Store ID', 'Currency', 'Mode'].map((h) => text(row.get(h)?.value)).join('|')
    const figures = expected.get(key)
    expect(figures, key).toBeDefined()
    const cells = [...row.values()].slice(4) // E…Q, in SUMMARY_FIELDS order
    const decimals = key.includes('|USD|') ? 2 : 0
    cells.forEach((cell, i) => {
      const { formula, result } = formulaOf(cell)
      expect(formula).toMatch(/^(COUNTIFS|ROUND)\(/)
      expect(result, `${key} ${cell.address}`).toBe(figures?.[i])
    })
    expect(row.get('Charge amount')?.numFmt).toBe(decimals ? '#,##0.00' : '#,##0')
    expect(row.get('Charges')?.numFmt).toBe('#,##0')
  }
}

describe('WorkbookExports: the month-end workbook, read back with exceljs', () => {
  it('writes a mixed-currency month: every sheet, values, types, formats, frozen header, autofilter', async () => {
    const input = mixedMonth()
    const book = await exportMonth(input)
    expect(book.worksheets.map((w) => w.name)).toEqual(SHEET_ORDER)
    expect(book.creator).toBe('Closebook')

    // Summary header block
    const summary = sheet(book, 'Summary')
    const block = new Map<string, ExcelJS.CellValue>()
    for (let r = 2; r < HEADER_ROW - 1; r++)
      block.set(text(summary.getCell(r, 1).value), summary.getCell(r, 2).value)
    expect(block.get('Merchant')).toBe("'@merchant")
    expect(block.get('Connection')).toBe('Tokyo shop')
    expect(block.get('Period')).toMatch(/^2026-10 \(2026-10-01 00:00:00 to 2026-11-01 00:00:00/)
    expect(block.get('Time zone')).toMatch(/^Asia\/Tokyo/)
    expect(block.get('Generated at')).toEqual(new Date(wallClockMs(GENERATED_AT, TZ)))
    expect(summary.getCell(7, 2).numFmt).toBe('yyyy-mm-dd hh:mm:ss')
    expect(block.get('Filters')).toBe('All stores; Modes: live, test')
    expect(block.get('App version')).toBe('0.1.0')
    checkSummary(book, input)
    expect(summary.getColumn(1).width).toBe(38)

    // Transactions: the period's history records only (the one at 2026-10-31T16:30Z is November in Tokyo)
    const tx = sheet(book, 'Transactions')
    expect(frozenRows(tx)).toBe(1)
    expect(tx.autoFilter).toBe('A1:T12')
    expect(tx.getRow(1).getCell(1).font?.bold).toBe(true)
    const txRows = records(tx)
    expect(txRows).toHaveLength(11)
    const first = txRows[0]
    const created = first?.get('Created')
    expect(created?.type).toBe(ExcelJS.ValueType.Date)
    expect(created?.value).toEqual(new Date(Date.UTC(2026, 9, 5, 12, 0, 0))) // 03:00Z is 12:00 in Tokyo
    expect(created?.numFmt).toBe('yyyy-mm-dd hh:mm:ss')
    expect(first?.get('Amount')?.value).toBe(10_000)
    expect(first?.get('Amount')?.type).toBe(ExcelJS.ValueType.Number)
    expect(first?.get('Amount')?.numFmt).toBe('#,##0')
    expect(first?.get('Cardholder')?.value).toBe(`'${EVIL_NAME}`)
    expect(first?.get('Note')?.value).toBe(`'${EVIL_NOTE}`)
    expect(first?.get('Order')?.value).toBe("'+81-3-1234")
    const usd = txRows.find((r) => r.get('Record ID')?.value === '00000000-0000-4000-8000-000000000006')
    expect(usd?.get('Amount')?.value).toBe(19.99)
    expect(usd?.get('Amount')?.numFmt).toBe('#,##0.00')
    expect(usd?.get('Changed since reconciled')?.value).toBe('Yes')
    expect(usd?.get('Store')?.value).toBe("'=Evil store")
    const refund = txRows.find((r) => r.get('Type')?.value === 'refund' && r.get('Currency')?.value === 'USD')
    expect(refund?.get('Signed amount')?.value).toBe(-5) // a number, never guarded like text
    const last = txRows.at(-1)
    expect(last?.get('Created')?.value).toEqual(new Date(Date.UTC(2026, 9, 31, 23, 59, 59)))

    // Charges: fee and net per charge, fees in their own currency's decimals
    const ch = records(sheet(book, 'Charges'))
    expect(ch).toHaveLength(9)
    const c1 = ch.find((r) => r.get('Charge ID')?.value === '00000000-0000-4000-8000-000000000001')
    expect(c1?.get('Fee')?.value).toBe(360)
    expect(c1?.get('Refunded to date')?.value).toBe(2000)
    expect(c1?.get('Net after refunds to date')?.value).toBe(7640) // 10,000 − 360 − 2,000 (the pending refund does not count)
    expect(c1?.get('Descriptor')?.value).toBe("'-2+3")
    expect(c1?.get('Charged')?.value).toBe(10_000)
    expect(c1?.get('Requested currency')?.value).toBe('JPY')
    const c14 = ch.find((r) => r.get('Charge ID')?.value === '00000000-0000-4000-8000-00000000000e')
    expect(c14?.get('Fee currency')?.value).toBe('USD')
    expect(c14?.get('Fee')?.numFmt).toBe('#,##0.00')
    expect(c14?.get('Net after refunds to date')?.value).toBe(3000)
    expect(c14?.get('Other-currency amounts')?.value).toBe('fee 0.25 USD')
    const c13 = ch.find((r) => r.get('Charge ID')?.value === '00000000-0000-4000-8000-00000000000d')
    expect(c13?.get('Fee currency')?.value).toBe('(unknown)')
    expect(sheet(book, 'Charges').autoFilter).toBe('A1:S10')

    // Refunds
    const rf = records(sheet(book, 'Refunds'))
    expect(rf.map((r) => r.get('Status')?.value)).toEqual(['successful', 'pending', 'successful'])
    expect(rf[0]?.get('Reconciliation')?.value).toBe('reconciled')

    // Exceptions: each with a reason
    const ex = records(sheet(book, 'Exceptions'))
    const kinds = ex.map((r) => r.get('Exception')?.value)
    expect(new Set(kinds)).toEqual(
      new Set([
        'changed since reconciled',
        'not counted',
        'cross-check: amount',
        'cross-check: missing in history',
        'fee without currency',
      ]),
    )
    for (const r of ex) expect(text(r.get('Reason')?.value)).not.toBe('')
    // Records simply not reconciled yet have their own sheet: they no longer bury the real exceptions.
    const open = records(sheet(book, 'Not reconciled'))
    expect(open.map((r) => r.get('Exception')?.value)).toEqual(Array(6).fill('not reconciled yet'))
    for (const r of open) expect(r.get('Status')?.value).toBe('successful')

    // Audit: the period's entries, in time order; November's mark of a November record is left out
    const audit = sheet(book, 'Audit')
    const au = records(audit)
    expect(au.map((r) => r.get('Action')?.value)).toEqual([
      'mark',
      'note',
      'mark',
      'restore',
      'close-period',
      'reopen-period',
    ])
    expect(au[1]?.get('After')?.value).toBe(`'${EVIL_NOTE}`)
    expect(au[0]?.get('At')?.type).toBe(ExcelJS.ValueType.Date)
    expect(au[5]?.get('Reason')?.value).toBe('late refund')
    expect(frozenRows(audit)).toBe(1)
    expect(audit.autoFilter).toBe('A1:H7')
  })

  it('leaves Charged and the net empty while the service has charged nothing, with the requested amount', async () => {
    const input = mixedMonth()
    const asked = (id: string, status: string, currency: string, amount: number): ChargeRecord =>
      chargeRecordOf(
        CONN,
        chargeItem(0, {
          id,
          status,
          requested_amount: amount,
          requested_currency: currency,
          charged_amount: null,
          charged_currency: null,
          fee_amount: null,
          fee_currency: null,
          created_on: '2026-10-16T00:00:00Z',
        }),
        0,
      )
    const pending = asked('00000000-0000-4000-8000-0000000000f1', 'pending', 'JPY', 4200)
    const awaiting = asked('00000000-0000-4000-8000-0000000000f2', 'awaiting', 'USD', 1250)
    const book = await exportMonth({ ...input, charges: [...input.charges, pending, awaiting] })
    const ch = records(sheet(book, 'Charges'))
    for (const [record, currency, requested, format] of [
      [pending, 'JPY', 4200, '#,##0'],
      [awaiting, 'USD', 12.5, '#,##0.00'],
    ] as const) {
      const row = ch.find((r) => r.get('Charge ID')?.value === record.id)
      expect(row?.get('Status')?.value).toBe(record.status)
      expect(row?.get('In totals')?.value).toBe('No')
      expect(row?.get('Charged')?.value ?? null).toBeNull()
      expect(row?.get('Net after refunds to date')?.value ?? null).toBeNull()
      expect(row?.get('Currency')?.value).toBe(currency)
      expect(row?.get('Requested currency')?.value).toBe(currency)
      expect(row?.get('Requested')?.value).toBe(requested)
      expect(row?.get('Requested')?.numFmt).toBe(format)
    }
    // What was charged is still written for the others.
    const charged = ch.find((r) => r.get('Charge ID')?.value === '00000000-0000-4000-8000-000000000006')
    expect(charged?.get('Charged')?.value).toBe(19.99)
  })

  it('writes a JPY-only month for one store: zero decimals, one currency, the store in the name', async () => {
    const input = jpyMonth()
    const plan = buildMonthWorkbook(input)
    expect(plan.suggestedName).toBe('closebook-Shibuya-2026-10.xlsx')
    const book = await exportMonth(input)
    checkSummary(book, input)
    const summary = records(sheet(book, 'Summary'), HEADER_ROW)
    expect(summary.map((r) => r.get('Currency')?.value)).toEqual(['JPY'])
    expect(summary[0]?.get('Store ID')?.value).toBe(STORE_1)
    expect(sheet(book, 'Summary').getCell(8, 2).value).toBe('Store: Shibuya; Modes: live, test')
    for (const name of ['Transactions', 'Charges', 'Refunds']) {
      for (const r of records(sheet(book, name))) {
        for (const [header, cell] of r) {
          // A fee the API gave without a currency has no decimals to go by: written as it came.
          if (r.get('Fee currency')?.value === '(unknown)' && header === 'Fee') continue
          if (typeof cell.value === 'number') expect(cell.numFmt, `${name} ${header}`).toBe('#,##0')
        }
      }
    }
    // Store 2's audit entry is left out of store 1's workbook.
    expect(records(sheet(book, 'Audit')).map((r) => r.get('By')?.value)).not.toContain('carol')
  })

  it('lists imported lines without a match in Exceptions, only those of the period', async () => {
    const input = jpyMonth()
    const book = await exportMonth({
      ...input,
      unmatchedImports: [
        {
          source: 'orders',
          fileName: '注文.csv',
          line: 7,
          orderNumber: 'ORD-77',
          at: Date.parse('2026-10-10T03:00:00Z'),
          amount: 1500,
          currency: 'JPY',
        },
        {
          source: 'bank',
          fileName: 'bank.csv',
          line: 3,
          orderNumber: null,
          at: Date.parse('2026-10-31T16:00:00Z'),
          amount: 9000,
          currency: 'JPY',
        },
      ],
    })
    const ex = records(sheet(book, 'Exceptions')).filter((r) =>
      text(r.get('Exception')?.value).endsWith('without a match'),
    )
    // The bank line is November 1st in Tokyo: another month's exception.
    expect(ex).toHaveLength(1)
    expect(ex[0]?.get('Exception')?.value).toBe('order without a match')
    expect(text(ex[0]?.get('Reason')?.value)).toContain('注文.csv, line 7 (order ORD-77)')
    expect(ex[0]?.get('Amount')?.value).toBe(1500)
  })

  it('shows each record’s order and deposit links, and a Deposits sheet with the difference explained', async () => {
    const input = jpyMonth()
    const h1 = input.history.find((r) => r.type === 'charge' && r.amount === 10_000)
    const h4 = input.history.find((r) => r.type === 'refund' && r.amount === 2000)
    if (!h1 || !h4) throw new Error('fixture records missing')
    const at = (iso: string) => Date.parse(iso)
    const row = (over: Partial<LinkedRow>): LinkedRow => ({
      importId: 'b-1',
      line: 5,
      source: 'bank',
      fileName: 'bank.csv',
      orderNumber: null,
      at: at('2026-10-20T01:00:00Z'),
      amount: 0,
      currency: 'JPY',
      matchedKeys: [],
      ...over,
    })
    // 10,000 charged − 2,000 refunded − 360 fee − 440 transfer fee (¥400 + 10 %) = 7,200 paid in.
    const importedRows = [
      row({
        importId: 'o-1',
        line: 2,
        source: 'orders',
        fileName: 'orders.csv',
        orderNumber: 'ORD-1',
        amount: 10_000,
        matchedKeys: [h1.key],
      }),
      row({ amount: 7200, matchedKeys: [h1.key, h4.key] }),
      row({ line: 6, amount: 3000 }),
      row({ line: 7, amount: 9000, at: at('2026-10-31T16:00:00Z') }), // November 1st in Tokyo
      row({ line: 8, amount: -500 }), // a withdrawal is not a deposit
    ]
    const marks = new Map(input.marks)
    const markOf = (key: typeof h1.key, matchRef: string) => ({
      connectionId: h1.connectionId,
      key,
      state: 'reconciled' as const,
      note: '',
      fingerprint: 'fp',
      changedSinceReconciled: 0 as const,
      period: PERIOD,
      updatedAt: GENERATED_AT,
      updatedBy: 'alice',
      matchRef,
    })
    marks.set(h1.key, markOf(h1.key, 'orders:o-1:2 bank:b-1:5'))
    marks.set(h4.key, markOf(h4.key, 'bank:b-1:5'))
    const audit = [
      ...input.audit,
      {
        seq: 99,
        connectionId: h1.connectionId,
        at: at('2026-10-21T00:00:00Z'),
        actor: 'alice',
        action: 'mark' as const,
        key: h1.key,
        period: PERIOD,
        before: markOf(h1.key, 'orders:o-1:2'),
        after: markOf(h1.key, 'orders:o-1:2 bank:b-1:5'),
      },
    ]
    const book = await exportMonth({ ...input, marks, audit, importedRows, transferFee: 440 })

    const deposit = 'Deposit 2026-10-20 7200 JPY (bank.csv, line 5)'
    const charge = records(sheet(book, 'Charges')).find((r) => r.get('Charge ID')?.value === h1.resourceId)
    expect(charge?.get('Matched to')?.value).toBe(`Order ORD-1 (orders.csv, line 2); ${deposit}`)
    const refund = records(sheet(book, 'Refunds')).find((r) => r.get('Refund ID')?.value === h4.resourceId)
    expect(refund?.get('Matched to')?.value).toBe(deposit)

    const deposits = records(sheet(book, 'Deposits'))
    expect(deposits.map((r) => r.get('Line')?.value)).toEqual([5, 6])
    const paid = deposits[0]
    expect(
      ['Deposit', 'Records paid', 'Charges', 'Refunds', 'Fees', 'Expected (net of fees)', 'Difference'].map(
        (h) => paid?.get(h)?.value,
      ),
    ).toEqual([7200, 2, 10_000, 2000, 360, 7640, -440])
    expect(paid?.get('Explanation')?.value).toBe('Transfer fee 440 JPY deducted by the payment service')
    expect(paid?.get('Record IDs')?.value).toBe(`${h1.key} ${h4.key}`)
    expect(paid?.get('Deposit')?.numFmt).toBe('#,##0')
    expect(deposits[1]?.get('Explanation')?.value).toBe('Not matched to any records yet')
    expect(deposits[1]?.get('Difference')?.value ?? null).toBeNull()

    const linked = records(sheet(book, 'Audit')).find((r) => text(r.get('After')?.value).includes('bank.csv'))
    expect(text(linked?.get('Before')?.value)).toBe('Reconciled; matched to Order ORD-1 (orders.csv, line 2)')
    expect(text(linked?.get('After')?.value)).toBe(
      `Reconciled; matched to Order ORD-1 (orders.csv, line 2); ${deposit}`,
    )
  })

  it('says whether the month is closed, by whom and when, the units, and lists quarantined items', async () => {
    const open = await exportMonth(mixedMonth())
    const block = (book: ExcelJS.Workbook) => {
      const ws = sheet(book, 'Summary')
      const map = new Map<string, ExcelJS.CellValue>()
      for (let r = 2; r < HEADER_ROW - 1; r++) map.set(text(ws.getCell(r, 1).value), ws.getCell(r, 2).value)
      return map
    }
    expect(block(open).get('Month status')).toMatch(/^Open/)
    expect(block(open).get('Closed by')).toBeNull()
    expect(text(block(open).get('Amounts'))).toMatch(/major units/)
    expect(text(block(open).get('Time zone'))).toContain('Asia/Tokyo')

    const closedAt = Date.parse('2026-11-03T01:00:00Z')
    const closed = await exportMonth({
      ...mixedMonth(),
      close: { closedAt, closedBy: 'Hanako Sato', note: 'All October deposits matched' },
      quarantined: [
        {
          resource: 'transaction_history',
          itemId: 'abc',
          reason: 'amount is not an integer',
          seenAt: closedAt,
        },
      ],
    })
    const b = block(closed)
    expect(b.get('Month status')).toBe('Closed')
    expect(b.get('Closed by')).toBe('Hanako Sato')
    expect(b.get('Closed at')).toEqual(new Date(wallClockMs(closedAt, TZ)))
    expect(b.get('Close note')).toBe('All October deposits matched')
    const q = records(sheet(closed, 'Exceptions')).filter((r) => r.get('Exception')?.value === 'quarantined')
    expect(q).toHaveLength(1)
    expect(text(q[0]?.get('Reason')?.value)).toContain('amount is not an integer')
  })

  it('writes totals per currency and a control block under the Summary table, outside its filter', async () => {
    const input = mixedMonth()
    const book = await exportMonth(input)
    const ws = sheet(book, 'Summary')
    const labels: string[] = []
    for (let r = HEADER_ROW + 1; r <= ws.rowCount; r++) labels.push(ws.getCell(r, 1).text)
    const totals = labels.filter((l) => l === 'Total').length
    expect(totals).toBeGreaterThan(1)
    expect(labels.filter((l) => l === 'Control')).toHaveLength(totals)
    const firstTotal = HEADER_ROW + 1 + labels.indexOf('Total')
    // One row per currency × mode, live first: no row adds JPY to USD.
    const keys = Array.from({ length: totals }, (_, i) =>
      [3, 4].map((c) => ws.getCell(firstTotal + i, c).text).join(' '),
    )
    expect(keys).toEqual([...new Set(keys)])
    expect(keys[0]).toMatch(/ live$/)
    const control = HEADER_ROW + 1 + labels.indexOf('Control')
    for (let c = 5; c <= 17; c++) expect(formulaOf(ws.getCell(control, c)).result).toBe(0)
  })

  it('writes an empty month as headers only, with an empty summary table', async () => {
    const input = { ...mixedMonth(), period: '2027-01' }
    const book = await exportMonth(input)
    expect(book.worksheets.map((w) => w.name)).toEqual(SHEET_ORDER)
    expect(sheet(book, 'Transactions').rowCount).toBe(1)
    expect(sheet(book, 'Transactions').autoFilter).toBe('A1:T1')
    expect(records(sheet(book, 'Summary'), HEADER_ROW)).toHaveLength(0)
  })
})

describe('buildMonthWorkbook', () => {
  it('defines the eight sheets in order, valid for the contract, rows as counted', async () => {
    const plan = buildMonthWorkbook(mixedMonth())
    expect(plan.sheets.map((s) => s.spec.name)).toEqual(SHEET_ORDER)
    expect(
      exportBeginArgsSchema.safeParse({
        suggestedName: plan.suggestedName,
        title: plan.title,
        sheets: plan.sheets.map((s) => s.spec),
      }).success,
    ).toBe(true)
    for (const sheet of plan.sheets) {
      const rows = await allRows(sheet)
      expect(rows, sheet.spec.name).toHaveLength(sheet.rowCount)
      for (const row of rows) {
        expect(row).toHaveLength(sheet.spec.columns.length)
        expect(exportRowSchema.safeParse(row).success, JSON.stringify(row)).toBe(true)
      }
    }
  })

  it("caches the app's month summary as the Summary formulas' results", () => {
    const input = mixedMonth()
    const plan = buildMonthWorkbook(input)
    const app = summarizeMonth({
      history: input.history,
      charges: input.charges,
      marks: input.marks,
      timeZone: TZ,
      period: PERIOD,
    })
    expect(plan.summary.rows).toEqual(app.rows)
    const rows = plan.sheets[0] ? builtRows(plan.sheets[0]) : []
    expect(rows).toHaveLength(app.rows.length)
    const usd = rows.find((r) => r[2] === 'USD' && r[3] === 'live' && r[1] === '=Evil store')
    // 19.99 + 0.10 + 0.20 charged, 5.00 refunded, fees 0.62: all in USD, none converted
    expect(usd?.[5]).toMatchObject({ result: 20.29, decimals: 2 })
    expect(usd?.[7]).toMatchObject({ result: 5, decimals: 2 })
    expect(usd?.[8]).toMatchObject({ result: 0.62 })
    expect(usd?.[10]).toMatchObject({ formula: 'ROUND(F19-H19-I19,2)', result: 14.67 })
  })
})
