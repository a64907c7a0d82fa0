import { describe, expect, it } from 'vitest'
import type { PartitionProgress } from '../../../../src/sync/sync-engine'
import { estimateProgress, estimateTimeLeft } from '../../../../src/sync/progress-estimate'
import { OPEN_END } from '../../../../src/sync/plan'

const DAY = 86_400_000

function part(over: Partial<PartitionProgress>): PartitionProgress {
  return {
    partitionId: Math.random().toString(36),
    resource: 'transaction_history',
    storeId: null,
    from: 0,
    to: 30 * DAY,
    records: 0,
    requests: 0,
    totalHits: null,
    estimate: null,
    done: false,
    error: null,
    ...over,
  }
}

describe('estimateProgress', () => {
  it('moves once the first partitions answer, estimating the rest by density instead of staying at 0', () => {
    const e = estimateProgress({
      state: 'running',
      partitions: [
        part({ records: 100, totalHits: 400 }),
        part({ from: 30 * DAY, to: 60 * DAY }),
        part({ resource: 'charges', records: 50, totalHits: 200 }),
        part({ resource: 'charges', from: 30 * DAY, to: 60 * DAY }),
      ],
    })
    expect(e.history).toEqual({ parts: 2, records: 100, expected: 800, estimated: true })
    expect(e.charges).toEqual({ parts: 2, records: 50, expected: 400, estimated: true })
    expect(e.percent).toBe(12) // 150 of 1,200
  })

  it('counts the history and the charge list apart, exactly once every partition answered', () => {
    const e = estimateProgress({
      state: 'running',
      partitions: [
        part({ records: 400, done: true }),
        part({ records: 10, totalHits: 20 }),
        part({ resource: 'charges', records: 300, done: true }),
      ],
    })
    expect(e.history).toEqual({ parts: 2, records: 410, expected: 420, estimated: false })
    expect(e.charges).toEqual({ parts: 1, records: 300, expected: 300, estimated: false })
    expect(e.percent).toBe(98)
  })

  it('says nothing is known before any partition answered, and 100 only when done', () => {
    expect(estimateProgress({ state: 'running', partitions: [part({})] }).percent).toBeNull()
    const done = estimateProgress({ state: 'done', partitions: [part({ records: 5, done: true })] })
    expect(done.percent).toBe(100)
    // Records beyond total_hits (new ones arrived) never make it 100 % before the engine says done.
    const over = estimateProgress({ state: 'running', partitions: [part({ records: 30, totalHits: 20 })] })
    expect(over.percent).toBe(99)
  })
})

describe('estimateTimeLeft', () => {
  const base = {
    now: 60 * DAY,
    perMinute: { transaction_history: 1200, charges: 1200 },
    sent: {},
    elapsedMs: 1_000,
    pageLimit: 100,
  }

  it('counts the pages each list has left at the rate its headers allow; the slower list decides', () => {
    const ms = estimateTimeLeft({
      ...base,
      partitions: [
        // 100 of 2,000: 19 pages left; the part not yet answered holds as many by density: 20 more.
        part({ records: 100, requests: 1, estimate: 2_000 }),
        part({ from: 30 * DAY, to: 60 * DAY }),
        // Charges: 10 pages left at 600 a minute (one a 100 ms).
        part({ resource: 'charges', records: 100, requests: 1, estimate: 1_100 }),
      ],
      perMinute: { transaction_history: 1200, charges: 600 },
    })
    expect(ms).toBe(39 * 50) // history: 39 pages at 20 a second
  })

  it('is known from the first page of each list, not only once every part has answered', () => {
    const first = [
      part({ records: 100, requests: 1, estimate: 10_000 }),
      ...Array.from({ length: 5 }, (_, i) => part({ from: (i + 1) * 30 * DAY, to: (i + 2) * 30 * DAY })),
      part({ resource: 'charges', records: 100, requests: 1, estimate: 10_000 }),
    ]
    expect(estimateTimeLeft({ ...base, partitions: first })).toBe((99 + 5 * 100) * 50)
    // Before any page of a list: its size and its rate are unknown.
    expect(estimateTimeLeft({ ...base, partitions: [part({}), part({ resource: 'charges' })] })).toBeNull()
    expect(
      estimateTimeLeft({ ...base, perMinute: {}, partitions: [part({ records: 100, estimate: 500 })] }),
    ).toBeNull()
  })

  it('keeps the pace the run really has once past its first burst, when that is slower than allowed', () => {
    const partitions = [part({ records: 1_000, requests: 10, estimate: 2_000 })]
    // 10 requests in 10 s: one a second, slower than the 20 a second allowed.
    expect(
      estimateTimeLeft({ ...base, partitions, sent: { transaction_history: 10 }, elapsedMs: 10_000 }),
    ).toBe(10_000)
    // In the first seconds the burst runs faster than the limit: the limit stands.
    expect(
      estimateTimeLeft({ ...base, partitions, sent: { transaction_history: 30 }, elapsedMs: 1_000 }),
    ).toBe(500)
  })

  it('measures an open window (no end) up to now, not to its sentinel end', () => {
    const partitions = [
      part({ records: 100, requests: 1, estimate: 1_000, totalHits: 1_000 }),
      // Another month's worth up to now: as many records again.
      part({ from: 30 * DAY, to: OPEN_END }),
    ]
    expect(estimateTimeLeft({ ...base, partitions })).toBe((9 + 10) * 50)
    const shown = estimateProgress({ state: 'running', partitions, now: 60 * DAY })
    expect(shown.history.expected).toBe(2_000)
    // Answered, the open window is measured the same way for the others.
    const answered = [
      part({ to: OPEN_END, records: 100, requests: 1, estimate: 3_000 }),
      part({ from: 0, to: 10 * DAY }),
    ]
    expect(estimateTimeLeft({ ...base, partitions: answered })).toBe((29 + 5) * 50)
  })

  it('is zero when nothing is left, and counts an open part as at least one page', () => {
    expect(estimateTimeLeft({ ...base, partitions: [part({ records: 5, done: true })] })).toBe(0)
    expect(estimateTimeLeft({ ...base, partitions: [part({ records: 500, estimate: 500 })] })).toBe(50)
    // A failed part is not fetched again in this run.
    const failed = part({ error: { code: 'network', message: 'down' } })
    expect(estimateTimeLeft({ ...base, partitions: [failed] })).toBe(0)
  })
})
