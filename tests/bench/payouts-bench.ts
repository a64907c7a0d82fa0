/**
 * What a payout sync costs for a year of a merchant (the sandbox's payouts, seed limits, rate scale 1):
 * the requests it makes and its wall time, first sync and the next (nothing changed). The sandbox makes
 * monthly transfers; with --quick a smaller year. Payouts are read through the same harness as the
 * records' sync benches (main and the sandbox in a worker, the renderer's cache in fake-indexeddb).
 */
import { PayoutsRepository } from '../../src/db/payouts-repository'
import { PayoutSync } from '../../src/sync/payout-sync'
import { measured, type MetricMap } from './metrics'
import { startSyncHarness } from './support/sync-harness'
import { round } from './support/sync-run'

export async function benchPayouts({ quick }: { quick: boolean }): Promise<MetricMap> {
  const records = quick ? 20_000 : 120_000
  const h = await startSyncHarness({
    seed: 5150,
    stores: 3,
    records,
    rateScale: 1,
    from: '2025-11-01T00:00:00Z',
    to: '2026-11-01T00:00:00Z',
  })
  try {
    const sync = new PayoutSync(
      { payoutPage: (args) => h.api.api.payoutPage(args) },
      new PayoutsRepository(h.db),
    )
    const run = async () => {
      const started = Date.now()
      const result = await sync.run({ connectionId: h.connectionId, jobId: 'bench-payouts' })
      if (!result.complete) throw new Error(`payout sync stopped: ${JSON.stringify(result.error)}`)
      return { result, s: (Date.now() - started) / 1000 }
    }
    const first = await run()
    const next = await run()
    const ledgers = await h.db.payoutLedgers.count()
    const where = `${records} charges over a year, ${first.result.transfers} monthly transfers, ${ledgers} ledgers, 3 stores, seed limits, loopback, fake-indexeddb`
    return {
      'payouts.sync_requests': measured(
        'payouts.sync_requests',
        first.result.requests,
        `first payout sync; the next (nothing changed) made ${next.result.requests} requests in ${round(next.s, 2)} s. ${where}`,
      ),
      'payouts.sync_s': measured('payouts.sync_s', round(first.s, 2), where),
    }
  } finally {
    await h.close()
  }
}
