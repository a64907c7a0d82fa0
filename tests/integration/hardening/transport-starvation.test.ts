/**
 * The web host's transport never starves. A browser opens at most six connections per
 * host for all its tabs; here an http.Agent with six sockets plays the browser, and calls that wait "for
 * a rate limit" (until cancelled) are more than six. Cancel, a quick call and another tab's call must
 * still be answered at once, and the waiting calls must end with Cancel.
 */
import { Agent, request } from 'node:http'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CHANNELS } from '../../../electron/shared/channels'
import { DesktopApiError } from '../../../electron/shared/errors'
import type { Handlers } from '../../../electron/services/handlers/types'
import { startWebHost, type WebHost } from '../../../electron/web/web-host'
import { createHttpTransport } from '../../../src/platform/http-transport'

/** The given handlers; every other channel fails loudly. */
function handlersWith(given: Partial<Handlers>): Handlers {
  const all: Record<string, unknown> = {}
  for (const channel of CHANNELS)
    all[channel] =
      given[channel] ?? (() => Promise.reject(new DesktopApiError('internal', `unexpected ${channel}`)))
  return all as Handlers
}

const TOKEN = 'starvation-token-0123456789'
const CONNECTION = '00000000-0000-4000-8000-000000000001'
let dir: string
let host: WebHost | undefined
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-starve-'))
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>Closebook</title>')
})
afterEach(async () => {
  await host?.close()
  await rm(dir, { recursive: true, force: true })
})

/** A fetch over an agent with six sockets per host, as Chromium has. */
function browserFetch(agent: Agent, port: number): typeof fetch {
  return ((path: string, init: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: '127.0.0.1',
          port,
          path,
          method: init.method ?? 'GET',
          headers: { ...(init.headers as Record<string, string>), Host: `127.0.0.1:${port}` },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0 })))
        },
      )
      req.on('error', reject)
      req.end(typeof init.body === 'string' ? init.body : undefined)
    })) as typeof fetch
}

function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    work,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)),
  ])
}

describe('web host transport under a rate-limit wait', () => {
  it('answers Cancel, quick calls and a second tab while a dozen calls wait', async () => {
    const waiting = new Set<() => void>()
    let aborted = 0
    const handlers = handlersWith({
      // A call stuck behind a rate limit: it ends only when cancelled (or its caller goes away).
      'connections:test': (_args, ctx) =>
        new Promise((_resolve, reject) => {
          const cancel = (): void => {
            waiting.delete(cancel)
            reject(new DesktopApiError('cancelled', 'The call was cancelled.'))
          }
          waiting.add(cancel)
          ctx.signal.addEventListener('abort', () => {
            aborted++
            cancel()
          })
        }),
      'api:cancelJob': () => {
        const dropped = waiting.size
        for (const cancel of [...waiting]) cancel()
        return Promise.resolve({ dropped })
      },
      'connections:list': () => Promise.resolve([]),
    })
    host = await startWebHost({ port: 0, rendererDir: dir, handlers, token: TOKEN })
    const agent = new Agent({ keepAlive: true, maxSockets: 6 })
    const fetchImpl = browserFetch(agent, host.port)
    const tab = createHttpTransport(TOKEN, fetchImpl)
    const stuck = Array.from({ length: 12 }, () => tab('connections:test', { id: CONNECTION }))
    await within(
      (async () => {
        while (waiting.size < 12) await new Promise((r) => setTimeout(r, 10))
      })(),
      5_000,
      'starting twelve waiting calls',
    )

    // A quick call, a second tab's page load and its call: all answered while the twelve wait.
    await expect(within(tab('connections:list', {}), 2_000, 'a quick call')).resolves.toEqual({
      ok: true,
      value: [],
    })
    const page = await within(fetchImpl('/', { method: 'GET' }), 2_000, "a second tab's page load")
    expect(page.status).toBe(200)
    const secondTab = createHttpTransport(TOKEN, fetchImpl)
    await expect(within(secondTab('connections:list', {}), 2_000, "a second tab's call")).resolves.toEqual({
      ok: true,
      value: [],
    })

    // Cancel gets through, and the twelve end with it.
    await expect(within(tab('api:cancelJob', { jobId: 'sync-1' }), 2_000, 'Cancel')).resolves.toEqual({
      ok: true,
      value: { dropped: 12 },
    })
    const outcomes = await within(Promise.all(stuck), 5_000, 'the cancelled calls ending')
    for (const outcome of outcomes) expect(outcome).toMatchObject({ ok: false, error: { code: 'cancelled' } })
    expect(aborted).toBe(0)
    agent.destroy()
  })

  it('aborts a pending call whose tab stopped asking for it', async () => {
    let aborted = false
    const handlers = handlersWith({
      'connections:test': (_args, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => {
            aborted = true
            reject(new Error('aborted'))
          }),
        ),
    })
    host = await startWebHost({
      port: 0,
      rendererDir: dir,
      handlers,
      token: TOKEN,
      timing: { callHoldMs: 20, waitHoldMs: 50, abandonMs: 200 },
    })
    const agent = new Agent({ keepAlive: true, maxSockets: 6 })
    const fetchImpl = browserFetch(agent, host.port)
    const answer = await fetchImpl('/api/call/connections:test', {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ args: { id: CONNECTION } }),
    })
    expect(answer.status).toBe(202)
    const { pending } = (await answer.json()) as { pending: string }
    expect(pending).toMatch(/^[\w-]{16}$/)
    await within(
      (async () => {
        while (!aborted) await new Promise((r) => setTimeout(r, 20))
      })(),
      3_000,
      'abandoning the call',
    )
    const late = await fetchImpl('/api/wait', {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ids: [pending] }),
    })
    expect(await late.json()).toEqual({ outcomes: {}, unknown: [pending] })
    agent.destroy()
  })

  it('delivers a call that went pending while a wait was already held without waiting out the hold', async () => {
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const handlers = handlersWith({
      // Stuck for good: keeps the tab's wait request busy.
      'connections:test': (_args, ctx) =>
        new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('x')))),
      // Done a little after it went pending.
      'connections:list': () => released.then(() => []),
    })
    host = await startWebHost({
      port: 0,
      rendererDir: dir,
      handlers,
      token: TOKEN,
      timing: { callHoldMs: 50, waitHoldMs: 10_000, abandonMs: 60_000 },
    })
    const agent = new Agent({ keepAlive: true, maxSockets: 6 })
    const tab = createHttpTransport(TOKEN, browserFetch(agent, host.port))
    void tab('connections:test', { id: CONNECTION })
    await new Promise((r) => setTimeout(r, 200)) // the tab now holds a wait naming only that call
    const started = Date.now()
    const listing = tab('connections:list', {})
    await new Promise((r) => setTimeout(r, 150)) // pending by now
    release()
    await expect(listing).resolves.toEqual({ ok: true, value: [] })
    expect(Date.now() - started).toBeLessThan(2_000)
    agent.destroy()
  })
})
