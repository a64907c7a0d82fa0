/**
 * The backup signing key: kept in the keychain (the real one where reachable, see scripts/with-keychain.sh),
 * never returned, signing digests, and moving between computers only wrapped under a passphrase.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { BackupSigner, SIGNING_KEYS_ACCOUNT } from '../../../../../electron/services/vault/backup-signing'
import { KeyringSecretStore } from '../../../../../electron/services/vault/keyring-secret-store'
import { InMemorySecretStore, type SecretStore } from '../../../../../electron/services/vault/secret-store'

const DIGEST = 'ab'.repeat(32)
const OTHER = 'cd'.repeat(32)
const PASSPHRASE = 'correct horse battery'

// A service name of its own, so a developer's real Closebook entries are never touched.
const keyring = new KeyringSecretStore(`closebook-test-signing-${process.pid}`)
const keychain = await keyring.probe()
if (!keychain.available)
  console.log(`real-keychain signing test skipped: ${keychain.reason ?? 'no keychain'}`)
afterAll(async () => {
  if (keychain.available) await keyring.delete(SIGNING_KEYS_ACCOUNT).catch(() => false)
})

describe('backup signing', () => {
  it('signs a digest, verifies it, and tells an edited one from a key it does not have', async () => {
    const signer = new BackupSigner(new InMemorySecretStore())
    const signature = await signer.sign(DIGEST)
    expect(signature.keyId).toMatch(/^[0-9a-f]{16}$/)
    expect(await signer.verify(DIGEST, signature.keyId, signature.mac)).toBe('verified')
    expect(await signer.verify(OTHER, signature.keyId, signature.mac)).toBe('mismatch')
    expect(await signer.verify(DIGEST, '0'.repeat(16), signature.mac)).toBe('unknown_key')
    // Another computer, another key: the same backup does not verify there.
    expect(
      await new BackupSigner(new InMemorySecretStore()).verify(DIGEST, signature.keyId, signature.mac),
    ).toBe('unknown_key')
  })

  it('keeps one key: later signatures use the same one', async () => {
    const signer = new BackupSigner(new InMemorySecretStore())
    expect((await signer.sign(DIGEST)).keyId).toBe((await signer.sign(OTHER)).keyId)
  })

  it('moves the key to another computer only under the passphrase', async () => {
    const home = new BackupSigner(new InMemorySecretStore())
    const signature = await home.sign(DIGEST)
    const keyFile = await home.exportKey(PASSPHRASE)
    const stored = new InMemorySecretStore()
    const raw = JSON.parse((await stored.get(SIGNING_KEYS_ACCOUNT)) ?? 'null') as unknown
    expect(raw).toBeNull()
    // The file holds no key in the clear.
    const homeKey = (
      JSON.parse((await (home as unknown as { store: SecretStore }).store.get(SIGNING_KEYS_ACCOUNT))!) as {
        key: string
      }[]
    )[0]!.key
    expect(keyFile).not.toContain(homeKey)
    expect(keyFile).not.toContain(Buffer.from(homeKey, 'base64').toString('hex'))

    const away = new BackupSigner(stored)
    await expect(away.importKey(keyFile, 'wrong passphrase!')).rejects.toMatchObject({
      code: 'invalid_argument',
      details: { reason: 'passphrase' },
    })
    await expect(away.importKey('{"format":"nope"}', PASSPHRASE)).rejects.toMatchObject({
      details: { reason: 'keyFile' },
    })
    expect(await away.importKey(keyFile, PASSPHRASE)).toBe(signature.keyId)
    expect(await away.verify(DIGEST, signature.keyId, signature.mac)).toBe('verified')
    // A bit flipped in the wrapped key is caught by the authentication tag.
    const file = JSON.parse(keyFile) as { data: string }
    const data = Buffer.from(file.data, 'base64')
    data[0] = data[0]! ^ 1
    await expect(
      new BackupSigner(new InMemorySecretStore()).importKey(
        JSON.stringify({ ...file, data: data.toString('base64') }),
        PASSPHRASE,
      ),
    ).rejects.toMatchObject({ details: { reason: 'passphrase' } })
  }, 30_000)

  it.runIf(keychain.available)('keeps the key in the real keychain across signer instances', async () => {
    const signature = await new BackupSigner(keyring).sign(DIGEST)
    expect(await new BackupSigner(keyring).verify(DIGEST, signature.keyId, signature.mac)).toBe('verified')
  })
})
