import { describe, expect, it } from 'vitest'
import { TokenBucket } from '../../../../../electron/services/scheduler/token-bucket'
import { RateLimiter, type LimitKeys } from '../../../../../electron/services/scheduler/rate-limiter'

const T0 = 1_000_000

describe('TokenBucket (seed §8.2: burst, then per-minute refill)', () => {
  it('lets a full burst go at once, then one request per 60 000 / perMinute ms', () => {
    const b = new TokenBucket({ burst: 30, perMinute: 1200 }, T0)
    for (let i = 0; i < 30; i++) {
      expect(b.msUntilToken(T0)).toBe(0)
      b.take(T0)
    }
    expect(b.msUntilToken(T0)).toBe(50) // 1200/min = one every 50 ms
    expect(b.msUntilToken(T0 + 49)).toBe(1)
    expect(b.msUntilToken(T0 + 50)).toBe(0)
    b.take(T0 + 50)
    expect(b.msUntilToken(T0 + 50)).toBe(50)
  })

  it('refills to the burst and no further', () => {
    const b = new TokenBucket({ burst: 10, perMinute: 120 }, T0)
    for (let i = 0; i < 10; i++) b.take(T0)
    expect(b.level(T0 + 2_500)).toBeCloseTo(5, 9) // 2 per second
    expect(b.level(T0 + 3_600_000)).toBe(10)
  })

  it('stays shut while blocked, and empties on block', () => {
    const b = new TokenBucket({ burst: 30, perMinute: 1200 }, T0)
    b.blockUntil(T0 + 2_000, T0)
    expect(b.level(T0)).toBe(0)
    expect(b.msUntilToken(T0)).toBe(2_000)
    expect(b.msUntilToken(T0 + 1_999)).toBe(1)
    expect(b.msUntilToken(T0 + 2_000)).toBe(0) // 40 tokens' worth of refill by then, capped at 30
  })

  it('applies new limits from then on, clipping the level to the new burst', () => {
    const b = new TokenBucket({ burst: 30, perMinute: 1200 }, T0)
    b.setLimits({ burst: 5, perMinute: 60 }, T0)
    expect(b.level(T0)).toBe(5)
    for (let i = 0; i < 5; i++) b.take(T0)
    expect(b.msUntilToken(T0)).toBe(1_000)
  })
})

const keys = (exact = 'GET /charges'): LimitKeys => ({ namespace: 'c1', route: 'GET /charges', exact })

describe('RateLimiter: learning from the headers', () => {
  it('takes the per-minute limit from the header instead of the seed default', () => {
    const limiter = new RateLimiter()
    const t = limiter.acquire(keys(), T0)
    limiter.complete(t, { route: { perMinute: 12_000, remaining: 29 } }, T0, false)
    expect(limiter.limitsFor('c1', 'route', 'GET /charges')).toEqual({ burst: 30, perMinute: 12_000 })
    // New routes of the same connection start from what was learned.
    const other = { namespace: 'c1', route: 'GET /transaction_history', exact: 'GET /transaction_history' }
    limiter.acquire(other, T0)
    expect(limiter.limitsFor('c1', 'route', 'GET /transaction_history')?.perMinute).toBe(12_000)
    // Another connection does not.
    limiter.acquire({ ...other, namespace: 'c2' }, T0)
    expect(limiter.limitsFor('c2', 'route', 'GET /transaction_history')?.perMinute).toBe(1200)
  })

  it("lets the server's lower remaining count win (someone else spends the budget)", () => {
    const limiter = new RateLimiter()
    const t = limiter.acquire(keys('GET /charges?a'), T0) // we think 29 are left
    limiter.complete(t, { route: { remaining: 3 } }, T0, false)
    for (let i = 0; i < 3; i++) {
      expect(limiter.msUntilReady(keys(`GET /charges?b${i}`), T0)).toBe(0)
      limiter.release(limiter.acquire(keys(`GET /charges?b${i}`), T0), T0)
    }
    expect(limiter.msUntilReady(keys('GET /charges?c'), T0)).toBe(50)
  })

  it('does not lose budget to requests still in flight when it reconciles', () => {
    const limiter = new RateLimiter()
    const tickets = Array.from({ length: 5 }, (_, i) => limiter.acquire(keys(`GET /charges?p${i}`), T0))
    // The server counted them in order; the answers come back in order, each with its own remaining.
    tickets.forEach((t, i) => limiter.complete(t, { route: { remaining: 29 - i } }, T0, false))
    let free = 0
    while (limiter.msUntilReady(keys(`GET /charges?q${free}`), T0) === 0) {
      limiter.acquire(keys(`GET /charges?q${free}`), T0)
      free++
    }
    expect(free).toBe(25)
  })

  it('raises the burst when the server shows more remaining than the seed default', () => {
    const limiter = new RateLimiter()
    const t = limiter.acquire(keys(), T0)
    limiter.complete(t, { route: { perMinute: 12_000, remaining: 299 } }, T0, false)
    expect(limiter.limitsFor('c1', 'route', 'GET /charges')?.burst).toBe(300)
    let free = 0
    while (limiter.msUntilReady(keys(`GET /charges?n${free}`), T0) === 0) {
      limiter.acquire(keys(`GET /charges?n${free}`), T0)
      free++
    }
    expect(free).toBe(299)
  })

  it('limits one exact path to its own, smaller bucket', () => {
    const limiter = new RateLimiter()
    for (let i = 0; i < 10; i++) limiter.release(limiter.acquire(keys('GET /charges?limit=1'), T0), T0)
    expect(limiter.msUntilReady(keys('GET /charges?limit=1'), T0)).toBe(500) // 120/min
    expect(limiter.msUntilReady(keys('GET /charges?limit=2'), T0)).toBe(0)
  })

  it('blocks the empty bucket on a 429 until Retry-After', () => {
    const limiter = new RateLimiter()
    const t = limiter.acquire(keys('GET /charges?x'), T0)
    limiter.complete(t, { route: { remaining: 0 }, exact: { remaining: 8 }, retryAfterMs: 3_000 }, T0, true)
    expect(limiter.msUntilReady(keys('GET /charges?other'), T0)).toBe(3_000)
    expect(limiter.blockedUntil(keys('GET /charges?other'), T0 + 1_000)).toBe(T0 + 3_000)
    expect(limiter.msUntilReady(keys('GET /charges?other'), T0 + 3_000)).toBe(0)
  })

  it('without Retry-After, waits for the bucket to refill one token', () => {
    const limiter = new RateLimiter()
    const t = limiter.acquire(keys('GET /charges?x'), T0)
    limiter.complete(t, undefined, T0, true)
    expect(limiter.msUntilReady(keys('GET /charges?y'), T0)).toBe(50)
  })
})
