/**
 * The sync's time left against a real sandbox whose rate limits bind: it is shown from the first pages
 * (within the first tenth of the records), worked out from the requests left at the rate the headers
 * allow, and it comes close to the time the sync then really takes.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine, type SyncProgress } from '../../../src/sync/sync-engine'
import { startHarness, type Harness } from '../support/harness'

const SINCE = Date.parse('2026-07-01T00:00:00Z')
const harnesses: Harness[] = []
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()))
})

interface Sample {
  at: number
  records: number
  etaMs: number | null
  state: SyncProgress['state']
}

describe('time left during a sync', () => {
  it('is shown within the first 10 % of a first sync, from the requests left at the allowed rate', async () => {
    // Seed limits scaled to a quarter: 300 requests a minute per list, so the sync is bound by them.
    const h = await startHarness({ seed: 37, stores: 2, records: 4000, rateScale: 0.25, control: true })
    harnesses.push(h)
    const samples: Sample[] = []
    const started = Date.now()
    const result = await new SyncEngine({ api: h.syncApi, store: h.store, concurrency: 6 }).run({
      scope: {
        connectionId: h.connectionId,
        storeIds: h.sandbox.storeIds,
        resources: ['transaction_history', 'charges'],
      },
      since: SINCE,
      lookbackMs: 2 * 3600_000,
      coveredUntil: {},
      onProgress: (p) => samples.push({ at: Date.now(), records: p.records, etaMs: p.etaMs, state: p.state }),
    })
    const ended = Date.now()
    expect(result.state).toBe('done')
    const total = result.records
    const running = samples.filter((s) => s.state === 'running')
    const early = running.filter((s) => s.records < total / 10)
    const shown = early.find((s) => s.etaMs !== null)
    console.log(
      `time left: ${total} records, ${result.requests} requests in ${ended - started} ms; ` +
        `${early.length} samples in the first 10 %, the first with a time left at ${shown ? shown.at - started : '—'} ms ` +
        `saying ${shown?.etaMs ?? '—'} ms (${shown ? ended - shown.at : '—'} ms really left); ` +
        `${running.filter((s) => s.etaMs === null).length} of ${running.length} running samples without one`,
    )
    expect(shown, 'a time left within the first 10 % of the records').toBeDefined()
    // Close to the truth, with room for a shared machine: within a factor of three either way.
    const really = ended - (shown?.at ?? 0)
    expect(shown?.etaMs ?? 0).toBeGreaterThan(really / 3)
    expect(shown?.etaMs ?? 0).toBeLessThan(really * 3)
    // From the first page of each list on, never "estimating" again until the end.
    const firstShown = running.findIndex((s) => s.etaMs !== null)
    expect(running.slice(firstShown).filter((s) => s.etaMs === null)).toEqual([])
  }, 120_000)
})
