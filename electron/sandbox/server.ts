/**
 * The payment API sandbox as a real HTTP server on the loopback interface: the four list operations of the
 * seed with authentication, filters, paging, rate limits and fault injection, plus an optional control
 * endpoint that changes the data while it runs. `startSandbox` is used by the CLI, the app's demo
 * connection, every test and every benchmark. See README.md for every convention chosen.
 *
 * This file starts one sandbox and holds its state; the options and their checks are in server-options.ts,
 * the API's GETs in list-handler.ts (pages: list-pages.ts), the answers and injected faults in answers.ts,
 * the control endpoint in control.ts, the payouts at the payout clock in payout-state.ts.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { errorBody, send } from './answers'
import { makeAppToken } from './auth'
import { handleControl } from './control'
import { Dataset } from './dataset'
import { Faults } from './faults'
import { handleList } from './list-handler'
import type { SandboxShape } from './model'
import { payoutState } from './payout-state'
import type { PayoutBook } from './payouts'
import { SandboxRateLimits } from './rate-limits'
import { chargeItem, historyItem, type Names } from './serialize'
import type { SandboxContext, SandboxStats } from './server-context'
import {
  checkOptions,
  checkPayoutOptions,
  type AppTokenScope,
  type AppTokenState,
  type SandboxOptions,
} from './server-options'
import type { AppliedLateChange } from './variety'

export { DEFAULT_SHAPE } from './model'
export { makeAppToken } from './auth'
export type { SandboxStats } from './server-context'
export {
  DEFAULT_FROM,
  DEFAULT_LATE_CHANGE_EVERY_MS,
  DEFAULT_TO,
  type AppTokenScope,
  type AppTokenState,
  type SandboxOptions,
} from './server-options'

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

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const { now, seed, shape, lateChangeEveryMs, indexLagMs, fromUs, toUs, storeCount, records, scale } =
    checkOptions(options)
  const token: SandboxContext['token'] = {
    state: options.appTokenState ?? 'valid',
    scope: options.appTokenScope ?? 'merchant',
  }

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
  const { readings, minTransferPayout, transferSchedule } = checkPayoutOptions(options)
  const { payoutBook, payoutContext, withLedgerId } = payoutState(data, {
    seed,
    shape,
    fromUs,
    toUs,
    now,
    readings,
    minTransferPayout,
    transferSchedule,
    ...(options.payoutClock ? { payoutClock: options.payoutClock } : {}),
  })
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

  const ctx: SandboxContext = {
    seed,
    shape,
    now,
    data,
    names,
    stats,
    faults,
    limits,
    scale,
    rateLimited: options.rateLimit !== false,
    secret,
    expectedAuth,
    controlToken,
    token,
    catchUp,
    payoutContext,
    withLedgerId,
  }

  const server = createServer((req, res) => {
    stats.requests++
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid')
    const work = url.pathname.startsWith('/__control/')
      ? handleControl(ctx, req, res, url)
      : req.method === 'GET'
        ? handleList(ctx, req, res, url)
        : Promise.resolve(send(ctx, res, 405, errorBody('METHOD_NOT_ALLOWED'), { Allow: 'GET' }))
    work.catch((error: unknown) => {
      if (!res.headersSent) send(ctx, res, 500, errorBody('INTERNAL_SERVER_ERROR'))
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
      if (change.state) token.state = change.state
      if (change.scope) token.scope = change.scope
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
