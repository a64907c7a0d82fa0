import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ConnectionRegistry } from '../../../../../electron/services/connections/connection-registry'
import { ConnectionsService } from '../../../../../electron/services/connections/connections-service'
import { InMemorySecretStore, type SecretStore } from '../../../../../electron/services/vault/secret-store'
import { DesktopApiError } from '../../../../../electron/shared/errors'
import { CANARY_CREDENTIALS, canaryLeaks, makeJwt, STORE_A } from '../support/fixtures'
import { UnavailableSecretStore } from '../support/secret-stores'

const NOW = Date.UTC(2026, 9, 1)
const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

function setup(store: SecretStore = new InMemorySecretStore()) {
  const dir = mkdtempSync(join(tmpdir(), 'closebook-conn-'))
  dirs.push(dir)
  const clock = { now: () => NOW }
  const connections = new ConnectionsService({
    registry: new ConnectionRegistry(dir),
    secretStore: store,
    clock,
  })
  return { connections, store, dir, clock }
}

const input = {
  label: 'Yamada Shoten',
  baseUrl: 'https://api.example.test/',
  secret: CANARY_CREDENTIALS.secret,
  appToken: CANARY_CREDENTIALS.appToken,
  storeIds: [STORE_A],
  timeZone: 'Asia/Tokyo',
}

