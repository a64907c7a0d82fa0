/**
 * The desktop host's path for a workbook's chunks: the renderer's call through the preload's
 * `window.closebook`, Electron's IPC (a structured clone, as `ipcRenderer.invoke` makes), the IPC host's
 * sender check, main's dispatcher and the real export handlers, with the file read back.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import type { IpcMainInvokeEvent } from 'electron'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { registerIpcHost } from '../../../../electron/main/ipc-host'
import { moveIntoPlace } from '../../../../electron/services/files/move-into-place'
import { exportHandlers } from '../../../../electron/services/handlers/export-handlers'
import { WorkbookExports } from '../../../../electron/services/workbook/workbook-exports'
import { decodeBridgedErrors } from '../../../../electron/shared/channels'
import type { DesktopApi } from '../../../../electron/shared/contract'
import { packRows, type ExportRow } from '../../../../electron/shared/contract/export'
import type { CallOutcome } from '../../../../electron/shared/errors'
import { handlersWith } from '../support/handlers'

type Listener = (event: IpcMainInvokeEvent, args: unknown) => Promise<CallOutcome>
const listeners = new Map<string, Listener>()
/** What main's handler was given, per call: the IPC clone of what the renderer sent. */
const received: unknown[] = []
let exposed: DesktopApi | undefined

const APP_URL = 'file:///opt/closebook/out/renderer/index.html'
const sender = {
  sender: { id: 1, once: () => undefined, removeListener: () => undefined },
  senderFrame: { url: APP_URL, parent: null },
} as unknown as IpcMainInvokeEvent

vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld: (_key: string, api: DesktopApi) => {
      exposed = api
    },
  },
  ipcRenderer: {
    invoke: (channel: string, args: unknown) => {
      const listener = listeners.get(channel)
      if (!listener) return Promise.reject(new Error(`no handler for ${channel}`))
      const cloned = structuredClone(args)
      received.push(cloned)
      return listener(sender, cloned)
    },
  },
}))

let dir: string
let exports: WorkbookExports

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-preload-'))
  exports = new WorkbookExports({
    dataDir: dir,
    deliverFile: async (temp, fileName) => {
      await moveIntoPlace(temp, join(dir, 'book.xlsx'))
      return { savedTo: 'path', path: join(dir, 'book.xlsx'), fileName }
    },
  })
  registerIpcHost({
    ipcMain: {
      handle: (channel: string, listener: Listener) => void listeners.set(channel, listener),
      removeHandler: (channel: string) => void listeners.delete(channel),
    },
    handlers: handlersWith(exportHandlers(exports)),
    appOrigin: { kind: 'file', indexPath: '/opt/closebook/out/renderer/index.html' },
    isOwnWebContents: (id) => id === 1,
  })
  await import('../../../../electron/preload/index')
})

afterAll(async () => {
  await exports.dispose()
  await rm(dir, { recursive: true, force: true })
})

const columns = [
  { header: 'Id', kind: 'text' as const, width: 12 },
  { header: 'Amount', kind: 'amount' as const, width: 12 },
]
const rows: ExportRow[] = Array.from({ length: 50 }, (_, i) => [`id-${i}`, { amount: i / 4, decimals: 2 }])

describe('packed chunks over the preload and IPC', () => {
  it('reach main as a Float64Array and are written', async () => {
    const api = decodeBridgedErrors(exposed as DesktopApi)
    const { exportId } = await api.export.begin({
      suggestedName: 'book.xlsx',
      sheets: [{ name: 'S', columns }],
    })
    const packed = packRows(rows, 2)
    if (!packed) throw new Error('not packable')
    await expect(api.export.appendRows({ exportId, sheet: 'S', packed })).resolves.toEqual({
      rowsWritten: 50,
    })
    const given = received[received.length - 1] as { packed: { cells: unknown } }
    expect(given.packed.cells).toBeInstanceOf(Float64Array)
    await api.export.finish({ exportId })
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(join(dir, 'book.xlsx'))
    expect(book.getWorksheet('S')?.getRow(51).values).toEqual([undefined, 'id-49', 12.25])
  })

  it('refuse a malformed chunk with the contract error, nothing written', async () => {
    const api = decodeBridgedErrors(exposed as DesktopApi)
    const { exportId } = await api.export.begin({
      suggestedName: 'book.xlsx',
      sheets: [{ name: 'S', columns }],
    })
    const packed = packRows(rows, 2)
    if (!packed) throw new Error('not packable')
    const wrongTag = { ...packed, cells: packed.cells.map((v, i) => (i === 2 ? 42 : v)) }
    await expect(api.export.appendRows({ exportId, sheet: 'S', packed: wrongTag })).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/cell 1: unknown cell tag/) as string,
    })
    // Numbers as a plain array are not the packed form over IPC either.
    const plain = { ...packed, cells: Array.from(packed.cells) } as unknown as typeof packed
    await expect(api.export.appendRows({ exportId, sheet: 'S', packed: plain })).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/cells must be a Float64Array/) as string,
    })
    await expect(api.export.appendRows({ exportId, sheet: 'S', packed })).resolves.toEqual({
      rowsWritten: 50,
    })
    await api.export.cancel({ exportId })
  })
})
