/**
 * The OS keychain through @napi-rs/keyring: macOS Keychain, Windows Credential Manager, Secret Service on
 * Linux. Not an `electron` import, so the web host uses it too. The async entry points run off the main
 * thread, so a slow keychain (a D-Bus round trip, an unlock prompt) never freezes the app.
 */
import { readFile } from 'node:fs/promises'
import { AsyncEntry } from '@napi-rs/keyring'
import type { KeychainStatus, SecretStore } from './secret-store'

export const NO_SECRET_SERVICE = 'no Secret Service (e.g. GNOME Keyring) is running, or it refused access'

/**
 * On Linux, @napi-rs/keyring quietly falls back to the kernel keyring (keyutils) when it finds no Secret
 * Service. That keyring lives in memory and is lost at logout or reboot, so it is not a keychain to us: the
 * probe looks for its entry in /proc/keys (keyutils entries appear there as `keyring:<account>@<service>`)
 * and, when it is there, reports that no Secret Service is running.
 */
async function landedInKernelKeyring(service: string, account: string): Promise<boolean> {
  if (process.platform !== 'linux') return false
  try {
    return (await readFile('/proc/keys', 'utf8')).includes(`keyring:${account}@${service}`)
  } catch {
    return false
  }
}

export class KeyringSecretStore implements SecretStore {
  constructor(private readonly service = 'closebook') {}

  async probe(): Promise<KeychainStatus> {
    const account = `probe-${process.pid}`
    const entry = new AsyncEntry(this.service, account)
    try {
      await entry.setPassword('probe')
      const kernelOnly = await landedInKernelKeyring(this.service, account)
      const readBack = await entry.getPassword()
      await entry.deleteCredential()
      if (kernelOnly) return { available: false, reason: NO_SECRET_SERVICE }
      if (readBack !== 'probe')
        return { available: false, reason: 'the keychain did not return what was stored' }
      return { available: true }
    } catch (error) {
      return { available: false, reason: describeKeychainFailure(error) }
    }
  }

  async get(account: string): Promise<string | null> {
    return (await this.call(() => new AsyncEntry(this.service, account).getPassword())) ?? null
  }

  async set(account: string, value: string): Promise<void> {
    await this.call(() => new AsyncEntry(this.service, account).setPassword(value))
  }

  async delete(account: string): Promise<boolean> {
    return this.call(() => new AsyncEntry(this.service, account).deleteCredential())
  }

  /** The native error carries a backtrace and platform detail; rethrow only what it means. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      throw new Error(`keychain: ${describeKeychainFailure(error)}`)
    }
  }
}

/** The native error carries a backtrace; keep only its first line, which names the cause. */
export function describeKeychainFailure(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
  if (/AccessDenied|ServiceUnknown|org\.freedesktop|DBus|dbus|platform storage/i.test(first))
    return NO_SECRET_SERVICE
  return first.slice(0, 200) || 'the keychain failed without saying why'
}
