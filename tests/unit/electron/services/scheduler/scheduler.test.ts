import { describe, expect, it } from 'vitest'
import {
  Scheduler,
  type AttemptResult,
  type ScheduleRequest,
} from '../../../../../electron/services/scheduler/scheduler'
import { DesktopApiError } from '../../../../../electron/shared/errors'
import { FakeClock, flush } from '../support/fake-clock'
import { SimServer } from '../support/sim-server'

/** Deterministic "random" for latency jitter (not the scheduler's). */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32
}

function pageRequests(
  server: SimServer,
  scheduler: Scheduler,
  opts: { jobs: number; pagesPerJob: number; routesPerJob?: number; priority?: 'interactive' | 'background' },
): Promise<string>[] {
  const all: Promise<string>[] = []
  for (let p = 0; p < opts.pagesPerJob; p++) {
    for (let j = 0; j < opts.jobs; j++) {
      const route = `GET /stores/s${j % (opts.routesPerJob ?? opts.jobs)}/transaction_history`
      const exact = `${route}?cursor=${j}-${p}`
      all.push(
        scheduler.schedule({
          namespace: 'c1',
          route,
          exact,
          priority: opts.priority ?? 'background',
          jobId: `job-${j}`,
          attempt: server.attempt(route, exact, `${j}-${p}`),
        }),
      )
    }
  }
  return all
}

/** One interactive request for the first charges page, answering 'page-1'. */
function oneChargesPage(server: SimServer, scheduler: Scheduler): Promise<string> {
  return scheduler.schedule({
    namespace: 'c1',
    route: 'GET /charges',
    exact: 'GET /charges?limit=10',
    priority: 'interactive',
    attempt: server.attempt('GET /charges', 'GET /charges?limit=10', 'page-1'),
  })
}

