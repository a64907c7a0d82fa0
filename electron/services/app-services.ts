/**
 * Everything a host needs to answer DesktopApi calls, built from platform adapters the host injects.
 * Knows nothing of Electron or HTTP: the Electron host and the web host each build one of these.
 */
import { join } from 'node:path'
import type { HostKind } from '../shared/contract'
import { ApiGateway } from './api-client/api-gateway'
import { PaymentApiClient, type FetchLike } from './api-client/payment-api-client'
import { ConnectionRegistry } from './connections/connection-registry'
import { ConnectionsService } from './connections/connections-service'
import { DemoService, type StartDemoSandbox } from './demo/demo-service'
import { FileWriter, type DeliverFile } from './files/file-writer'
import { TempFolder } from './files/temp-folder'
import { apiHandlers } from './handlers/api-handlers'
import { appHandlers } from './handlers/app-handlers'
import { connectionsHandlers } from './handlers/connections-handlers'
import { exportHandlers } from './handlers/export-handlers'
import { filesHandlers } from './handlers/files-handlers'
import { sandboxHandlers } from './handlers/sandbox-handlers'
import { teamHandlers } from './handlers/team-handlers'
import type { Handlers } from './handlers/types'
import { vaultHandlers } from './handlers/vault-handlers'
import { backupHandlers } from './handlers/backup-handlers'
import { BackupSigner } from './vault/backup-signing'
import { systemClock, type Clock } from './scheduler/clock'
import { Scheduler } from './scheduler/scheduler'
import type { KeychainStatus, SecretStore } from './vault/secret-store'
import { startSandbox } from '../sandbox/server'
import { TeamService } from './team/team-service'
import { WorkbookExports } from './workbook/workbook-exports'

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
  /** Defaults: the global fetch and the system clock; tests inject fakes. */
  fetch?: FetchLike
  clock?: Clock
  /** Starts the demo's payment API sandbox; default: the embedded sandbox with the demo data set. */
  startDemoSandbox?: StartDemoSandbox
}

/** The demo merchant: 5,000 charges over four months in three stores, at the seed's real rate limits. */
export const startEmbeddedDemoSandbox: StartDemoSandbox = () =>
  startSandbox({ seed: 42, stores: 3, records: 5000 })

export interface AppServices extends HostAdapters {
  keychainStatus(): Promise<KeychainStatus>
  files: FileWriter
  /** The month-end workbook's streaming writer. */
  workbooks: WorkbookExports
  /** Connection registry + keychain; `registerDemo` is for the sandbox's demo connection. */
  connections: ConnectionsService
  /** The payment API through the one rate-limit scheduler. */
  gateway: ApiGateway
  demo: DemoService
  /**
   * The partial files an earlier run left in `<dataDir>/tmp` (it crashed or was killed mid-export),
   * removed at start-up, before this run writes anything there; resolves to their names.
   */
  leftovers(): Promise<string[]>
  /** The optional team workspace on PostgreSQL; inert until configured. */
  team: TeamService
  dispose(): Promise<void>
}

/** How often exports and files a renderer abandoned (a tab closed mid-export) are looked for. */
const SWEEP_EVERY_MS = 60_000

export function createAppServices(adapters: HostAdapters): AppServices {
  // Created by a host once it holds its data directory alone: clearing leftovers starts now.
  const temp = new TempFolder(join(adapters.dataDir, 'tmp'))
  temp.ready().catch(() => undefined) // a failure is retried, and reported, by the first export
  const writers = { dataDir: adapters.dataDir, deliverFile: adapters.deliverFile, temp }
  const files = new FileWriter(writers)
  const workbooks = new WorkbookExports(writers)
  const sweeper = setInterval(() => {
    void files.sweep().catch(() => undefined)
    void workbooks.sweep().catch(() => undefined)
  }, SWEEP_EVERY_MS)
  sweeper.unref()
  const clock = adapters.clock ?? systemClock
  const connections = new ConnectionsService({
    registry: new ConnectionRegistry(adapters.dataDir, () => clock.now()),
    secretStore: adapters.secretStore,
    clock,
    log: { warn: (message) => console.warn(`[closebook] ${message}`) },
  })
  const scheduler = new Scheduler({ clock })
  const client = new PaymentApiClient({ clock, ...(adapters.fetch ? { fetch: adapters.fetch } : {}) })
  const gateway = new ApiGateway({ connections, scheduler, client, clock })
  // The demo merchant is Japanese, so its accounting time zone is Tokyo (a setting the user can change).
  const demo = new DemoService({
    connections,
    startSandbox: adapters.startDemoSandbox ?? startEmbeddedDemoSandbox,
    timeZone: 'Asia/Tokyo',
  })
  const team = new TeamService(adapters.dataDir, adapters.secretStore)
  return {
    ...adapters,
    // Probing writes an entry; the connections service does it once per launch.
    keychainStatus: () =>
      connections
        .keychainStatus()
        .then(({ available, reason }) => ({ available, ...(reason ? { reason } : {}) })),
    files,
    workbooks,
    connections,
    gateway,
    demo,
    leftovers: () => temp.leftovers(),
    team,
    dispose: async () => {
      clearInterval(sweeper)
      await demo.dispose()
      await team.dispose()
      scheduler.dispose()
      await files.dispose()
      await workbooks.dispose()
    },
  }
}

export function createHandlers(services: AppServices): Handlers {
  return {
    ...appHandlers(services),
    ...filesHandlers(services.files),
    ...connectionsHandlers(services.connections, services.gateway),
    ...vaultHandlers(services.connections, services.secretStore),
    ...apiHandlers(services.gateway),
    ...sandboxHandlers(services.demo),
    ...exportHandlers(services.workbooks),
    ...backupHandlers(new BackupSigner(services.secretStore)),
    ...teamHandlers(services.team),
  }
}
