/**
 * The keychain adapter's bound and order, against a stand-in for the native calls: an operation on a
 * keychain that never answers fails with `keychain_timeout` within its bound, saying nothing of the value;
 * native calls run one at a time, and none starts after its operation gave up. (The same bound against a
 * real GNOME Keyring whose unlock prompt is never answered: tests/unit/scripts/with-keychain.test.ts.)
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConnectionRegistry } from '../../../../../electron/services/connections/connection-registry'
import { ConnectionsService } from '../../../../../electron/services/connections/connections-service'
import { vaultHandlers } from '../../../../../electron/services/handlers/vault-handlers'
import { CredentialVault } from '../../../../../electron/services/vault/credentials'
import {
  KeyringSecretStore,
  type NativeEntry,
} from '../../../../../electron/services/vault/keyring-secret-store'
import { makeJwt } from '../support/fixtures'

const BOUND_MS = 300
/** Slack for a shared, loaded machine: a timer may fire late, never early. */
const LATE_MS = 2_000
const SECRET = 'sk_live_never_in_an_error'

/** Native calls backed by a map, each answering after `delayMs`, or never while `hung` is set. */
class FakeKeychain {
  readonly values = new Map<string, string>()
  hung = false
  delayMs = 0
  started = 0
  inFlight = 0
  mostInFlight = 0
  /** Every native call, in the order started: `set a`, `get probe-…`, … */
  readonly calls: string[] = []

  entry = (service: string, account: string): NativeEntry => {
    const key = `${service}/${account}`
    const run = <T>(work: () => T, kind: string): Promise<T> => {
      this.started++
      this.calls.push(`${kind} ${account.replace(/^probe-\d+$/, 'probe')}`)
      if (this.hung) return new Promise<T>(() => undefined)
      this.inFlight++
      this.mostInFlight = Math.max(this.mostInFlight, this.inFlight)
      return new Promise<T>((resolve) =>
        setTimeout(() => {
          this.inFlight--
          resolve(work())
        }, this.delayMs),
      )
    }
    return {
      setPassword: (password) => run(() => void this.values.set(key, password), 'set'),
      getPassword: () => run(() => this.values.get(key) ?? null, 'get'),
      deleteCredential: () => run(() => this.values.delete(key), 'delete'),
    }
  }
}

async function timed<T>(work: Promise<T>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now()
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  )
  return { error, ms: Date.now() - started }
}

describe('KeyringSecretStore against a keychain that never answers', () => {
  const dirs: string[] = []
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

  it('a connection save fails with keychain_timeout within the bound, naming no secret, saving nothing', async () => {
    const keychain = new FakeKeychain()
    keychain.hung = true
    const dataDir = mkdtempSync(join(tmpdir(), 'closebook-kr-bound-'))
    dirs.push(dataDir)
    const connections = new ConnectionsService({
      registry: new ConnectionRegistry(dataDir),
      secretStore: new KeyringSecretStore('closebook-test', { timeoutMs: BOUND_MS, entry: keychain.entry }),
      clock: { now: () => Date.now() },
    })
    const { error, ms } = await timed(
      connections.create({
        label: 'Hung keychain',
        baseUrl: 'https://api.example.test',
        secret: SECRET,
        appToken: makeJwt({ exp: Math.floor(Date.now() / 1000) + 3600 }),
        timeZone: 'Asia/Tokyo',
      }),
    )
    expect(error).toMatchObject({ code: 'keychain_timeout', details: { reason: 'keychain_timeout' } })
    expect((error as Error).message).toMatch(/did not answer within 0\.3 s/)
    expect(JSON.stringify(error)).not.toContain(SECRET)
    expect((error as Error).message).not.toContain(SECRET)
    expect(ms).toBeGreaterThanOrEqual(BOUND_MS - 5)
    expect(ms).toBeLessThan(BOUND_MS + LATE_MS)
    // Nothing reached the registry: the connection list is as it was.
    expect(readdirSync(dataDir).filter((f) => !f.startsWith('.'))).toEqual([])
    expect(await connections.list()).toEqual([])
  })

  it('reads, deletes and the status each end within the bound; the status says why', async () => {
    const keychain = new FakeKeychain()
    keychain.hung = true
    const store = new KeyringSecretStore('closebook-test', { timeoutMs: BOUND_MS, entry: keychain.entry })
    const vault = new CredentialVault(store)
    const calls: Promise<unknown>[] = [
      vault.read('c1'),
      vault.remove('c1'),
      store.get('x'),
      store.delete('x'),
    ]
    for (const call of calls) {
      const { error, ms } = await timed(call)
      expect(error).toMatchObject({ code: 'keychain_timeout' })
      expect(ms).toBeLessThan(BOUND_MS + LATE_MS)
    }
    const status = await vault.probe()
    expect(status.available).toBe(false)
    expect(status.reason).toMatch(/did not answer within/)
  })

  it('starts no other native call while one has not returned, so each later call costs no thread', async () => {
    const keychain = new FakeKeychain()
    keychain.hung = true
    const store = new KeyringSecretStore('closebook-test', { timeoutMs: BOUND_MS, entry: keychain.entry })
    await timed(store.set('a', 'one'))
    const later = await Promise.all([
      timed(store.get('a')),
      timed(store.set('b', 'two')),
      timed(store.probe()),
    ])
    for (const { error } of later) expect(error).toMatchObject({ code: 'keychain_timeout' })
    expect(keychain.started).toBe(1)
  })

  it('a call that gave up never runs afterwards, even when the keychain comes back', async () => {
    const keychain = new FakeKeychain()
    keychain.delayMs = BOUND_MS * 3
    const store = new KeyringSecretStore('closebook-test', { timeoutMs: BOUND_MS, entry: keychain.entry })
    const slow = timed(store.set('first', 'one'))
    const queued = timed(store.set('second', SECRET))
    expect((await slow).error).toMatchObject({ code: 'keychain_timeout' })
    expect((await queued).error).toMatchObject({ code: 'keychain_timeout' })
    await new Promise((r) => setTimeout(r, BOUND_MS * 4))
    expect(keychain.started).toBe(1)
    expect(keychain.values.has('closebook-test/second')).toBe(false)
  })

  it('a cancel ends the waiting operations with cancelled', async () => {
    const keychain = new FakeKeychain()
    keychain.hung = true
    const store = new KeyringSecretStore('closebook-test', { timeoutMs: 60_000, entry: keychain.entry })
    const waiting = timed(new CredentialVault(store).save('c1', { secret: SECRET, appToken: makeJwt() }))
    await new Promise((r) => setTimeout(r, 20))
    expect(store.cancelWaiting()).toBe(1)
    const { error, ms } = await waiting
    expect(error).toMatchObject({ code: 'cancelled', details: { reason: 'keychain_cancelled' } })
    expect(ms).toBeLessThan(LATE_MS)
    expect(store.cancelWaiting()).toBe(0)
  })
})

