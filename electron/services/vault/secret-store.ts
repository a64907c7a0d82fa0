import { DesktopApiError } from '../../shared/errors'

/**
 * Where credentials live. The only real implementation is the OS keychain (keyring-secret-store.ts);
 * there is deliberately no file-backed one: with no keychain, Closebook refuses to store real credentials.
 */
export interface KeychainStatus {
  available: boolean
  /** Why not, in words an accountant can act on (e.g. "no Secret Service is running"). */
  reason?: string
}

export interface SecretStore {
  /** Set, read back and delete a throwaway entry: the only reliable test that a keychain works. */
  probe(): Promise<KeychainStatus>
  get(account: string): Promise<string | null>
  set(account: string, value: string): Promise<void>
  /** Returns whether an entry existed. */
  delete(account: string): Promise<boolean>
  /** Ends the operations still waiting for the keychain (they fail with `cancelled`); how many there were. */
  cancelWaiting?(): number
}

/**
 * A keychain that did not answer in time (locked, with its password dialog waiting; or hung). Says how long
 * Closebook waited and what to do, never what was being stored.
 */
export function keychainTimeoutError(timeoutMs: number): DesktopApiError {
  const seconds = Math.round(timeoutMs / 100) / 10
  return new DesktopApiError(
    'keychain_timeout',
    `The system keychain did not answer within ${seconds} s, so Closebook stopped waiting. It may be ` +
      'locked, with its password dialog waiting, or not running: unlock or start it, then try again.',
    { reason: 'keychain_timeout', timeoutMs },
  )
}

export function isKeychainTimeout(error: unknown): error is DesktopApiError {
  return error instanceof DesktopApiError && error.code === 'keychain_timeout'
}

/** For tests and for the demo connection, whose generated credentials never need to outlive the process. */
export class InMemorySecretStore implements SecretStore {
  private readonly entries = new Map<string, string>()

  probe(): Promise<KeychainStatus> {
    return Promise.resolve({ available: true })
  }
  get(account: string): Promise<string | null> {
    return Promise.resolve(this.entries.get(account) ?? null)
  }
  set(account: string, value: string): Promise<void> {
    this.entries.set(account, value)
    return Promise.resolve()
  }
  delete(account: string): Promise<boolean> {
    return Promise.resolve(this.entries.delete(account))
  }
}
