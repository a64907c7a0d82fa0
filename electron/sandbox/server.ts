/**
 * The payment API sandbox as a real HTTP server on the loopback interface: the four list operations of the
 * seed with authentication, filters, paging, rate limits and fault injection, plus an optional control
 * endpoint that changes the data while it runs. `startSandbox` is used by the CLI, the app's demo
 * connection, every test and every benchmark. See README.md for every convention chosen.
 */
import { Buffer } from 'node:buffer'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { Dataset, SandboxInputError } from './dataset'
import { BAD_ITEM_VARIANTS, Faults, type FaultOptions } from './faults'
import {
  DEFAULT_SHAPE,
  SANDBOX_SHAPES,
  usFromIso,
  type SandboxShape,
  type ChargeStatus,
  type HistoryEntry,
  type RefundStatus,
  type SandboxCharge,
} from './model'
import { roll } from './prng'
import { parseChargeQuery, parseHistoryQuery, type FieldError, type ParseResult } from './query'
import { retryAfterValue, SandboxRateLimits } from './rate-limits'
import { answerPayout, matchPayoutRoute, type BankAccountSpec, type PayoutContext } from './payout-routes'
import {
  buildPayouts,
  CARRY_OVER_READINGS,
  ledgerIdOf,
  LEDGER_AMOUNT_READINGS,
  TRANSFER_FEE_READINGS,
  uuidOf,
  type PayoutBook,
  type PayoutOptions,
  DEFAULT_MIN_TRANSFER_PAYOUT,
} from './payouts'
import { chargeItem, historyItem, type Names } from './serialize'
import type { AppliedLateChange } from './variety'

export { DEFAULT_SHAPE } from './model'

/** What the app token may do: `outdated` answers 403 OUTDATED_APP_TOKEN to everything. */
export type AppTokenState = 'valid' | 'outdated'
/** `store`: a store-scoped token, refused (403 INVALID_PERMISSIONS) on the all-stores paths. */
export type AppTokenScope = 'merchant' | 'store'

/**
 * Varied shape: one queued late change is applied every this many ms of the sandbox's clock. Slow enough
 * that a test's sandbox (minutes at most) meets none unless it asks; the demo shows one every few syncs.
 */
export const DEFAULT_LATE_CHANGE_EVERY_MS = 120_000

export interface SandboxOptions {
  /** 0 (default): a free port. */
  port?: number
  /** `seed`: the seed's single shape; `varied`: the real service's variety (README.md). Default DEFAULT_SHAPE. */
  shape?: SandboxShape
  /**
   * Varied shape: apply one queued late change to an old record every this many ms of `now()` since the
   * start (default DEFAULT_LATE_CHANGE_EVERY_MS); 0: only on demand (control endpoint, applyLateChanges).
   */
  lateChangeEveryMs?: number
  /**
   * Records added while running (growth, control endpoint, `data.addCharge`) appear in the lists only up
   * to this long after their `created_on` (seeded per record), like the real service's search index.
   * Default 0: at once. Any shape.
   */
  indexLagMs?: number
  /** 403 faults of the app token (default valid, merchant-wide); changeable while running. */
  appTokenState?: AppTokenState
  appTokenScope?: AppTokenScope
  seed?: number
  stores?: number
  records?: number
  /** ISO-8601; the generated records' range, `from` inclusive, `to` exclusive. */
  from?: string
  to?: string
  secret?: string
  appToken?: string
  /** Multiplies the seed's rate limits (burst and per minute). */
  rateScale?: number
  /** false: no rate limits at all (the headers are still sent). */
  rateLimit?: boolean
  /** New records (mostly charges, some refunds and status changes) per minute while running. */
  growthPerMinute?: number
  /** Enables the control endpoint (`/__control/*`), protected by `controlToken` (generated if absent). */
  control?: boolean
  controlToken?: string
  faults?: FaultOptions
  /** Clock for rate limits, storms and the time of new records (tests may inject one). */
  now?: () => number
  /** The readings the public sources leave open (README.md, "Payouts"); each has a default. */
  payouts?: PayoutOptions
  /**
   * The payout clock (ms): periods close, transfers appear and their statuses change when it passes
   * them. Default: `now()`, but never before 20 days after `to`, so the last generated month is paid.
   */
  payoutClock?: () => number
}

