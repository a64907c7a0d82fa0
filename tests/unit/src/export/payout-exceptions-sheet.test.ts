import { describe, expect, it } from 'vitest'
import { payoutExceptionRows } from '../../../../src/export/payout-exceptions-sheet'
import { composeTransfers } from '../../../../src/reconcile/payouts/composition'
import { tieDeposits } from '../../../../src/reconcile/payouts/tie-out'
import { bankLine, change, FEES, ledger, NET_INSIDE, paidAt, TZ, transfer } from '../../../support/payouts'

describe('the payout exceptions sheet', () => {
  it('lists each bad input with its reason and whether it was counted, then each deposit that did not tie', () => {
    const transfers = [
      transfer('T1', { amount: 1_000 }),
      transfer('T2', { amount: 700, status: 'failed' }),
      transfer('T3', { amount: 900 }),
    ]
    const ledgers = [ledger('L1', 1_000, { transferId: 'T1', exchangeRate: 105 }), ledger('L2', 10.5)]
    const statusChanges = [
      ...paidAt('T1', '2026-10-05 10:00'),
      change('T2', null, 'processing', '2026-10-05 09:00'),
      change('T2', 'processing', 'failed', '2026-10-06 09:00'),
      ...paidAt('T3', '2026-10-30 10:00'),
    ]
    const compositions = composeTransfers({ transfers, ledgers, readings: NET_INSIDE, transferFees: FEES })
    const lines = [
      bankLine(1, '2026-10-05', 1_000),
      bankLine(2, '2026-10-07', 700),
      bankLine(3, '2026-10-09', 50),
    ]
    const tie = tieDeposits({
      transfers,
      statusChanges,
      compositions,
      bankLines: lines,
      timeZone: TZ,
      statementTo: '2026-10-30',
    })
    const rows = payoutExceptionRows(compositions.problems, tie)
    expect(rows.map((r) => [r[0], r[2], r[3], r[4], r[6], r[7]])).toEqual([
      ['ledger_exchange_rate', 'L1', 'T1', null, { amount: 1_000, decimals: 0 }, 'No'],
      ['ledger_not_minor_units', 'L2', null, null, null, 'No'],
      ['failed_deposit_kept', null, 'T2', 'imp-1 line 2, 2026-10-07', { amount: 700, decimals: 0 }, null],
      ['deposit_without_transfer', null, null, 'imp-1 line 3, 2026-10-09', { amount: 50, decimals: 0 }, null],
      ['deposit_not_yet_due', null, 'T3', null, null, null],
    ])
    expect(rows.every((r) => typeof r[1] === 'string' && r[1].length > 10)).toBe(true)
  })
})
