/**
 * The whole sync path, wired as tests/integration/support/harness.ts does: the renderer's SyncEngine and
 * Dexie cache (on fake-indexeddb: Node has no IndexedDB) in this thread, main's dispatcher, gateway and
 * scheduler and a real sandbox on loopback in a worker thread (sync-worker.ts). In the app those are other
 * processes (and the service another machine), so their CPU is not the renderer's; calls cross by
 * postMessage, a structured clone as over Electron's IPC.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import * as fakeIndexedDb from 'fake-indexeddb'
import type { SandboxOptions } from '../../../electron/sandbox/server'
import { createDesktopApi } from '../../../electron/shared/channels'
import type { DesktopApi } from '../../../electron/shared/contract'
import type { CallOutcome } from '../../../electron/shared/errors'
import type { ChargeItem, HistoryItem } from '../../../electron/shared/payment-api'
import { chargeRecordOf } from '../../../src/db/charge-record'
import { ClosebookDb, type IndexedDbDeps } from '../../../src/db/database'
import { historyRecordOf } from '../../../src/db/history-record'
import { HistoryWriter } from '../../../src/db/history-writer'
import { CacheSyncStore } from '../../../src/sync/cache-sync-store'
import type { SyncApiPort } from '../../../src/sync/sync-engine'
import { newConnectionRow } from '../../support/cache'
import type { ServedRequest, WorkerInit, WorkerReply, WorkerRequest } from './sync-worker'

export type { ServedRequest } from './sync-worker'

/** A request to the worker before it gets its id (Omit distributed over the union). */
type RequestBody = WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never

let dbCount = 0
// Typed through the cache's own port: this project's lib has no DOM types for fake-indexeddb's exports.
const idb = fakeIndexedDb as unknown as IndexedDbDeps

interface Limits {
  burst: number
  perMinute: number
}

/** What the benches need of the sandbox in the worker. */
export interface RemoteSandbox {
  url: string
  secret: string
  appToken: string
  storeIds: string[]
  controlToken?: string
  rateLimits: { route: Limits; exact: Limits }
  /** History records the sandbox started with. */
  historyCount: number
  /** Every record as the API serves it, oldest first. */
  snapshot(): Promise<{ history: Record<string, unknown>[]; charges: Record<string, unknown>[] }>
}

/** Every list response the sandbox finished (kept in the worker). */
export interface RequestLog {
  served(): Promise<ServedRequest[]>
  clear(): Promise<void>
}

export interface SyncHarness {
  sandbox: RemoteSandbox
  api: DesktopApi
  syncApi: SyncApiPort
  db: ClosebookDb
  store: CacheSyncStore
  connectionId: string
  log: RequestLog
  close(): Promise<void>
}

/** The worker is TypeScript: it loads through tsx's CommonJS hook, as the bench itself runs under tsx. */
function startWorker(init: WorkerInit): Worker {
  const require = createRequire(__filename)
  const boot = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(join(__dirname, 'sync-worker.ts'))})`
  return new Worker(boot, { eval: true, workerData: init })
}

export async function startSyncHarness(sandboxOptions: SandboxOptions): Promise<SyncHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'closebook-bench-'))
  const worker = startWorker({ sandboxOptions, dataDir })
  let nextId = 0
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()
  const ready = new Promise<unknown>((resolve, reject) => {
    waiting.set(0, { resolve, reject })
    worker.once('error', reject)
  })
  worker.on('message', (reply: WorkerReply) => {
    const pending = waiting.get(reply.id)
    if (!pending) return
    waiting.delete(reply.id)
    if (reply.ok) pending.resolve(reply.value)
    else pending.reject(new Error(reply.error))
  })
  const ask = <T>(request: RequestBody): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId
      waiting.set(id, { resolve: (v) => resolve(v as T), reject })
      worker.postMessage({ ...request, id })
    })
  const info = (await ready) as Omit<RemoteSandbox, 'snapshot'>
  const sandbox: RemoteSandbox = { ...info, snapshot: () => ask({ op: 'snapshot' }) }
  const api = createDesktopApi((channel, args) => ask<CallOutcome>({ op: 'call', channel, args }))
  const summary = await api.sandbox.startDemo({})
  const db = new ClosebookDb(`closebook-bench-${process.pid}-${++dbCount}`, idb)
  await db.open()
  const store = new CacheSyncStore(db)
  await store.connections.put(newConnectionRow(summary))
  return {
    sandbox,
    api,
    syncApi: {
      listPage: (args) => api.api.listPage(args),
      cancelJob: (jobId) => api.api.cancelJob({ jobId }),
      queueState: () => api.api.queueState({}),
    },
    db,
    store,
    connectionId: summary.id,
    log: {
      served: () => ask<ServedRequest[]>({ op: 'served' }),
      clear: () => ask<void>({ op: 'clearServed' }),
    },
    close: async () => {
      await ask({ op: 'close' })
      await worker.terminate()
      db.close()
      await db.delete()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * Fills the cache straight from the sandbox's data, as a finished first sync would have left it: through
 * the history writer, so the day rows incremental windows start from (recency.ts) are there too. Returns
 * how many history records there are.
 */
export async function prefillFromSandbox(h: SyncHarness, syncedAt: number): Promise<number> {
  const truth = await h.sandbox.snapshot()
  const writer = new HistoryWriter(h.db)
  const tables = [...writer.historyTables(), ...writer.chargeTables()]
  const chunk = 5000
  for (let i = 0; i < truth.history.length; i += chunk) {
    const records = truth.history
      .slice(i, i + chunk)
      .map((item) => historyRecordOf(h.connectionId, item as unknown as HistoryItem, syncedAt))
    await h.db.transaction('rw', tables, () => writer.putHistory(records))
  }
  for (let i = 0; i < truth.charges.length; i += chunk) {
    const records = truth.charges
      .slice(i, i + chunk)
      .map((item) => chargeRecordOf(h.connectionId, item as unknown as ChargeItem, syncedAt))
    await h.db.transaction('rw', tables, () => writer.putCharges(records))
  }
  return truth.history.length
}

/** A call to the sandbox's control endpoint (data changes for a bench scenario). */
export async function control(h: SyncHarness, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${h.sandbox.url}/__control/${path}`, {
    method: 'POST',
    headers: { 'X-Control-Token': h.sandbox.controlToken ?? '', 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`control ${path}: HTTP ${res.status}`)
  await res.arrayBuffer()
}
