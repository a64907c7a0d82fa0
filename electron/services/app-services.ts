/**
 * Everything a host needs to answer DesktopApi calls, built from platform adapters the host injects.
 * Knows nothing of Electron or HTTP: the Electron host and the web host each build one of these.
 */
import type { HostKind } from '../shared/contract'
import { FileWriter, type DeliverFile } from './files/file-writer'
import { appHandlers } from './handlers/app-handlers'
import { filesHandlers } from './handlers/files-handlers'
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
  /**
   * Hands a finished temporary file to the user and returns where it went. Desktop: the save dialog,
   * then `moveIntoPlace`; web host: a one-time download URL. Must never leave a partial file at the target.
   */
  deliverFile: DeliverFile
}

export interface AppServices extends HostAdapters {
  keychainStatus(): Promise<KeychainStatus>
  files: FileWriter
  dispose(): Promise<void>
}

export function createAppServices(adapters: HostAdapters): AppServices {
  let keychain: Promise<KeychainStatus> | undefined
  const files = new FileWriter({ dataDir: adapters.dataDir, deliverFile: adapters.deliverFile })
  return {
    ...adapters,
    // Probing writes an entry; do it once per launch.
    keychainStatus: () => (keychain ??= adapters.secretStore.probe()),
    files,
    dispose: () => files.dispose(),
  }
}

export function createHandlers(services: AppServices): Handlers {
  return {
    ...appHandlers(services),
    ...filesHandlers(services.files),
  }
}
