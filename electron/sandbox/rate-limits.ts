/**
 * Seed §8.2 as token buckets: Route (burst 30, 1,200 per minute, per resource path, i.e. the path with its
 * ids replaced by the route's template) and Exact (burst 10, 120 per minute, per exact path with its query
 * string). A request spends one token of each; when either is empty it is refused with 429 and spends
 * nothing. `scale` multiplies bursts and rates alike.
 */
export interface Limits {
  burst: number
  perMinute: number
}

export const SEED_ROUTE: Limits = { burst: 30, perMinute: 1200 }
export const SEED_EXACT: Limits = { burst: 10, perMinute: 120 }

interface Bucket {
  tokens: number
  at: number
}

export interface Verdict {
  allowed: boolean
  headers: Record<string, string>
  /** Seconds until both buckets have a token again (for `Retry-After`), when refused. */
  retryAfterSeconds?: number
}

export class SandboxRateLimits {
  readonly route: Limits
  readonly exact: Limits
  private readonly buckets = new Map<string, Bucket>()

  constructor(
    scale: number,
    private readonly now: () => number,
  ) {
    this.route = {
      burst: Math.round(SEED_ROUTE.burst * scale),
      perMinute: Math.round(SEED_ROUTE.perMinute * scale),
    }
    this.exact = {
      burst: Math.round(SEED_EXACT.burst * scale),
      perMinute: Math.round(SEED_EXACT.perMinute * scale),
    }
  }

  private level(key: string, limits: Limits): Bucket {
    const now = this.now()
    let bucket = this.buckets.get(key)
    if (!bucket) {
      bucket = { tokens: limits.burst, at: now }
      this.buckets.set(key, bucket)
      if (this.buckets.size > 100_000) this.sweep()
    }
    bucket.tokens = Math.min(limits.burst, bucket.tokens + ((now - bucket.at) * limits.perMinute) / 60_000)
    bucket.at = now
    return bucket
  }

  /** Full buckets are the same as absent ones: forget them so memory stays bounded. */
  private sweep(): void {
    const now = this.now()
    for (const [key, b] of this.buckets) if (now - b.at > 120_000) this.buckets.delete(key)
  }

  /** `namespace`: whose budget (one per credential). */
  take(namespace: string, routeKey: string, exactKey: string): Verdict {
    const route = this.level(`${namespace}\u0000r\u0000${routeKey}`, this.route)
    const exact = this.level(`${namespace}\u0000e\u0000${exactKey}`, this.exact)
    const allowed = route.tokens >= 1 && exact.tokens >= 1
    if (allowed) {
      route.tokens -= 1
      exact.tokens -= 1
    }
    const verdict: Verdict = { allowed, headers: this.headers(route.tokens, exact.tokens) }
    if (!allowed) {
      const wait = (tokens: number, limits: Limits) =>
        tokens >= 1 ? 0 : ((1 - tokens) * 60) / limits.perMinute
      verdict.retryAfterSeconds = Math.max(wait(route.tokens, this.route), wait(exact.tokens, this.exact))
    }
    return verdict
  }

  /** The four headers, for a response that spent nothing (e.g. refused before counting). */
  peek(namespace: string, routeKey: string, exactKey: string): Record<string, string> {
    const route = this.level(`${namespace}\u0000r\u0000${routeKey}`, this.route)
    const exact = this.level(`${namespace}\u0000e\u0000${exactKey}`, this.exact)
    return this.headers(route.tokens, exact.tokens)
  }

  private headers(route: number, exact: number): Record<string, string> {
    return {
      'X-Remaining-Requests-Route': String(Math.max(0, Math.floor(route))),
      'X-Requests-Per-Minute-Route': String(this.route.perMinute),
      'X-Remaining-Requests-Exact': String(Math.max(0, Math.floor(exact))),
      'X-Requests-Per-Minute-Exact': String(this.exact.perMinute),
    }
  }
}

/**
 * `Retry-After` in whole seconds as HTTP defines it, at least 1. With `fractional` (a scaled sandbox, where
 * waits are far below a second), a wait under a second is sent as a decimal fraction, e.g. `0.050`.
 */
export function retryAfterValue(seconds: number, fractional = false): string {
  if (fractional && seconds < 1) return (Math.ceil(seconds * 1000) / 1000).toFixed(3)
  return String(Math.max(1, Math.ceil(seconds)))
}
