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
