/**
 * The real OS keychain (Secret Service on Linux: GNOME Keyring under `dbus-run-session`, see
 * scripts/with-keychain.sh). Skips with its reason when no keychain is reachable, unless
 * CLOSEBOOK_REQUIRE_KEYCHAIN=1, when that is a failure.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Entry } from '@napi-rs/keyring'
import { afterAll, describe, expect, it } from 'vitest'
import { ConnectionRegistry } from '../../../../../electron/services/connections/connection-registry'
import { ConnectionsService } from '../../../../../electron/services/connections/connections-service'
import { credentialsAccount } from '../../../../../electron/services/vault/credentials'
import { KeyringSecretStore } from '../../../../../electron/services/vault/keyring-secret-store'
import { makeJwt } from '../support/fixtures'
import { secretStoreContract } from '../support/secret-stores'

// A service name of its own, so a developer's real Closebook entries are never touched.
const SERVICE = `closebook-test-${process.pid}`
const status = await new KeyringSecretStore(SERVICE).probe()
const required = process.env['CLOSEBOOK_REQUIRE_KEYCHAIN'] === '1'

if (!status.available) {
  console.log(
    `keychain tests skipped: ${status.reason ?? 'no keychain'} (set CLOSEBOOK_REQUIRE_KEYCHAIN=1 to fail instead)`,
  )
}

describe('keychain availability', () => {
  if (!required)
    console.log('keychain requirement check skipped: CLOSEBOOK_REQUIRE_KEYCHAIN is not 1 (CI sets it)')
  it.runIf(required)('is required here (CLOSEBOOK_REQUIRE_KEYCHAIN=1)', () => {
    expect(status, status.reason).toEqual({ available: true })
  })

  it('reports a missing Secret Service plainly instead of failing or falling back', () => {
    const script = `import { KeyringSecretStore } from ${JSON.stringify(resolve('electron/services/vault/keyring-secret-store.ts'))}
new KeyringSecretStore('closebook-test-none').probe().then((s) => process.stdout.write(JSON.stringify(s)))`
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/closebook-bus' }
    const out = execFileSync(resolve('node_modules/.bin/tsx'), ['-e', script], {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const seen = JSON.parse(out) as { available: boolean; reason?: string }
    if (process.platform !== 'linux') return // other platforms' keychains do not use D-Bus
    expect(seen.available).toBe(false)
    expect(seen.reason).toMatch(/no Secret Service/)
  })
})

describe.skipIf(!status.available)('KeyringSecretStore against the real keychain', () => {
  secretStoreContract(() => new KeyringSecretStore(SERVICE), `kr-${process.pid}`)

  const dirs: string[] = []
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

  it('a connection puts one entry in the keychain (service, connection:<id>) and delete removes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'closebook-kr-'))
    dirs.push(dataDir)
    const connections = new ConnectionsService({
      registry: new ConnectionRegistry(dataDir),
      secretStore: new KeyringSecretStore(SERVICE),
      clock: { now: () => Date.now() },
    })
    const appToken = makeJwt({ exp: Math.floor(Date.now() / 1000) + 3600 })
    const summary = await connections.create({
      label: 'Keychain test',
      baseUrl: 'https://api.example.test',
      secret: 'sk_keychain_test',
      appToken,
      timeZone: 'Asia/Tokyo',
    })
    const entry = new Entry(SERVICE, credentialsAccount(summary.id))
    expect(JSON.parse(entry.getPassword() ?? 'null')).toEqual({ secret: 'sk_keychain_test', appToken })
    expect((await connections.resolve(summary.id)).credentials.secret).toBe('sk_keychain_test')
    expect(await connections.delete(summary.id)).toEqual({ deleted: true, credentialsRemoved: true })
    expect(entry.getPassword()).toBeNull()
  })
})
