import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ConnectionRegistry } from '../../../../../electron/services/connections/connection-registry'
import { ConnectionsService } from '../../../../../electron/services/connections/connections-service'
import {
  DEMO_CONNECTION_ID,
  DemoService,
  type DemoSandbox,
} from '../../../../../electron/services/demo/demo-service'
import { InMemorySecretStore } from '../../../../../electron/services/vault/secret-store'
import { startSandbox } from '../../../../../electron/sandbox/server'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

function setup(startSandboxImpl: () => Promise<DemoSandbox>) {
  const dir = mkdtempSync(join(tmpdir(), 'closebook-demo-'))
  dirs.push(dir)
  const secretStore = new InMemorySecretStore()
  const connections = new ConnectionsService({
    registry: new ConnectionRegistry(dir),
    secretStore,
    clock: Date,
  })
  const demo = new DemoService({ connections, startSandbox: startSandboxImpl, timeZone: 'Asia/Tokyo' })
  return { dir, connections, demo, secretStore }
}

describe('DemoService', () => {
  it('starts the sandbox once, registers the demo connection with a fixed id, keeps credentials out of keychain and registry', async () => {
    let starts = 0
    const { demo, connections, dir, secretStore } = setup(async () => {
      starts++
      return startSandbox({ seed: 1, stores: 2, records: 50 })
    })
    const [a, b] = await Promise.all([demo.start(), demo.start()])
    expect(starts).toBe(1)
    expect(a).toEqual(b)
    expect(a).toMatchObject({
      id: DEMO_CONNECTION_ID,
      isDemo: true,
      timeZone: 'Asia/Tokyo',
      hasCredentials: true,
    })
    expect(a.storeIds).toHaveLength(2)
    expect(JSON.stringify(a)).not.toMatch(/sk_sandbox_|secret|appToken/)
    expect(await secretStore.get(`connection:${DEMO_CONNECTION_ID}`)).toBeNull()
    const registryFile = join(dir, 'connections.json')
    if (existsSync(registryFile)) expect(readFileSync(registryFile, 'utf8')).not.toContain(DEMO_CONNECTION_ID)
    // The gateway can resolve it: its credentials live in memory in main.
    const resolved = await connections.resolve(DEMO_CONNECTION_ID)
    expect(resolved.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    await demo.dispose()
  })

  it('a failed start can be retried, and dispose closes the sandbox', async () => {
    let attempt = 0
    let closed = 0
    const { demo } = setup(async () => {
      attempt++
      if (attempt === 1) throw new Error('port in use')
      const sb = await startSandbox({ seed: 1, stores: 1, records: 10 })
      return { ...sb, close: async () => (closed++, sb.close()) }
    })
    await expect(demo.start()).rejects.toThrow('port in use')
    await expect(demo.start()).resolves.toMatchObject({ id: DEMO_CONNECTION_ID })
    await demo.dispose()
    expect(closed).toBe(1)
  })

  it('after the demo connection is deleted, "Try with demo data" brings it back', async () => {
    let starts = 0
    const { demo, connections } = setup(async () => {
      starts++
      return startSandbox({ seed: 1, stores: 1, records: 10 })
    })
    await demo.start()
    expect(await connections.delete(DEMO_CONNECTION_ID)).toMatchObject({ deleted: true })
    expect(await connections.list()).toEqual([])
    const again = await demo.start()
    expect(again.id).toBe(DEMO_CONNECTION_ID)
    expect((await connections.list()).map((c) => c.id)).toEqual([DEMO_CONNECTION_ID])
    expect((await connections.resolve(DEMO_CONNECTION_ID)).isDemo).toBe(true)
    expect(starts).toBe(1) // the running sandbox is reused
    await demo.dispose()
  })
})
