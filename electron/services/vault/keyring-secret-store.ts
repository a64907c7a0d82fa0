/**
 * The OS keychain through @napi-rs/keyring: macOS Keychain, Windows Credential Manager, Secret Service on
 * Linux. Not an `electron` import, so the web host uses it too. The async entry points run off the main
 * thread, so a slow keychain (a D-Bus round trip, an unlock prompt) never freezes the app.
 *
 * Every operation (a probe, a read, a write, a delete) is bounded: after `timeoutMs` it fails with
 * `keychain_timeout` instead of waiting, as the native call would, for as long as a prompt stays open (the
 * Secret Service client waits up to a year). Operations take turns, whole: a native call that never
 * returns holds one worker thread, not one per retry, and the operations after it fail within their bound
 * without starting another. An operation that gave up (bound or cancel) starts no native call afterwards;
 * one already running may still finish in the keychain, and its caller has been told it failed.
 */
import { readFile } from 'node:fs/promises'
import { AsyncEntry } from '@napi-rs/keyring'
import { DesktopApiError } from '../../shared/errors'
import { keychainTimeoutError, type KeychainStatus, type SecretStore } from './secret-store'

export const NO_SECRET_SERVICE = 'no Secret Service (e.g. GNOME Keyring) is running, or it refused access'

/** Long enough to answer an unlock dialog, short enough that nobody waits on a keychain that is gone. */
export const KEYCHAIN_TIMEOUT_MS = 20_000

/** The native calls used: @napi-rs/keyring's AsyncEntry, or a stand-in in tests. */
export interface NativeEntry {
  setPassword(password: string): Promise<void>
  getPassword(): Promise<string | undefined | null>
  deleteCredential(): Promise<boolean>
}

export interface KeyringOptions {
  /** How long one operation may take before it fails with `keychain_timeout`. */
  timeoutMs?: number
  entry?: (service: string, account: string) => NativeEntry
}

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

type Step = <R>(call: (entry: NativeEntry) => Promise<R>, account: string) => Promise<R>

export function cancelledKeychainError(): DesktopApiError {
  return new DesktopApiError('cancelled', 'Waiting for the system keychain was cancelled.', {
    reason: 'keychain_cancelled',
  })
}

export class KeyringSecretStore implements SecretStore {
  private readonly timeoutMs: number
  private readonly entryOf: (service: string, account: string) => NativeEntry
  /** The last operation's work: the next one starts when it has ended. */
  private tail: Promise<unknown> = Promise.resolve()
  /** Operations still waiting, so that a cancel can end them. */
  private readonly waiting = new Set<() => void>()

  constructor(
    private readonly service = 'closebook',
    options: KeyringOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS
    this.entryOf = options.entry ?? ((s, a) => new AsyncEntry(s, a))
  }

  async probe(): Promise<KeychainStatus> {
    const account = `probe-${process.pid}`
    return this.operation(async (step) => {
      try {
        await step((e) => e.setPassword('probe'), account)
        const kernelOnly = await landedInKernelKeyring(this.service, account)
        const readBack = await step((e) => e.getPassword(), account)
        await step((e) => e.deleteCredential(), account)
        if (kernelOnly) return { available: false, reason: NO_SECRET_SERVICE }
        if (readBack !== 'probe')
          return { available: false, reason: 'the keychain did not return what was stored' }
        return { available: true }
      } catch (error) {
        if (error instanceof DesktopApiError) throw error
        return { available: false, reason: describeKeychainFailure(error) }
      }
    })
  }

  async get(account: string): Promise<string | null> {
    return (await this.call((e) => e.getPassword(), account)) ?? null
  }

  async set(account: string, value: string): Promise<void> {
    await this.call((e) => e.setPassword(value), account)
  }

  async delete(account: string): Promise<boolean> {
    return this.call((e) => e.deleteCredential(), account)
  }

  /** Ends every operation still waiting for the keychain (`cancelled`); returns how many there were. */
  cancelWaiting(): number {
    const ended = [...this.waiting]
    ended.forEach((end) => end())
    return ended.length
  }

  /** One native call as a whole operation; the native error carries a backtrace: keep only its meaning. */
  private call<T>(run: (entry: NativeEntry) => Promise<T>, account: string): Promise<T> {
    return this.operation(async (step) => {
      try {
        return await step(run, account)
      } catch (error) {
        if (error instanceof DesktopApiError) throw error
        throw new Error(`keychain: ${describeKeychainFailure(error)}`)
      }
    })
  }

  /**
   * Runs `work` within the bound, after every earlier operation's work has ended (so two probes never
   * interleave on their shared account); a native call is not started once the operation gave up.
   */
  private operation<T>(work: (step: Step) => Promise<T>): Promise<T> {
    let gaveUp: DesktopApiError | undefined
    const step: Step = async (run, account) => {
      if (gaveUp) throw gaveUp
      return run(this.entryOf(this.service, account))
    }
    const turn = this.tail.then(() => {
      if (gaveUp) throw gaveUp
      return work(step)
    })
    this.tail = turn.catch(() => undefined)
    return new Promise<T>((resolve, reject) => {
      const end = (error: DesktopApiError): void => {
        gaveUp = error
        finish()
        reject(error)
      }
      const timer = setTimeout(() => end(keychainTimeoutError(this.timeoutMs)), this.timeoutMs)
      const cancel = (): void => end(cancelledKeychainError())
      const finish = (): void => {
        clearTimeout(timer)
        this.waiting.delete(cancel)
      }
      this.waiting.add(cancel)
      turn.then(
        (value) => {
          finish()
          resolve(value)
        },
        (error: unknown) => {
          finish()
          reject(error instanceof Error ? error : new Error(String(error)))
        },
      )
    })
  }
}

/** The native error carries a backtrace; keep only its first line, which names the cause. */
export function describeKeychainFailure(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
  if (/AccessDenied|ServiceUnknown|org\.freedesktop|DBus|dbus|platform storage/i.test(first))
    return NO_SECRET_SERVICE
  return first.slice(0, 200) || 'the keychain failed without saying why'
}
