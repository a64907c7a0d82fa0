import { afterEach, describe, expect, it } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import {
  desktopApiContract,
  unpackRows,
  type ExportRow,
  type PackedRows,
} from '../../../../electron/shared/contract'
import { setDesktopApiForTests } from '../../../../src/platform'
import type { WorkbookPlan } from '../../../../src/export/month-workbook'
import { chunksOf, writeWorkbookThroughHost } from '../../../../src/export/workbook-client'

interface Call {
  channel: string
  args: unknown
}

interface AppendArgs {
  sheet: string
  rows?: ExportRow[]
  packed?: PackedRows
}

/** The rows a call carried, whichever form it used. */
const sentRows = (args: AppendArgs): ExportRow[] =>
  args.packed ? unpackRows(args.packed) : (args.rows ?? [])

function fakeApi(calls: Call[], failOn?: string): DesktopApi {
  const call =
    (channel: string, value: unknown) =>
    (args: unknown): Promise<unknown> => {
      calls.push({ channel, args })
      if (channel === failOn) return Promise.reject(new Error('disk full'))
      return Promise.resolve(value)
    }
  let written = 0
  return {
    export: {
      begin: call('begin', { exportId: 'x'.repeat(24) }),
      appendRows: (args: AppendArgs) => {
        written += sentRows(args).length
        return call('appendRows', { rowsWritten: written })(args)
      },
      finish: call('finish', { savedTo: 'path', path: '/tmp/a.xlsx', fileName: 'a.xlsx' }),
      cancel: call('cancel', { cancelled: true }),
    },
  } as unknown as DesktopApi
}

function plan(rows: number): WorkbookPlan {
  const column = { header: 'n', kind: 'integer' as const, width: 8 }
  return {
    suggestedName: 'closebook-a-2026-10.xlsx',
    title: 't',
    summary: { period: '2026-10', timeZone: 'UTC', range: { from: 0, to: 1 }, rows: [], daily: [] },
    sheets: [
      { spec: { name: 'Summary', columns: [column] }, rowCount: 1, rows: () => [[1]] },
      {
        spec: { name: 'Transactions', columns: [column] },
        rowCount: rows,
        rows: function* () {
          for (let i = 0; i < rows; i++) yield [i]
        },
      },
    ],
  }
}

afterEach(() => setDesktopApiForTests(undefined))

describe('writeWorkbookThroughHost', () => {
  it('streams each sheet in order, in chunks of at most 2,000 rows, and reports progress', async () => {
    const calls: Call[] = []
    setDesktopApiForTests(fakeApi(calls))
    const progress: number[] = []
    const delivered = await writeWorkbookThroughHost(plan(4500), {
      onProgress: (p) => progress.push(p.rowsWritten),
    })
    expect(delivered).toMatchObject({ savedTo: 'path' })
    const appends = calls.filter((c) => c.channel === 'appendRows').map((c) => c.args as AppendArgs)
    expect(appends.map((a) => [a.sheet, sentRows(a).length])).toEqual([
      ['Summary', 1],
      ['Transactions', 2000],
      ['Transactions', 2000],
      ['Transactions', 500],
    ])
    expect(progress.at(-1)).toBe(4501)
    // Every call passes the contract, and the rows arrive as they were built.
    for (const a of calls.filter((c) => c.channel === 'appendRows'))
      expect(desktopApiContract['export:appendRows'].args.safeParse(a.args).success).toBe(true)
    expect(sentRows(appends[3] as AppendArgs).map((r) => r[0])).toEqual(
      Array.from({ length: 500 }, (_, i) => 4000 + i),
    )
    expect(calls.map((c) => c.channel).at(-1)).toBe('finish')
  })

  it('cancels the export when aborted mid-way, and when the host fails', async () => {
    const calls: Call[] = []
    setDesktopApiForTests(fakeApi(calls))
    const controller = new AbortController()
    await expect(
      writeWorkbookThroughHost(plan(10_000), {
        signal: controller.signal,
        onProgress: (p) => {
          if (p.rowsWritten > 2000) controller.abort()
        },
      }),
    ).rejects.toThrow()
    expect(calls.map((c) => c.channel)).toEqual(['begin', 'appendRows', 'appendRows', 'cancel'])

    const failing: Call[] = []
    setDesktopApiForTests(fakeApi(failing, 'appendRows'))
    await expect(writeWorkbookThroughHost(plan(10))).rejects.toThrow('disk full')
    expect(failing.map((c) => c.channel)).toEqual(['begin', 'appendRows', 'cancel'])
  })
})

