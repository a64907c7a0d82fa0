/** Rate limits (seed §8.2) and fault injection, each by its flag and reproducible by seed. */
import { describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../../electron/sandbox/server'
import { chargeItemSchema, chargeListSchema } from '../../../../electron/shared/payment-api'
import { authOf, get } from './support'

async function withSandbox<T>(options: SandboxOptions, run: (sb: RunningSandbox) => Promise<T>): Promise<T> {
  // The seed shape's 429s (JSON body, Retry-After), whatever DEFAULT_SHAPE is; varied.test.ts covers the other.
  const sb = await startSandbox({ seed: 3, stores: 2, records: 300, shape: 'seed', ...options })
  try {
    return await run(sb)
  } finally {
    await sb.close()
  }
}

const LIMIT_HEADERS = [
  'X-Remaining-Requests-Route',
  'X-Requests-Per-Minute-Route',
  'X-Remaining-Requests-Exact',
  'X-Requests-Per-Minute-Exact',
]

describe('rate limits', () => {
  it('sends the four headers on every response, 200, 400 and 401 alike', async () => {
    await withSandbox({}, async (sb) => {
      for (const answer of [
        await get(sb, '/charges'),
        await get(sb, '/charges', { limit: 0 }),
        await get(sb, '/charges', {}, {}),
      ]) {
        for (const h of LIMIT_HEADERS) expect(answer.headers.get(h), h).toMatch(/^\d+$/)
      }
      const answer = await get(sb, '/transaction_history')
      expect(answer.headers.get('X-Requests-Per-Minute-Route')).toBe('1200')
      expect(answer.headers.get('X-Requests-Per-Minute-Exact')).toBe('120')
    })
  })

  it('Exact: the 11th identical request in a burst gets 429 with a JSON body and Retry-After', async () => {
    let clock = 1_000_000
    await withSandbox({ now: () => clock }, async (sb) => {
      const remaining: string[] = []
      for (let i = 0; i < 10; i++) {
        const answer = await get(sb, '/charges', { limit: 5 })
        expect(answer.status).toBe(200)
        remaining.push(answer.headers.get('X-Remaining-Requests-Exact') ?? '')
      }
      expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0'])
      const refused = await get(sb, '/charges', { limit: 5 })
      expect(refused.status).toBe(429)
      expect(refused.body).toEqual({ status: 'error', code: 'TOO_MANY_REQUESTS', errors: [] })
      expect(refused.headers.get('Retry-After')).toBe('1') // 120 per minute: one token every 0.5 s, rounded up
      // Another query string is another Exact bucket, but the same Route bucket.
      const other = await get(sb, '/charges', { limit: 6 })
      expect(other.status).toBe(200)
      expect(other.headers.get('X-Remaining-Requests-Route')).toBe('19')
      clock += 500 // half a second refills one Exact token
      expect((await get(sb, '/charges', { limit: 5 })).status).toBe(200)
    })
  })

  it('Route: counted per resource path, so all stores share it; 31st request in a burst is refused', async () => {
    const clock = 5_000_000
    await withSandbox({ now: () => clock }, async (sb) => {
      const statuses: number[] = []
      for (let i = 0; i < 31; i++) {
        const store = sb.storeIds[i % sb.storeIds.length] as string
        statuses.push((await get(sb, `/stores/${store}/charges`, { limit: i + 1 })).status)
      }
      expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true)
      expect(statuses[30]).toBe(429)
      // The history route has a budget of its own.
      expect((await get(sb, `/stores/${sb.storeIds[0]}/transaction_history`)).status).toBe(200)
    })
  })

  it('--rate-scale multiplies both limits; --no-rate-limit refuses nothing', async () => {
    await withSandbox({ rateScale: 10 }, async (sb) => {
      const answer = await get(sb, '/charges')
      expect(answer.headers.get('X-Requests-Per-Minute-Route')).toBe('12000')
      expect(answer.headers.get('X-Remaining-Requests-Exact')).toBe('99')
    })
    await withSandbox({ rateLimit: false }, async (sb) => {
      const statuses = await Promise.all(
        Array.from({ length: 60 }, () => get(sb, '/charges').then((a) => a.status)),
      )
      expect(statuses.every((s) => s === 200)).toBe(true)
    })
  })
})

async function statuses(sb: RunningSandbox, n: number): Promise<string[]> {
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    try {
      const res = await fetch(`${sb.url}/charges?limit=3&x=${i}`, { headers: { Authorization: authOf(sb) } })
      const text = await res.text()
      if (res.status !== 200) out.push(String(res.status))
      else {
        try {
          const parsed = chargeListSchema.safeParse(JSON.parse(text))
          out.push(parsed.success ? 'ok' : 'bad-item')
        } catch {
          out.push('truncated')
        }
      }
    } catch {
      out.push('dropped')
    }
  }
  return out
}

