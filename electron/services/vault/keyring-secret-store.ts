/**
 * The OS keychain through @napi-rs/keyring: macOS Keychain, Windows Credential Manager, Secret Service on
 * Linux. Not an `electron` import, so the web host uses it too.
 */
import { Entry } from '@napi-rs/keyring'
import type { KeychainStatus, SecretStore } from './secret-store'

export class KeyringSecretStore implements SecretStore {
  constructor(private readonly service = 'closebook') {}

  probe(): Promise<KeychainStatus> {
    const entry = new Entry(this.service, `probe-${process.pid}`)
    try {
      entry.setPassword('probe')
      const readBack = entry.getPassword()
      entry.deletePassword()
      if (readBack !== 'probe')
        return Promise.resolve({ available: false, reason: 'the keychain did not return what was stored' })
      return Promise.resolve({ available: true })
    } catch (error) {
      return Promise.resolve({ available: false, reason: describeKeychainFailure(error) })
    }
  }

  get(account: string): Promise<string | null> {
    return Promise.resolve(new Entry(this.service, account).getPassword() ?? null)
  }

  set(account: string, value: string): Promise<void> {
    new Entry(this.service, account).setPassword(value)
    return Promise.resolve()
  }

  delete(account: string): Promise<boolean> {
    return Promise.resolve(new Entry(this.service, account).deletePassword())
  }
}

/** The native error carries a backtrace; keep only its first line, which names the cause. */
export function describeKeychainFailure(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
  if (/AccessDenied|ServiceUnknown|org\.freedesktop|DBus|dbus/i.test(first)) {
    return 'no Secret Service (e.g. GNOME Keyring) is running, or it refused access'
  }
  return first.slice(0, 200) || 'the keychain failed without saying why'
}
