/** A harness whose sandbox serves payouts on a fixed clock, with its records synced from July on. */
import { expect } from 'vitest'
import { SyncEngine } from '../../../src/sync/sync-engine'
import { startHarness, type Harness } from './harness'

export const PAYOUT_CLOCK = Date.parse('2026-11-27T00:00:00Z')

export function startPayoutHarness(): Promise<Harness> {
  return startHarness({
    seed: 31,
    stores: 2,
    records: 300,
    rateScale: 50,
    lateChangeEveryMs: 0,
    payoutClock: () => PAYOUT_CLOCK,
  })
}

/** Syncs both lists of every store from July 2026 to the end; fails the test unless it is done. */
export async function syncAllRecords(h: Harness): Promise<void> {
  const result = await new SyncEngine({ api: h.syncApi, store: h.store, concurrency: 4 }).run({
    scope: {
      connectionId: h.connectionId,
      storeIds: h.sandbox.storeIds,
      resources: ['transaction_history', 'charges'],
    },
    since: Date.parse('2026-07-01T00:00:00Z'),
    lookbackMs: 2 * 3600_000,
    coveredUntil: {},
  })
  expect(result.state).toBe('done')
}
