/**
 * A web host that was killed mid-export leaves partial files in its data directory; the next launch
 * removes them (and the downloads nobody can take any more) before it serves anything.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, startBuiltWebHost, test } from './support/web-host'

let dataDir = ''
test.beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'closebook-e2e-leftovers-'))
})
test.afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

test('partial exports and stale downloads of a killed run are gone once the host has started', async () => {
  mkdirSync(join(dataDir, 'tmp'), { recursive: true })
  mkdirSync(join(dataDir, 'exports'), { recursive: true })
  for (const name of ['AbCdEf0123456789xyzw.xlsx.partial', 'ZyXw0123456789abcdEF.partial'])
    writeFileSync(join(dataDir, 'tmp', name), 'cardholder names')
  writeFileSync(join(dataDir, 'tmp', 'keep.txt'), 'not ours to remove')
  writeFileSync(join(dataDir, 'exports', 'closebook-ledger-2026-10.csv'), 'a,b')
  writeFileSync(join(dataDir, 'exports', '.closebook-ledger-2026-10.csv.0a1b2c3d4e5f.partial'), 'a')

  const host = await startBuiltWebHost({ dataDir })
  try {
    // The URL is printed once the host serves: by then the leftovers are gone.
    expect(readdirSync(join(dataDir, 'tmp'))).toEqual(['keep.txt'])
    expect(readdirSync(join(dataDir, 'exports'))).toEqual([])
  } finally {
    await host.stop()
  }
  expect(existsSync(join(dataDir, 'tmp', 'keep.txt'))).toBe(true)
})

test('a closed terminal (SIGHUP) stops the host cleanly: lock released, nothing partial left', async () => {
  const host = await startBuiltWebHost({ dataDir })
  expect(existsSync(join(dataDir, 'web-host.lock'))).toBe(true)
  expect(await host.signal('SIGHUP')).toBe(0)
  expect(existsSync(join(dataDir, 'web-host.lock'))).toBe(false)
  expect(readdirSync(join(dataDir, 'tmp')).filter((n) => n.endsWith('.partial'))).toEqual([])
})
