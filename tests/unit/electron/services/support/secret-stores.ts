import { expect, it } from 'vitest'
import { credentialsAccount, CredentialVault } from '../../../../../electron/services/vault/credentials'
import type { KeychainStatus, SecretStore } from '../../../../../electron/services/vault/secret-store'
import { makeJwt } from './fixtures'

/** A machine with no keychain: what @napi-rs/keyring does without a Secret Service (get → null, set throws). */
export class UnavailableSecretStore implements SecretStore {
  sets = 0
  probe(): Promise<KeychainStatus> {
    return Promise.resolve({ available: false, reason: 'no Secret Service (e.g. GNOME Keyring) is running' })
  }
  get(): Promise<string | null> {
    return Promise.resolve(null)
  }
  set(): Promise<void> {
    this.sets++
    return Promise.reject(new Error('keychain: no Secret Service'))
  }
  delete(): Promise<boolean> {
    return Promise.resolve(false)
  }
}

/** The behaviour every SecretStore must have; run against the in-memory fake and the real keychain. */
export function secretStoreContract(make: () => SecretStore, unique: string): void {
  it('probes as available', async () => {
    expect(await make().probe()).toEqual({ available: true })
  })

  it('stores, reads back, overwrites and deletes an entry', async () => {
    const store = make()
    const account = `test:${unique}:a`
    expect(await store.get(account)).toBeNull()
    await store.set(account, 'first')
    expect(await store.get(account)).toBe('first')
    await store.set(account, '二番目 ✓')
    expect(await store.get(account)).toBe('二番目 ✓')
    expect(await store.delete(account)).toBe(true)
    expect(await store.get(account)).toBeNull()
    expect(await store.delete(account)).toBe(false)
  })

  it('keeps whole credentials per connection under connection:<id>', async () => {
    const store = make()
    const vault = new CredentialVault(store)
    const id = `${unique}-conn`
    const credentials = { secret: 'sk_test_abc', appToken: makeJwt({ exp: 4_102_444_800 }) }
    await vault.save(id, credentials)
    expect(JSON.parse((await store.get(credentialsAccount(id))) ?? 'null')).toEqual(credentials)
    expect(await vault.read(id)).toEqual(credentials)
    expect(await vault.remove(id)).toBe(true)
    expect(await vault.read(id)).toBeNull()
  })
}