describe('writeWorkbookThroughHost beside the host', () => {
  /** A host that writes each chunk only when the test lets it, logging what happens in what order. */
  function slowHost(log: string[], failChunk?: number) {
    const pending: (() => void)[] = []
    let outstanding = 0
    let maxOutstanding = 0
    let chunk = 0
    let written = 0
    const api = {
      export: {
        begin: () => Promise.resolve({ exportId: 'x'.repeat(24) }),
        appendRows: (args: AppendArgs) => {
          const n = ++chunk
          log.push(`append ${n}`)
          maxOutstanding = Math.max(maxOutstanding, ++outstanding)
          return new Promise((resolve, reject) =>
            pending.push(() => {
              outstanding--
              log.push(`written ${n}`)
              if (n === failChunk) return reject(new Error('disk full'))
              written += sentRows(args).length
              resolve({ rowsWritten: written })
            }),
          )
        },
        finish: () => Promise.resolve({ savedTo: 'path', path: '/tmp/a.xlsx', fileName: 'a.xlsx' }),
        cancel: () => {
          log.push('cancel')
          return Promise.resolve({ cancelled: true })
        },
      },
    } as unknown as DesktopApi
    const release = async (): Promise<void> => {
      for (let i = 0; i < 200; i++) {
        pending.shift()?.()
        await new Promise((r) => setTimeout(r, 0))
      }
    }
    return { api, release, maxOutstanding: () => maxOutstanding }
  }

  /** One sheet of `rows` integers, logging when each 2,000-row chunk is being built (at its second row:
   * the first is read ahead by `chunksOf`, to see that the chunk before it is full). */
  function loggedPlan(rows: number, log: string[]): WorkbookPlan {
    const column = { header: 'n', kind: 'integer' as const, width: 8 }
    return {
      ...plan(0),
      sheets: [
        {
          spec: { name: 'Transactions', columns: [column] },
          rowCount: rows,
          rows: function* () {
            for (let i = 0; i < rows; i++) {
              if (i % 2000 === 1) log.push(`build ${(i - 1) / 2000 + 1}`)
              yield [i]
            }
          },
        },
      ],
    }
  }

  it('builds the next chunk while the host writes the last, one call at a time, in order', async () => {
    const log: string[] = []
    const host = slowHost(log)
    setDesktopApiForTests(host.api)
    const done = writeWorkbookThroughHost(loggedPlan(5000, log))
    await host.release()
    await done
    expect(log).toEqual([
      'build 1',
      'append 1',
      'build 2', // while chunk 1 is being written
      'written 1',
      'append 2',
      'build 3',
      'written 2',
      'append 3',
      'written 3',
    ])
    expect(host.maxOutstanding()).toBe(1)
  })

  it('a cancel while the next chunk is built waits for the chunk being written, then removes the file', async () => {
    const log: string[] = []
    const host = slowHost(log)
    setDesktopApiForTests(host.api)
    const controller = new AbortController()
    const plan = loggedPlan(5000, log)
    const sheet = plan.sheets[0]
    if (!sheet) throw new Error('no sheet')
    const rows = sheet.rows
    sheet.rows = async function* () {
      for await (const row of rows()) {
        if (row[0] === 2500) controller.abort()
        yield row
      }
    }
    const done = writeWorkbookThroughHost(plan, { signal: controller.signal })
    const failed = expect(done).rejects.toThrow()
    await host.release()
    await failed
    expect(log).toEqual(['build 1', 'append 1', 'build 2', 'written 1', 'cancel'])
  })

  it('a chunk the host fails to write while the next is built stops the export and cancels it', async () => {
    const log: string[] = []
    const host = slowHost(log, 1)
    setDesktopApiForTests(host.api)
    const done = writeWorkbookThroughHost(loggedPlan(5000, log))
    const failed = expect(done).rejects.toThrow('disk full')
    await host.release()
    await failed
    expect(log).toEqual(['build 1', 'append 1', 'build 2', 'written 1', 'cancel'])
  })
})

describe('writeWorkbookThroughHost chunk form', () => {
  it('packs plain chunks and sends a chunk holding a formula as rows', async () => {
    const calls: Call[] = []
    setDesktopApiForTests(fakeApi(calls))
    const column = { header: 'a', kind: 'amount' as const, width: 8 }
    const summaryRows: ExportRow[] = [['Total', { formula: 'SUM(B3:B9)', result: 3 }]]
    const detail: ExportRow[] = [
      ['山田', { amount: 12.5, decimals: 2 }],
      [null, { date: 86_400_000 }],
    ]
    await writeWorkbookThroughHost({
      suggestedName: 'closebook-a-2026-10.xlsx',
      title: 't',
      summary: { period: '2026-10', timeZone: 'UTC', range: { from: 0, to: 1 }, rows: [], daily: [] },
      sheets: [
        { spec: { name: 'Summary', columns: [column, column] }, rowCount: 1, rows: () => summaryRows },
        { spec: { name: 'Detail', columns: [column, column, column] }, rowCount: 2, rows: () => detail },
      ],
    })
    const [summary, rest] = calls.filter((c) => c.channel === 'appendRows').map((c) => c.args as AppendArgs)
    expect(summary?.rows).toEqual(summaryRows)
    expect(summary?.packed).toBeUndefined()
    expect(rest?.rows).toBeUndefined()
    expect(rest?.packed?.width).toBe(3)
    // Padded to the sheet's width with empty cells, which the writer leaves out as it does nulls.
    expect(sentRows(rest as AppendArgs)).toEqual(detail.map((r) => [...r, null]))
  })
})

describe('chunksOf', () => {
  const lengths = async (chunks: AsyncIterable<ExportRow[]>): Promise<number[]> => {
    const out: number[] = []
    for await (const c of chunks) out.push(c.length)
    return out
  }

  it('splits by row count and by text size, never leaving a chunk empty', async () => {
    const big = 'x'.repeat(1024 * 1024)
    const rows: ExportRow[] = Array.from({ length: 10 }, () => [big])
    expect(await lengths(chunksOf(rows, 2000))).toEqual([3, 3, 3, 1])
    expect(await lengths(chunksOf([[1], [2], [3]], 2))).toEqual([2, 1])
    expect(await lengths(chunksOf([], 2))).toEqual([])
  })
})