export interface SandboxStats {
  requests: number
  byStatus: Record<string, number>
  dropped: number
  truncated: number
  badItems: number
  /** Varied shape: 429 answers sent with no body at all. */
  bodiless429: number
}

export interface RunningSandbox {
  url: string
  secret: string
  appToken: string
  storeIds: string[]
  controlToken?: string
  data: Dataset
  shape: SandboxShape
  stats: SandboxStats
  rateLimits: SandboxRateLimits
  /** Applies the next `count` queued late changes now (as the clock would, only sooner). */
  applyLateChanges(count: number): AppliedLateChange[]
  /** Changes the app token's 403 faults while running (a token revoked or re-scoped mid-sync). */
  setAppToken(state: { state?: AppTokenState; scope?: AppTokenScope }): void
  /** The ready line's content (what the CLI prints). */
  readyInfo(): Record<string, unknown>
  /** The payouts at the payout clock: transfers, ledgers, status changes (ground truth of payout tests). */
  payouts(): PayoutBook
  /** Every record as the API serves it, oldest first: the ground truth a synced cache must equal. */
  snapshot(): { history: Record<string, unknown>[]; charges: Record<string, unknown>[] }
  close(): Promise<void>
}

export const DEFAULT_FROM = '2026-07-01T00:00:00Z'
export const DEFAULT_TO = '2026-11-01T00:00:00Z'

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** A JWT-shaped app token (the sandbox does not check signatures, only that the whole value matches). */
export function makeAppToken(subject: string): string {
  const iat = Math.floor(Date.now() / 1000)
  return `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ iss: 'closebook-sandbox', sub: subject, iat, exp: 4102444800 })}.${randomBytes(24).toString('base64url')}`
}

function sameText(a: string, b: string): boolean {
  const ab = Buffer.from(a)
  const bb = Buffer.from(b)
  return ab.length === bb.length && timingSafeEqual(ab, bb)
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1'
}

interface RouteMatch {
  resource: 'transaction_history' | 'charges'
  storeId?: string
  template: string
}

