import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createAppServices, type AppServices } from '../../../../../electron/services/app-services'
import { InMemorySecretStore } from '../../../../../electron/services/vault/secret-store'

let dir: string
const started: AppServices[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-leftovers-'))
})
afterEach(async () => {
  vi.useRealTimers()
  for (const services of started.splice(0)) await services.dispose()
  await rm(dir, { recursive: true, force: true })
})

/** A host starting on `dir`: what both the desktop app and the web host do at launch. */
function launch(): AppServices {
  const services = createAppServices({
    host: 'web',
    version: '0.0.0',
    platform: 'linux',
    dataDir: dir,
    secretStore: new InMemorySecretStore(),
    openExternal: () => Promise.resolve(),
    deliverFile: () => Promise.reject(new Error('not delivered in these tests')),
  })
  started.push(services)
  return services
}

const tmpFiles = async (): Promise<string[]> => (await readdir(join(dir, 'tmp')).catch(() => [])).sort()
const SHEETS = [{ name: 'Rows', columns: [{ header: 'A', kind: 'text' as const, width: 10 }] }]

describe('partial files left by an earlier run', () => {
  it('are removed at start-up, before anything is asked of the host, and other files stay', async () => {
    await mkdir(join(dir, 'tmp'), { recursive: true, mode: 0o755 })
    for (const name of ['abc.partial', 'def.xlsx.partial', 'notes.txt'])
      await writeFile(join(dir, 'tmp', name), 'cardholder names')
    const services = launch()
    // Nothing is called: the launch alone clears them.
    await vi.waitFor(async () => expect(await tmpFiles()).toEqual(['notes.txt']), { timeout: 2_000 })
    expect((await services.leftovers()).sort()).toEqual(['abc.partial', 'def.xlsx.partial'])
    expect((await stat(join(dir, 'tmp'))).mode & 0o777).toBe(0o700)
  })

  it('an export a run started and never finished (it was killed) is gone at the next launch', async () => {
    const first = launch()
    const id = await first.workbooks.begin({ suggestedName: 'book.xlsx', sheets: SHEETS })
    await first.workbooks.appendRows(id, 'Rows', [['x']])
    const fileId = await first.files.begin('ledger.csv')
    await first.files.append(fileId, 'a,b\n')
    expect(await tmpFiles()).toHaveLength(2)
    started.splice(0) // killed: no dispose, nothing cleaned up by this run
    const next = launch()
    expect(await next.leftovers()).toHaveLength(2)
    expect(await tmpFiles()).toEqual([])
    // The new run writes normally afterwards, and its own files are not taken for leftovers.
    await next.workbooks.begin({ suggestedName: 'book.xlsx', sheets: SHEETS })
    expect(await tmpFiles()).toHaveLength(1)
  })

  it('an export a renderer abandoned (tab closed mid-export) is removed after the idle time, with no new export', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] })
    const services = launch()
    await services.workbooks.begin({ suggestedName: 'book.xlsx', sheets: SHEETS })
    expect(await tmpFiles()).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(16 * 60_000)
    await vi.waitFor(async () => expect(await tmpFiles()).toEqual([]), { timeout: 2_000 })
  })

  it('a failed export leaves nothing, and a refused name never starts one', async () => {
    const services = launch()
    const id = await services.workbooks.begin({ suggestedName: 'book.xlsx', sheets: SHEETS })
    await expect(services.workbooks.appendRows(id, 'Missing', [['x']])).rejects.toMatchObject({
      code: 'invalid_argument',
    })
    await expect(services.files.begin('CON.csv')).rejects.toMatchObject({ code: 'invalid_argument' })
    await expect(
      services.workbooks.begin({ suggestedName: 'x\u202Exslx.exe', sheets: SHEETS }),
    ).rejects.toMatchObject({ code: 'invalid_argument' })
    expect(await tmpFiles()).toEqual([])
  })
})
