/**
 * The backup signing key: 32 random bytes in the OS keychain, made on first use, never returned. Main signs
 * the digest the renderer computed over a backup's text (HMAC-SHA256) and checks a signature against every
 * key it holds, so a backup edited outside Closebook no longer verifies. For a move to another computer
 * the key leaves only wrapped: scrypt over a passphrase the user chooses, then AES-256-GCM.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto'
import { z } from 'zod'
import { DesktopApiError } from '../../shared/errors'
import { noKeychainError } from './credentials'
import type { SecretStore } from './secret-store'

/** The keychain entry holding the keys: the signing key first, imported ones after it. */
export const SIGNING_KEYS_ACCOUNT = 'backup-signing-keys'

const storedKeysSchema = z.array(
  z.object({ id: z.string().regex(/^[0-9a-f]{16}$/), key: z.string().regex(/^[A-Za-z0-9+/]{43}=$/) }),
)
type StoredKey = z.infer<typeof storedKeysSchema>[number]

/** What the signature covers: the format's name and the digest, so a MAC is good for nothing else. */
const macOf = (key: Buffer, digest: string): string =>
  createHmac('sha256', key).update(`closebook-backup-signature-v1\n${digest}`).digest('hex')

const keyIdOf = (key: Buffer): string =>
  createHmac('sha256', key).update('closebook-backup-key-id').digest('hex').slice(0, 16)

export type VerifyStatus = 'verified' | 'unknown_key' | 'mismatch'

/** scrypt's cost: 2^17 × 8 × 128 bytes = 128 MiB and about a second, once per export or import. */
const SCRYPT = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 } as const
export const KEY_FILE_FORMAT = 'closebook-signing-key'

const keyFileSchema = z.strictObject({
  format: z.literal(KEY_FILE_FORMAT),
  version: z.literal(1),
  kdf: z.strictObject({
    name: z.literal('scrypt'),
    N: z
      .number()
      .int()
      .min(2 ** 14)
      .max(2 ** 20),
    r: z.number().int().min(1).max(16),
    p: z.number().int().min(1).max(4),
    salt: z.string().max(64),
  }),
  iv: z.string().max(64),
  data: z.string().max(256),
  tag: z.string().max(64),
})

function deriveKey(
  passphrase: string,
  salt: Buffer,
  cost: { N: number; r: number; p: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase.normalize('NFC'), salt, 32, { ...cost, maxmem: SCRYPT.maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )
}

const badKeyFile = (field: 'keyFile' | 'passphrase', message: string): DesktopApiError =>
  new DesktopApiError('invalid_argument', message, { fields: [{ path: field, message }], reason: field })

export class BackupSigner {
  constructor(private readonly store: SecretStore) {}

  private async keys(): Promise<StoredKey[]> {
    let value: string | null
    try {
      value = await this.store.get(SIGNING_KEYS_ACCOUNT)
    } catch (error) {
      if (error instanceof DesktopApiError) throw error
      throw noKeychainError(await this.store.probe())
    }
    if (value === null) return []
    try {
      const parsed = storedKeysSchema.safeParse(JSON.parse(value) as unknown)
      if (parsed.success) return parsed.data
    } catch {
      // Not JSON: treated as no key, like a value of the wrong shape.
    }
    return []
  }

  private async save(keys: readonly StoredKey[]): Promise<void> {
    const status = await this.store.probe()
    if (!status.available) throw noKeychainError(status)
    await this.store.set(SIGNING_KEYS_ACCOUNT, JSON.stringify(keys))
  }

  /** The signing key, made (and kept in the keychain) on first use. */
  private async signingKey(): Promise<StoredKey> {
    const keys = await this.keys()
    if (keys[0]) return keys[0]
    const key = randomBytes(32)
    const made = { id: keyIdOf(key), key: key.toString('base64') }
    await this.save([made])
    return made
  }

  async sign(digest: string): Promise<{ keyId: string; mac: string }> {
    const { id, key } = await this.signingKey()
    return { keyId: id, mac: macOf(Buffer.from(key, 'base64'), digest) }
  }

  async verify(digest: string, keyId: string, mac: string): Promise<VerifyStatus> {
    const found = (await this.keys()).find((k) => k.id === keyId)
    if (!found) return 'unknown_key'
    const expected = Buffer.from(macOf(Buffer.from(found.key, 'base64'), digest), 'hex')
    const given = Buffer.from(mac, 'hex')
    return given.length === expected.length && timingSafeEqual(given, expected) ? 'verified' : 'mismatch'
  }

  /** The signing key wrapped under `passphrase`, as the text of a key file. */
  async exportKey(passphrase: string): Promise<string> {
    const { key } = await this.signingKey()
    const salt = randomBytes(16)
    const iv = randomBytes(12)
    const wrapKey = await deriveKey(passphrase, salt, SCRYPT)
    const cipher = createCipheriv('aes-256-gcm', wrapKey, iv)
    cipher.setAAD(Buffer.from(KEY_FILE_FORMAT))
    const data = Buffer.concat([cipher.update(Buffer.from(key, 'base64')), cipher.final()])
    return JSON.stringify({
      format: KEY_FILE_FORMAT,
      version: 1,
      kdf: { name: 'scrypt', N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, salt: salt.toString('base64') },
      iv: iv.toString('base64'),
      data: data.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
    })
  }

  /** Unwraps a key file and makes its key this computer's signing key (earlier keys still verify). */
  async importKey(keyFile: string, passphrase: string): Promise<string> {
    let parsed: z.infer<typeof keyFileSchema>
    try {
      parsed = keyFileSchema.parse(JSON.parse(keyFile) as unknown)
    } catch {
      throw badKeyFile('keyFile', 'This is not a Closebook key file.')
    }
    let key: Buffer
    try {
      const wrapKey = await deriveKey(passphrase, Buffer.from(parsed.kdf.salt, 'base64'), parsed.kdf)
      const decipher = createDecipheriv('aes-256-gcm', wrapKey, Buffer.from(parsed.iv, 'base64'))
      decipher.setAAD(Buffer.from(KEY_FILE_FORMAT))
      decipher.setAuthTag(Buffer.from(parsed.tag, 'base64'))
      key = Buffer.concat([decipher.update(Buffer.from(parsed.data, 'base64')), decipher.final()])
    } catch {
      throw badKeyFile('passphrase', 'The passphrase does not open this key file, or the file is damaged.')
    }
    if (key.length !== 32) throw badKeyFile('keyFile', 'This is not a Closebook key file.')
    const imported = { id: keyIdOf(key), key: key.toString('base64') }
    const others = (await this.keys()).filter((k) => k.id !== imported.id)
    await this.save([imported, ...others])
    return imported.id
  }
}
