/**
 * A rate-limited server on the fake clock, for scheduler tests: per-route and per-exact token buckets as
 * seed §8.2 describes, the seed's headers on every answer, 429 + Retry-After when a bucket is empty.
 */
import type { RateLimitInfo } from '../../../../../electron/services/scheduler/rate-limiter'
import type { AttemptResult } from '../../../../../electron/services/scheduler/scheduler'
import { DesktopApiError } from '../../../../../electron/shared/errors'
import type { FakeClock } from './fake-clock'

interface Bucket {
  tokens: number
  at: number
}

export interface SimOptions {
  route?: { burst: number; perMinute: number }
  exact?: { burst: number; perMinute: number }
  latencyMs?: number | (() => number)
  /** Send the X-* headers (a server may not). */
  headers?: boolean
  /** Route buckets shared by all routes (a server that counts per template). */
  retryAfterSeconds?: number
  /** Scripted 429s carry no Retry-After (the real service documents none; real-service.md). */
  no429RetryAfter?: boolean
}

export class SimServer {
  readonly routeLimits: { burst: number; perMinute: number }
  readonly exactLimits: { burst: number; perMinute: number }
  private readonly buckets = new Map<string, Bucket>()
  readonly log: { at: number; route: string; exact: string; status: number }[] = []
  /** Status to answer instead, for the next requests (e.g. [500, 500] = a 5xx burst). */
  readonly script: number[] = []

  constructor(
    private readonly clock: FakeClock,
    private readonly options: SimOptions = {},
  ) {
    this.routeLimits = options.route ?? { burst: 30, perMinute: 1200 }
    this.exactLimits = options.exact ?? { burst: 10, perMinute: 120 }
  }

  /** Someone else spends `n` of a route's budget. */
  spend(route: string, n: number): void {
    const b = this.level(`route ${route}`, this.routeLimits)
    b.tokens -= n
  }

  get count429(): number {
    return this.log.filter((l) => l.status === 429).length
  }

  get okCount(): number {
    return this.log.filter((l) => l.status === 200).length
  }

  private level(key: string, limits: { burst: number; perMinute: number }): Bucket {
    const now = this.clock.now()
    let b = this.buckets.get(key)
    if (!b) this.buckets.set(key, (b = { tokens: limits.burst, at: now }))
    b.tokens = Math.min(limits.burst, b.tokens + ((now - b.at) * limits.perMinute) / 60_000)
    b.at = now
    return b
  }

  /** An `attempt` for the scheduler: travels half the latency, is judged, travels back. */
  attempt(
    route: string,
    exact: string,
    value: string,
  ): (signal: AbortSignal) => Promise<AttemptResult<string>> {
    return async (signal) => {
      const latency =
        typeof this.options.latencyMs === 'function'
          ? this.options.latencyMs()
          : (this.options.latencyMs ?? 0)
      await this.clock.sleep(latency / 2, signal)
      const result = this.judge(route, exact, value)
      await this.clock.sleep(latency / 2, signal)
      return result
    }
  }

  private judge(route: string, exact: string, value: string): AttemptResult<string> {
    const r = this.level(`route ${route}`, this.routeLimits)
    const e = this.level(`exact ${exact}`, this.exactLimits)
    const scripted = this.script.shift()
    const info = (): RateLimitInfo | undefined =>
      this.options.headers === false
        ? undefined
        : {
            route: { perMinute: this.routeLimits.perMinute, remaining: Math.max(0, Math.floor(r.tokens)) },
            exact: { perMinute: this.exactLimits.perMinute, remaining: Math.max(0, Math.floor(e.tokens)) },
          }
    const at = this.clock.now()
    if (scripted !== undefined && scripted !== 200) {
      this.log.push({ at, route, exact, status: scripted })
      const limits = info()
      if (scripted === 429) {
        const sent = this.options.no429RetryAfter
          ? limits
          : { ...limits, retryAfterMs: (this.options.retryAfterSeconds ?? 1) * 1000 }
        return {
          ok: false,
          retry: 'rate_limited',
          error: new DesktopApiError('rate_limited', 'slow down'),
          ...(sent ? { limits: sent } : {}),
        }
      }
      return {
        ok: false,
        retry: scripted >= 500 ? 'backoff' : 'never',
        error: new DesktopApiError(scripted >= 500 ? 'server_error' : 'forbidden', `HTTP ${scripted}`),
        ...(limits ? { limits } : {}),
      }
    }
    if (r.tokens < 1 || e.tokens < 1) {
      this.log.push({ at, route, exact, status: 429 })
      const limits = info()
      const wait = Math.ceil(
        ((1 - Math.min(r.tokens, e.tokens)) * 60_000) /
          Math.min(this.routeLimits.perMinute, this.exactLimits.perMinute),
      )
      return {
        ok: false,
        retry: 'rate_limited',
        error: new DesktopApiError('rate_limited', 'slow down'),
        limits: {
          ...limits,
          retryAfterMs:
            this.options.retryAfterSeconds !== undefined ? this.options.retryAfterSeconds * 1000 : wait,
        },
      }
    }
    r.tokens -= 1
    e.tokens -= 1
    this.log.push({ at, route, exact, status: 200 })
    const limits = info()
    return { ok: true, value, ...(limits ? { limits } : {}) }
  }
}
