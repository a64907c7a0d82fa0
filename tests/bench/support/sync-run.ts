/**
 * Runs Closebook's sync the way the app's sync store does (same engine defaults, same `since` and
 * look-back), so the benches measure the product's behaviour and not a tuned variant of it.
 */
import { SyncEngine, type SyncProgress } from '../../../src/sync/sync-engine'
import type { SyncHarness } from './sync-harness'

/** Copied from src/stores/sync-store.ts (importing it would pull Pinia and the renderer into Node). */
export function defaultSince(now: number): number {
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear() - 1, d.getUTCMonth(), 1)
}
export const DEFAULT_LOOKBACK_MS = 15 * 60_000

export async function runSync(h: SyncHarness): Promise<SyncProgress> {
  const conn = await h.store.connections.get(h.connectionId)
  return new SyncEngine({ api: h.syncApi, store: h.store }).run({
    scope: {
      connectionId: h.connectionId,
      storeIds: [...h.sandbox.storeIds],
      resources: ['transaction_history', 'charges'],
    },
    since: defaultSince(Date.now()),
    lookbackMs: DEFAULT_LOOKBACK_MS,
    coveredUntil: conn?.highWater ?? {},
  })
}

export const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits
