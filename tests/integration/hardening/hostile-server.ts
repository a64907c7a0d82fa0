/**
 * A hostile payment service on a loopback socket, behind main's real gateway and the contract: tests set
 * `handler` to answer each request as they like. The demo connection points at it, so every call goes
 * through the same client, scheduler, scrubbing and validation as a real one. Sync runs in the renderer's
 * engine over a fake IndexedDB.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBKeyRange, indexedDB } from 'fake-indexeddb'
import { createAppServices, createHandlers, type AppServices } from '../../../electron/services/app-services'
import { dispatch } from '../../../electron/services/dispatcher'
import { InMemorySecretStore } from '../../../electron/services/vault/secret-store'
import { makeAppToken } from '../../../electron/sandbox/server'
import { createDesktopApi } from '../../../electron/shared/channels'
import type { DesktopApi } from '../../../electron/shared/contract'
import { ClosebookDb } from '../../../src/db/database'
import { CacheSyncStore } from '../../../src/sync/cache-sync-store'
import { SyncEngine, type SyncProgress, type SyncRequest } from '../../../src/sync/sync-engine'
import { overTheWire } from '../../support/wire'

export const STORE = '7d8e3f10-2b4c-4d5e-8f60-718293a4b5c6'
export const T0 = Date.parse('2026-10-15T03:00:00.000Z')

export const idOf = (i: number): string => `0a1b2c3d-4e5f-4a6b-8c7d-${String(i).padStart(12, '0')}`

/** A valid history item number `i`, created at `at` (epoch ms), any field overridden. */
export function hostileItem(i: number, at = T0, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    store_id: STORE,
    resource_id: idOf(i),
    charge_id: null,
    amount: 1200 + i,
    currency: 'JPY',
    amount_formatted: 1200 + i,
    type: 'charge',
    status: 'successful',
    metadata: { order_number: `ORD-${i}` },
    created_on: new Date(at).toISOString(),
    mode: 'live',
    merchant_name: 'Hostile K.K.',
    store_name: 'Store',
    payment_type: 'card',
    user_data: { type: 'charge', cardholder_name: 'Yamada', brand: 'visa', refunds: [] },
    bank_transfer_payment_status: null,
    bank_transfer_latest_deposit_date: null,
    ...over,
  }
}

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void

export interface HostileService {
  api: DesktopApi
  connectionId: string
  /** Requests the server has answered (or begun to) since the last `reset`. */
  requests: () => number
  setHandler: (handler: Handler) => void
  /** A fresh cache and a sync over it; `window` re-reads one period instead of a first sync. */
  sync: (window?: {
    from: number
    to: number
  }) => Promise<{ result: SyncProgress; progress: SyncProgress[]; db: ClosebookDb; store: CacheSyncStore }>
  close: () => Promise<void>
}

let dbs = 0

export async function startHostileService(): Promise<HostileService> {
  let handler: Handler = (_req, res) => res.end('{"items":[],"has_more":false}')
  let count = 0
  const server: Server = createServer((req, res) => {
    count++
    handler(req, res, new URL(req.url ?? '/', 'http://127.0.0.1'))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const dataDir = mkdtempSync(join(tmpdir(), 'closebook-hostile-server-'))
  const services: AppServices = createAppServices({
    host: 'web',
    version: '0.0.0-test',
    platform: 'linux',
    dataDir,
    secretStore: new InMemorySecretStore(),
    openExternal: () => Promise.resolve(),
    deliverFile: () => Promise.reject(new Error('no files here')),
    startDemoSandbox: () =>
      Promise.resolve({
        url,
        secret: 'sk_hostile',
        appToken: makeAppToken('hostile'),
        storeIds: [STORE],
        close: () => Promise.resolve(),
      }),
  })
  const handlers = createHandlers(services)
  const api = createDesktopApi(
    async (channel, args) =>
      JSON.parse(
        JSON.stringify(
          await dispatch(handlers, channel, overTheWire(args).args, {
            host: 'web',
            signal: new AbortController().signal,
          }),
        ),
      ) as never,
  )
  const connectionId = (await api.sandbox.startDemo({})).id
  const opened: ClosebookDb[] = []
  return {
    api,
    connectionId,
    requests: () => count,
    setHandler: (next) => {
      handler = next
      count = 0
    },
    sync: async (window) => {
      const db = new ClosebookDb(`hostile-server-${process.pid}-${++dbs}`, { indexedDB, IDBKeyRange })
      opened.push(db)
      const store = new CacheSyncStore(db)
      await store.connections.put({
        id: connectionId,
        label: 'Hostile',
        baseUrl: 'http://127.0.0.1',
        timeZone: 'Asia/Tokyo',
        storeIds: [STORE],
        isDemo: true,
        lastSyncedAt: null,
        highWater: {},
      })
      const progress: SyncProgress[] = []
      const request: SyncRequest = {
        scope: { connectionId, storeIds: [STORE], resources: ['transaction_history'] },
        since: T0 - 86_400_000,
        lookbackMs: 0,
        coveredUntil: {},
        ...(window ? { window } : {}),
        onProgress: (p) => progress.push(p),
      }
      const result = await new SyncEngine({
        api: { listPage: (a) => api.api.listPage(a), cancelJob: () => Promise.resolve() },
        store,
        now: () => T0,
      }).run(request)
      return { result, progress, db, store }
    },
    close: async () => {
      for (const db of opened) {
        db.close()
        await db.delete()
      }
      await services.dispose()
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify(body))
}
