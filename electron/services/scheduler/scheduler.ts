/**
 * The one queue every payment-API call goes through (one instance per app). It keeps the client under the
 * server's rate limits (see rate-limiter.ts), puts interactive calls before background sync, shares the
 * budget round-robin among jobs, honours 429s by re-queueing at the head, retries 5xx and network errors
 * with bounded exponential backoff and full jitter, fails fast on the rest, and lets a job be cancelled.
 * It knows nothing of HTTP: each call is an `attempt` function that reports what the response said.
 */
import { DesktopApiError } from '../../shared/errors'
import type { Clock } from './clock'
import { RateLimiter, type LimitKeys, type RateLimitInfo, type Ticket } from './rate-limiter'

export type Priority = 'interactive' | 'background'
const PRIORITIES: readonly Priority[] = ['interactive', 'background']

/** What one try of a call produced, and whether trying again could help. */
export type AttemptResult<T> =
  | { ok: true; value: T; limits?: RateLimitInfo }
  | {
      ok: false
      error: DesktopApiError
      limits?: RateLimitInfo
      /** `rate_limited`: a 429, wait and re-queue; `backoff`: transient (5xx, network); `never`: fail now. */
      retry: 'never' | 'backoff' | 'rate_limited'
      /** false when no request reached the server (e.g. connection refused): the budget was not spent. */
      reachedServer?: boolean
    }

export interface ScheduleRequest<T> extends LimitKeys {
  priority: Priority
  /** Calls of one job share a lane; lanes take turns. A cancelled job drops its queued calls. */
  jobId?: string
  signal?: AbortSignal
  /** Tries for transient failures (429s are not counted: they are the server asking us to wait). */
  maxAttempts?: number
  attempt(signal: AbortSignal): Promise<AttemptResult<T>>
}

export interface SchedulerOptions {
  clock: Clock
  /** Calls in flight at once, across all connections. */
  maxInFlight?: number
  maxAttempts?: number
  backoffBaseMs?: number
  backoffMaxMs?: number
  /** A call that meets this many 429s in a row fails with rate_limited rather than waiting forever. */
  max429PerCall?: number
  /** In [0, 1); injectable so the jitter is testable. */
  random?: () => number
  limiter?: RateLimiter
}

export interface JobState {
  jobId: string
  queued: number
  inFlight: number
  /** Epoch ms until which this job's next call waits for a rate limit or a backoff; null when not waiting. */
  waitingUntil: number | null
}

export interface QueueState {
  queued: number
  inFlight: number
  waitingUntil: number | null
  byJob: JobState[]
  totals: {
    sent: number
    succeeded: number
    failed: number
    http429: number
    retries: number
    cancelled: number
  }
}

interface Pending {
  request: ScheduleRequest<unknown>
  laneKey: string
  resolve(value: unknown): void
  reject(error: unknown): void
  failures: number
  rateLimited: number
  notBefore: number
  controller?: AbortController
  ticket?: Ticket
  settled: boolean
  detach?: () => void
}

interface Lane {
  key: string
  priority: Priority
  queue: Pending[]
}

export function cancelledError(): DesktopApiError {
  return new DesktopApiError('cancelled', 'The request was cancelled.')
}

export class Scheduler {
  readonly limiter: RateLimiter
  private readonly clock: Clock
  private readonly maxInFlight: number
  private readonly maxAttempts: number
  private readonly backoffBaseMs: number
  private readonly backoffMaxMs: number
  private readonly max429PerCall: number
  private readonly random: () => number
  /** Round-robin order of lanes, per priority. */
  private readonly lanes: Record<Priority, Lane[]> = { interactive: [], background: [] }
  private readonly inFlight = new Set<Pending>()
  private timer: { at: number; controller: AbortController } | undefined
  private soloSeq = 0
  private disposed = false
  private readonly totals: QueueState['totals'] = {
    sent: 0,
    succeeded: 0,
    failed: 0,
    http429: 0,
    retries: 0,
    cancelled: 0,
  }

