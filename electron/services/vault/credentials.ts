/**
 * Credentials of one connection: the secret and the app token (a JWT), sent as
 * `Authorization: Bearer <secret>.<appToken>` (seed §5). They are checked here before they are stored or
 * used, and every message names the field, never the value.
 *
 * The secret: 1–1024 visible ASCII characters with no whitespace and no dot. A dot is refused because the
 * header joins secret and token with one, so the server could not tell where the secret ends.
 * The app token: three non-empty base64url parts (header.payload.signature), header and payload JSON
 * objects, and an `exp` claim (seconds), when present, that is a number in the future.
 */
import { Buffer } from 'node:buffer'
import { z } from 'zod'
import { DesktopApiError, invalidArgument, type FieldIssue } from '../../shared/errors'
import { isKeychainTimeout, type KeychainStatus, type SecretStore } from './secret-store'

export interface Credentials {
  secret: string
  appToken: string
}

export type AppTokenProblem = 'app_token_malformed' | 'app_token_expired'

export type AppTokenCheck =
  { ok: true; expiresAt: number | null } | { ok: false; reason: AppTokenProblem; message: string }

const BASE64URL_PART = /^[A-Za-z0-9_-]+$/

function decodeJsonObject(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** Shape and expiry of an app token, against `now` (epoch ms). */
export function checkAppToken(token: string, now: number): AppTokenCheck {
  const malformed = (message: string): AppTokenCheck => ({
    ok: false,
    reason: 'app_token_malformed',
    message,
  })
  const parts = token.split('.')
  if (parts.length !== 3 || parts.some((p) => !BASE64URL_PART.test(p)))
    return malformed('expected a JWT: three base64url parts separated by dots')
  const [header, payload] = parts as [string, string, string]
  if (!decodeJsonObject(header)) return malformed('the JWT header is not a JSON object')
  const claims = decodeJsonObject(payload)
  if (!claims) return malformed('the JWT payload is not a JSON object')
  const exp = claims['exp']
  if (exp === undefined) return { ok: true, expiresAt: null }
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return malformed('the JWT exp claim is not a number')
  const expiresAt = exp * 1000
  if (expiresAt <= now)
    return {
      ok: false,
      reason: 'app_token_expired',
      message: `expired on ${new Date(expiresAt).toISOString()}`,
    }
  return { ok: true, expiresAt }
}

export function checkSecret(secret: string): string | undefined {
  if (secret.length === 0) return 'must not be empty'
  if (secret.length > 1024) return 'must be at most 1024 characters'
  if (/\s/.test(secret)) return 'must not contain spaces or line breaks'
  if (secret.includes('.')) return 'must not contain a dot (the header joins secret and app token with one)'
  if (!/^[\x21-\x7e]+$/.test(secret)) return 'must be plain ASCII characters'
  return undefined
}

/** For create/update: both fields checked, all problems named at once. Returns the token's expiry. */
export function validateCredentials(
  credentials: Credentials,
  now: number,
  prefix = '',
): { expiresAt: number | null } {
  const at = (field: string): string => (prefix ? `${prefix}.${field}` : field)
  const fields: FieldIssue[] = []
  const secretProblem = checkSecret(credentials.secret)
  if (secretProblem) fields.push({ path: at('secret'), message: secretProblem })
  const token = checkAppToken(credentials.appToken, now)
  if (!token.ok) fields.push({ path: at('appToken'), message: token.message })
  if (fields.length > 0 || !token.ok) throw invalidArgument('credentials', fields)
  return { expiresAt: token.expiresAt }
}

/** Before a stored token is used: an expired or malformed one is the user's to replace, so `unauthorized`. */
export function assertUsableCredentials(credentials: Credentials, now: number): { expiresAt: number | null } {
  const token = checkAppToken(credentials.appToken, now)
  if (!token.ok) {
    const what = token.reason === 'app_token_expired' ? 'has expired' : 'is not a valid JWT'
    throw new DesktopApiError(
      'unauthorized',
      `The stored app token ${what} (${token.message}); enter a new app token for this connection.`,
      { reason: token.reason, fields: [{ path: 'appToken', message: token.message }] },
    )
  }
  if (checkSecret(credentials.secret)) {
    throw new DesktopApiError('unauthorized', 'The stored secret is not usable; enter the secret again.', {
      reason: 'secret_malformed',
      fields: [{ path: 'secret', message: 'not usable' }],
    })
  }
  return { expiresAt: token.expiresAt }
}

export function authorizationHeader(credentials: Credentials): string {
  return `Bearer ${credentials.secret}.${credentials.appToken}`
}

/** One keychain entry per connection: service `closebook`, this account, value JSON {secret, appToken}. */
export function credentialsAccount(connectionId: string): string {
  return `connection:${connectionId}`
}

const storedCredentialsSchema = z.object({ secret: z.string(), appToken: z.string() })

export function noKeychainError(status: KeychainStatus): DesktopApiError {
  return new DesktopApiError(
    'no_keychain',
    `No system keychain is available${status.reason ? ` (${status.reason})` : ''}. Closebook keeps ` +
      'credentials only in the keychain and will not store them anywhere else. Start your keychain ' +
      '(for example GNOME Keyring) and try again; the demo connection works without one.',
    status.reason ? { reason: status.reason } : undefined,
  )
}

/** The keychain, as connections use it: whole credentials per connection, and plain-language failures. */
export class CredentialVault {
  constructor(private readonly store: SecretStore) {}

  /** A keychain that does not answer in time is, for the status, not available (and says so). */
  async probe(): Promise<KeychainStatus> {
    try {
      return await this.store.probe()
    } catch (error) {
      if (isKeychainTimeout(error)) return { available: false, reason: error.message }
      throw error
    }
  }

  /**
   * Refuses (no_keychain) unless a probe right now shows a working keychain; a keychain that does not
   * answer in time is `keychain_timeout`, and a cancelled wait `cancelled`.
   */
  async save(connectionId: string, credentials: Credentials): Promise<void> {
    const status = await this.store.probe()
    if (!status.available) throw noKeychainError(status)
    const value = JSON.stringify({ secret: credentials.secret, appToken: credentials.appToken })
    try {
      await this.store.set(credentialsAccount(connectionId), value)
    } catch (error) {
      if (error instanceof DesktopApiError) throw error
      throw noKeychainError({ available: false, reason: 'the keychain refused to store the entry' })
    }
  }

  /** null when there is no entry; a keychain that cannot be reached is `no_keychain`, not "no entry". */
  async read(connectionId: string): Promise<Credentials | null> {
    let value: string | null
    try {
      value = await this.store.get(credentialsAccount(connectionId))
    } catch (error) {
      if (error instanceof DesktopApiError) throw error
      value = null
    }
    if (value === null) {
      // Some keychains answer "nothing" when they are not there at all: tell the two apart.
      const status = await this.store.probe()
      if (!status.available) throw noKeychainError(status)
      return null
    }
    try {
      const parsed = storedCredentialsSchema.safeParse(JSON.parse(value))
      return parsed.success ? parsed.data : null
    } catch {
      return null
    }
  }

  /** A keychain that did not answer fails the removal (so nothing else is removed), never "no entry". */
  async remove(connectionId: string): Promise<boolean> {
    try {
      return await this.store.delete(credentialsAccount(connectionId))
    } catch (error) {
      if (error instanceof DesktopApiError) throw error
      return false
    }
  }
}