describe('faults', () => {
  it('each fault shows as itself at rate 1', async () => {
    const run = (faults: SandboxOptions['faults']) =>
      withSandbox({ rateLimit: false, faults }, (sb) => statuses(sb, 4))
    expect(await run({ dropRate: 1 })).toEqual(['dropped', 'dropped', 'dropped', 'dropped'])
    expect((await run({ failRate: 1 })).every((s) => ['500', '502', '503'].includes(s))).toBe(true)
    expect(await run({ truncateRate: 1 })).toEqual(['truncated', 'truncated', 'truncated', 'truncated'])
    expect(await run({ badItemRate: 1 })).toEqual(['bad-item', 'bad-item', 'bad-item', 'bad-item'])
  })

  it('is reproducible by seed and varies with it; a retry of the same request rolls again', async () => {
    const faults = { failRate: 0.3, dropRate: 0.1, truncateRate: 0.1, badItemRate: 0.1 }
    const a = await withSandbox({ seed: 11, rateLimit: false, faults }, (sb) => statuses(sb, 40))
    const b = await withSandbox({ seed: 11, rateLimit: false, faults }, (sb) => statuses(sb, 40))
    const c = await withSandbox({ seed: 12, rateLimit: false, faults }, (sb) => statuses(sb, 40))
    expect(a).toEqual(b)
    expect(a).not.toEqual(c)
    expect(new Set(a).size).toBeGreaterThanOrEqual(4)
    await withSandbox({ rateLimit: false, faults: { failRate: 0.5 } }, async (sb) => {
      const seen = new Set<number>()
      for (let i = 0; i < 20; i++) seen.add((await get(sb, '/charges', { limit: 2 })).status)
      expect(seen.has(200) && seen.size > 1).toBe(true)
    })
  })

  it('a share of items chosen by id is broken once, the same items however the pages are asked for', async () => {
    type Page = { items: Record<string, unknown>[]; has_more: boolean }
    // The list's ids oldest first, from a sandbox of the same seed without faults: a broken item may have
    // lost its id, and the next page's cursor is taken from here.
    const ids = await withSandbox({ rateLimit: false }, async (sb) => {
      const out: string[] = []
      for (let more = true; more;) {
        const cursor = out[out.length - 1]
        const params = { limit: 100, cursor_direction: 'asc', ...(cursor ? { cursor } : {}) }
        const page = await get<Page>(sb, '/charges', params)
        out.push(...page.body.items.map((i) => String(i['id'])))
        more = page.body.has_more
      }
      return out
    })
    expect(ids.length).toBeGreaterThan(100)
    // Which of the list's items (by position, oldest first) came broken.
    const brokenPositions = async (sb: RunningSandbox, limit: number): Promise<number[]> => {
      const broken: number[] = []
      let position = 0
      for (let more = true; more;) {
        const cursor = ids[position - 1]
        const params = { limit, cursor_direction: 'asc', ...(cursor ? { cursor } : {}) }
        const page = await get<Page>(sb, '/charges', params)
        expect(page.status).toBe(200)
        for (const item of page.body.items) {
          if (!chargeItemSchema.safeParse(item).success) broken.push(position)
          position++
        }
        more = page.body.has_more
      }
      expect(position).toBe(ids.length)
      return broken
    }
    const faults = { badItemShare: 0.1 }
    const [byHundred, bySeven] = await Promise.all(
      [100, 7].map((limit) =>
        withSandbox({ rateLimit: false, faults }, async (sb) => {
          const first = await brokenPositions(sb, limit)
          expect(sb.stats.badItems).toBe(first.length)
          // Served whole from then on: a retry, or the same items in other pages, read clean.
          expect(await brokenPositions(sb, limit)).toEqual([])
          expect(await brokenPositions(sb, 13)).toEqual([])
          return first
        }),
      ),
    )
    expect(byHundred?.length).toBeGreaterThan(3)
    expect(bySeven).toEqual(byHundred)
  })

  it('latency and jitter delay answers', async () => {
    await withSandbox({ rateLimit: false, faults: { latencyMs: 120, jitterMs: 50 } }, async (sb) => {
      const start = performance.now()
      await get(sb, '/charges')
      expect(performance.now() - start).toBeGreaterThanOrEqual(115)
    })
  })

  it('a storm answers 429 with Retry-After until it ends', async () => {
    let clock = 0
    await withSandbox(
      { rateLimit: false, now: () => clock, faults: { storm: { periodMs: 10_000, durationMs: 2_000 } } },
      async (sb) => {
        clock = 7_000
        expect((await get(sb, '/charges')).status).toBe(200)
        clock = 8_500
        const storm = await get(sb, '/charges')
        expect(storm.status).toBe(429)
        expect(storm.headers.get('Retry-After')).toBe('2')
        clock = 10_100
        expect((await get(sb, '/charges')).status).toBe(200)
      },
    )
  })
})
