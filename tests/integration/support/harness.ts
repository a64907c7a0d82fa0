/**
 * The renderer's half (sync engine, Dexie cache on fake-indexeddb) wired to main's half (dispatcher,
 * gateway, scheduler) through the real contract, against a real sandbox: the whole sync path in one process.
 * Arguments and results cross a JSON round trip, as they do over IPC or HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBKeyRange, indexedDB } from 'fake-indexeddb'
import { createAppServices, createHandlers, type AppServices } from '../../../electron/services/app-services'
import { dispatch } from '../../../electron/services/dispatcher'
import { moveIntoPlace } from '../../../electron/services/files/move-into-place'
import { InMemorySecretStore } from '../../../electron/services/vault/secret-store'
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../electron/sandbox/server'
import { createDesktopApi } from '../../../electron/shared/channels'
import type { DesktopApi } from '../../../electron/shared/contract'
import { ClosebookDb } from '../../../src/db/database'
import { CacheSyncStore } from '../../../src/sync/cache-sync-store'
import type { SyncApiPort } from '../../../src/sync/sync-engine'
import { newConnectionRow } from '../../support/cache'
import { overTheWire } from '../../support/wire'
import { startEchoProxy, type EchoProxy } from './echo-proxy'

let dbCount = 0

export interface Harness {
  /** Every argument and outcome that crossed the contract, as the JSON text that would go over the wire. */
  wire: string[]
  sandbox: RunningSandbox
  services: AppServices
  api: DesktopApi
  syncApi: SyncApiPort
  db: ClosebookDb
  store: CacheSyncStore
  connectionId: string
  /** The echoing proxy, when the harness was asked for one. */
  echo: EchoProxy | undefined
  /**
   * The web host dies: every call in flight or made later answers as the HTTP transport does when the host
   * is unreachable (`network`), and main's services are disposed (scheduler, demo, files).
   */
  killHost(): Promise<void>
  /** A new host process on the same data directory and keychain; the demo is opened again, as a user would. */
  startHost(): Promise<void>
  /** A second Dexie on the same IndexedDB, open alongside the first: another tab of the same origin. */
  openTab(): Promise<{ db: ClosebookDb; store: CacheSyncStore }>
  /** A fresh Dexie on the same IndexedDB, as after a reload. */
  reopenDb(): Promise<{ db: ClosebookDb; store: CacheSyncStore }>
  close(): Promise<void>
}

export interface HarnessOptions {
  /** Main talks to the sandbox through a proxy that echoes the Authorization header into every page. */
  echoCredentials?: boolean
}

export async function startHarness(
  sandboxOptions: SandboxOptions,
  harnessOptions: HarnessOptions = {},
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'closebook-int-'))
  const sandbox = await startSandbox(sandboxOptions)
  const echo = harnessOptions.echoCredentials ? await startEchoProxy(sandbox.url) : undefined
  const adapters: Parameters<typeof createAppServices>[0] = {
    host: 'web',
    version: '0.0.0-test',
    platform: 'linux',
    dataDir,
    secretStore: new InMemorySecretStore(),
    openExternal: () => Promise.resolve(),
    // Files (backups, workbooks) are delivered into the data directory's "delivered" folder.
    deliverFile: async (temp, fileName) => {
      const path = join(dataDir, 'delivered', fileName)
      await mkdir(join(dataDir, 'delivered'), { recursive: true })
      await moveIntoPlace(temp, path)
      return { savedTo: 'path', path, fileName }
    },
    // The harness closes the sandbox itself (tests also close it early to go offline).
    startDemoSandbox: () =>
      Promise.resolve({ ...sandbox, url: echo?.url ?? sandbox.url, close: () => Promise.resolve() }),
  }
  let services = createAppServices(adapters)
  let handlers = createHandlers(services)
  // Which host process is answering; a call that began under an earlier one never gets its answer.
  let hostGeneration = 0
  let hostUp = true
  const unreachable = {
    ok: false as const,
    error: {
      code: 'network' as const,
      message: 'The Closebook web host is not reachable. Is it still running?',
    },
  }
  const wire: string[] = []
  const api = createDesktopApi(async (channel, args) => {
    const sent = overTheWire(args)
    const argsText = sent.text
    if (!hostUp) return unreachable
    const generation = hostGeneration
    const outcome = await dispatch(handlers, channel, sent.args, {
      host: 'web',
      signal: new AbortController().signal,
    })
    if (!hostUp || generation !== hostGeneration) return unreachable
    const outcomeText = JSON.stringify(outcome)
    wire.push(`${channel} ${argsText}`, outcomeText)
    if (wire.length > 20_000) wire.splice(0, 10_000)
    return JSON.parse(outcomeText) as typeof outcome
  })
  const summary = await api.sandbox.startDemo({})
  const name = `closebook-int-${process.pid}-${++dbCount}`
  const open = () => new ClosebookDb(name, { indexedDB, IDBKeyRange })
  let db = open()
  await db.open()
  const tabs: ClosebookDb[] = []
  let store = new CacheSyncStore(db)
  await store.connections.put(newConnectionRow(summary))
  const harness: Harness = {
    wire,
    sandbox,
    services,
    api,
    syncApi: {
      listPage: (args) => api.api.listPage(args),
      cancelJob: (jobId) => api.api.cancelJob({ jobId }),
      queueState: () => api.api.queueState({}),
    },
    db,
    store,
    connectionId: summary.id,
    echo,
    killHost: async () => {
      hostUp = false
      hostGeneration++
      await services.dispose()
    },
    startHost: async () => {
      services = createAppServices(adapters)
      handlers = createHandlers(services)
      harness.services = services
      hostUp = true
      await api.sandbox.startDemo({})
    },
    openTab: async () => {
      const tab = open()
      await tab.open()
      tabs.push(tab)
      return { db: tab, store: new CacheSyncStore(tab) }
    },
    reopenDb: async () => {
      db.close()
      db = open()
      await db.open()
      store = new CacheSyncStore(db)
      harness.db = db
      harness.store = store
      return { db, store }
    },
    close: async () => {
      await services.dispose()
      await echo?.close()
      await sandbox.close()
      for (const tab of tabs) tab.close()
      db.close()
      await db.delete()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
  return harness
}
