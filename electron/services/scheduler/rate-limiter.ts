/**
 * The client's model of the server's rate limits (seed §8.2): one Route bucket per resource path and one
 * Exact bucket per path + query string, each per connection. The model starts from the seed's numbers and
 * learns the real ones from the `X-Requests-Per-Minute-*` / `X-Remaining-Requests-*` headers.
 *
 * Reconciling with the server. When a request is sent we take a token and remember the level right after
 * (L). The server's `X-Remaining-*` on its response (R) is its level right after the same request, floored.
 * With no one else spending the budget, the server's level is never below ours (it refilled while the
 * request travelled), so:
 *   - R < floor(L - overtaken) means someone else spends this budget (another app, a restart): the server's
 *     view wins and our level drops by the difference. `overtaken` counts requests sent after this one whose
 *     responses came back first; the server may have counted them already.
 *   - R well above L (minus the requests that were still out when this one was sent, which the server may
 *     count after it, and minus what refilled while this one travelled) means the server has more budget
 *     than we thought (a larger burst, a 429 that was not about the bucket): we take the surplus, rounded
 *     down. This keeps our level at or below the server's as it was one return trip ago.
 * A new bucket does not refill until the first response (see TokenBucket), so we start behind the server.
 * The per-minute header sets the refill rate; a remaining count above our burst raises the burst.
 */
import { SEED_EXACT_LIMITS, SEED_ROUTE_LIMITS, TokenBucket, type BucketLimits } from './token-bucket'

export type LimitKind = 'route' | 'exact'

/** What one response said about the limits; any part may be missing. */
export interface RateLimitInfo {
  route?: { perMinute?: number; remaining?: number }
  exact?: { perMinute?: number; remaining?: number }
  /** From `Retry-After`, already converted to milliseconds. */
  retryAfterMs?: number
}

export interface LimitKeys {
  /** Whose budget: the connection id (each credential has its own limits). */
  namespace: string
  /** Method and resource path without the query, e.g. `GET /stores/…/charges`. */
  route: string
  /** Method, path and canonical query string. */
  exact: string
}

interface InFlightEntry {
  seq: number
  levelAfter: number
  dispatchedAt: number
  overtaken: number
  /** Requests of this bucket still out when this one was sent: the server may count them after it. */
  outBefore: number
  /** The bucket's `corrected` total when this one was sent. */
  correctedAtSend: number
}

interface BucketState {
  kind: LimitKind
  namespace: string
  bucket: TokenBucket
  seq: number
  inFlight: Set<InFlightEntry>
  /**
   * Sum of the corrections made so far. A response's level is compared with what we would have had after
   * its request given the corrections made since it was sent, so one discrepancy, seen by every response
   * that was out when it happened, is corrected once and not once per response.
   */
  corrected: number
}

export interface Ticket {
  readonly keys: LimitKeys
  readonly entries: ReadonlyArray<{ state: BucketState; entry: InFlightEntry }>
}

type Profile = Record<LimitKind, BucketLimits>

const SWEEP_EVERY = 256

export class RateLimiter {
  private readonly buckets = new Map<string, BucketState>()
  /** Learned limits per connection, so a new path starts from what the server said about others. */
  private readonly profiles = new Map<string, Profile>()
  private acquisitions = 0

  constructor(private readonly defaults: Profile = { route: SEED_ROUTE_LIMITS, exact: SEED_EXACT_LIMITS }) {}

  private profile(namespace: string): Profile {
    let p = this.profiles.get(namespace)
    if (!p) {
      p = { route: { ...this.defaults.route }, exact: { ...this.defaults.exact } }
      this.profiles.set(namespace, p)
    }
    return p
  }

  private state(namespace: string, kind: LimitKind, key: string, now: number): BucketState {
    const id = `${namespace}\u0000${kind}\u0000${key}`
    let s = this.buckets.get(id)
    if (!s) {
      s = {
        kind,
        namespace,
        bucket: new TokenBucket(this.profile(namespace)[kind], now, { anchored: false }),
        seq: 0,
        inFlight: new Set(),
        corrected: 0,
      }
      this.buckets.set(id, s)
    }
    return s
  }

  private pair(keys: LimitKeys, now: number): [BucketState, BucketState] {
    return [
      this.state(keys.namespace, 'route', keys.route, now),
      this.state(keys.namespace, 'exact', keys.exact, now),
    ]
  }

  /** 0 when a request with these keys may be sent now, else the wait in ms. */
  msUntilReady(keys: LimitKeys, now: number): number {
    const route = this.msUntil(keys.namespace, 'route', keys.route, now)
    return route > 0 ? route : this.msUntil(keys.namespace, 'exact', keys.exact, now)
  }

  /** Without creating the bucket: one that does not exist yet would start full. */
  msUntil(namespace: string, kind: LimitKind, key: string, now: number): number {
    const state = this.buckets.get(`${namespace}\u0000${kind}\u0000${key}`)
    return state ? state.bucket.msUntilToken(now) : 0
  }

