/**
 * Payout sync end to end: the renderer's payout sync and Dexie cache, main's gateway and scheduler, the
 * sandbox's payouts. After each scenario the cache must hold the sandbox's payouts exactly.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { PayoutPageArgs, PayoutPageResult } from '../../../electron/shared/contract/payouts'
import { PayoutsRepository } from '../../../src/db/payouts-repository'
import { SyncEngine } from '../../../src/sync/sync-engine'
import { PayoutSync, type PayoutApiPort } from '../../../src/sync/payout-sync'
import { startHarness, type Harness } from '../support/harness'

const SINCE = Date.parse('2026-07-01T00:00:00Z')
const harnesses: Harness[] = []
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()))
  clock = Date.parse('2026-11-27T00:00:00Z')
})

let clock = Date.parse('2026-11-27T00:00:00Z')

async function harness(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const h = await startHarness({
    seed: 31,
    stores: 2,
    records: 400,
    rateScale: 50,
    lateChangeEveryMs: 0,
    payoutClock: () => clock,
    ...options,
  })
  harnesses.push(h)
  return h
}

async function syncRecords(h: Harness): Promise<void> {
  const result = await new SyncEngine({ api: h.syncApi, store: h.store, concurrency: 4 }).run({
    scope: {
      connectionId: h.connectionId,
      storeIds: h.sandbox.storeIds,
      resources: ['transaction_history', 'charges'],
    },
    since: SINCE,
    lookbackMs: 2 * 3600_000,
    coveredUntil: (await h.store.connections.get(h.connectionId))?.highWater ?? {},
  })
  expect(result.state).toBe('done')
}

/** The bridge's payout call, counting calls per kind; `failAfter` throws once that many calls were made. */
function countingApi(h: Harness, failAfter?: { kind: PayoutPageArgs['kind']; calls: number }) {
  const calls: Record<string, number> = {}
  const api: PayoutApiPort = {
    payoutPage: async (args): Promise<PayoutPageResult> => {
      calls[args.kind] = (calls[args.kind] ?? 0) + 1
      if (failAfter && args.kind === failAfter.kind && calls[args.kind]! > failAfter.calls)
        throw new Error('the host went away')
      return h.api.api.payoutPage(args)
    },
  }
  return { api, calls }
}

async function syncPayouts(
  h: Harness,
  api: PayoutApiPort = countingApi(h).api,
  verify?: { from: number; to: number },
) {
  return new PayoutSync(api, new PayoutsRepository(h.db)).run({
    connectionId: h.connectionId,
    jobId: 'payouts-test',
    ...(verify ? { verify } : {}),
  })
}

/** The cache holds exactly the sandbox's transfers, each with exactly its ledgers and status changes. */
async function expectPayoutsEqualSandbox(h: Harness): Promise<void> {
  const truth = h.sandbox.payouts()
  const repo = new PayoutsRepository(h.db)
  const cached = await repo.allTransfers(h.connectionId)
  expect(cached.map((t) => `${t.id}:${t.status}:${t.amount}`).sort()).toEqual(
    truth.transfers.map((t) => `${t.id}:${t.status}:${t.amount}`).sort(),
  )
  for (const t of truth.transfers) {
    const ledgers = await repo.ledgersOfTransfer(h.connectionId, t.id)
    expect(ledgers.map((l) => `${l.id}:${l.amount}`).sort()).toEqual(
      truth.ledgers
        .filter((l) => l.transferId === t.id)
        .map((l) => `${l.id}:${l.amount}`)
        .sort(),
    )
    const changes = await repo.statusChanges(h.connectionId, t.id)
    expect(changes.map((c) => c.newStatus)).toEqual(t.changes.map((c) => c.newStatus))
  }
}

