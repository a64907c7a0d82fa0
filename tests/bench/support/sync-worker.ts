/**
 * The far side of the sync harness, in its own thread: the sandbox (a remote service in real use) and
 * main's services (Electron's main process in the app: dispatcher, gateway, scheduler, HTTP client). The
 * harness's thread is the renderer's (engine + Dexie on fake-indexeddb); calls cross by postMessage,
 * a structured clone as Electron's IPC does. Also records every response the sandbox sends (path, status,
 * time) to measure what reached the server.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { parentPort, workerData } from 'node:worker_threads'
import { createAppServices, createHandlers } from '../../../electron/services/app-services'
import { dispatch } from '../../../electron/services/dispatcher'
import { InMemorySecretStore } from '../../../electron/services/vault/secret-store'
import { startSandbox, type SandboxOptions } from '../../../electron/sandbox/server'

export interface ServedRequest {
  /** Epoch ms when the response finished. */
  at: number
  /** The Route bucket's key: the path with its store id replaced, as the sandbox counts it. */
  route: string
  status: number
}

export interface WorkerInit {
  sandboxOptions: SandboxOptions
  dataDir: string
}

export type WorkerRequest =
  | { id: number; op: 'call'; channel: string; args: unknown }
  | { id: number; op: 'served' | 'clearServed' | 'snapshot' | 'close' }

export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string }

async function main(): Promise<void> {
  const port = parentPort
  if (!port) throw new Error('sync-worker runs in a worker thread')
  const { sandboxOptions, dataDir } = workerData as WorkerInit
  const sandbox = await startSandbox(sandboxOptions)
  const host = `127.0.0.1:${new URL(sandbox.url).port}`
  const served: ServedRequest[] = []
  const listener = (message: unknown) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse }
    if (request.headers.host !== host) return
    const path = new URL(request.url ?? '/', 'http://x').pathname
    if (path.startsWith('/__control/')) return
    served.push({
      at: Date.now(),
      route: path.replace(/^\/stores\/[^/]+\//, '/stores/{storeId}/'),
      status: response.statusCode,
    })
  }
  subscribe('http.server.response.finish', listener)
  const services = createAppServices({
    host: 'web',
    version: '0.0.0-bench',
    platform: 'linux',
    dataDir,
    secretStore: new InMemorySecretStore(),
    openExternal: () => Promise.resolve(),
    deliverFile: () => Promise.reject(new Error('no files in the sync bench')),
    // The worker closes the sandbox itself.
    startDemoSandbox: () => Promise.resolve({ ...sandbox, close: () => Promise.resolve() }),
  })
  const handlers = createHandlers(services)

  const handle = async (request: WorkerRequest): Promise<unknown> => {
    switch (request.op) {
      case 'call':
        return dispatch(handlers, request.channel, request.args, {
          host: 'web',
          signal: new AbortController().signal,
        })
      case 'served':
        return served
      case 'clearServed':
        served.length = 0
        return null
      case 'snapshot':
        return sandbox.snapshot()
      case 'close':
        unsubscribe('http.server.response.finish', listener)
        await services.dispose()
        await sandbox.close()
        return null
    }
  }
  port.on('message', (request: WorkerRequest) => {
    handle(request).then(
      (value) => port.postMessage({ id: request.id, ok: true, value } satisfies WorkerReply),
      (error: unknown) =>
        port.postMessage({
          id: request.id,
          ok: false,
          error: error instanceof Error ? error.message : String(error),
        } satisfies WorkerReply),
    )
  })
  port.postMessage({
    id: 0,
    ok: true,
    value: {
      url: sandbox.url,
      secret: sandbox.secret,
      appToken: sandbox.appToken,
      storeIds: sandbox.storeIds,
      ...(sandbox.controlToken !== undefined ? { controlToken: sandbox.controlToken } : {}),
      rateLimits: { route: { ...sandbox.rateLimits.route }, exact: { ...sandbox.rateLimits.exact } },
      historyCount: sandbox.data.history.length,
    },
  } satisfies WorkerReply)
}

void main()
