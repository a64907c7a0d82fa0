import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  acquireInstanceLock,
  choosePort,
  ensurePrivateDir,
  LOCK_FILE,
  portTakenMessage,
  rememberPort,
} from '../../../../electron/web/instance'

let dir: string
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'closebook-instance-')), 'data')
  ensurePrivateDir(dir)
})
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }))

describe('web host instance: one origin and one host per data directory', () => {
  it('reuses the remembered port on a default launch, remembers a given one, never an ephemeral one', async () => {
    const first = await choosePort(dir, undefined)
    expect(first).toMatchObject({ remember: true, why: 'first-launch' })
    expect(first.port).toBeGreaterThanOrEqual(20_000)
    expect(first.port).toBeLessThan(32_000)
    rememberPort(dir, first.port)
    expect(statSync(join(dir, 'web-host.json')).mode & 0o777).toBe(0o600)
    expect(await choosePort(dir, undefined)).toEqual({ port: first.port, remember: true, why: 'remembered' })
    expect(await choosePort(dir, 0)).toEqual({ port: 0, remember: false, why: 'ephemeral' })
    expect(await choosePort(dir, 23456)).toEqual({ port: 23456, remember: true, why: 'given' })
    writeFileSync(join(dir, 'web-host.json'), 'garbage')
    expect((await choosePort(dir, undefined)).why).toBe('first-launch')
  })

  it('explains a taken remembered port: the cache lives under that origin', () => {
    const message = portTakenMessage(24_000, 'remembered', dir)
    expect(message).toContain('port 24000 is in use by another program')
    expect(message).toContain('http://127.0.0.1:24000')
    expect(message).toContain('backup')
  })

  it('makes the data directory private, but only warns about a folder the user named that existed', () => {
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    const shared = join(dir, '..', 'shared')
    mkdirSync(shared, { mode: 0o755 })
    chmodSync(shared, 0o755)
    expect(ensurePrivateDir(shared, false)).toMatch(/can be read by other users \(mode 755\)/)
    expect(statSync(shared).mode & 0o777).toBe(0o755)
    expect(ensurePrivateDir(shared, true)).toBeUndefined()
    expect(statSync(shared).mode & 0o777).toBe(0o700)
  })

  it('refuses a second host while the first runs, naming it; takes over a dead one’s lock', () => {
    const lock = acquireInstanceLock(dir)
    lock.describe('http://127.0.0.1:24001')
    expect(statSync(join(dir, LOCK_FILE)).mode & 0o777).toBe(0o600)
    // Another process (our parent is surely alive) asking for the same directory.
    const holderPid = process.pid
    expect(() => acquireInstanceLock(dir, process.ppid)).toThrow(
      new RegExp(`pid ${holderPid}.*already running on this data directory.*at http://127\\.0\\.0\\.1:24001`),
    )
    lock.release()
    expect(() => readFileSync(join(dir, LOCK_FILE))).toThrow()

    // A lock left by a crashed host: its pid no longer exists.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 + 12345, startedAt: 'x' }))
    const taken = acquireInstanceLock(dir)
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid })
    taken.release()
  })
})
