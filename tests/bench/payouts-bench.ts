/**
 * What a payout sync costs for a year of a merchant (the sandbox's payouts, seed limits, rate scale 1):
 * the requests it makes and its wall time, first sync and the next (nothing changed), once with monthly
 * transfers and once with weekly ones. The year has 365 days of charges at the e2e bench's density
 * (e2e-sync-bench.ts: 50,000 charges, 10,000 with --quick, over the sandbox's default window). Payouts are
 * read through the same harness as the records' sync benches (main and the sandbox in a worker, the
 * renderer's cache in fake-indexeddb).
 */
import { DEFAULT_FROM, DEFAULT_TO } from '../../electron/sandbox/server-options'
import type { TransferSchedule } from '../../electron/sandbox/payouts'
import { PayoutsRepository } from '../../src/db/payouts-repository'
import { PayoutSync } from '../../src/sync/payout-sync'
import { measured, type MetricMap } from './metrics'
import { startSyncHarness } from './support/sync-harness'
import { round } from './support/sync-run'

const DAY_MS = 86_400_000
/** The e2e bench's charges (e2e-sync-bench.ts) over the sandbox's default window. */
const E2E_CHARGES = { full: 50_000, quick: 10_000 }
const FROM = '2025-11-01T00:00:00Z'
const TO = '2026-11-01T00:00:00Z'

/** Charges in the bench's year at the e2e bench's charges per day. */
export function yearOfCharges(quick: boolean): { charges: number; perDay: number; days: number } {
  const e2eDays = (Date.parse(DEFAULT_TO) - Date.parse(DEFAULT_FROM)) / DAY_MS
  const perDay = (quick ? E2E_CHARGES.quick : E2E_CHARGES.full) / e2eDays
  const days = (Date.parse(TO) - Date.parse(FROM)) / DAY_MS
  return { charges: Math.round(perDay * days), perDay, days }
}

interface YearSync {
  requests: number
  s: number
  nextRequests: number
  nextS: number
  transfers: number
  ledgers: number
}

async function syncYear(charges: number, transferSchedule: TransferSchedule): Promise<YearSync> {
  const h = await startSyncHarness({
    seed: 5150,
    stores: 3,
    records: charges,
    rateScale: 1,
    from: FROM,
    to: TO,
    payouts: { transferSchedule },
  })
  try {
    const sync = new PayoutSync(
      { payoutPage: (args) => h.api.api.payoutPage(args) },
      new PayoutsRepository(h.db),
    )
    const run = async () => {
      const started = Date.now()
      const result = await sync.run({
        connectionId: h.connectionId,
        jobId: `bench-payouts-${transferSchedule}`,
      })
      if (!result.complete) throw new Error(`payout sync stopped: ${JSON.stringify(result.error)}`)
      return { result, s: (Date.now() - started) / 1000 }
    }
    const first = await run()
    const next = await run()
    return {
      requests: first.result.requests,
      s: first.s,
      nextRequests: next.result.requests,
      nextS: next.s,
      transfers: first.result.transfers,
      ledgers: await h.db.payoutLedgers.count(),
    }
  } finally {
    await h.close()
  }
}

export async function benchPayouts({ quick }: { quick: boolean }): Promise<MetricMap> {
  const { charges, perDay, days } = yearOfCharges(quick)
  const metrics: MetricMap = {}
  for (const schedule of ['monthly', 'weekly'] as const) {
    const year = await syncYear(charges, schedule)
    const suffix = schedule === 'monthly' ? '' : `_${schedule}`
    const where = `${charges} charges over ${days} days (${round(perDay, 1)} a day, the e2e bench's density), ${year.transfers} ${schedule} transfers, ${year.ledgers} ledgers, 3 stores, seed limits, loopback, fake-indexeddb`
    metrics[`payouts.sync_requests${suffix}`] = measured(
      `payouts.sync_requests${suffix}`,
      year.requests,
      `first payout sync; the next (nothing changed) made ${year.nextRequests} requests in ${round(year.nextS, 2)} s. ${where}`,
    )
    metrics[`payouts.sync_s${suffix}`] = measured(`payouts.sync_s${suffix}`, round(year.s, 2), where)
  }
  return metrics
}