  constructor(options: SchedulerOptions) {
    this.clock = options.clock
    this.maxInFlight = options.maxInFlight ?? 8
    this.maxAttempts = options.maxAttempts ?? 6
    this.backoffBaseMs = options.backoffBaseMs ?? 250
    this.backoffMaxMs = options.backoffMaxMs ?? 8_000
    this.max429PerCall = options.max429PerCall ?? 50
    this.random = options.random ?? Math.random
    this.limiter = options.limiter ?? new RateLimiter()
  }

  schedule<T>(request: ScheduleRequest<T>): Promise<T> {
    if (this.disposed) return Promise.reject(cancelledError())
    if (request.signal?.aborted) return Promise.reject(cancelledError())
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = {
        request,
        laneKey: request.jobId !== undefined ? `job:${request.jobId}` : `solo:${++this.soloSeq}`,
        resolve,
        reject,
        failures: 0,
        rateLimited: 0,
        notBefore: 0,
        settled: false,
      }
      if (request.signal) {
        const signal = request.signal
        const onAbort = (): void => this.cancel(pending)
        signal.addEventListener('abort', onAbort, { once: true })
        pending.detach = () => signal.removeEventListener('abort', onAbort)
      }
      this.enqueue(pending, 'tail')
      this.pump()
    })
  }

  /** Drops the job's queued calls and aborts its calls in flight; returns how many were dropped. */
  cancelJob(jobId: string): number {
    const key = `job:${jobId}`
    let dropped = 0
    for (const priority of PRIORITIES) {
      for (const lane of this.lanes[priority].filter((l) => l.key === key)) {
        for (const pending of [...lane.queue]) {
          this.cancel(pending)
          dropped++
        }
      }
    }
    for (const pending of [...this.inFlight]) {
      if (pending.laneKey === key) {
        this.cancel(pending)
        dropped++
      }
    }
    return dropped
  }

  /** Drops every call of one connection (deleted, or its host or credentials changed). */
  cancelNamespace(namespace: string): number {
    let dropped = 0
    for (const priority of PRIORITIES) {
      for (const lane of [...this.lanes[priority]]) {
        for (const pending of [...lane.queue]) {
          if (pending.request.namespace !== namespace) continue
          this.cancel(pending)
          dropped++
        }
      }
    }
    for (const pending of [...this.inFlight]) {
      if (pending.request.namespace !== namespace) continue
      this.cancel(pending)
      dropped++
    }
    return dropped
  }

  state(): QueueState {
    const now = this.clock.now()
    const jobs = new Map<string, JobState & { readyNow: boolean }>()
    const job = (laneKey: string): (JobState & { readyNow: boolean }) | undefined => {
      if (!laneKey.startsWith('job:')) return undefined
      const jobId = laneKey.slice(4)
      let s = jobs.get(jobId)
      if (!s) jobs.set(jobId, (s = { jobId, queued: 0, inFlight: 0, waitingUntil: null, readyNow: false }))
      return s
    }
    let queued = 0
    let readyNow = false
    let earliest = Number.POSITIVE_INFINITY
    for (const priority of PRIORITIES) {
      for (const lane of this.lanes[priority]) {
        for (const pending of lane.queue) {
          queued++
          const at = this.readyAt(pending, now)
          const s = job(lane.key)
          if (s) s.queued++
          if (at <= now) {
            readyNow = true
            if (s) s.readyNow = true
          } else {
            earliest = Math.min(earliest, at)
            if (s) s.waitingUntil = s.waitingUntil === null ? at : Math.min(s.waitingUntil, at)
          }
        }
      }
    }
    for (const pending of this.inFlight) {
      const s = job(pending.laneKey)
      if (s) s.inFlight++
    }
    return {
      queued,
      inFlight: this.inFlight.size,
      // Waiting only when nothing queued could go now (a free slot is not the rate limit's doing).
      waitingUntil: queued > 0 && !readyNow && Number.isFinite(earliest) ? earliest : null,
      byJob: [...jobs.values()].map(({ readyNow: ready, ...s }) => ({
        ...s,
        waitingUntil: ready ? null : s.waitingUntil,
      })),
      totals: { ...this.totals },
    }
  }

  /** Rejects everything queued or in flight with `cancelled`; the scheduler accepts nothing afterwards. */
  dispose(): void {
    this.disposed = true
    this.timer?.controller.abort()
    this.timer = undefined
    for (const priority of PRIORITIES) {
      for (const lane of [...this.lanes[priority]])
        for (const pending of [...lane.queue]) this.cancel(pending)
    }
    for (const pending of [...this.inFlight]) this.cancel(pending)
  }

  private enqueue(pending: Pending, where: 'head' | 'tail'): void {
    const order = this.lanes[pending.request.priority]
    let lane = order.find((l) => l.key === pending.laneKey)
    if (!lane) {
      lane = { key: pending.laneKey, priority: pending.request.priority, queue: [] }
      // A re-queued call's lane goes first: the call was already at the front once.
      if (where === 'head') order.unshift(lane)
      else order.push(lane)
    }
    if (where === 'head') lane.queue.unshift(pending)
    else lane.queue.push(pending)
  }

  private removeQueued(pending: Pending): boolean {
    const order = this.lanes[pending.request.priority]
    const index = order.findIndex((l) => l.key === pending.laneKey)
    const lane = order[index]
    if (!lane) return false
    const at = lane.queue.indexOf(pending)
    if (at < 0) return false
    lane.queue.splice(at, 1)
    if (lane.queue.length === 0) order.splice(index, 1)
    return true
  }

  private cancel(pending: Pending): void {
    if (pending.settled) return
    if (this.removeQueued(pending)) {
      this.settle(pending, cancelledError())
      this.pump()
    } else if (this.inFlight.has(pending)) {
      // Settle and free the slot now; the attempt sees the abort and its late report is ignored.
      pending.controller?.abort()
      this.inFlight.delete(pending)
      if (pending.ticket) this.limiter.release(pending.ticket, this.clock.now())
      this.settle(pending, cancelledError())
      this.pump()
    }
  }

  private settle(pending: Pending, error: unknown, value?: unknown): void {
    if (pending.settled) return
    pending.settled = true
    pending.detach?.()
    if (error === undefined) {
      this.totals.succeeded++
      pending.resolve(value)
    } else {
      if (error instanceof DesktopApiError && error.code === 'cancelled') this.totals.cancelled++
      else this.totals.failed++
      pending.reject(error)
    }
  }

  private readyAt(pending: Pending, now: number): number {
    return Math.max(pending.notBefore, now + this.limiter.msUntilReady(pending.request, now))
  }

  /** Sends whatever may go now, then sleeps until the next call could. */
  private pump(): void {
    if (this.disposed) return
    const now = this.clock.now()
    let next = Number.POSITIVE_INFINITY
    while (this.inFlight.size < this.maxInFlight) {
      const pick = this.pick(now)
      if (pick.pending) this.dispatch(pick.pending, pick.lane, now)
      else {
        next = pick.readyAt
        break
      }
    }
    if (Number.isFinite(next)) this.wakeAt(next, now)
  }

  /**
   * Interactive lanes first; within a priority, lanes take turns (the one served goes to the back), and
   * inside a lane the oldest call that may go now goes, so one blocked route does not hold up the others.
   */
  private pick(now: number): { pending?: Pending; lane: Lane | undefined; readyAt: number } {
    let readyAt = Number.POSITIVE_INFINITY
    // Many queued calls share a route: ask its bucket once per pick.
    const routeWait = new Map<string, number>()
    for (const priority of PRIORITIES) {
      for (const lane of this.lanes[priority]) {
        for (const pending of lane.queue) {
          const { namespace, route, exact } = pending.request
          const routeKey = `${namespace}\u0000${route}`
          let wait = routeWait.get(routeKey)
          if (wait === undefined)
            routeWait.set(routeKey, (wait = this.limiter.msUntil(namespace, 'route', route, now)))
          if (wait === 0) wait = this.limiter.msUntil(namespace, 'exact', exact, now)
          const at = Math.max(pending.notBefore, now + wait)
          if (at <= now) return { pending, lane, readyAt: now }
          readyAt = Math.min(readyAt, at)
        }
      }
    }
    return { lane: undefined, readyAt }
  }

  private wakeAt(at: number, now: number): void {
    if (this.timer && this.timer.at <= at) return
    this.timer?.controller.abort()
    const controller = new AbortController()
    const timer = { at, controller }
    this.timer = timer
    this.clock.sleep(Math.max(0, at - now), controller.signal).then(
      () => {
        if (this.timer === timer) this.timer = undefined
        this.pump()
      },
      () => undefined,
    )
  }

  private dispatch(pending: Pending, lane: Lane | undefined, now: number): void {
    this.removeQueued(pending)
    if (lane && lane.queue.length > 0) {
      const order = this.lanes[lane.priority]
      const at = order.indexOf(lane)
      if (at >= 0) order.push(...order.splice(at, 1))
    }
    const ticket = this.limiter.acquire(pending.request, now)
    const controller = new AbortController()
    pending.controller = controller
    pending.ticket = ticket
    this.inFlight.add(pending)
    this.totals.sent++
    let result: Promise<AttemptResult<unknown>>
    try {
      result = pending.request.attempt(controller.signal)
    } catch (error) {
      result = Promise.reject(error instanceof Error ? error : new Error('the attempt threw'))
    }
    result
      .catch((error: unknown): AttemptResult<unknown> => ({
        ok: false,
        retry: 'never',
        reachedServer: false,
        error:
          error instanceof DesktopApiError
            ? error
            : new DesktopApiError(
                'internal',
                'An unexpected error occurred while calling the payment service.',
              ),
      }))
      .then((outcome) => {
        const at = this.clock.now()
        this.inFlight.delete(pending)
        const rateLimited = !outcome.ok && outcome.retry === 'rate_limited'
        if (!outcome.ok && outcome.reachedServer === false && !outcome.limits)
          this.limiter.release(ticket, at)
        else this.limiter.complete(ticket, outcome.limits, at, rateLimited)
        this.onOutcome(pending, outcome, at)
        this.pump()
      })
      .catch(() => undefined)
  }

  private onOutcome(pending: Pending, outcome: AttemptResult<unknown>, now: number): void {
    if (pending.settled) return
    if (outcome.ok) {
      this.settle(pending, undefined, outcome.value)
      return
    }
    if (outcome.retry === 'rate_limited') {
      this.totals.http429++
      if (++pending.rateLimited >= this.max429PerCall) {
        this.settle(pending, outcome.error)
        return
      }
      this.totals.retries++
      // No Retry-After (the real service documents none, and its 429 may have no body): back off and
      // grow, as its SDKs do, instead of asking again at once and spending the call's 429s in one storm.
      pending.notBefore = now + (outcome.limits?.retryAfterMs ?? this.rateLimitDelay(pending.rateLimited))
      this.enqueue(pending, 'head')
      return
    }
    if (outcome.retry === 'backoff') {
      pending.failures++
      const maxAttempts = pending.request.maxAttempts ?? this.maxAttempts
      if (pending.failures >= maxAttempts) {
        this.settle(pending, outcome.error)
        return
      }
      this.totals.retries++
      pending.notBefore = now + this.backoffDelay(pending.failures)
      this.enqueue(pending, 'head')
      return
    }
    this.settle(pending, outcome.error)
  }

  /**
   * After the n-th 429 of a call that said nothing of when to come back: "equal jitter", half the
   * ceiling min(max, base · 2^(n−1)) plus up to the other half, so the wait is never ~0 and grows.
   */
  rateLimitDelay(n: number): number {
    const ceiling = this.backoffCeiling(n)
    return Math.floor(ceiling / 2 + this.random() * (ceiling / 2))
  }

  /** The n-th wait's ceiling: min(max, base · 2^(n−1)). */
  private backoffCeiling(n: number): number {
    return Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** Math.max(0, n - 1))
  }

  /** Full jitter: uniform in [0, min(max, base · 2^(n−1))]. */
  backoffDelay(failures: number): number {
    const ceiling = this.backoffCeiling(failures)
    return Math.floor(this.random() * ceiling)
  }
}
