/**
 * Everything a host needs to answer DesktopApi calls, built from platform adapters the host injects.
 * Knows nothing of Electron or HTTP: the Electron host and the web host each build one of these.
 */
import type { HostKind } from '../shared/contract'
import { appHandlers } from './handlers/app-handlers'
import type { Handlers } from './handlers/types'
import type { KeychainStatus, SecretStore } from './vault/secret-store'

export interface HostAdapters {
  host: HostKind
  version: string
  platform: string
  /** Directory for the app's own files (connection registry, exports in the web host). */
  dataDir: string
  secretStore: SecretStore
  /** Opens an allow-listed URL outside the app (Electron: shell.openExternal; web: a new tab is the browser's). */
  openExternal(url: string): Promise<void>
}

export interface AppServices extends HostAdapters {
  keychainStatus(): Promise<KeychainStatus>
  dispose(): Promise<void>
}

export function createAppServices(adapters: HostAdapters): AppServices {
  let keychain: Promise<KeychainStatus> | undefined
  return {
    ...adapters,
    // Probing writes an entry; do it once per launch.
    keychainStatus: () => (keychain ??= adapters.secretStore.probe()),
    dispose: () => Promise.resolve(),
  }
}

export function createHandlers(services: AppServices): Handlers {
  return {
    ...appHandlers(services),
  }
}
