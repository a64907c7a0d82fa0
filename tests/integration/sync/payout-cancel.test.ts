/**
 * Cancel stops a payout sync in progress: no payout call starts after it, main is told to drop the job's
 * queued calls, the run ends as cancelled and incomplete, and the next run resumes to the same payouts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { PayoutPageArgs } from '../../../electron/shared/contract/payouts'
import { PayoutsRepository } from '../../../src/db/payouts-repository'
import { PayoutSync, type PayoutApiPort } from '../../../src/sync/payout-sync'
import type { Harness } from '../support/harness'
import { startPayoutHarness } from '../support/payout-harness'

const harnesses: Harness[] = []
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()))
})

describe('cancelling a payout sync', () => {
  it('stops at the next call, tells main to drop the job, and a later run resumes to the same payouts', async () => {
    const h = await startPayoutHarness()
    harnesses.push(h)
    const repo = new PayoutsRepository(h.db)
    const calls: PayoutPageArgs['kind'][] = []
    const cancelled: string[] = []
    const running: { sync?: PayoutSync } = {}
    const api: PayoutApiPort = {
      payoutPage: async (args) => {
        calls.push(args.kind)
        // Cancel arrives while the first transfer's ledgers are being read.
        if (args.kind === 'transfer_ledgers' && !calls.slice(0, -1).includes('transfer_ledgers'))
          void running.sync?.cancel()
        return h.api.api.payoutPage(args)
      },
      cancelJob: (jobId) => {
        cancelled.push(jobId)
        return Promise.resolve()
      },
    }
    const sync = new PayoutSync(api, repo)
    running.sync = sync
    const stopped = await sync.run({ connectionId: h.connectionId, jobId: 'payouts-cancel' })
    expect(stopped.complete).toBe(false)
    expect(stopped.error?.code).toBe('cancelled')
    expect(cancelled).toEqual(['payouts-cancel'])
    // No call after the one Cancel arrived in.
    expect(calls.at(-1)).toBe('transfer_ledgers')
    expect(calls.filter((k) => k === 'transfer_ledgers')).toHaveLength(1)
    expect((await repo.syncState(h.connectionId)).complete).toBe(false)

    // Cancel with nothing running does nothing; the next run reads everything.
    await sync.cancel()
    const resumed = await new PayoutSync({ payoutPage: (a) => h.api.api.payoutPage(a) }, repo).run({
      connectionId: h.connectionId,
      jobId: 'payouts-again',
    })
    expect(resumed.complete).toBe(true)
    const truth = h.sandbox.payouts()
    const cached = await repo.allTransfers(h.connectionId)
    expect(cached.map((t) => `${t.id}:${t.status}`).sort()).toEqual(
      truth.transfers.map((t) => `${t.id}:${t.status}`).sort(),
    )
  })
})