describe('ConnectionsService', () => {
  it('creates a connection: credentials to the keychain only, the rest to the registry; list never shows secrets', async () => {
    const { connections, store, dir } = setup()
    const summary = await connections.create(input)
    expect(summary.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(summary).toEqual({
      id: summary.id,
      label: 'Yamada Shoten',
      baseUrl: 'https://api.example.test',
      storeIds: [STORE_A],
      timeZone: 'Asia/Tokyo',
      hasCredentials: true,
      isDemo: false,
      createdAt: '2026-10-01T00:00:00.000Z',
      updatedAt: '2026-10-01T00:00:00.000Z',
    })
    expect(JSON.parse((await store.get(`connection:${summary.id}`)) ?? 'null')).toEqual(CANARY_CREDENTIALS)
    expect(canaryLeaks(readFileSync(join(dir, 'connections.json'), 'utf8'))).toEqual([])
    const listed = await connections.list()
    expect(listed).toEqual([summary])
    expect(canaryLeaks(JSON.stringify(listed))).toEqual([])
    // A fresh service (next launch) sees the same connection.
    const again = new ConnectionsService({
      registry: new ConnectionRegistry(dir),
      secretStore: store,
      clock: { now: () => NOW },
    })
    expect(await again.list()).toEqual([summary])
  })

  it('refuses credentials without a keychain, saying so plainly, and stores nothing anywhere', async () => {
    const store = new UnavailableSecretStore()
    const { connections, dir } = setup(store)
    const error = await connections.create(input).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'no_keychain' })
    expect((error as Error).message).toMatch(/No system keychain is available/)
    expect(await connections.list()).toEqual([])
    expect(() => readFileSync(join(dir, 'connections.json'))).toThrow()
    expect(store.sets).toBe(0)
    expect(await connections.keychainStatus()).toMatchObject({ available: false })
  })

  it('checks the app token and the secret before storing, naming the field and never the value', async () => {
    const { connections } = setup()
    const expired = await connections
      .create({ ...input, appToken: makeJwt({ exp: NOW / 1000 - 1, canary: CANARY_CREDENTIALS.secret }) })
      .catch((e: unknown) => e)
    expect(expired).toMatchObject({ code: 'invalid_argument', details: { fields: [{ path: 'appToken' }] } })
    expect((expired as Error).message).toContain('expired')
    const malformed = await connections.create({ ...input, appToken: 'not-a-jwt' }).catch((e: unknown) => e)
    expect(malformed).toMatchObject({ details: { fields: [{ path: 'appToken' }] } })
    expect((malformed as Error).message).toContain('three base64url parts')
    const dotted = await connections.create({ ...input, secret: 'sk.test' }).catch((e: unknown) => e)
    expect(dotted).toMatchObject({ details: { fields: [{ path: 'secret' }] } })
    for (const e of [expired, malformed, dotted])
      expect(canaryLeaks(JSON.stringify((e as DesktopApiError).toShape()))).toEqual([])
  })

  it('refuses a base URL that is not https (http only on loopback), or has a query, user info', async () => {
    const { connections } = setup()
    for (const baseUrl of [
      'http://api.example.test',
      'ftp://x',
      'https://u:p@api.example.test',
      'https://api.example.test/?a=1',
      'api.example.test',
    ]) {
      await expect(connections.create({ ...input, baseUrl }), baseUrl).rejects.toMatchObject({
        code: 'invalid_argument',
      })
    }
    await expect(connections.create({ ...input, baseUrl: 'http://127.0.0.1:4010' })).resolves.toMatchObject({
      baseUrl: 'http://127.0.0.1:4010',
    })
  })

  it('requires credentials again when the base URL changes, so they never go to a new host', async () => {
    const { connections, store } = setup()
    const { id } = await connections.create(input)
    const refused = await connections
      .update({ id, baseUrl: 'https://other.example.test' })
      .catch((e: unknown) => e)
    expect(refused).toMatchObject({
      code: 'invalid_argument',
      details: { fields: [{ path: 'credentials' }] },
    })
    expect((await connections.resolve(id)).baseUrl).toBe('https://api.example.test')
    // The same URL written differently is not a change.
    await expect(
      connections.update({ id, baseUrl: 'https://api.example.test/', label: 'Renamed' }),
    ).resolves.toMatchObject({ label: 'Renamed' })
    const credentials = { secret: 'sk_new', appToken: makeJwt({ n: 2 }) }
    const moved = await connections.update({ id, baseUrl: 'https://other.example.test', credentials })
    expect(moved.baseUrl).toBe('https://other.example.test')
    expect(JSON.parse((await store.get(`connection:${id}`)) ?? 'null')).toEqual(credentials)
    expect((await connections.resolve(id)).credentials).toEqual(credentials)
  })

  it('delete removes the keychain entry and the registry entry', async () => {
    const { connections, store } = setup()
    const { id } = await connections.create(input)
    expect(await connections.delete(id)).toEqual({ deleted: true, credentialsRemoved: true })
    expect(await store.get(`connection:${id}`)).toBeNull()
    expect(await connections.list()).toEqual([])
    expect(await connections.delete(id)).toEqual({ deleted: false, credentialsRemoved: false })
    await expect(connections.resolve(id)).rejects.toMatchObject({ code: 'not_found' })
  })

  it('a connection whose keychain entry has gone is unauthorized, and an expired token is caught before use', async () => {
    const clock = { now: () => NOW }
    const store = new InMemorySecretStore()
    const dir = mkdtempSync(join(tmpdir(), 'closebook-conn-'))
    dirs.push(dir)
    const connections = new ConnectionsService({
      registry: new ConnectionRegistry(dir),
      secretStore: store,
      clock,
    })
    const { id } = await connections.create({ ...input, appToken: makeJwt({ exp: NOW / 1000 + 60 }) })
    clock.now = () => NOW + 61_000
    await expect(connections.resolve(id)).rejects.toMatchObject({
      code: 'unauthorized',
      details: { reason: 'app_token_expired' },
    })
    const other = new ConnectionsService({
      registry: new ConnectionRegistry(dir),
      secretStore: new InMemorySecretStore(),
      clock,
    })
    await expect(other.resolve(id)).rejects.toMatchObject({
      code: 'unauthorized',
      details: { reason: 'missing_credentials' },
    })
  })

  it('registers the demo connection without a keychain, and does not save it', async () => {
    const { connections, dir } = setup(new UnavailableSecretStore())
    const demo = await connections.registerDemo({
      ...input,
      label: 'Demo',
      baseUrl: 'http://127.0.0.1:4010',
      storeIds: [STORE_A],
    })
    expect(demo).toMatchObject({ isDemo: true, hasCredentials: true, baseUrl: 'http://127.0.0.1:4010' })
    expect((await connections.resolve(demo.id)).credentials).toEqual(CANARY_CREDENTIALS)
    expect(await connections.list()).toEqual([demo])
    expect(() => readFileSync(join(dir, 'connections.json'))).toThrow()
    await expect(
      connections.update({
        id: demo.id,
        baseUrl: 'https://api.example.test',
        credentials: CANARY_CREDENTIALS,
      }),
    ).rejects.toMatchObject({ code: 'invalid_argument' })
    await expect(connections.update({ id: demo.id, timeZone: 'UTC' })).resolves.toMatchObject({
      timeZone: 'UTC',
      isDemo: true,
    })
    expect(await connections.delete(demo.id)).toEqual({ deleted: true, credentialsRemoved: true })
  })

  it('serialises concurrent creates, so none is lost from the registry', async () => {
    const { connections, dir } = setup()
    await Promise.all(Array.from({ length: 5 }, (_, i) => connections.create({ ...input, label: `C${i}` })))
    const fresh = new ConnectionsService({
      registry: new ConnectionRegistry(dir),
      secretStore: new InMemorySecretStore(),
      clock: { now: () => NOW },
    })
    expect((await fresh.list()).map((c) => c.label).sort()).toEqual(['C0', 'C1', 'C2', 'C3', 'C4'])
  })

  it('reports a corrupt registry through the keychain status, once, without losing the file', async () => {
    const { connections, dir } = setup()
    const { writeFileSync, readdirSync } = await import('node:fs')
    writeFileSync(join(dir, 'connections.json'), 'garbage')
    const status = await connections.keychainStatus()
    expect(status.available).toBe(true)
    expect(status.registryProblem).toContain('could not be read')
    expect(readdirSync(dir).some((f) => f.startsWith('connections.json.corrupt-'))).toBe(true)
    expect(await connections.list()).toEqual([])
  })

  it('never caches credentials read before an update changed them (resolve/update race)', async () => {
    // A keychain whose next read answers with what was stored when it was asked, but only when released.
    class SlowReadStore extends InMemorySecretStore {
      gated = false
      release: (() => void) | undefined
      override async get(account: string): Promise<string | null> {
        const value = await super.get(account)
        if (this.gated) {
          this.gated = false
          await new Promise<void>((release) => (this.release = release))
        }
        return value
      }
    }
    const store = new SlowReadStore()
    const { connections } = setup(store)
    const created = await connections.create(input)
    const newCredentials = { secret: 'sk_new_secret', appToken: makeJwt({ n: 2 }) }
    store.gated = true
    const racing = connections.resolve(created.id) // reads the old credentials, slowly
    while (!store.release) await new Promise((r) => setTimeout(r, 1))
    await connections.update({
      id: created.id,
      baseUrl: 'https://new.example.test',
      credentials: newCredentials,
    })
    store.release() // the old value arrives after the update
    const first = await racing
    expect(first).toMatchObject({ baseUrl: 'https://new.example.test', credentials: newCredentials })
    const again = await connections.resolve(created.id)
    expect(again).toMatchObject({ baseUrl: 'https://new.example.test', credentials: newCredentials })
  })
})
