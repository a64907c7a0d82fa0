/**
 * The issue-6 channels end to end through `dispatch` (argument and result checked against the contract),
 * with a fake fetch and a fake clock: connections, vault status, listPage, queue state, cancel.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createAppServices, createHandlers } from '../../../../electron/services/app-services'
import { dispatch } from '../../../../electron/services/dispatcher'
import type { CallContext } from '../../../../electron/services/handlers/types'
import { InMemorySecretStore, type SecretStore } from '../../../../electron/services/vault/secret-store'
import type { CallOutcome } from '../../../../electron/shared/errors'
import { FakeClock, flush } from './support/fake-clock'
import {
  CANARY_CREDENTIALS,
  canaryLeaks,
  chargeItem,
  fakeFetch,
  historyItem,
  json,
  STORE_A,
  STORE_B,
  type SeenRequest,
} from './support/fixtures'
import { UnavailableSecretStore } from './support/secret-stores'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

/** A fresh context per call, as the hosts make one. */
const freshCtx = (): CallContext => ({ host: 'web', signal: new AbortController().signal })

function setup(
  respond: (req: SeenRequest) => Response | Promise<Response>,
  secretStore: SecretStore = new InMemorySecretStore(),
) {
  const dataDir = mkdtempSync(join(tmpdir(), 'closebook-gw-'))
  dirs.push(dataDir)
  const clock = new FakeClock()
  const { fetch, seen } = fakeFetch(respond)
  const services = createAppServices({
    host: 'web',
    version: '0.0.0',
    platform: 'linux',
    dataDir,
    secretStore,
    openExternal: () => Promise.resolve(),
    deliverFile: () => Promise.reject(new Error('not used')),
    fetch,
    clock,
  })
  const handlers = createHandlers(services)
  const outcomes: CallOutcome[] = []
  const call = async (
    channel: string,
    args: unknown,
    context: CallContext = freshCtx(),
  ): Promise<CallOutcome> => {
    const outcome = await dispatch(handlers, channel, args, context)
    outcomes.push(outcome)
    return outcome
  }
  return { services, call, seen, clock, outcomes }
}

const createArgs = {
  label: 'Yamada Shoten',
  baseUrl: 'https://api.example.test',
  secret: CANARY_CREDENTIALS.secret,
  appToken: CANARY_CREDENTIALS.appToken,
  storeIds: [STORE_A, STORE_B],
  timeZone: 'Asia/Tokyo',
}

async function created(call: (c: string, a: unknown) => Promise<CallOutcome>): Promise<string> {
  const outcome = await call('connections:create', createArgs)
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.error))
  return (outcome.value as { id: string }).id
}

