/**
 * The whole sync path in one Node process, wired as tests/integration/support/harness.ts does: the
 * renderer's SyncEngine and Dexie cache (on fake-indexeddb: Node has no IndexedDB) over main's dispatcher,
 * gateway and scheduler, against a real sandbox on loopback. Arguments cross a JSON round trip as over IPC.
 * Also records every response the sandbox sends (path, status, time) to measure what reached the server.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { mkdtempSync, rmSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as fakeIndexedDb from 'fake-indexeddb'
import { createAppServices, createHandlers, type AppServices } from '../../../electron/services/app-services'
import { dispatch } from '../../../electron/services/dispatcher'
import { InMemorySecretStore } from '../../../electron/services/vault/secret-store'
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../electron/sandbox/server'
import { createDesktopApi } from '../../../electron/shared/channels'
import type { DesktopApi } from '../../../electron/shared/contract'
import { ClosebookDb, type IndexedDbDeps } from '../../../src/db/database'
import { CacheSyncStore } from '../../../src/sync/cache-sync-store'
import type { SyncApiPort } from '../../../src/sync/sync-engine'

let dbCount = 0
// Typed through the cache's own port: this project's lib has no DOM types for fake-indexeddb's exports.
const idb = fakeIndexedDb as unknown as IndexedDbDeps

export interface ServedRequest {
  /** Epoch ms when the response finished. */
  at: number
  /** The Route bucket's key: the path with its store id replaced, as the sandbox counts it. */
  route: string
  status: number
}

/** Every list response a sandbox on `port` finished, seen through Node's http diagnostics channel. */
export class RequestLog {
  readonly served: ServedRequest[] = []
  private readonly listener = (message: unknown) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse }
    if (request.headers.host !== `127.0.0.1:${this.port}`) return
    const path = new URL(request.url ?? '/', 'http://x').pathname
    if (path.startsWith('/__control/')) return
    this.served.push({
      at: Date.now(),
      route: path.replace(/^\/stores\/[^/]+\//, '/stores/{storeId}/'),
      status: response.statusCode,
    })
  }

  constructor(private readonly port: string) {
    subscribe('http.server.response.finish', this.listener)
  }

  clear(): void {
    this.served.length = 0
  }

  count(status: number): number {
    return this.served.filter((r) => r.status === status).length
  }

  close(): void {
    unsubscribe('http.server.response.finish', this.listener)
  }
}

export interface SyncHarness {
  sandbox: RunningSandbox
  services: AppServices
  api: DesktopApi
  syncApi: SyncApiPort
  db: ClosebookDb
  store: CacheSyncStore
  connectionId: string
  log: RequestLog
  close(): Promise<void>
}

export async function startSyncHarness(sandboxOptions: SandboxOptions): Promise<SyncHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'closebook-bench-'))
  const sandbox = await startSandbox(sandboxOptions)
  const log = new RequestLog(new URL(sandbox.url).port)
  const services = createAppServices({
    host: 'web',
    version: '0.0.0-bench',
    platform: 'linux',
    dataDir,
    secretStore: new InMemorySecretStore(),
    openExternal: () => Promise.resolve(),
    deliverFile: () => Promise.reject(new Error('no files in the sync bench')),
    // The harness closes the sandbox itself.
    startDemoSandbox: () => Promise.resolve({ ...sandbox, close: () => Promise.resolve() }),
  })
  const handlers = createHandlers(services)
  const api = createDesktopApi(async (channel, args) => {
    const outcome = await dispatch(handlers, channel, JSON.parse(JSON.stringify(args)) as unknown, {
      host: 'web',
      signal: new AbortController().signal,
    })
    return JSON.parse(JSON.stringify(outcome)) as typeof outcome
  })
  const summary = await api.sandbox.startDemo({})
  const db = new ClosebookDb(`closebook-bench-${process.pid}-${++dbCount}`, idb)
  await db.open()
  const store = new CacheSyncStore(db)
  await store.connections.put({
    id: summary.id,
    label: summary.label,
    baseUrl: summary.baseUrl,
    timeZone: summary.timeZone,
    storeIds: summary.storeIds,
    isDemo: true,
    lastSyncedAt: null,
    highWater: {},
  })
  return {
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
    log,
    close: async () => {
      log.close()
      await services.dispose()
      await sandbox.close()
      db.close()
      await db.delete()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