  acquire(keys: LimitKeys, now: number): Ticket {
    if (++this.acquisitions % SWEEP_EVERY === 0) this.sweep(now)
    const entries = this.pair(keys, now).map((state) => {
      const entry: InFlightEntry = {
        seq: ++state.seq,
        levelAfter: state.bucket.take(now),
        dispatchedAt: now,
        overtaken: 0,
        outBefore: state.inFlight.size,
        correctedAtSend: state.corrected,
      }
      state.inFlight.add(entry)
      return { state, entry }
    })
    return { keys, entries }
  }

  /** Feeds one response back into the model. `rateLimited` is true for a 429. */
  complete(ticket: Ticket, info: RateLimitInfo | undefined, now: number, rateLimited: boolean): void {
    for (const { state, entry } of ticket.entries) {
      state.bucket.anchor(now)
      const header = info?.[state.kind]
      if (header?.perMinute !== undefined) this.learnRate(state, header.perMinute, now)
      // A ticket released earlier (its caller cancelled) no longer describes the bucket: do not reconcile.
      if (!rateLimited && header?.remaining !== undefined && state.inFlight.has(entry))
        this.reconcile(state, entry, header.remaining, now)
      this.finish(state, entry)
    }
    if (rateLimited) this.onRateLimited(ticket, info, now)
  }

  /** A request that ended without a response (cancelled, connection refused): only forget it. */
  release(ticket: Ticket, now: number): void {
    for (const { state, entry } of ticket.entries) {
      this.finish(state, entry)
      // With nothing left in flight, nothing will anchor the bucket: start refilling now.
      if (state.inFlight.size === 0) state.bucket.anchor(now)
    }
  }

  /** The limits currently assumed for a route (for progress display and the benchmark). */
  limitsFor(namespace: string, kind: LimitKind, key: string): BucketLimits | undefined {
    return this.buckets.get(`${namespace}\u0000${kind}\u0000${key}`)?.bucket.limits
  }

  /** Earliest time a blocked (429) bucket opens again, if any bucket is blocked. */
  blockedUntil(keys: LimitKeys, now: number): number | undefined {
    const [route, exact] = this.pair(keys, now)
    const wait = Math.max(route.bucket.msUntilToken(now), exact.bucket.msUntilToken(now))
    return route.bucket.isBlocked(now) || exact.bucket.isBlocked(now) ? now + wait : undefined
  }

  private learnRate(state: BucketState, perMinute: number, now: number): void {
    if (!(perMinute > 0) || perMinute === state.bucket.limits.perMinute) return
    state.bucket.setLimits({ ...state.bucket.limits, perMinute }, now)
    this.profile(state.namespace)[state.kind].perMinute = perMinute
  }

  private reconcile(state: BucketState, entry: InFlightEntry, remaining: number, now: number): void {
    const { bucket } = state
    if (remaining + 1 > bucket.limits.burst) {
      bucket.setLimits({ ...bucket.limits, burst: remaining + 1 }, now)
      const learned = this.profile(state.namespace)[state.kind]
      learned.burst = Math.max(learned.burst, remaining + 1)
    }
    const levelAfter = entry.levelAfter + (state.corrected - entry.correctedAtSend)
    const expected = levelAfter - entry.overtaken
    if (remaining < Math.floor(expected)) {
      state.corrected += bucket.adjust(remaining - expected, now)
      return
    }
    const refilled = ((now - entry.dispatchedAt) * bucket.limits.perMinute) / 60_000
    const surplus = remaining - entry.outBefore - levelAfter - refilled
    if (surplus >= 1) state.corrected += bucket.adjust(Math.floor(surplus), now)
  }

  /**
   * A 429: block the bucket that the headers show empty (the Route one when they do not say), until
   * `Retry-After`, or else until it has refilled one token.
   */
  private onRateLimited(ticket: Ticket, info: RateLimitInfo | undefined, now: number): void {
    const empty = ticket.entries.filter(({ state }) => {
      const remaining = info?.[state.kind]?.remaining
      return remaining !== undefined && remaining < 1
    })
    const culprits = empty.length > 0 ? empty : ticket.entries.filter(({ state }) => state.kind === 'route')
    for (const { state } of culprits) state.bucket.blockUntil(now + (info?.retryAfterMs ?? 0), now)
  }

  private finish(state: BucketState, entry: InFlightEntry): void {
    if (!state.inFlight.delete(entry)) return
    // Requests sent before this one and still out may be counted after it by the server.
    for (const other of state.inFlight) if (other.seq < entry.seq) other.overtaken++
  }

  private sweep(now: number): void {
    for (const [id, s] of this.buckets) {
      if (s.inFlight.size === 0 && s.bucket.isIdle(now)) this.buckets.delete(id)
    }
  }
}
