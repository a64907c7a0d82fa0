/**
 * The sandbox's payouts under every reading it can serve, taken through the wire shapes main validates and
 * sync's mapping, rolled forward month by month: in every currency and month the closing is explained to
 * 0, the control is 0, and the opening is last month's closing. Monthly and weekly transfer schedules
 * (a weekly transfer's period straddles month ends); with and without the links the sandbox puts on a
 * repaying transfer (metadata and note), since a real service may send neither.
 */
import { describe, expect, it } from 'vitest'
import { payoutItemSchemas } from '../../../electron/shared/payouts-api'
import { answerPayout, ledgerItem, type PayoutContext } from '../../../electron/sandbox/payout-routes'
import {
  CARRY_OVER_READINGS,
  LEDGER_AMOUNT_READINGS,
  TRANSFER_FEE_READINGS,
  TRANSFER_SCHEDULES,
  type PayoutOptions,
} from '../../../electron/sandbox/payouts'
import { startSandbox } from '../../../electron/sandbox/server'
import type { LedgerItem, Transfer, TransferStatusChange } from '../../../src/domain/payouts'
import { rollForwardOfMonth, type RollForward } from '../../../src/reconcile/payouts/rollforward'
import { ledgerRowOf, statusChangeOf, transferRowOf } from '../../../src/sync/payout-records'

const MONTHS = ['2026-07', '2026-08', '2026-09', '2026-10', '2026-11']
/** Mid-cycle (September's transfers approved, August's JPY one failed) and after every payout. */
const CLOCKS = [Date.parse('2026-10-05T00:00:00Z'), Date.parse('2026-11-27T00:00:00Z')]
const CONN = 'conn-readings'

interface Payouts {
  transfers: Transfer[]
  ledgers: LedgerItem[]
  statusChanges: TransferStatusChange[]
}

/** The sandbox's book as the app caches it: every item through its wire schema and sync's mapping. */
async function payoutsOf(options: PayoutOptions, clockMs: number, links: boolean): Promise<Payouts> {
  const sb = await startSandbox({
    seed: 7,
    stores: 2,
    records: 700,
    rateLimit: false,
    lateChangeEveryMs: 0,
    now: () => clockMs,
    payoutClock: () => clockMs,
    payouts: options,
  })
  try {
    const book = sb.payouts()
    const ctx: PayoutContext = {
      book,
      merchant: { id: 'm-1', name: 'Merchant' },
      bankAccounts: [],
      createdUs: 0,
      minTransferPayout: options.minTransferPayout ?? 10_000,
      transferSchedule: options.transferSchedule ?? 'monthly',
    }
    const answer = (kind: 'transfer' | 'transfer_status_changes', id: string) => {
      const a = answerPayout({ kind, id, template: '' }, new URLSearchParams({ limit: '100' }), ctx)
      if (a.status !== 200) throw new Error(`sandbox answered ${a.status} for ${kind} ${id}`)
      return a
    }
    const transfers = book.transfers.map((t) => {
      const wire = { ...answer('transfer', t.id).body }
      if (!links) Object.assign(wire, { metadata: {}, note: null })
      return transferRowOf(CONN, payoutItemSchemas.transfer.parse(wire), 0)
    })
    const statusChanges = book.transfers.flatMap((t) =>
      (answer('transfer_status_changes', t.id).list?.items ?? []).map((i) =>
        statusChangeOf(CONN, payoutItemSchemas.transfer_status_changes.parse(i)),
      ),
    )
    const ledgers = book.ledgers.map((l) =>
      ledgerRowOf(CONN, payoutItemSchemas.ledger.parse(ledgerItem(l, ctx)), 0),
    )
    return { transfers, ledgers, statusChanges }
  } finally {
    await sb.close()
  }
}