describe('payout sync against the sandbox', () => {
  it('caches every transfer with its ledgers, status changes, masked bank accounts and configuration', async () => {
    const h = await harness()
    await syncRecords(h)
    const result = await syncPayouts(h)
    expect(result).toMatchObject({ access: { code: 'ok' }, complete: true, quarantined: 0 })
    await expectPayoutsEqualSandbox(h)
    const repo = new PayoutsRepository(h.db)
    const accounts = await repo.bankAccounts(h.connectionId)
    expect(accounts.length).toBe(2)
    expect(accounts.every((a) => /^X+\d{4}$/.test(a.accountNumberMasked ?? ''))).toBe(true)
    expect((await repo.config(h.connectionId))?.minTransferPayout).toEqual({
      amount: 10_000,
      currency: 'JPY',
    })
    // Every charge ledger leads to its cached charge through the charge list's ledger_id.
    const truth = h.sandbox.payouts()
    const chargeLedgers = truth.ledgers.filter((l) => l.origin === 'charge')
    const found = await repo.recordsByLedgerIds(
      h.connectionId,
      chargeLedgers.map((l) => l.id),
    )
    for (const l of chargeLedgers) expect(found.get(l.id)?.charge?.id).toBe(l.sourceId)
  })

  it('reads again only what can change: non-final transfers every sync, final ones never', async () => {
    clock = Date.parse('2026-11-03T00:00:00Z')
    const h = await harness({ payoutClock: () => clock })
    await syncRecords(h)
    await syncPayouts(h)
    const october = h.sandbox.payouts().transfers.filter((t) => t.from === '2026-10-01')
    expect(october.length).toBeGreaterThan(0)
    expect(october.every((t) => t.status === 'approved')).toBe(true)
    clock = Date.parse('2026-11-16T02:00:00Z')
    const second = countingApi(h)
    await syncPayouts(h, second.api)
    await expectPayoutsEqualSandbox(h)
    const repo = new PayoutsRepository(h.db)
    for (const t of october) expect((await repo.transfer(h.connectionId, t.id))?.status).toBe('paid')
    // Only October's transfers were read again: one status-change and one ledger page each.
    expect(second.calls['transfer_status_changes']).toBe(october.length)
    // Now every transfer is final and read whole: a third sync reads no details at all.
    const third = countingApi(h)
    const result = await syncPayouts(h, third.api)
    expect(result.detailsRead).toBe(0)
    expect(third.calls['transfer_ledgers'] ?? 0).toBe(0)
  })

  it('resumes an interrupted ledger read after its last stored page, counting no ledger twice', async () => {
    const h = await harness({ records: 1500, stores: 1 })
    await syncRecords(h)
    const broken = countingApi(h, { kind: 'transfer_ledgers', calls: 2 })
    const first = await syncPayouts(h, broken.api)
    expect(first.complete).toBe(false)
    expect((await new PayoutsRepository(h.db).syncState(h.connectionId)).details?.part).toBe('ledgers')
    const second = await syncPayouts(h)
    expect(second.complete).toBe(true)
    await expectPayoutsEqualSandbox(h)
    // Every ledger once: those of transfers, and the open ones read by id.
    expect(await h.db.payoutLedgers.count()).toBe(h.sandbox.payouts().ledgers.length)
    const inTransfers = await h.db.payoutLedgers.filter((l) => l.transferKey !== '').count()
    expect(inTransfers).toBe(h.sandbox.payouts().ledgers.filter((l) => l.transferId).length)
  })

  it('a token that may not read payouts leaves the records and the cached payouts as they were and says why', async () => {
    const h = await harness()
    await syncRecords(h)
    await syncPayouts(h)
    h.sandbox.setAppToken({ scope: 'store' })
    await syncRecords(h) // store paths still answer
    const result = await syncPayouts(h)
    expect(result.access).toEqual({ code: 'forbidden', serviceCode: 'INVALID_PERMISSIONS' })
    expect(result.complete).toBe(false)
    expect((await new PayoutsRepository(h.db).syncState(h.connectionId)).access.code).toBe('forbidden')
    await expectPayoutsEqualSandbox(h)
  })

  it('"Verify month" reads the month’s transfers again whole', async () => {
    const h = await harness()
    await syncRecords(h)
    await syncPayouts(h)
    const verify = countingApi(h)
    const result = await syncPayouts(h, verify.api, {
      from: Date.parse('2026-09-30T15:00:00Z'),
      to: Date.parse('2026-10-31T15:00:00Z'),
    })
    expect(result.detailsRead).toBeGreaterThan(0)
    expect(verify.calls['transfer_ledgers']).toBeGreaterThanOrEqual(result.detailsRead)
    await expectPayoutsEqualSandbox(h)
  })

  it('caches weekly transfers and their schedule, and "Verify month" reaches the weeks that straddle it', async () => {
    const h = await harness({ payouts: { transferSchedule: 'weekly' } })
    await syncRecords(h)
    expect(await syncPayouts(h)).toMatchObject({ access: { code: 'ok' }, complete: true, quarantined: 0 })
    await expectPayoutsEqualSandbox(h)
    const schedule = (await new PayoutsRepository(h.db).config(h.connectionId))?.transferSchedule
    expect(schedule).toMatchObject({
      period: 'weekly',
      weeklyClosingDay: 'sunday',
      weeklyPayoutDay: 'friday',
    })
    // October's weeks in Tokyo: every week that holds an October day, the first and last straddling.
    const october = h.sandbox.payouts().transfers.filter((t) => t.from < '2026-11-01' && t.to > '2026-10-01')
    expect(october.some((t) => t.from < '2026-10-01')).toBe(true)
    expect(october.some((t) => t.to > '2026-11-01')).toBe(true)
    const verify = countingApi(h)
    await syncPayouts(h, verify.api, {
      from: Date.parse('2026-09-30T15:00:00Z'),
      to: Date.parse('2026-10-31T15:00:00Z'),
    })
    expect(verify.calls['transfer_status_changes']).toBeGreaterThanOrEqual(october.length)
    await expectPayoutsEqualSandbox(h)
  })
})