const STORE_PATH = /^\/stores\/([^/]+)\/(transaction_history|charges)$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function matchRoute(path: string): RouteMatch | undefined {
  if (path === '/transaction_history' || path === '/charges')
    return { resource: path.slice(1) as RouteMatch['resource'], template: path }
  const m = STORE_PATH.exec(path)
  if (!m) return undefined
  return {
    resource: m[2] as RouteMatch['resource'],
    storeId: decodeURIComponent(m[1] as string),
    template: `/stores/{storeId}/${m[2]}`,
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const now = options.now ?? Date.now
  const seed = options.seed ?? 42
  const shape = options.shape ?? DEFAULT_SHAPE
  if (!(SANDBOX_SHAPES as readonly string[]).includes(shape))
    throw new SandboxInputError('shape', `must be one of ${SANDBOX_SHAPES.join(', ')}`)
  const lateChangeEveryMs = options.lateChangeEveryMs ?? DEFAULT_LATE_CHANGE_EVERY_MS
  if (!(lateChangeEveryMs >= 0)) throw new SandboxInputError('lateChangeEveryMs', 'must be 0 or more')
  const indexLagMs = options.indexLagMs ?? 0
  if (!(indexLagMs >= 0)) throw new SandboxInputError('indexLagMs', 'must be 0 or more')
  let tokenState: AppTokenState = options.appTokenState ?? 'valid'
  let tokenScope: AppTokenScope = options.appTokenScope ?? 'merchant'
  const fromUs = usFromIso(options.from ?? DEFAULT_FROM)
  const toUs = usFromIso(options.to ?? DEFAULT_TO)
  if (fromUs === undefined) throw new SandboxInputError('from', 'must be an ISO-8601 timestamp')
  if (toUs === undefined) throw new SandboxInputError('to', 'must be an ISO-8601 timestamp')
  if (toUs <= fromUs) throw new SandboxInputError('to', 'must be after from')
  const storeCount = options.stores ?? 3
  const records = options.records ?? 5000
  if (!Number.isInteger(storeCount) || storeCount < 1 || storeCount > 1000)
    throw new SandboxInputError('stores', 'must be a whole number from 1 to 1000')
  if (!Number.isInteger(records) || records < 0 || records > 5_000_000)
    throw new SandboxInputError('records', 'must be a whole number from 0 to 5000000')
  const scale = options.rateScale ?? 1
  if (!(scale > 0)) throw new SandboxInputError('rateScale', 'must be a positive number')
  if (options.secret !== undefined && !/^[\x21-\x2d\x2f-\x7e]{1,1024}$/.test(options.secret))
    throw new SandboxInputError('secret', 'must be 1–1024 visible ASCII characters without a dot')
  if (
    options.appToken !== undefined &&
    !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(options.appToken)
  )
    throw new SandboxInputError('appToken', 'must be a JWT (three base64url parts)')

  const data = new Dataset({ seed, stores: storeCount, records, fromUs, toUs, shape })
  data.indexLagUs = Math.round(indexLagMs * 1000)
  const secret = options.secret ?? `sk_sandbox_${randomBytes(18).toString('hex')}`
  const appToken = options.appToken ?? makeAppToken(data.merchant.id)
  const expectedAuth = `Bearer ${secret}.${appToken}`
  const controlToken = options.control
    ? (options.controlToken ?? randomBytes(24).toString('base64url'))
    : undefined
  const limits = new SandboxRateLimits(scale, now)
  const faults = new Faults(seed, options.faults ?? {}, now())
  const storeNames = new Map(data.stores.map((s) => [s.id, s.name]))
  const names: Names = { merchant: data.merchant, storeName: (id) => storeNames.get(id) ?? '' }
  const stats: SandboxStats = {
    requests: 0,
    byStatus: {},
    dropped: 0,
    truncated: 0,
    badItems: 0,
    bodiless429: 0,
  }
  const sockets = new Set<Socket>()
  const startedAt = now()
  const readings = {
    ledgerAmounts: options.payouts?.ledgerAmounts ?? 'net',
    transferFee: options.payouts?.transferFee ?? 'manual_ledger',
    carryOver: options.payouts?.carryOver ?? 'no_transfer',
  } as const
  if (!LEDGER_AMOUNT_READINGS.includes(readings.ledgerAmounts))
    throw new SandboxInputError('ledgerAmounts', `must be one of ${LEDGER_AMOUNT_READINGS.join(', ')}`)
  if (!TRANSFER_FEE_READINGS.includes(readings.transferFee))
    throw new SandboxInputError('transferFee', `must be one of ${TRANSFER_FEE_READINGS.join(', ')}`)
  if (!CARRY_OVER_READINGS.includes(readings.carryOver))
    throw new SandboxInputError('carryOver', `must be one of ${CARRY_OVER_READINGS.join(', ')}`)
  const minTransferPayout = options.payouts?.minTransferPayout ?? DEFAULT_MIN_TRANSFER_PAYOUT
  if (!Number.isInteger(minTransferPayout) || minTransferPayout < 0)
    throw new SandboxInputError('minTransferPayout', 'must be a whole number, 0 or more')
  const lastPaidMs = Math.floor(toUs / 1000) + 20 * 86_400_000
  const payoutClock = options.payoutClock ?? (() => Math.max(now(), lastPaidMs))
  const payoutFromUs = fromUs
  const fxAccountId = uuidOf(`bank|${seed}|FX`)
  const bankAccounts: BankAccountSpec[] = [
    { id: uuidOf(`bank|${seed}|JPY`), currency: 'JPY', primary: true },
    { id: fxAccountId, currency: 'USD', primary: false },
  ]
  let book: { version: number; value: PayoutBook; builtAt: number } | undefined
  /** Rebuilt only when the data changed or the clock passed the book's next event. */
  function payoutBook(): PayoutBook {
    const clockMs = payoutClock()
    if (book && book.version === data.version && clockMs < book.value.nextEventMs && clockMs >= book.builtAt)
      return book.value
    const value = buildPayouts(data, {
      seed,
      fromUs: payoutFromUs,
      readings,
      minTransferPayout,
      clockMs,
      bankAccountFor: (currency) => bankAccounts.find((b) => b.currency === currency)?.id ?? fxAccountId,
    })
    book = { version: data.version, value, builtAt: clockMs }
    return value
  }
  const payoutContext = (): PayoutContext => ({
    book: payoutBook(),
    merchant: data.merchant,
    bankAccounts,
    createdUs: payoutFromUs,
    minTransferPayout,
  })
  /** Varied shape: a charge carries the id of its ledger once it has one. */
  function withLedgerId(item: Record<string, unknown>, charge: SandboxCharge): Record<string, unknown> {
    if (shape !== 'varied') return item
    const hasLedger =
      charge.mode === 'live' &&
      charge.status === 'successful' &&
      (charge.updatedUs ?? charge.createdUs) <= payoutClock() * 1000
    if (hasLedger) item['ledger_id'] = ledgerIdOf(seed, charge.id)
    return item
  }
  let lateChangesByClock = 0

  /**
   * Brings the data to the clock: lists the records whose index lag has passed, and (varied shape) applies
   * the late changes the clock has reached (one per `lateChangeEveryMs`).
   */
  function catchUp(): void {
    data.flushIndex(now() * 1000)
    if (shape !== 'varied' || lateChangeEveryMs <= 0) return
    const due = Math.floor((now() - startedAt) / lateChangeEveryMs)
    for (let i = 0; lateChangesByClock < due && data.lateChanges.length > 0 && i < 10_000; i++) {
      data.applyLateChanges(1, now() * 1000)
      lateChangesByClock++
    }
  }

  /** A 429. Varied shape: never a `Retry-After`, and on some answers no body at all. */
  function tooMany(
    res: ServerResponse,
    headers: Record<string, string>,
    retryAfter: string,
    key: string,
    n: number,
  ) {
    if (shape === 'seed')
      return send(res, 429, errorBody('TOO_MANY_REQUESTS'), { ...headers, 'Retry-After': retryAfter })
    if (roll(seed, '429-body', key, n) < 0.5) return send(res, 429, errorBody('TOO_MANY_REQUESTS'), headers)
    stats.byStatus[429] = (stats.byStatus[429] ?? 0) + 1
    stats.bodiless429++
    res.writeHead(429, { 'Content-Length': '0', 'Cache-Control': 'no-store', ...headers })
    res.end()
  }

  function send(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    const text = JSON.stringify(body)
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(text)),
      'Cache-Control': 'no-store',
      ...headers,
    })
    res.end(text)
  }

  const errorBody = (code: string, errors: FieldError[] = []) => ({ status: 'error', code, errors })

  async function handleList(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = matchRoute(url.pathname)
    const payoutRoute = route ? undefined : matchPayoutRoute(url.pathname)
    const auth = req.headers.authorization
    const authorized = typeof auth === 'string' && sameText(auth, expectedAuth)
    const namespace = authorized ? 'merchant' : `anonymous:${req.socket.remoteAddress ?? ''}`
    const routeKey = `GET ${route?.template ?? payoutRoute?.template ?? url.pathname}`
    const exactKey = `GET ${url.pathname}${url.search}`
    const verdict =
      options.rateLimit === false
        ? { allowed: true, headers: limits.peek(namespace, routeKey, exactKey) }
        : limits.take(namespace, routeKey, exactKey)
    const headers: Record<string, string> = { ...verdict.headers }

    const attempt = faults.attempt(exactKey)
    const delay = faults.delayMs(exactKey, attempt)
    if (delay > 0) await new Promise((r) => setTimeout(r, delay))

    if (!verdict.allowed)
      return tooMany(
        res,
        headers,
        retryAfterValue(verdict.retryAfterSeconds ?? 1, scale !== 1),
        exactKey,
        attempt,
      )
    if (auth === undefined) return send(res, 401, errorBody('AUTH_HEADER_MISSING'), headers)
    if (!authorized) {
      const wellFormed =
        typeof auth === 'string' &&
        /^Bearer [^.\s]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(auth)
      if (!wellFormed) return send(res, 401, errorBody('IMPROPER_AUTH'), headers)
      // Varied: the right secret with another app token names the token (reference "Errors and limits").
      const rightSecret = typeof auth === 'string' && auth.startsWith(`Bearer ${secret}.`)
      const code = shape === 'varied' && rightSecret ? 'INVALID_APP_TOKEN' : 'INVALID_CREDENTIALS'
      return send(res, 401, errorBody(code), headers)
    }
    if (tokenState === 'outdated') return send(res, 403, errorBody('OUTDATED_APP_TOKEN'), headers)
    const stormLeft = faults.stormLeftMs(now())
    if (stormLeft > 0) return tooMany(res, headers, retryAfterValue(stormLeft / 1000), exactKey, attempt)
    if (payoutRoute) {
      // Payouts are the merchant's: a store-scoped token may not read them (README.md, "Payouts").
      if (tokenScope === 'store') return send(res, 403, errorBody('INVALID_PERMISSIONS'), headers)
      catchUp()
      const answer = answerPayout(payoutRoute, url.searchParams, payoutContext())
      if (answer.status === 404) return send(res, 404, errorBody('NOT_FOUND'), headers)
      if (answer.status === 400) return send(res, 400, errorBody('VALIDATION_ERROR', answer.errors), headers)
      if (!answer.list) return send(res, 200, answer.body, headers)
      return finishList(req, res, headers, exactKey, attempt, answer.list.items, answer.body)
    }
    if (!route) return send(res, 404, errorBody('NOT_FOUND'), headers)
    if (tokenScope === 'store' && route.storeId === undefined)
      return send(res, 403, errorBody('INVALID_PERMISSIONS'), headers)
    catchUp()
    if (route.storeId !== undefined) {
      if (!UUID.test(route.storeId))
        return send(
          res,
          400,
          errorBody('VALIDATION_ERROR', [{ field: 'storeId', reason: 'must be a UUID' }]),
          headers,
        )
      if (!data.hasStore(route.storeId.toLowerCase())) return send(res, 404, errorBody('NOT_FOUND'), headers)
    }
    const storeId = route.storeId?.toLowerCase()

    let items: Record<string, unknown>[]
    let hasMore: boolean
    let totalHits: number
    let nextCursor: string | undefined
    if (route.resource === 'transaction_history') {
      const parsed: ParseResult<HistoryEntry> = parseHistoryQuery(url.searchParams)
      if (!parsed.ok) return send(res, 400, errorBody('VALIDATION_ERROR', parsed.errors), headers)
      const { query } = parsed
      let after: HistoryEntry | undefined
      if (query.paging.cursor) {
        after = data.findHistory(query.paging.cursor)
        if (!after || (storeId && after.storeId !== storeId))
          return send(
            res,
            400,
            errorBody('VALIDATION_ERROR', [
              { field: 'cursor', reason: 'no record with this id in this list' },
            ]),
            headers,
          )
      }
      const page = data.page({
        list: data.historyList(storeId),
        window: query.window,
        ...(query.match ? { match: query.match } : {}),
        countKey: `h|${storeId ?? '*'}|${query.key}`,
        limit: query.paging.limit,
        direction: query.paging.direction,
        ...(after ? { after } : {}),
      })
      items = page.items.map((e) => historyItem(e, names, shape))
      const last = page.items[page.items.length - 1]
      if (shape === 'varied' && page.hasMore && last) nextCursor = last.id
      hasMore = page.hasMore
      totalHits = page.totalHits
    } else {
      const parsed: ParseResult<SandboxCharge> = parseChargeQuery(url.searchParams)
      if (!parsed.ok) return send(res, 400, errorBody('VALIDATION_ERROR', parsed.errors), headers)
      const { query } = parsed
      let after: SandboxCharge | undefined
      if (query.paging.cursor) {
        after = data.findCharge(query.paging.cursor)
        if (!after || (storeId && after.storeId !== storeId))
          return send(
            res,
            400,
            errorBody('VALIDATION_ERROR', [
              { field: 'cursor', reason: 'no charge with this id in this list' },
            ]),
            headers,
          )
      }
      const page = data.page({
        list: data.chargeList(storeId),
        window: query.window,
        ...(query.match ? { match: query.match } : {}),
        countKey: `c|${storeId ?? '*'}|${query.key}`,
        limit: query.paging.limit,
        direction: query.paging.direction,
        ...(after ? { after } : {}),
      })
      items = page.items.map((c) => withLedgerId(chargeItem(c, names, shape), c))
      hasMore = page.hasMore
      totalHits = page.totalHits
    }

    // Varied: `total_hits` only when no cursor is given (node SDK `CRUDAOSItemsResponse`).
    const body =
      shape === 'seed'
        ? { items, has_more: hasMore, total_hits: totalHits }
        : {
            items,
            has_more: hasMore,
            ...(url.searchParams.has('cursor') ? {} : { total_hits: totalHits }),
            ...(nextCursor ? { next_cursor: nextCursor } : {}),
          }
    finishList(req, res, headers, exactKey, attempt, items, body)
  }

  /** A list answer with the request's faults applied (`items` is the array inside `body`). */
  function finishList(
    req: IncomingMessage,
    res: ServerResponse,
    headers: Record<string, string>,
    exactKey: string,
    attempt: number,
    items: Record<string, unknown>[],
    body: Record<string, unknown>,
  ): void {
    const fault = faults.enabled ? faults.decide(exactKey, attempt, items.length) : { kind: 'none' as const }
    if (fault.kind === 'drop') {
      stats.dropped++
      req.socket.destroy()
      return
    }
    if (fault.kind === 'fail')
      return send(
        res,
        fault.status,
        errorBody(fault.status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_SERVER_ERROR'),
        headers,
      )
    if (fault.kind === 'bad-item') {
      stats.badItems++
      BAD_ITEM_VARIANTS[fault.variant]?.(items[fault.index] as Record<string, unknown>)
    }
    if (fault.kind === 'truncate') {
      stats.truncated++
      const text = JSON.stringify(body)
      const cut = Buffer.from(text).subarray(0, Math.max(1, Math.floor(Buffer.byteLength(text) / 2)))
      stats.byStatus[200] = (stats.byStatus[200] ?? 0) + 1
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': String(cut.length),
        ...headers,
      })
      res.end(cut)
      return
    }
    send(res, 200, body, headers)
  }

  async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > 65_536) throw new SandboxInputError('body', 'must be at most 64 KiB')
      chunks.push(chunk)
    }
    if (size === 0) return {}
    let value: unknown
    try {
      value = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      throw new SandboxInputError('body', 'must be a JSON object')
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new SandboxInputError('body', 'must be a JSON object')
    return value as Record<string, unknown>
  }

  function optionalString(body: Record<string, unknown>, field: string): string | undefined {
    const value = body[field]
    if (value === undefined) return undefined
    if (typeof value !== 'string') throw new SandboxInputError(field, 'must be a string')
    return value
  }

  /** The control endpoint: loopback callers with the control token only. */
  async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const token = req.headers['x-control-token']
    if (
      !controlToken ||
      !isLoopback(req.socket.remoteAddress) ||
      typeof token !== 'string' ||
      !sameText(token, controlToken)
    )
      return send(res, 403, errorBody('FORBIDDEN'))
    if (url.pathname === '/__control/state' && req.method === 'GET') {
      catchUp()
      return send(res, 200, {
        charges: data.charges.length,
        history: data.history.length,
        version: data.version,
        shape,
        lateChangesApplied: data.appliedLateChanges.length,
        lateChangesLeft: data.lateChanges.length,
      })
    }
    if (req.method !== 'POST') return send(res, 405, errorBody('METHOD_NOT_ALLOWED'))
    try {
      const body = await readJson(req)
      const at = now() * 1000
      if (url.pathname === '/__control/charges') {
        const count = body['count'] ?? 1
        if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 10_000)
          throw new SandboxInputError('count', 'must be a whole number from 1 to 10000')
        const storeId = optionalString(body, 'storeId')
        if (storeId !== undefined && !data.hasStore(storeId))
          throw new SandboxInputError('storeId', 'no such store')
        const status = optionalString(body, 'status') as ChargeStatus | undefined
        const added = []
        for (let i = 0; i < count; i++) {
          const c = data.addCharge(at, { ...(storeId ? { storeId } : {}), ...(status ? { status } : {}) })
          added.push({ id: c.id, storeId: c.storeId, status: c.status })
        }
        return send(res, 200, { charges: added })
      }
      if (url.pathname === '/__control/refunds') {
        const chargeId = optionalString(body, 'chargeId')
        if (!chargeId) throw new SandboxInputError('chargeId', 'required')
        const amount = body['amount']
        if (amount !== undefined && typeof amount !== 'number')
          throw new SandboxInputError('amount', 'must be a number')
        const status = optionalString(body, 'status') as RefundStatus | undefined
        const refund = data.addRefund(chargeId, at, {
          ...(amount !== undefined ? { amount } : {}),
          ...(status ? { status } : {}),
        })
        return send(res, 200, {
          refund: { id: refund.id, chargeId: refund.chargeId, amount: refund.amount, status: refund.status },
        })
      }
      if (url.pathname === '/__control/status') {
        const id = optionalString(body, 'id')
        const status = optionalString(body, 'status')
        if (!id) throw new SandboxInputError('id', 'required')
        if (!status) throw new SandboxInputError('status', 'required')
        data.setStatus(id, status)
        return send(res, 200, { ok: true })
      }
      if (url.pathname === '/__control/late-changes') {
        const count = body['count'] ?? 1
        if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 100_000)
          throw new SandboxInputError('count', 'must be a whole number from 1 to 100000')
        const applied = data.applyLateChanges(count, at)
        return send(res, 200, { applied, left: data.lateChanges.length })
      }
      if (url.pathname === '/__control/app-token') {
        const state = optionalString(body, 'state')
        const scope = optionalString(body, 'scope')
        if (state !== undefined && state !== 'valid' && state !== 'outdated')
          throw new SandboxInputError('state', 'must be valid or outdated')
        if (scope !== undefined && scope !== 'merchant' && scope !== 'store')
          throw new SandboxInputError('scope', 'must be merchant or store')
        if (state) tokenState = state
        if (scope) tokenScope = scope
        return send(res, 200, { state: tokenState, scope: tokenScope })
      }
      return send(res, 404, errorBody('NOT_FOUND'))
    } catch (error) {
      if (error instanceof SandboxInputError)
        return send(
          res,
          400,
          errorBody('VALIDATION_ERROR', [
            { field: error.field, reason: error.message.replace(/^[^:]+: /, '') },
          ]),
        )
      throw error
    }
  }

  const server = createServer((req, res) => {
    stats.requests++
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid')
    const work = url.pathname.startsWith('/__control/')
      ? handleControl(req, res, url)
      : req.method === 'GET'
        ? handleList(req, res, url)
        : Promise.resolve(send(res, 405, errorBody('METHOD_NOT_ALLOWED'), { Allow: 'GET' }))
    work.catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, errorBody('INTERNAL_SERVER_ERROR'))
      else res.destroy()
      console.error('[sandbox] request failed:', error instanceof Error ? error.message : String(error))
    })
  })
  // Longer than any client's idle keep-alive (undici: 4 s), so a client never reuses a socket the sandbox is
  // closing at that instant (ECONNRESET on a loaded machine). close() destroys open sockets anyway.
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  // Loopback only: the sandbox is never reachable from another machine.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo

  let growthTimer: NodeJS.Timeout | undefined
  const perMinute = options.growthPerMinute ?? 0
  if (perMinute > 0) {
    const startedAt = now()
    let grown = 0
    growthTimer = setInterval(
      () => {
        const due = Math.floor(((now() - startedAt) * perMinute) / 60_000) - grown
        for (let i = 0; i < Math.min(due, 10_000); i++) data.grow(now() * 1000)
        grown += Math.max(0, due)
      },
      Math.max(20, Math.min(1000, 60_000 / perMinute)),
    )
    growthTimer.unref()
  }

  const running: RunningSandbox = {
    url: `http://127.0.0.1:${port}`,
    secret,
    appToken,
    storeIds: data.stores.map((s) => s.id),
    ...(controlToken ? { controlToken } : {}),
    data,
    shape,
    stats,
    rateLimits: limits,
    applyLateChanges: (count) => data.applyLateChanges(count, now() * 1000),
    setAppToken: (change) => {
      if (change.state) tokenState = change.state
      if (change.scope) tokenScope = change.scope
    },
    readyInfo: () => ({
      url: running.url,
      secret,
      appToken,
      storeIds: running.storeIds,
      ...(controlToken ? { controlToken } : {}),
    }),
    payouts: () => {
      catchUp()
      return payoutBook()
    },
    snapshot: () => {
      catchUp()
      return {
        history: data.history.map((e) => historyItem(e, names, shape)),
        charges: data.charges.map((c) => withLedgerId(chargeItem(c, names, shape), c)),
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (growthTimer) clearInterval(growthTimer)
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      }),
  }
  return running
}