function rollMonths(p: Payouts, options: PayoutOptions): RollForward[] {
  const readings = {
    ledgerAmounts: options.ledgerAmounts ?? 'net',
    transferFee: options.transferFee ?? 'manual_ledger',
  }
  const out: RollForward[] = []
  let previous: Record<string, number> | undefined
  for (const period of MONTHS) {
    const r = rollForwardOfMonth({
      period,
      timeZone: 'Asia/Tokyo',
      ...p,
      readings,
      transferFees: { JPY: 440 },
      ...(previous ? { previousClosing: previous } : {}),
    })
    out.push(r)
    previous = Object.fromEntries(r.currencies.map((c) => [c.currency, c.closing]))
  }
  return out
}

/** Every currency and month, in words a failure can be read by. */
function misfits(months: RollForward[]): string[] {
  const out: string[] = []
  let previous = new Map<string, number>()
  for (const r of months) {
    for (const c of r.currencies) {
      const carried = previous.get(c.currency) ?? 0
      if (c.opening !== carried)
        out.push(`${r.period} ${c.currency}: opening ${c.opening} ≠ last closing ${carried}`)
      if (c.control !== 0) out.push(`${r.period} ${c.currency}: control ${c.control}`)
      if (c.unexplained !== 0)
        out.push(`${r.period} ${c.currency}: closing ${c.closing}, unexplained ${c.unexplained}`)
      for (const d of c.paidDifferences)
        out.push(`${r.period} ${c.currency}: paid transfer ${d.transferId} differs by ${d.difference}`)
    }
    for (const p of r.problems)
      if (p.code.startsWith('transfer_repay')) out.push(`${r.period}: ${p.code} ${p.detail}`)
    previous = new Map(r.currencies.map((c) => [c.currency, c.closing]))
  }
  return out
}

/** A period that holds days of two months (`to` is the first day after it). */
function straddlesMonths(t: Transfer): boolean {
  if (!t.periodFrom || !t.periodTo) return false
  return t.periodFrom.slice(0, 7) !== t.periodTo.slice(0, 7) && !t.periodTo.endsWith('-01')
}

const COMBINATIONS: PayoutOptions[] = TRANSFER_SCHEDULES.flatMap((transferSchedule) =>
  LEDGER_AMOUNT_READINGS.flatMap((ledgerAmounts) =>
    TRANSFER_FEE_READINGS.flatMap((transferFee) =>
      CARRY_OVER_READINGS.flatMap((carryOver) =>
        [10_000, 400_000].map((minTransferPayout) => ({
          transferSchedule,
          ledgerAmounts,
          transferFee,
          carryOver,
          minTransferPayout,
        })),
      ),
    ),
  ),
)

describe('the roll-forward of the sandbox’s payouts under every reading', () => {
  it.each(COMBINATIONS.map((o) => [Object.values(o).join(' / '), o] as const))(
    '%s: every month’s closing is explained to 0 and its opening is last month’s closing',
    async (_name, options) => {
      const seen = { repaid: 0, carried: 0, straddling: 0 }
      for (const clock of CLOCKS)
        for (const links of [true, false]) {
          const payouts = await payoutsOf(options, clock, links)
          seen.straddling += payouts.transfers.filter(straddlesMonths).length
          const months = rollMonths(payouts, options)
          expect(misfits(months), `clock ${new Date(clock).toISOString()}, links ${links}`).toEqual([])
          expect(months[months.length - 1]!.currencies.length).toBeGreaterThan(1)
          for (const c of months.flatMap((r) => r.currencies))
            for (const rep of c.repayments) {
              if (rep.transferId === null) seen.carried++
              else seen.repaid++
              if (links && rep.transferId !== null) expect(rep.evidence).toBe('metadata')
              if (!links) expect(rep.evidence).toBe('amount')
            }
        }
      // The failed JPY transfer and the canceled one are repaid in every combination.
      expect(seen.repaid).toBeGreaterThan(0)
      if (options.carryOver === 'open_ledgers' && options.minTransferPayout === 400_000)
        expect(seen.carried).toBeGreaterThan(0)
      // Weekly transfers pay weeks that begin in one month and end in the next.
      if (options.transferSchedule === 'weekly') expect(seen.straddling).toBeGreaterThan(0)
    },
    120_000,
  )
})