describe('vault:cancelWaits', () => {
  it('ends a connection save waiting for the keychain with cancelled, and nothing is saved', async () => {
    const keychain = new FakeKeychain()
    keychain.hung = true
    const dataDir = mkdtempSync(join(tmpdir(), 'closebook-kr-cancel-'))
    const store = new KeyringSecretStore('closebook-test', { timeoutMs: 60_000, entry: keychain.entry })
    const connections = new ConnectionsService({
      registry: new ConnectionRegistry(dataDir),
      secretStore: store,
      clock: { now: () => Date.now() },
    })
    const handlers = vaultHandlers(connections, store)
    const ctx = { host: 'web' as const, signal: new AbortController().signal }
    try {
      const saving = timed(
        connections.create({
          label: 'Cancelled',
          baseUrl: 'https://api.example.test',
          secret: SECRET,
          appToken: makeJwt({ exp: Math.floor(Date.now() / 1000) + 3600 }),
          timeZone: 'UTC',
        }),
      )
      await new Promise((r) => setTimeout(r, 20))
      expect(await handlers['vault:cancelWaits']({}, ctx)).toEqual({ cancelled: 1 })
      const { error, ms } = await saving
      expect(error).toMatchObject({ code: 'cancelled' })
      expect(ms).toBeLessThan(LATE_MS)
      expect(await connections.list()).toEqual([])
      expect(await handlers['vault:cancelWaits']({}, ctx)).toEqual({ cancelled: 0 })
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

describe('KeyringSecretStore with a keychain that answers', () => {
  it('answers as the keychain does, one native call at a time', async () => {
    const keychain = new FakeKeychain()
    keychain.delayMs = 5
    const store = new KeyringSecretStore('closebook-test', { timeoutMs: 5_000, entry: keychain.entry })
    // Probes share one throwaway account: run at once, they would delete each other's entry.
    const results = await Promise.all([store.probe(), store.probe(), store.set('a', 'v'), store.probe()])
    expect(results).toEqual([{ available: true }, { available: true }, undefined, { available: true }])
    // Each operation's calls together, in the order asked: no probe's set and get with another's between.
    const probe = ['set probe', 'get probe', 'delete probe']
    expect(keychain.calls).toEqual([...probe, ...probe, 'set a', ...probe])
    expect(await store.get('a')).toBe('v')
    expect(await store.delete('a')).toBe(true)
    expect(await store.get('a')).toBeNull()
    expect(keychain.mostInFlight).toBe(1)
  })
})