describe('Scheduler against a rate-limited server (fake clock)', () => {
  it('sends nothing over the seed limits: zero 429s, and the Route ceiling is used fully', async () => {
    const clock = new FakeClock()
    const jitter = lcg(7)
    const server = new SimServer(clock, { latencyMs: () => 5 + jitter() * 40 })
    const scheduler = new Scheduler({ clock })
    const start = clock.now()
    const results = await clock.run(
      Promise.all(pageRequests(server, scheduler, { jobs: 4, pagesPerJob: 150, routesPerJob: 1 })),
    )
    expect(results).toHaveLength(600)
    expect(new Set(results).size).toBe(600)
    expect(server.count429).toBe(0)
    // One route: 30 at once, then 20/s. 600 requests need (600 − 30) / 20 = 28.5 s at the ceiling.
    const lastSent = Math.max(...server.log.map((l) => l.at))
    const ideal = ((600 - 30) / 20) * 1000
    expect(lastSent - start).toBeGreaterThanOrEqual(ideal)
    expect(lastSent - start).toBeLessThan(ideal / 0.97)
  })

  it('learns larger limits from the headers and uses them (rate-scale 10), still with no 429', async () => {
    const clock = new FakeClock()
    const jitter = lcg(11)
    const server = new SimServer(clock, {
      route: { burst: 300, perMinute: 12_000 },
      exact: { burst: 100, perMinute: 1_200 },
      latencyMs: () => 2 + jitter() * 10,
    })
    const scheduler = new Scheduler({ clock, maxInFlight: 16 })
    const start = clock.now()
    await clock.run(
      Promise.all(pageRequests(server, scheduler, { jobs: 6, pagesPerJob: 300, routesPerJob: 2 })),
      600_000,
      100,
    )
    expect(server.count429).toBe(0)
    // Two routes at 200/s each after their bursts: 1800 requests, ideal (1800 − 2·300) / 400 = 3 s.
    const lastSent = Math.max(...server.log.map((l) => l.at))
    const ideal = ((1800 - 600) / 400) * 1000
    expect(ideal / (lastSent - start)).toBeGreaterThanOrEqual(0.95)
    expect(scheduler.limiter.limitsFor('c1', 'route', 'GET /stores/s0/transaction_history')).toEqual({
      burst: 300,
      perMinute: 12_000,
    })
  })

  it('keeps to the seed limits when the server sends no rate-limit headers', async () => {
    const clock = new FakeClock()
    const server = new SimServer(clock, { latencyMs: 10, headers: false })
    const scheduler = new Scheduler({ clock })
    await clock.run(
      Promise.all(pageRequests(server, scheduler, { jobs: 3, pagesPerJob: 100, routesPerJob: 1 })),
    )
    expect(server.count429).toBe(0)
    expect(server.okCount).toBe(300)
  })

  it('follows the server when someone else spends the budget, and loses no request to the 429s', async () => {
    const clock = new FakeClock()
    const server = new SimServer(clock, { latencyMs: 10 })
    const scheduler = new Scheduler({ clock })
    const route = 'GET /stores/s0/transaction_history'
    const pending = pageRequests(server, scheduler, { jobs: 2, pagesPerJob: 150, routesPerJob: 1 })
    await clock.advance(3_000)
    server.spend(route, 40) // another client takes 2 s worth of budget
    const results = await clock.run(Promise.all(pending))
    expect(new Set(results).size).toBe(300)
    expect(server.okCount).toBe(300)
    // At most the requests already on their way when the budget vanished can meet a 429.
    expect(server.count429).toBeLessThanOrEqual(8)
  })

  it('honours Retry-After on a 429, re-sends the same request, and counts it', async () => {
    const clock = new FakeClock()
    const server = new SimServer(clock, { retryAfterSeconds: 2 })
    server.script.push(429)
    const scheduler = new Scheduler({ clock })
    const done = oneChargesPage(server, scheduler)
    await clock.advance(1_999)
    expect(server.log.map((l) => l.status)).toEqual([429])
    expect(scheduler.state().waitingUntil).toBe(server.log[0]!.at + 2_000)
    await clock.advance(1)
    await expect(done).resolves.toBe('page-1')
    expect(server.log.map((l) => l.status)).toEqual([429, 200])
    expect(scheduler.state().totals.http429).toBe(1)
  })

  it('a 429 without Retry-After waits and backs off, growing, instead of asking again at once', async () => {
    const clock = new FakeClock()
    const server = new SimServer(clock, { no429RetryAfter: true })
    server.script.push(429, 429, 429, 429)
    const scheduler = new Scheduler({ clock, random: () => 0 })
    const done = oneChargesPage(server, scheduler)
    await clock.advance(10)
    // Not re-sent at once: the first wait is half of 250 ms at least.
    expect(server.log.map((l) => l.status)).toEqual([429])
    await clock.run(done)
    const at = server.log.map((l) => l.at)
    const gaps = at.slice(1).map((t, i) => t - (at[i] ?? 0))
    expect(gaps).toEqual([125, 250, 500, 1_000])
    await expect(done).resolves.toBe('page-1')
    expect(scheduler.state().totals.http429).toBe(4)
  })

  it('recovers from a 429 storm with every page delivered exactly once', async () => {
    const clock = new FakeClock()
    const server = new SimServer(clock, { latencyMs: 10, retryAfterSeconds: 1 })
    server.script.push(...Array<number>(40).fill(429))
    const scheduler = new Scheduler({ clock })
    const results = await clock.run(
      Promise.all(pageRequests(server, scheduler, { jobs: 4, pagesPerJob: 25 })),
    )
    expect(results.sort()).toEqual(
      Array.from({ length: 4 }, (_, j) => Array.from({ length: 25 }, (_, p) => `${j}-${p}`))
        .flat()
        .sort(),
    )
    expect(server.okCount).toBe(100)
  })

  it('retries 5xx with exponential backoff and full jitter, bounded, then fails with the last error', async () => {
    const clock = new FakeClock()
    const server = new SimServer(clock)
    server.script.push(500, 503, 500, 500, 500, 500, 500)
    const scheduler = new Scheduler({ clock, random: () => 0.999, backoffBaseMs: 100, maxAttempts: 5 })
    const done = scheduler.schedule({
      namespace: 'c1',
      route: 'GET /charges',
      exact: 'GET /charges',
      priority: 'interactive',
      attempt: server.attempt('GET /charges', 'GET /charges', 'x'),
    })
    const error = await clock.run(done.catch((e: unknown) => e))
    expect(error).toMatchObject({ code: 'server_error' })
    const times = server.log.map((l) => l.at - server.log[0]!.at)
    // Delays just under 100, 200, 400, 800 ms (random ≈ 1 times the doubling ceiling).
    expect(times).toEqual([0, 99, 99 + 199, 99 + 199 + 399, 99 + 199 + 399 + 799])
  })

  it('full jitter spreads the wait uniformly below the ceiling', () => {
    const values = [0, 0.25, 0.5, 0.999]
    const scheduler = new Scheduler({
      clock: new FakeClock(),
      random: () => values.shift() ?? 0,
      backoffBaseMs: 1000,
    })
    expect([3, 3, 3, 3].map((n) => scheduler.backoffDelay(n))).toEqual([0, 1000, 2000, 3996])
    expect(new Scheduler({ clock: new FakeClock(), random: () => 0.999 }).backoffDelay(30)).toBe(7992)
  })

  it('recovers from a 5xx burst with no lost and no doubled page', async () => {
    const clock = new FakeClock()
    const server = new SimServer(clock, { latencyMs: 10 })
    server.script.push(...Array<number>(12).fill(502))
    const scheduler = new Scheduler({ clock, random: lcg(3) })
    const results = await clock.run(
      Promise.all(pageRequests(server, scheduler, { jobs: 3, pagesPerJob: 20 })),
    )
    expect(new Set(results).size).toBe(60)
    expect(server.okCount).toBe(60)
  })

  it('fails fast on a non-retryable error', async () => {
    const clock = new FakeClock()
    const server = new SimServer(clock)
    server.script.push(403)
    const scheduler = new Scheduler({ clock })
    const error = await clock.run(
      scheduler
        .schedule({
          namespace: 'c1',
          route: 'GET /charges',
          exact: 'GET /charges',
          priority: 'interactive',
          attempt: server.attempt('GET /charges', 'GET /charges', 'x'),
        })
        .catch((e: unknown) => e),
    )
    expect(error).toMatchObject({ code: 'forbidden' })
    expect(server.log).toHaveLength(1)
  })
})