describe('connections:* and vault:status through dispatch', () => {
  it('creates, lists, updates and deletes; no result ever holds a credential', async () => {
    const { call, outcomes } = setup(() => json({ items: [], has_more: false }))
    const id = await created(call)
    const listed = await call('connections:list', {})
    expect(listed).toMatchObject({ ok: true, value: [{ id, hasCredentials: true, isDemo: false }] })
    expect(await call('connections:update', { id, baseUrl: 'https://elsewhere.example.test' })).toMatchObject(
      {
        ok: false,
        error: { code: 'invalid_argument', details: { fields: [{ path: 'credentials' }] } },
      },
    )
    expect(await call('connections:update', { id, label: 'Renamed' })).toMatchObject({
      ok: true,
      value: { label: 'Renamed' },
    })
    expect(await call('vault:status', {})).toEqual({ ok: true, value: { available: true } })
    expect(await call('connections:delete', { id })).toEqual({
      ok: true,
      value: { deleted: true, credentialsRemoved: true },
    })
    expect(canaryLeaks(JSON.stringify(outcomes))).toEqual([])
  })

  it('refuses to create with no keychain: no_keychain, in plain words', async () => {
    const { call } = setup(() => json({}), new UnavailableSecretStore())
    const outcome = await call('connections:create', createArgs)
    expect(outcome).toMatchObject({ ok: false, error: { code: 'no_keychain' } })
    expect(await call('vault:status', { refresh: true })).toMatchObject({
      ok: true,
      value: { available: false },
    })
  })

  it('connections:test reads each store on its own path and reports merchant, stores and modes', async () => {
    const byStore: Record<string, ReturnType<typeof historyItem>[]> = {
      [STORE_A]: [
        historyItem({ store_name: 'Shibuya', mode: 'live' }),
        historyItem({ store_name: 'Shibuya', mode: 'test' }),
      ],
      [STORE_B]: [historyItem({ store_name: 'Umeda', mode: 'test', store_id: STORE_B })],
    }
    const { call, seen } = setup((req) => {
      const store = Object.keys(byStore).find((s) => req.url.includes(`/stores/${s}/`)) ?? ''
      return json({ items: byStore[store] ?? [], has_more: true, total_hits: store === STORE_A ? 1000 : 234 })
    })
    const id = await created(call)
    const outcome = await call('connections:test', { id })
    expect(outcome).toEqual({
      ok: true,
      value: {
        ok: true,
        merchantName: 'Yamada Shoten',
        storeNames: ['Shibuya', 'Umeda'],
        modes: ['live', 'test'],
        totalHits: 1234,
        stores: [
          { storeId: STORE_A, ok: true, storeName: 'Shibuya', totalHits: 1000 },
          { storeId: STORE_B, ok: true, storeName: 'Umeda', totalHits: 234 },
        ],
        appTokenExpiresAt: null,
        testedAt: '2026-10-01T00:00:00.000Z',
      },
    })
    expect(seen.map((r) => r.url)).toEqual([
      `https://api.example.test/stores/${STORE_A}/transaction_history?limit=100`,
      `https://api.example.test/stores/${STORE_B}/transaction_history?limit=100`,
    ])
  })

  it('connections:test without store ids reads the all-stores path once', async () => {
    const { call, seen } = setup(() => json({ items: [historyItem()], has_more: false }))
    const outcome = await call('connections:create', { ...createArgs, storeIds: [] })
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.error))
    const tested = await call('connections:test', { id: (outcome.value as { id: string }).id })
    expect(tested).toMatchObject({ ok: true, value: { stores: [], storeNames: ['Shibuya'] } })
    expect(seen.map((r) => r.url)).toEqual(['https://api.example.test/transaction_history?limit=100'])
  })

  it('connections:test reports a store the token may not read, and fails with the code when none can be read', async () => {
    const forbidden = (code: string) => json({ status: 'error', code, errors: [] }, 403)
    const partly = setup((req) =>
      req.url.includes(STORE_B)
        ? forbidden('INVALID_PERMISSIONS')
        : json({ items: [historyItem()], has_more: false }),
    )
    const id = await created(partly.call)
    const outcome = await partly.clock.run(partly.call('connections:test', { id }))
    expect(outcome).toMatchObject({
      ok: true,
      value: {
        stores: [
          { storeId: STORE_A, ok: true },
          {
            storeId: STORE_B,
            ok: false,
            error: { code: 'forbidden', reason: 'INVALID_PERMISSIONS', status: 403 },
          },
        ],
      },
    })
    const none = setup(() => forbidden('OUTDATED_APP_TOKEN'))
    const noneId = await created(none.call)
    const failed = await none.clock.run(none.call('connections:test', { id: noneId }))
    expect(failed).toMatchObject({
      ok: false,
      error: { code: 'forbidden', details: { status: 403, reason: 'OUTDATED_APP_TOKEN' } },
    })
    if (!failed.ok) expect(failed.error.message).toMatch(/outdated/i)
    // A 403 is not retried: one request per store.
    expect(none.seen).toHaveLength(2)
    expect(canaryLeaks(JSON.stringify([...partly.outcomes, ...none.outcomes]))).toEqual([])
  })

  it('connections:test gives the precise reason: bad secret (401), unreachable host, TLS', async () => {
    const reasons: [() => Response | Promise<Response>, string, RegExp][] = [
      [() => json({ code: 'INVALID_CREDENTIALS' }, 401), 'unauthorized', /secret or app token is wrong/],
      [
        () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })),
        'network',
        /Unreachable host/,
      ],
      [
        () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'CERT_HAS_EXPIRED' } })),
        'tls',
        /certificate has expired/,
      ],
    ]
    for (const [respond, code, message] of reasons) {
      const { call, clock, outcomes } = setup(respond)
      const id = await created(call)
      const outcome = await clock.run(call('connections:test', { id }))
      expect(outcome, code).toMatchObject({ ok: false, error: { code } })
      if (!outcome.ok) expect(outcome.error.message).toMatch(message)
      expect(canaryLeaks(JSON.stringify(outcomes))).toEqual([])
    }
  })
})

