import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { buildListRequest } from '../../../../../electron/services/api-client/list-request'
import { PaymentApiClient } from '../../../../../electron/services/api-client/payment-api-client'
import {
  parseRateLimitHeaders,
  parseRetryAfter,
} from '../../../../../electron/services/api-client/rate-limit-headers'
import { DesktopApiError } from '../../../../../electron/shared/errors'
import { FakeClock } from '../support/fake-clock'
import {
  CANARY_CREDENTIALS,
  canaryLeaks,
  chargeItem,
  fakeFetch,
  historyItem,
  json,
  STORE_A,
  type SeenRequest,
} from '../support/fixtures'

const BASE = 'https://api.example.test/v1'

function client(respond: (req: SeenRequest) => Response | Promise<Response>, clock = new FakeClock()) {
  const { fetch, seen } = fakeFetch(respond)
  return { api: new PaymentApiClient({ clock, fetch, timeoutMs: 30_000 }), seen, clock }
}

async function call(api: PaymentApiClient, query: unknown, signal = new AbortController().signal) {
  return api.list(buildListRequest(BASE, query), CANARY_CREDENTIALS, signal)
}

function invalid(query: unknown): DesktopApiError {
  try {
    buildListRequest(BASE, query)
  } catch (error) {
    if (error instanceof DesktopApiError) return error
    throw error
  }
  throw new Error('expected the query to be refused')
}

describe('building requests (seed §4)', () => {
  it('puts the four operations under the base URL, with the filters and paging in a fixed order', () => {
    expect(buildListRequest(BASE, { resource: 'transaction_history' }).url).toBe(
      `${BASE}/transaction_history`,
    )
    expect(buildListRequest(BASE, { resource: 'charges' }).url).toBe(`${BASE}/charges`)
    const store = buildListRequest(BASE, {
      resource: 'transaction_history',
      storeId: STORE_A,
      filters: { type: 'refund', mode: 'live', from: '2026-10-01T00:00:00Z', search: 'TARO YAMADA' },
      paging: { limit: 100, cursor_direction: 'desc' },
    })
    expect(store.url).toBe(
      `${BASE}/stores/${STORE_A}/transaction_history?cursor_direction=desc&from=2026-10-01T00%3A00%3A00Z` +
        '&limit=100&mode=live&search=TARO+YAMADA&type=refund',
    )
    expect(store.route).toBe('GET /v1/stores/{storeId}/transaction_history')
    expect(store.exact).toBe(`GET /v1/stores/${STORE_A}/transaction_history?${store.url.split('?')[1]}`)
    const charges = buildListRequest(BASE, {
      resource: 'charges',
      storeId: STORE_A,
      filters: {
        last_four: '4242',
        name: 'TARO',
        exp_month: 12,
        exp_year: 2030,
        amount_from: 100,
        currency: 'JPY',
      },
    })
    expect(charges.url).toBe(
      `${BASE}/stores/${STORE_A}/charges?amount_from=100&currency=JPY&exp_month=12&exp_year=2030&last_four=4242&name=TARO`,
    )
  })

  it('names the offending field of every bad filter, before anything is sent', () => {
    const cases: [unknown, string][] = [
      [{ resource: 'charges', filters: { last_four: '4242' } }, 'filters.name'],
      [{ resource: 'charges', filters: { transaction_token_id: 'abc' } }, 'filters.transaction_token_id'],
      [{ resource: 'charges', filters: { currency: 'YEN!' } }, 'filters.currency'],
      [{ resource: 'charges', filters: { amount_from: 500, amount_to: 100 } }, 'filters.amount_to'],
      [{ resource: 'charges', filters: { amount_from: -1 } }, 'filters.amount_from'],
      [
        { resource: 'charges', filters: { exp_month: 13, last_four: '1', name: 'x', exp_year: 2030 } },
        'filters.exp_month',
      ],
      [{ resource: 'transaction_history', filters: { from: '2026-10-01' } }, 'filters.from'],
      [{ resource: 'transaction_history', filters: { to: 'yesterday' } }, 'filters.to'],
      [{ resource: 'transaction_history', filters: { type: 'payout' } }, 'filters.type'],
      [{ resource: 'transaction_history', filters: { mode: 'sandbox' } }, 'filters.mode'],
      [{ resource: 'transaction_history', storeId: '../../admin' }, 'storeId'],
      [{ resource: 'transaction_history', paging: { limit: 1000 } }, 'paging.limit'],
      [{ resource: 'transaction_history', paging: { cursor: 'https://evil.example/' } }, 'paging.cursor'],
      [{ resource: 'refunds' }, 'resource'],
    ]
    for (const [query, field] of cases) {
      const error = invalid(query)
      expect(error.code, field).toBe('invalid_argument')
      expect(
        error.details?.fields?.map((f) => f.path),
        field,
      ).toContain(field)
      expect(error.message, field).toContain(field)
    }
  })

  it('refuses charge-only filters on history (and the reverse), naming them', () => {
    const error = invalid({ resource: 'transaction_history', filters: { last_four: '4242' } })
    expect(error.message).toContain('last_four')
  })

  it('keeps a base URL path prefix and never leaves it', () => {
    expect(buildListRequest('http://127.0.0.1:4010', { resource: 'charges' }).url).toBe(
      'http://127.0.0.1:4010/charges',
    )
    const built = buildListRequest('https://api.example.test/prefix', {
      resource: 'charges',
      storeId: STORE_A.toUpperCase(),
    })
    expect(new URL(built.url).pathname).toBe(`/prefix/stores/${STORE_A}/charges`)
  })
})