/** A request whose attempts the test answers by hand. */
function manual(scheduler: Scheduler, overrides: Partial<ScheduleRequest<string>> & { name: string }) {
  const calls: { name: string; answer(r: AttemptResult<string>): void; signal: AbortSignal }[] = []
  const promise = scheduler.schedule<string>({
    namespace: 'c1',
    route: 'GET /charges',
    exact: `GET /charges?${overrides.name}`,
    priority: 'background',
    attempt: (signal) =>
      new Promise((answer) => {
        calls.push({ name: overrides.name, answer, signal })
      }),
    ...overrides,
  })
  promise.catch(() => undefined)
  return { promise, calls }
}

describe('Scheduler: order, fairness, cancellation, state', () => {
  it('serves an interactive call before queued background sync on the same route', async () => {
    const clock = new FakeClock()
    const order: string[] = []
    const scheduler = new Scheduler({ clock, maxInFlight: 100 })
    const attempt = (name: string) => (): Promise<AttemptResult<string>> => {
      order.push(name)
      return Promise.resolve({ ok: true, value: name })
    }
    const base = { namespace: 'c1', route: 'GET /transaction_history' }
    const all: Promise<string>[] = []
    for (let i = 0; i < 40; i++)
      all.push(
        scheduler.schedule({
          ...base,
          exact: `b${i}`,
          priority: 'background',
          jobId: 'sync',
          attempt: attempt(`b${i}`),
        }),
      )
    await flush()
    expect(order).toHaveLength(30) // the burst; 10 wait for the bucket
    all.push(
      scheduler.schedule({ ...base, exact: 'user', priority: 'interactive', attempt: attempt('user') }),
    )
    await clock.advance(50)
    expect(order[30]).toBe('user')
    await clock.run(Promise.all(all))
  })

  it('shares the budget round-robin among jobs, so a late small job is not stuck behind a big one', async () => {
    const clock = new FakeClock()
    const order: string[] = []
    const scheduler = new Scheduler({ clock, maxInFlight: 100 })
    const attempt = (name: string) => (): Promise<AttemptResult<string>> => {
      order.push(name)
      return Promise.resolve({ ok: true, value: name })
    }
    const base = { namespace: 'c1', route: 'GET /transaction_history', priority: 'background' as const }
    const all: Promise<string>[] = []
    for (let i = 0; i < 100; i++)
      all.push(scheduler.schedule({ ...base, exact: `a${i}`, jobId: 'big', attempt: attempt(`a${i}`) }))
    await flush()
    for (let i = 0; i < 5; i++)
      all.push(scheduler.schedule({ ...base, exact: `s${i}`, jobId: 'small', attempt: attempt(`s${i}`) }))
    await clock.run(Promise.all(all))
    const afterBurst = order.slice(30)
    const lastSmall = afterBurst.indexOf('s4')
    expect(lastSmall).toBeLessThan(10) // alternating: a, s, a, s, …
    expect(afterBurst.slice(0, 10).filter((n) => n.startsWith('s'))).toHaveLength(5)
  })

  it('cancelling a job drops its queued calls and aborts those in flight; other jobs go on', async () => {
    const clock = new FakeClock()
    const scheduler = new Scheduler({ clock, maxInFlight: 2 })
    const a1 = manual(scheduler, { name: 'a1', jobId: 'A' })
    const a2 = manual(scheduler, { name: 'a2', jobId: 'A' })
    const a3 = manual(scheduler, { name: 'a3', jobId: 'A' })
    const b1 = manual(scheduler, { name: 'b1', jobId: 'B' })
    await flush()
    expect(scheduler.state()).toMatchObject({ queued: 2, inFlight: 2 })
    expect(scheduler.cancelJob('A')).toBe(3)
    await expect(a1.promise).rejects.toMatchObject({ code: 'cancelled' })
    await expect(a3.promise).rejects.toMatchObject({ code: 'cancelled' })
    expect(a1.calls[0]?.signal.aborted).toBe(true)
    expect(a2.calls[0]?.signal.aborted).toBe(true)
    await flush()
    // b1 took a freed slot and runs on.
    expect(b1.calls).toHaveLength(1)
    b1.calls[0]!.answer({ ok: true, value: 'b1' })
    await expect(b1.promise).resolves.toBe('b1')
    expect(scheduler.state().byJob).toEqual([])
  })

  it("drops a queued call when the caller's signal aborts", async () => {
    const clock = new FakeClock()
    const scheduler = new Scheduler({ clock, maxInFlight: 1 })
    manual(scheduler, { name: 'first' })
    const controller = new AbortController()
    const second = manual(scheduler, { name: 'second', signal: controller.signal })
    await flush()
    controller.abort()
    await expect(second.promise).rejects.toBeInstanceOf(DesktopApiError)
    expect(scheduler.state().queued).toBe(0)
    expect(second.calls).toHaveLength(0)
  })

  it('never has more calls in flight than its cap', async () => {
    const clock = new FakeClock()
    const scheduler = new Scheduler({ clock, maxInFlight: 3 })
    const calls = Array.from({ length: 10 }, (_, i) => manual(scheduler, { name: `r${i}`, exact: `x${i}` }))
    await flush()
    expect(calls.filter((c) => c.calls.length > 0)).toHaveLength(3)
    expect(scheduler.state()).toMatchObject({ inFlight: 3, queued: 7, waitingUntil: null })
  })

  it('reports per job what is queued, in flight, and until when it waits for the rate limit', async () => {
    const clock = new FakeClock()
    const scheduler = new Scheduler({ clock, maxInFlight: 100 })
    const t0 = clock.now()
    const calls = Array.from({ length: 32 }, (_, i) => manual(scheduler, { name: `r${i}`, jobId: 'sync-1' }))
    await flush()
    // The burst is out; until a response shows the server's bucket exists, we do not count refill.
    expect(scheduler.state()).toMatchObject({ queued: 2, inFlight: 30, waitingUntil: null })
    await clock.advance(10)
    calls[0]!.calls[0]!.answer({ ok: true, value: 'x' })
    await flush()
    const state = scheduler.state()
    expect(state).toMatchObject({ queued: 2, inFlight: 29, waitingUntil: t0 + 60 })
    expect(state.byJob).toEqual([{ jobId: 'sync-1', queued: 2, inFlight: 29, waitingUntil: t0 + 60 }])
    for (const c of calls) c.calls[0]?.answer({ ok: true, value: 'x' })
    await clock.advance(100)
    for (const c of calls) c.calls[0]?.answer({ ok: true, value: 'x' })
    await flush()
    expect(scheduler.state()).toMatchObject({ queued: 0, inFlight: 0, waitingUntil: null })
    expect(scheduler.state().totals).toMatchObject({ sent: 32, succeeded: 32 })
  })

  it('dispose rejects everything with cancelled', async () => {
    const clock = new FakeClock()
    const scheduler = new Scheduler({ clock, maxInFlight: 1 })
    const a = manual(scheduler, { name: 'a' })
    const b = manual(scheduler, { name: 'b' })
    await flush()
    scheduler.dispose()
    await expect(a.promise).rejects.toMatchObject({ code: 'cancelled' })
    await expect(b.promise).rejects.toMatchObject({ code: 'cancelled' })
    await expect(manual(scheduler, { name: 'c' }).promise).rejects.toMatchObject({ code: 'cancelled' })
  })
})
