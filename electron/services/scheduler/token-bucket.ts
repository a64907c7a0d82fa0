/**
 * One token bucket as the seed's §8.2 describes a limit: `burst` requests at once, refilled at
 * `perMinute` per minute. A request may go when the bucket holds at least one whole token.
 */
export interface BucketLimits {
  burst: number
  perMinute: number
}

/** Seed §8.2, used until the server's headers say otherwise. */
export const SEED_ROUTE_LIMITS: BucketLimits = { burst: 30, perMinute: 1200 }
export const SEED_EXACT_LIMITS: BucketLimits = { burst: 10, perMinute: 120 }

/** Refill is fractional: compare with a little slack so 0.9999999 tokens (float error) counts as one. */
const EPSILON = 1e-9

export class TokenBucket {
  private tokens: number
  private updatedAt: number
  private blockedUntil = 0
  private limitsNow: BucketLimits
  private anchored: boolean

  /**
   * A new bucket starts full, as the server's does for a key it has not seen. With `anchored: false` it
   * does not refill until `anchor()`: the server's bucket starts when our first request reaches it, so
   * refilling from our first send would run ahead of the server by that request's travel time.
   */
  constructor(limits: BucketLimits, now: number, options: { anchored?: boolean } = {}) {
    this.limitsNow = { ...limits }
    this.tokens = limits.burst
    this.updatedAt = now
    this.anchored = options.anchored ?? true
  }

  /** Starts refilling from `now` (the first response: the server's bucket surely exists by then). */
  anchor(now: number): void {
    if (this.anchored) return
    this.anchored = true
    this.updatedAt = Math.max(this.updatedAt, now)
  }

  get limits(): BucketLimits {
    return this.limitsNow
  }

  private refill(now: number): void {
    if (!this.anchored) {
      this.updatedAt = Math.max(this.updatedAt, now)
      return
    }
    if (now > this.updatedAt) {
      const ratePerMs = this.limitsNow.perMinute / 60_000
      this.tokens = Math.min(this.limitsNow.burst, this.tokens + (now - this.updatedAt) * ratePerMs)
      this.updatedAt = now
    }
  }

  level(now: number): number {
    this.refill(now)
    return this.tokens
  }

  /** 0 when a request may go now; otherwise how long until one whole token is there (or a block ends). */
  msUntilToken(now: number): number {
    this.refill(now)
    const blocked = Math.max(0, this.blockedUntil - now)
    if (this.tokens >= 1 - EPSILON) return blocked
    // Until the first response anchors it, an empty bucket waits for that response (the caller is woken).
    if (!this.anchored) return Number.POSITIVE_INFINITY
    const ratePerMs = this.limitsNow.perMinute / 60_000
    if (ratePerMs <= 0) return Number.POSITIVE_INFINITY
    return Math.max(blocked, Math.ceil((1 - this.tokens) / ratePerMs - EPSILON))
  }

  /** Takes one token; returns the level right after, which the server's `X-Remaining-*` is compared with. */
  take(now: number): number {
    this.refill(now)
    this.tokens -= 1
    return this.tokens
  }

  /** Moves the level by `delta` (the server's view differs from ours), within ±burst; returns the change made. */
  adjust(delta: number, now: number): number {
    this.refill(now)
    const before = this.tokens
    this.tokens = Math.max(-this.limitsNow.burst, Math.min(this.limitsNow.burst, this.tokens + delta))
    return this.tokens - before
  }

  /** Empties the bucket and holds it shut until `until` (a 429 with Retry-After). */
  blockUntil(until: number, now: number): void {
    this.refill(now)
    this.tokens = Math.min(this.tokens, 0)
    this.blockedUntil = Math.max(this.blockedUntil, until)
  }

  isBlocked(now: number): boolean {
    return this.blockedUntil > now
  }

  setLimits(limits: BucketLimits, now: number): void {
    this.refill(now)
    this.limitsNow = { ...limits }
    this.tokens = Math.min(this.tokens, limits.burst)
  }

  /** A full, unblocked bucket is indistinguishable from a new one and can be forgotten. */
  isIdle(now: number): boolean {
    this.refill(now)
    return this.tokens >= this.limitsNow.burst - EPSILON && this.blockedUntil <= now
  }
}