describe('PaymentApiClient: one try', () => {
  it('sends Authorization: Bearer <secret>.<appToken>, Content-type on history only, and no redirects', async () => {
    const { api, seen } = client(() => json({ items: [], has_more: false }))
    await call(api, { resource: 'transaction_history' })
    await call(api, { resource: 'charges' })
    expect(seen[0]?.headers['authorization']).toBe(
      `Bearer ${CANARY_CREDENTIALS.secret}.${CANARY_CREDENTIALS.appToken}`,
    )
    expect(seen[0]?.headers['content-type']).toBe('application/json')
    expect(seen[1]?.headers['content-type']).toBeUndefined()
    expect(seen.every((r) => r.method === 'GET' && r.redirect === 'manual')).toBe(true)
  })

  it('validates items, keeps unknown fields, copes without total_hits, and reads the rate-limit headers', async () => {
    const item = { ...historyItem(), brand_new_field: { x: 1 } }
    const { api } = client(() =>
      json({ items: [item], has_more: true, next_page_hint: 'x' }, 200, {
        'X-Requests-Per-Minute-Route': '12000',
        'X-Remaining-Requests-Route': '299',
        'X-Requests-Per-Minute-Exact': '1200',
        'X-Remaining-Requests-Exact': '99',
      }),
    )
    const result = await call(api, { resource: 'transaction_history' })
    expect(result).toMatchObject({
      ok: true,
      value: { resource: 'transaction_history', hasMore: true, quarantined: [] },
      limits: { route: { perMinute: 12000, remaining: 299 }, exact: { perMinute: 1200, remaining: 99 } },
    })
    if (result.ok) {
      expect(result.value.items[0]).toEqual(item)
      expect(result.value.totalHits).toBeUndefined()
    }
  })

  it('quarantines an item with a bad accounting core, naming the field, and keeps the others', async () => {
    const items = [chargeItem(), chargeItem(), chargeItem(), { ...chargeItem(), charged_amount: '1000' }]
    const { api } = client(() => json({ items, has_more: false, total_hits: 4 }))
    const result = await call(api, { resource: 'charges' })
    if (!result.ok) throw new Error(result.error.message)
    expect(result.value.items).toEqual(items.slice(0, 3))
    expect(result.value.quarantined.map((q) => q.reason)).toEqual([
      'charged_amount: expected number, received string',
    ])
  })

  it('names the path of a broken envelope, and does not retry it', async () => {
    const { api } = client(() => json({ items: [chargeItem()], has_more: 'no' }))
    const result = await call(api, { resource: 'charges' })
    expect(result).toMatchObject({ ok: false, retry: 'never', error: { code: 'malformed_response' } })
    if (!result.ok) {
      expect(result.error.message).toContain('has_more: expected boolean')
      expect(result.error.details?.fields?.[0]?.path).toBe('has_more')
    }
  })

  it('treats unparseable JSON (a body cut short) as malformed but worth a retry', async () => {
    const { api } = client(() => new Response('{"items":[{"store_id":', { status: 200 }))
    expect(await call(api, { resource: 'charges' })).toMatchObject({
      ok: false,
      retry: 'backoff',
      error: { code: 'malformed_response' },
    })
  })

  it('classifies every HTTP failure, with retry advice', async () => {
    const cases: [Response, string, string][] = [
      [json({ code: 'INVALID_CREDENTIALS', errors: [] }, 401), 'unauthorized', 'never'],
      [json({ code: 'FORBIDDEN' }, 403), 'forbidden', 'never'],
      [json({ code: 'NOT_FOUND' }, 404), 'not_found', 'never'],
      [
        json({ code: 'VALIDATION_ERROR', errors: [{ field: 'from', reason: 'INVALID_FORMAT' }] }, 400),
        'invalid_argument',
        'never',
      ],
      [json({ code: 'RATE_LIMIT_EXCEEDED' }, 429, { 'Retry-After': '2' }), 'rate_limited', 'rate_limited'],
      [json({ code: 'INTERNAL_SERVER_ERROR' }, 500), 'server_error', 'backoff'],
      [new Response('<html>Bad gateway</html>', { status: 502 }), 'server_error', 'backoff'],
      [new Response(null, { status: 503 }), 'server_error', 'backoff'],
      [
        new Response(null, { status: 302, headers: { Location: 'https://evil.example/' } }),
        'server_error',
        'never',
      ],
      [new Response(null, { status: 408 }), 'timeout', 'backoff'],
    ]
    for (const [response, code, retry] of cases) {
      const { api } = client(() => response)
      const result = await call(api, { resource: 'charges' })
      expect(result, code).toMatchObject({
        ok: false,
        retry,
        error: { code, details: { status: response.status } },
      })
    }
  })

  it('says what to do about 403 OUTDATED_APP_TOKEN and INVALID_PERMISSIONS, keeping the code as reason', async () => {
    const cases: [string, RegExp][] = [
      ['OUTDATED_APP_TOKEN', /app token is outdated: create a new app token/],
      ['INVALID_PERMISSIONS', /store-scoped token reads only its own stores/],
    ]
    for (const [code, hint] of cases) {
      const { api } = client(() => json({ status: 'error', code, errors: [] }, 403))
      const result = await call(api, { resource: 'transaction_history' })
      expect(result, code).toMatchObject({
        ok: false,
        retry: 'never',
        error: { code: 'forbidden', details: { status: 403, reason: code } },
      })
      if (!result.ok) expect(result.error.message).toMatch(hint)
    }
    const { api } = client(() => json({ status: 'error', code: 'SOMETHING_ELSE' }, 403))
    const other = await call(api, { resource: 'charges' })
    if (!other.ok)
      expect(other.error.message).toBe(
        'These credentials may not list this resource (HTTP 403: SOMETHING_ELSE).',
      )
  })

  it('never retries IMPROPER_AUTH, even when it comes as a server error', async () => {
    for (const status of [400, 401, 500, 503]) {
      const { api } = client(() => json({ status: 'error', code: 'IMPROPER_AUTH', errors: [] }, status))
      expect(await call(api, { resource: 'charges' }), String(status)).toMatchObject({
        ok: false,
        retry: 'never',
        error: { code: 'unauthorized', details: { status, reason: 'IMPROPER_AUTH' } },
      })
    }
  })

  it('passes the server field list of a 400 on, and the Retry-After of a 429', async () => {
    const { api } = client(() =>
      json(
        { status: 'error', code: 'VALIDATION_ERROR', errors: [{ field: 'from', reason: 'INVALID_FORMAT' }] },
        400,
      ),
    )
    const result = await call(api, { resource: 'charges' })
    expect(result).toMatchObject({
      ok: false,
      error: {
        details: { reason: 'VALIDATION_ERROR', fields: [{ path: 'from', message: 'INVALID_FORMAT' }] },
      },
    })
    const limited = await call(client(() => json({}, 429, { 'Retry-After': '1.5' })).api, {
      resource: 'charges',
    })
    expect(limited).toMatchObject({
      ok: false,
      limits: { retryAfterMs: 1500 },
      error: { details: { retryAfterMs: 1500 } },
    })
  })

  it('says which host was unreachable and why, and what a TLS failure was', async () => {
    const failing = (code: string) => () =>
      Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) }))
    const refused = await call(client(failing('ECONNREFUSED')).api, { resource: 'charges' })
    expect(refused).toMatchObject({
      ok: false,
      retry: 'backoff',
      reachedServer: false,
      error: { code: 'network' },
    })
    if (!refused.ok) expect(refused.error.message).toMatch(/Unreachable host.*api\.example\.test.*refused/)
    const dns = await call(client(failing('ENOTFOUND')).api, { resource: 'charges' })
    if (!dns.ok) expect(dns.error.message).toContain('host name not found')
    const tls = await call(client(failing('CERT_HAS_EXPIRED')).api, { resource: 'charges' })
    expect(tls).toMatchObject({
      ok: false,
      retry: 'never',
      error: { code: 'tls', details: { reason: 'CERT_HAS_EXPIRED' } },
    })
    if (!tls.ok) expect(tls.error.message).toContain('expired')
    const nested = () =>
      Promise.reject(
        new TypeError('fetch failed', {
          cause: new AggregateError([Object.assign(new Error(), { code: 'EHOSTUNREACH' })]),
        }),
      )
    expect(await call(client(nested).api, { resource: 'charges' })).toMatchObject({
      error: { code: 'network', details: { reason: 'EHOSTUNREACH' } },
    })
  })

  it('times out on the injected clock, and tells a timeout from a cancellation', async () => {
    const hang = (req: SeenRequest) =>
      new Promise<Response>((_, reject) =>
        req.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      )
    const { api, clock } = client(hang)
    const pending = call(api, { resource: 'charges' })
    await clock.advance(29_999)
    let settled = false
    void pending.then(() => (settled = true))
    await clock.advance(0)
    expect(settled).toBe(false)
    await clock.advance(1)
    expect(await pending).toMatchObject({ ok: false, retry: 'backoff', error: { code: 'timeout' } })

    const controller = new AbortController()
    const cancelled = call(client(hang).api, { resource: 'charges' }, controller.signal)
    controller.abort()
    expect(await cancelled).toMatchObject({ ok: false, retry: 'never', error: { code: 'cancelled' } })
  })
})

