import { describe, expect, it } from 'vitest'
import { CredentialVault } from '../../../../../electron/services/vault/credentials'
import { InMemorySecretStore } from '../../../../../electron/services/vault/secret-store'
import { makeJwt } from '../support/fixtures'
import { secretStoreContract, UnavailableSecretStore } from '../support/secret-stores'

describe('InMemorySecretStore (the fake, and the demo connection store)', () => {
  secretStoreContract(() => new InMemorySecretStore(), 'memory')
})

describe('CredentialVault without a keychain', () => {
  it('refuses to store, in plain words, and writes nothing anywhere', async () => {
    const store = new UnavailableSecretStore()
    const vault = new CredentialVault(store)
    const error = await vault.save('c1', { secret: 'sk', appToken: makeJwt() }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'no_keychain' })
    expect((error as Error).message).toMatch(
      /No system keychain is available.*will not store them anywhere else/,
    )
    expect(store.sets).toBe(0)
  })

  it('tells "no keychain" apart from "no entry" when reading', async () => {
    await expect(new CredentialVault(new UnavailableSecretStore()).read('c1')).rejects.toMatchObject({
      code: 'no_keychain',
    })
    expect(await new CredentialVault(new InMemorySecretStore()).read('c1')).toBeNull()
  })

  it('treats a damaged entry as no entry rather than failing', async () => {
    const store = new InMemorySecretStore()
    await store.set('connection:c1', 'not json')
    expect(await new CredentialVault(store).read('c1')).toBeNull()
  })
})
