/**
 * The web host's binary call bodies end to end: the renderer's HTTP client, the web host, main's dispatcher
 * and the real export and file handlers, with the file read back.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FileWriter } from '../../../electron/services/files/file-writer'
import { moveIntoPlace } from '../../../electron/services/files/move-into-place'
import { exportHandlers } from '../../../electron/services/handlers/export-handlers'
import { filesHandlers } from '../../../electron/services/handlers/files-handlers'
import { WorkbookExports } from '../../../electron/services/workbook/workbook-exports'
import { BINARY_CALL_TYPE, encodeBinaryCall } from '../../../electron/shared/binary-call'
import { createDesktopApi } from '../../../electron/shared/channels'
import { packRows, type ExportRow } from '../../../electron/shared/contract/export'
import { startWebHost, type WebHost } from '../../../electron/web/web-host'
import { createHttpTransport } from '../../../src/platform/http-transport'
import type { Handlers } from '../../../electron/services/handlers/types'

const TOKEN = 'binary-test-token-0123456789'
let dir: string
let host: WebHost
let exports: WorkbookExports
let files: FileWriter
/** Content types of the calls sent, in order. */
let sent: string[]

const deliverTo = (name: string) => async (temp: string, fileName: string) => {
  await moveIntoPlace(temp, join(dir, name))
  return { savedTo: 'path' as const, path: join(dir, name), fileName }
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-binary-'))
  exports = new WorkbookExports({ dataDir: dir, deliverFile: deliverTo('book.xlsx') })
  files = new FileWriter({ dataDir: dir, deliverFile: deliverTo('out.csv') })
  // Only export and file calls are made: the dispatcher runs no other handler.
  const handlers = { ...exportHandlers(exports), ...filesHandlers(files) } as unknown as Handlers
  host = await startWebHost({ port: 0, rendererDir: dir, handlers, token: TOKEN })
  sent = []
})

afterEach(async () => {
  await host.close()
  await exports.dispose()
  await files.dispose()
  await rm(dir, { recursive: true, force: true })
})

function api() {
  const fetchImpl = ((path: string, init: RequestInit) => {
    sent.push(new Headers(init.headers).get('Content-Type') ?? '')
    return fetch(`${host.origin}${path}`, init)
  }) as typeof fetch
  return createDesktopApi(createHttpTransport(TOKEN, fetchImpl))
}

const columns = [
  { header: 'Id', kind: 'text' as const, width: 12 },
  { header: 'When', kind: 'datetime' as const, width: 20 },
  { header: 'Amount', kind: 'amount' as const, width: 12 },
  { header: 'Count', kind: 'integer' as const, width: 8 },
]
const rows: ExportRow[] = Array.from({ length: 3000 }, (_, i) => [
  i % 7 === 0 ? `=id-${i}` : `id-${i} 東京`,
  { date: Date.UTC(2026, 8, 1 + (i % 30), 9, i % 60) },
  { amount: (i * 37) / 100, decimals: 2 },
  i % 5 === 0 ? null : i,
])

async function readBack(): Promise<unknown[][]> {
  const book = new ExcelJS.Workbook()
  await book.xlsx.readFile(join(dir, 'book.xlsx'))
  const values: unknown[][] = []
  book.getWorksheet('Rows')?.eachRow((row) => values.push([1, 2, 3, 4].map((c) => row.getCell(c).value)))
  return values
}

describe('binary calls through the web host', () => {
  it('carry packed chunks to the writer: the same workbook as plain rows sent as JSON', async () => {
    const write = async (packed: boolean): Promise<unknown[][]> => {
      const desktop = api()
      const { exportId } = await desktop.export.begin({
        suggestedName: 'book.xlsx',
        sheets: [{ name: 'Rows', columns }],
      })
      for (let i = 0; i < rows.length; i += 2000) {
        const chunk = rows.slice(i, i + 2000)
        const args = packed
          ? { exportId, sheet: 'Rows', packed: packRows(chunk, columns.length) ?? undefined }
          : { exportId, sheet: 'Rows', rows: chunk }
        await desktop.export.appendRows(args)
      }
      await desktop.export.finish({ exportId })
      return readBack()
    }
    const plain = await write(false)
    expect(sent.filter((t) => t === BINARY_CALL_TYPE)).toEqual([])
    sent = []
    const packed = await write(true)
    expect(sent.filter((t) => t === BINARY_CALL_TYPE)).toHaveLength(2)
    expect(packed).toEqual(plain)
    expect(packed).toHaveLength(rows.length + 1)
    expect(packed[1]).toEqual(["'=id-0", new Date(Date.UTC(2026, 8, 1, 9, 0)), 0, null])
  })

  it('refuse a malformed packed chunk with what is wrong, and write none of it', async () => {
    const desktop = api()
    const { exportId } = await desktop.export.begin({
      suggestedName: 'book.xlsx',
      sheets: [{ name: 'Rows', columns }],
    })
    const good = packRows(rows.slice(0, 10), columns.length)
    if (!good) throw new Error('not packable')
    const cut = { ...good, text: good.text.slice(1) }
    await expect(desktop.export.appendRows({ exportId, sheet: 'Rows', packed: cut })).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/the text cells do not add up to the text/) as string,
    })
    const nan = { ...good, cells: good.cells.map((v, i) => (i === 5 ? Number.NaN : v)) }
    await expect(desktop.export.appendRows({ exportId, sheet: 'Rows', packed: nan })).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/cell 2: value is not a finite number/) as string,
    })
    // Nothing of either reached the sheet: the next chunk's rows are its first.
    await expect(desktop.export.appendRows({ exportId, sheet: 'Rows', packed: good })).resolves.toEqual({
      rowsWritten: 10,
    })
    await desktop.export.finish({ exportId })
    expect(await readBack()).toHaveLength(11)
  })

  it('refuse a binary body that does not add up before any handler runs', async () => {
    const body = encodeBinaryCall({
      exportId: 'a'.repeat(24),
      sheet: 'Rows',
      packed: { cells: new Float64Array(4) },
    })
    const reply = await fetch(`${host.origin}/api/call/export:appendRows`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': BINARY_CALL_TYPE },
      body: body?.subarray(0, body.length - 8),
    })
    expect(reply.status).toBe(400)
    expect(await reply.json()).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: 'The call body does not add up: the parts run past the end of the body.',
      },
    })
  })

  it('carry a long file chunk as UTF-8, byte for byte', async () => {
    const desktop = api()
    const chunk = `"id","名前","note"\r\n${'"a ""quoted"" \\ value",山田 太郎,🍣\r\n'.repeat(400)}`
    const { fileId } = await desktop.files.begin({ suggestedName: 'out.csv', mediaType: 'text/csv' })
    await desktop.files.append({ fileId, chunk })
    await desktop.files.append({ fileId, chunk: 'short\r\n' })
    await desktop.files.finish({ fileId })
    expect(sent).toEqual(['application/json', BINARY_CALL_TYPE, 'application/json', 'application/json'])
    expect(await readFile(join(dir, 'out.csv'), 'utf8')).toBe(`${chunk}short\r\n`)
  })
})
