import { describe, expect, it } from 'vitest'
import type { PartitionProgress } from '../../../../src/sync/sync-engine'
import { estimateProgress } from '../../../../src/sync/progress-estimate'

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
