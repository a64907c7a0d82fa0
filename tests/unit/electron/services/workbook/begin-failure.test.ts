import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { WorkbookExports } from '../../../../../electron/services/workbook/workbook-exports'

// exceljs's internals, reached through the adapter, change under us: the workbook cannot be started
// after its file was opened.
vi.mock('../../../../../electron/services/workbook/exceljs-adapter', async (original) => ({
  ...(await original<Record<string, unknown>>()),
  styleRegistry: () => {
    throw new Error('exceljs internals changed')
  },
}))

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-workbook-begin-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('WorkbookExports.begin failing after its file was opened', () => {
  it('removes the partial file and says what failed', async () => {
    const exports = new WorkbookExports({
      dataDir: dir,
      deliverFile: () => Promise.reject(new Error('not delivered')),
    })
    await expect(
      exports.begin({
        suggestedName: 'book.xlsx',
        sheets: [{ name: 'Rows', columns: [{ header: 'A', kind: 'text', width: 10 }] }],
      }),
    ).rejects.toMatchObject({ code: 'internal', message: expect.stringContaining('book.xlsx') as unknown })
    expect(await readdir(join(dir, 'tmp'))).toEqual([])
  })
})