describe('api:listPage, api:queueState, api:cancelJob through dispatch', () => {
  it('returns validated items of one page, keeping unknown fields', async () => {
    const items = [{ ...chargeItem(), new_field: 'kept' }]
    const { call, seen } = setup(() => json({ items, has_more: false, total_hits: 1 }))
    const connectionId = await created(call)
    const outcome = await call('api:listPage', {
      connectionId,
      resource: 'charges',
      storeId: STORE_A,
      filters: { mode: 'live', currency: 'USD' },
      paging: { limit: 50 },
      priority: 'background',
      jobId: 'sync-1',
    })
    expect(outcome).toEqual({
      ok: true,
      value: {
        resource: 'charges',
        items,
        hasMore: false,
        totalHits: 1,
        fetchedAt: '2026-10-01T00:00:00.000Z',
        cursorAfter: items[0]?.id,
        // No rate-limit headers: the seed's Route limit is what the scheduler assumes.
        routePerMinute: 1200,
      },
    })
    expect(seen[0]?.url).toBe(
      `https://api.example.test/stores/${STORE_A}/charges?currency=USD&limit=50&mode=live`,
    )
  })

  it("gives each page the Route rate the service's headers allow, for a sync's time left", async () => {
    const { call } = setup(() =>
      json({ items: [historyItem()], has_more: false }, 200, {
        'X-Requests-Per-Minute-Route': '300',
        'X-Remaining-Requests-Route': '29',
        'X-Requests-Per-Minute-Exact': '120',
        'X-Remaining-Requests-Exact': '9',
      }),
    )
    const connectionId = await created(call)
    const outcome = await call('api:listPage', { connectionId, resource: 'transaction_history' })
    expect(outcome.ok && (outcome.value as { routePerMinute?: number }).routePerMinute).toBe(300)
  })

  it('refuses bad filters naming the field, before any request is made', async () => {
    const { call, seen } = setup(() => json({ items: [], has_more: false }))
    const connectionId = await created(call)
    const outcome = await call('api:listPage', {
      connectionId,
      resource: 'charges',
      filters: { last_four: '4242', from: 'last week' },
    })
    expect(outcome).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
    if (!outcome.ok) {
      const paths = outcome.error.details?.fields?.map((f) => f.path)
      expect(paths).toEqual(
        expect.arrayContaining(['filters.from', 'filters.name', 'filters.exp_month', 'filters.exp_year']),
      )
    }
    expect(seen).toHaveLength(0)
  })

  it('shows queued and in-flight calls per job, and cancelJob drops them all with cancelled', async () => {
    const { call, clock } = setup(
      (req) =>
        new Promise<Response>((_, reject) =>
          req.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        ),
    )
    const connectionId = await created(call)
    const pages = Array.from({ length: 12 }, (_, i) =>
      call('api:listPage', {
        connectionId,
        resource: 'transaction_history',
        paging: { limit: 10 + i },
        priority: 'background',
        jobId: 'sync-7',
      }),
    )
    await flush()
    const state = await call('api:queueState', {})
    expect(state).toMatchObject({
      ok: true,
      value: { queued: 4, inFlight: 8, byJob: [{ jobId: 'sync-7', queued: 4, inFlight: 8 }] },
    })
    expect(await call('api:cancelJob', { jobId: 'sync-7' })).toEqual({ ok: true, value: { dropped: 12 } })
    const results = await Promise.all(pages)
    expect(results.every((r) => !r.ok && r.error.code === 'cancelled')).toBe(true)
    expect(await call('api:queueState', {})).toMatchObject({
      ok: true,
      value: { queued: 0, inFlight: 0, byJob: [] },
    })
    await clock.advance(60_000) // no timer left behind fires into a cancelled call
  })

  it("drops a call when the caller's signal aborts (window closed)", async () => {
    const { call } = setup(
      (req) =>
        new Promise<Response>((_, reject) =>
          req.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        ),
    )
    const connectionId = await created(call)
    const controller = new AbortController()
    const page = call(
      'api:listPage',
      { connectionId, resource: 'charges' },
      { host: 'electron', signal: controller.signal },
    )
    await flush()
    controller.abort()
    expect(await page).toMatchObject({ ok: false, error: { code: 'cancelled' } })
  })

  it('retries a 5xx and a 429 behind the caller, who sees only the page', async () => {
    const answers = [
      () => json({ code: 'INTERNAL_SERVER_ERROR' }, 503),
      () => json({ code: 'RATE_LIMIT_EXCEEDED' }, 429, { 'Retry-After': '1' }),
      () => json({ items: [historyItem()], has_more: false }),
    ]
    const { call, clock, services } = setup(() => (answers.shift() ?? answers[2]!)())
    const connectionId = await created(call)
    const outcome = await clock.run(call('api:listPage', { connectionId, resource: 'transaction_history' }))
    expect(outcome).toMatchObject({ ok: true, value: { items: [{ type: 'charge' }] } })
    expect(services.gateway.queueState().totals).toMatchObject({
      sent: 3,
      succeeded: 1,
      http429: 1,
      retries: 2,
    })
  })

  it('deleting a connection drops its queued calls', async () => {
    const { call, services } = setup(
      (req) =>
        new Promise<Response>((_, reject) =>
          req.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        ),
    )
    const connectionId = await created(call)
    const page = call('api:listPage', { connectionId, resource: 'charges' })
    await flush()
    await call('connections:delete', { id: connectionId })
    expect(await page).toMatchObject({ ok: false, error: { code: 'cancelled' } })
    expect(services.gateway.queueState()).toMatchObject({ queued: 0, inFlight: 0 })
  })
})
