import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { estimateTimeLeft } from '../../../../src/sync/progress-estimate'
import type { PartitionProgress } from '../../../../src/sync/sync-engine'
import { timeLeftRefiner, type TimeLeftSample } from '../../../../src/sync/time-left'

/**
 * A first sync of the demo's data (seed 42, 3 stores, 5,000 records, the seed's limits) through the whole
 * sync path against the sandbox, recorded every 250 ms or more: when (ms since the start), the open window's
 * "now", and each partition. The run took `endedAt` ms: its first page came after 3.6 s of start-up, and it
 * then ran at a fraction of the rate its headers allow, speeding up as it went.
 */
interface Recorded {
  endedAt: number
  samples: {
    at: number
    now: number
    partitions: (Omit<PartitionProgress, 'partitionId' | 'storeId' | 'totalHits' | 'error'> & {
      failed: boolean
    })[]
  }[]
}
const recorded = JSON.parse(
  readFileSync(resolve(__dirname, 'fixtures/demo-sync-timeline.json'), 'utf8'),
) as Recorded

/** Each sample as the sync panel gets it: the engine's estimate at the seed's rate, then the refined one. */
function replay(refine: (s: TimeLeftSample) => number | null) {
  return recorded.samples.map((s) => {
    const partitions: PartitionProgress[] = s.partitions.map(({ failed, ...p }, i) => ({
      ...p,
      partitionId: String(i),
      storeId: null,
      totalHits: null,
      error: failed ? { code: 'network', message: 'recorded failure' } : null,
    }))
    const sent = (resource: string) =>
      partitions.filter((p) => p.resource === resource).reduce((n, p) => n + p.requests, 0)
    const etaMs = estimateTimeLeft({
      partitions,
      perMinute: { transaction_history: 1_200, charges: 1_200 },
      sent: { transaction_history: sent('transaction_history'), charges: sent('charges') },
      elapsedMs: s.at,
      pageLimit: 100,
      now: s.now,
    })
    const requests = sent('transaction_history') + sent('charges')
    const shown = refine({ at: s.at, state: 'running', requests, partitions, etaMs })
    return { at: s.at, engine: etaMs, shown, left: recorded.endedAt - s.at }
  })
}

describe('time left on the demo’s recorded first sync', () => {
  it('reads within half again of the time really left once the run has a pace, not low first and high after', () => {
    const samples = replay(timeLeftRefiner(100))
    const judged = samples.filter((s) => s.left >= 1_000 && s.at >= 4_500)
    expect(judged.length).toBeGreaterThan(10)
    for (const s of judged) {
      const where = `at ${s.at} ms: shown ${s.shown} ms, engine ${s.engine} ms, ${s.left} ms really left`
      expect(s.shown, where).not.toBeNull()
      expect(s.shown ?? 0, where).toBeGreaterThanOrEqual(s.left / 1.5)
      expect(s.shown ?? 0, where).toBeLessThanOrEqual(s.left * 1.5)
    }
    // Shown from the first page on: never "estimating" again once a time left was shown.
    const first = samples.findIndex((s) => s.shown !== null)
    expect(first).toBeGreaterThanOrEqual(0)
    expect(samples.slice(first).filter((s) => s.shown === null)).toEqual([])
  })

  it('is never shorter than the time at the rate the headers allow, whatever a first burst does', () => {
    const refine = timeLeftRefiner(100)
    const part = (records: number, requests: number): PartitionProgress => ({
      partitionId: 'p',
      resource: 'transaction_history',
      storeId: null,
      from: 0,
      to: 1,
      records,
      requests,
      totalHits: 10_000,
      estimate: 10_000,
      done: false,
      error: null,
    })
    // 20 pages a second allowed: 100 pages left is 5 s; a burst sent 30 pages in the first 0.5 s.
    expect(refine({ at: 0, state: 'running', requests: 0, partitions: [part(0, 0)], etaMs: 5_000 })).toBe(
      5_000,
    )
    const burst = refine({
      at: 500,
      state: 'running',
      requests: 30,
      partitions: [part(3_000, 30)],
      etaMs: 3_500,
    })
    expect(burst).toBe(3_500)
  })
})
