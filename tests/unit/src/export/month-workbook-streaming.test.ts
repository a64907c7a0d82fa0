import { afterEach, describe, expect, it, vi } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import { unpackRows, type ExportRow, type PackedRows } from '../../../../electron/shared/contract'
import { buildMonthWorkbook, SHEETS } from '../../../../src/export/month-workbook'
import { Columns } from '../../../../src/export/sheet-columns'
import { writeWorkbookThroughHost } from '../../../../src/export/workbook-client'
import { setDesktopApiForTests } from '../../../../src/platform'
import { generateMonth, monthWorkbookInputOf } from '../../../bench/shared/month-data'

const CHUNK = 100

afterEach(() => {
  setDesktopApiForTests(undefined)
  vi.restoreAllMocks()
})

/**
 * A host that takes each chunk a tick later, noting at every call how many rows the month's sheets had
 * built (every sheet row goes through Columns.row) beyond those the host had been sent.
 */
function watchingHost(built: () => number): { api: DesktopApi; outstanding: number[]; sheets: string[] } {
  const outstanding: number[] = []
  const sheets: string[] = []
  let sent = 0
  const api = {
    export: {
      begin: () => Promise.resolve({ exportId: 'x'.repeat(24) }),
      appendRows: async (args: { sheet: string; rows?: ExportRow[]; packed?: PackedRows }) => {
        sent += args.packed ? unpackRows(args.packed).length : (args.rows ?? []).length
        outstanding.push(built() - sent)
        if (sheets[sheets.length - 1] !== args.sheet) sheets.push(args.sheet)
        await new Promise((r) => setTimeout(r, 0))
        outstanding.push(built() - sent)
        return { rowsWritten: sent }
      },
      finish: () => Promise.resolve({ savedTo: 'path', path: '/tmp/a.xlsx', fileName: 'a.xlsx' }),
      cancel: () => Promise.resolve({ cancelled: true }),
    },
  } as unknown as DesktopApi
  return { api, outstanding, sheets }
}

describe('month workbook rows', () => {
  it('are built as the host takes them: at most a chunk ahead of what it was sent, whatever the month holds', async () => {
    const month = generateMonth(6000)
    const input = monthWorkbookInputOf(month, { merchant: 'M', label: 'L', appVersion: 't' }, 0)
    // The spy passes each call through to Columns.row and counts it.
    const rows = vi.spyOn(Columns.prototype, 'row')
    const builtRows = (): number => rows.mock.calls.length
    const host = watchingHost(builtRows)
    setDesktopApiForTests(host.api)

    const plan = buildMonthWorkbook(input)
    // The plan itself builds only the Summary's rows: a few per store, currency and mode.
    const planned = builtRows()
    expect(planned).toBeLessThan(50)
    const notReconciled = plan.sheets.find((s) => s.spec.name === SHEETS.notReconciled)?.rowCount ?? 0
    // Far more rows than a chunk in each sheet, so that building a sheet whole would show.
    expect(notReconciled).toBeGreaterThan(10 * CHUNK)
    await writeWorkbookThroughHost(plan, { rowsPerChunk: CHUNK })

    expect(host.sheets).toEqual(expect.arrayContaining([SHEETS.transactions, SHEETS.notReconciled]))
    // Every other sheet's rows built once, while writing.
    const summaryRows = plan.sheets[0]?.rowCount ?? 0
    expect(builtRows() - planned).toBe(plan.sheets.reduce((n, s) => n + s.rowCount, 0) - summaryRows)
    // One chunk built while the last is written, and the row that closed it: never more.
    expect(Math.max(...host.outstanding)).toBeLessThanOrEqual(CHUNK + 1 + planned)
  })
})