describe('no error carries a credential', () => {
  it('scrubs the secret and app token from everything, even when the server echoes them', async () => {
    const auth = `Bearer ${CANARY_CREDENTIALS.secret}.${CANARY_CREDENTIALS.appToken}`
    const echo = (status: number) => (req: SeenRequest) =>
      json(
        {
          code: 'INVALID_CREDENTIALS',
          message: req.headers['authorization'],
          errors: [
            { field: req.headers['authorization'], reason: CANARY_CREDENTIALS.secret },
            { field: 'token', reason: CANARY_CREDENTIALS.appToken },
          ],
        },
        status,
      )
    const responders: ((req: SeenRequest) => Response | Promise<Response>)[] = [
      echo(400),
      echo(401),
      echo(403),
      echo(404),
      echo(429),
      echo(500),
      () => new Response(auth, { status: 200 }),
      () => json({ items: [{ store_id: auth }], has_more: false }),
      () =>
        Promise.reject(
          new TypeError(auth, { cause: Object.assign(new Error(auth), { code: 'ECONNRESET' }) }),
        ),
      () =>
        Promise.reject(
          new TypeError(auth, {
            cause: Object.assign(new Error(auth), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
          }),
        ),
      () => Promise.reject(new Error(auth)),
    ]
    for (const [i, respond] of responders.entries()) {
      for (const resource of ['charges', 'transaction_history'] as const) {
        const result = await call(client(respond).api, { resource })
        // A bad item no longer refuses its page: it is quarantined, and must not carry the credential either.
        const quarantines = i === 7
        expect(result.ok, `case ${i}`).toBe(quarantines)
        if (result.ok) {
          expect(result.value.quarantined, `case ${i}`).toHaveLength(1)
          expect(canaryLeaks(JSON.stringify(result.value)), `case ${i}`).toEqual([])
        } else {
          const shape = JSON.stringify(result.error.toShape())
          expect(canaryLeaks(shape), `case ${i}: ${shape}`).toEqual([])
          expect(canaryLeaks(result.error.stack ?? ''), `case ${i} stack`).toEqual([])
        }
      }
    }
  })
})

describe('no successful page carries a credential', () => {
  it('scrubs the header, secret, app token and their encoded forms from a page that echoes them', async () => {
    const header = `Bearer ${CANARY_CREDENTIALS.secret}.${CANARY_CREDENTIALS.appToken}`
    const { api } = client((req) =>
      json({
        items: [
          historyItem({
            metadata: {
              order_no: 'A-1',
              echoed: req.headers['authorization'],
              in_a_url: `https://shop.example/?auth=${encodeURIComponent(header)}`,
              lower_hex: encodeURIComponent(header).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
              basic: Buffer.from(header).toString('base64'),
              [`key ${CANARY_CREDENTIALS.secret}`]: 'a field name',
              nested: [{ token: CANARY_CREDENTIALS.appToken.split('.')[2] }],
            },
          }),
        ],
        has_more: false,
      }),
    )
    const result = await call(api, { resource: 'transaction_history' })
    expect(result.ok).toBe(true)
    const text = JSON.stringify(result)
    expect(canaryLeaks(text)).toEqual([])
    expect(text).not.toContain(Buffer.from(header).toString('base64').slice(0, 40))
    if (!result.ok) return
    const metadata = result.value.items[0]?.metadata ?? {}
    // Only the credentials go; the rest of each text stays.
    expect(metadata['order_no']).toBe('A-1')
    expect(metadata['echoed']).toBe('[redacted]')
    expect(metadata['in_a_url']).toBe('https://shop.example/?auth=[redacted]')
    expect(metadata['key [redacted]']).toBe('a field name')
  })

  it('scrubs echoes in another case, spaced out, full-width or escaped, keeping the text around them', async () => {
    const { secret, appToken } = CANARY_CREDENTIALS
    const spaced = (text: string, by: string) => [...text].join(by)
    const fullWidth = (text: string) =>
      text.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))
    const { api } = client(() =>
      json({
        items: [
          historyItem({
            merchant_name: `Shop ${secret.toLowerCase()}`,
            store_name: spaced(secret, ' '),
            metadata: {
              order_no: 'A-1',
              upper_token: appToken.toUpperCase(),
              dashed: `before ${spaced(secret.toUpperCase(), '-')} after`,
              wide: fullWidth(secret),
              escaped: spaced(secret, '%20'),
              jwt_part: spaced(appToken.split('.')[1]?.toLowerCase() ?? '', '.'),
              [`key ${secret.toLowerCase()}`]: 'a field name',
            },
          }),
        ],
        has_more: false,
      }),
    )
    const result = await call(api, { resource: 'transaction_history' })
    if (!result.ok) throw new Error(result.error.message)
    expect(canaryLeaks(JSON.stringify(result))).toEqual([])
    const item = result.value.items[0]
    expect(item?.merchant_name).toBe('Shop [redacted]')
    expect(item?.store_name).toBe('[redacted]')
    const metadata = item?.metadata ?? {}
    expect(metadata['order_no']).toBe('A-1')
    expect(metadata['dashed']).toBe('before [redacted] after')
    expect(metadata['key [redacted]']).toBe('a field name')
  })

  it('withholds an error whose field list or text holds a credential in another case or spaced out', async () => {
    const { secret, appToken } = CANARY_CREDENTIALS
    const { api } = client(() =>
      json(
        {
          code: 'INVALID_REQUEST',
          errors: [
            { field: [...secret.toLowerCase()].join(' '), reason: 'unknown' },
            { field: 'token', reason: `bad ${appToken.slice(-20).toUpperCase()}` },
          ],
        },
        400,
      ),
    )
    const result = await call(api, { resource: 'charges' })
    if (result.ok) throw new Error('expected a refusal')
    const shape = JSON.stringify(result.error.toShape())
    expect(canaryLeaks(shape), shape).toEqual([])
    expect(shape).toContain('[redacted]')
  })

  it('drops a quarantined text that holds only a piece of a credential, which no whole form matches', async () => {
    // 12 characters from inside the secret: not the secret, its header or an encoding of either.
    const piece = CANARY_CREDENTIALS.secret.slice(4, 16)
    const { api } = client(() =>
      json({ items: [chargeItem(), { ...chargeItem(), charged_amount: `x${piece}x` }], has_more: false }),
    )
    const result = await call(api, { resource: 'charges' })
    if (!result.ok) throw new Error(result.error.message)
    expect(result.value.quarantined).toHaveLength(1)
    expect(JSON.stringify(result.value.quarantined)).not.toContain(piece)
    expect(JSON.stringify(result.value.quarantined)).toContain('[redacted]')
  })

  it('refuses a page nested deeper than the bound, unread and without a retry', async () => {
    let deep = '"x"'
    for (let i = 0; i < 200_000; i++) deep = `{"a":${deep}}`
    const body = `{"items":[${JSON.stringify(historyItem()).replace('{"order_no":"A-1"}', deep)}],"has_more":false}`
    const { api } = client(() => new Response(body, { status: 200 }))
    const result = await call(api, { resource: 'transaction_history' })
    expect(result).toMatchObject({
      ok: false,
      retry: 'never',
      error: { code: 'malformed_response', details: { reason: 'nested_too_deep' } },
    })
  })
})

describe('rate-limit headers', () => {
  it('reads the seed headers and Retry-After in seconds or as a date, and ignores nonsense', () => {
    const now = Date.UTC(2026, 9, 1)
    const headers = new Headers({
      'X-Requests-Per-Minute-Route': '1200',
      'X-Remaining-Requests-Route': '29',
      'X-Remaining-Requests-Exact': 'lots',
    })
    expect(parseRateLimitHeaders(headers, now)).toEqual({ route: { perMinute: 1200, remaining: 29 } })
    expect(parseRetryAfter('3', now)).toBe(3000)
    expect(parseRetryAfter('0.25', now)).toBe(250)
    expect(parseRetryAfter(new Date(now + 5000).toUTCString(), now)).toBe(5000)
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter('99999999', now)).toBe(600_000)
  })
})
