/**
 * Two tabs of the web host on one origin share one IndexedDB and one host. Both sync the same connection
 * at once (a user who opened the app twice), through faults: the cache must still equal the sandbox,
 * with nothing missing, doubled or different. (That the second tab's calls get through while the first
 * waits for a rate limit is tests/integration/hardening/transport-starvation.test.ts and the e2e storm.)
 */
import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine, type SyncStorePort } from '../../../src/sync/sync-engine'
import { diffCacheWithSandbox } from '../support/compare'
import { startHarness, type Harness } from '../support/harness'
import { countHistory } from '../../../src/db/history-part-reads'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

describe('two tabs on one web host', () => {
  it('both syncing the same connection at once converge on the sandbox', async () => {
    h = await startHarness({
      seed: 11,
      stores: 2,
      records: 400,
      rateScale: 100,
      faults: { failRate: 0.1, jitterMs: 20 },
    })
    const harness = h
    const second = await harness.openTab()
    const run = (store: SyncStorePort) =>
      new SyncEngine({ api: harness.syncApi, store }).run({
        scope: {
          connectionId: harness.connectionId,
          storeIds: harness.sandbox.storeIds,
          resources: ['transaction_history', 'charges'],
        },
        since: Date.parse('2026-07-01T00:00:00Z'),
        lookbackMs: 2 * 3600_000,
        coveredUntil: {},
      })
    const [a, b] = await Promise.all([run(harness.store), run(second.store)])
    // Faults may leave parts for a second run; what both runs leave must converge after one more each.
    if (a.state !== 'done') await run(harness.store)
    if (b.state !== 'done') await run(second.store)
    const diff = await diffCacheWithSandbox(harness)
    expect(diff).toMatchObject({ missing: 0, extra: 0, different: 0 })
    expect(diff.total).toBeGreaterThan(400)
    const perTab = [await countHistory(harness.db), await countHistory(second.db)]
    expect(perTab[0]).toBe(perTab[1])
  }, 120_000)
})
