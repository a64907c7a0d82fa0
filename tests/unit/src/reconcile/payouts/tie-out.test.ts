import { describe, expect, it } from 'vitest'
import type {
  PayoutReadings,
  Transfer,
  TransferStatusChange,
  LedgerItem,
} from '../../../../../src/domain/payouts'
import type { BankLine } from '../../../../../src/reconcile/payouts/business-days'
import { composeTransfers } from '../../../../../src/reconcile/payouts/composition'
import { isSettled, settledRecords, tieDeposits } from '../../../../../src/reconcile/payouts/tie-out'
import {
  bankLine,
  change,
  FEES,
  GROSS_BANK,
  ledger,
  linked,
  NET_INSIDE,
  paidAt,
  TZ,
  transfer,
} from '../../../../support/payouts'

function tie(
  transfers: Transfer[],
  statusChanges: TransferStatusChange[],
  bankLines: BankLine[],
  opts: { readings?: PayoutReadings; ledgers?: LedgerItem[]; statementTo?: string } = {},
) {
  const compositions = composeTransfers({
    transfers,
    ledgers: opts.ledgers ?? [],
    readings: opts.readings ?? NET_INSIDE,
    transferFees: FEES,
  })
  const out = tieDeposits({
    transfers,
    statusChanges,
    compositions,
    bankLines,
    timeZone: TZ,
    ...(opts.statementTo ? { statementTo: opts.statementTo } : {}),
  })
  return { out, compositions }
}

const pairs = (out: ReturnType<typeof tie>['out']) =>
  out.matches.map((m) => [m.transferId, m.line.line, m.days])

describe('bank deposits tied to paid transfers', () => {
  it('ties one to one by amount and the nearest day after the paid change, across a weekend', () => {
    // Two transfers of the same amount, paid Friday 30 October and Friday 6 November.
    const transfers = [transfer('T1', { amount: 50_000 }), transfer('T2', { amount: 50_000 })]
    const changes = [...paidAt('T1', '2026-10-30 15:00'), ...paidAt('T2', '2026-11-06 15:00')]
    const lines = [bankLine(1, '2026-11-09', 50_000), bankLine(2, '2026-11-02', 50_000)]
    const { out } = tie(transfers, changes, lines)
    expect(pairs(out)).toEqual([
      ['T1', 2, 1],
      ['T2', 1, 1],
    ])
    expect(out.exceptions).toEqual([])
  })

  it('never ties one deposit to two transfers of the same amount and day', () => {
    const transfers = [transfer('T1', { amount: 50_000 }), transfer('T2', { amount: 50_000 })]
    const changes = [...paidAt('T1', '2026-11-02 10:00'), ...paidAt('T2', '2026-11-02 11:00')]
    const { out } = tie(transfers, changes, [bankLine(1, '2026-11-02', 50_000)])
    expect(pairs(out)).toEqual([['T1', 1, 0]])
    expect(out.exceptions).toMatchObject([{ code: 'transfer_without_deposit', transferId: 'T2' }])
  })

  it('expects the amount less the transfer fee where the bank deducts it', () => {
    const transfers = [transfer('T1', { amount: 10_000 })]
    const lines = [bankLine(1, '2026-11-02', 10_000), bankLine(2, '2026-11-02', 9_560)]
    const { out } = tie(transfers, paidAt('T1', '2026-11-02 10:00'), lines, { readings: GROSS_BANK })
    expect(pairs(out)).toEqual([['T1', 2, 0]])
    expect(out.exceptions).toEqual([{ code: 'deposit_without_transfer', line: lines[0] }])
  })

  it('does not tie a deposit that came too late or in another currency', () => {
    const transfers = [transfer('T1', { amount: 10_000 })]
    const lines = [bankLine(1, '2026-11-09', 10_000), bankLine(2, '2026-11-02', 10_000, 'USD')]
    const { out } = tie(transfers, paidAt('T1', '2026-11-02 10:00'), lines)
    expect(out.matches).toEqual([])
    expect(out.exceptions.map((e) => e.code)).toEqual([
      'transfer_without_deposit',
      'deposit_without_transfer',
      'deposit_without_transfer',
    ])
  })

  it('lists a failed transfer whose money came in and went back, and one whose money stayed', () => {
    const transfers = [
      transfer('T1', { amount: 7_000, status: 'failed' }),
      transfer('T2', { amount: 3_000, status: 'failed' }),
      transfer('T3', { amount: 1_000, status: 'failed' }),
    ]
    const changes = [
      ...paidAt('T1', '2026-10-05 10:00'),
      change('T1', 'paid', 'failed', '2026-10-09 10:00'),
      change('T2', null, 'processing', '2026-10-05 09:00'),
      change('T2', 'processing', 'failed', '2026-10-06 10:00'),
      change('T3', 'processing', 'failed', '2026-10-06 10:00'),
    ]
    const lines = [
      bankLine(1, '2026-10-06', 7_000),
      bankLine(2, '2026-10-09', -7_000),
      bankLine(3, '2026-10-06', 3_000),
    ]
    const { out } = tie(transfers, changes, lines)
    expect(out.matches).toEqual([])
    expect(out.exceptions).toEqual([
      { code: 'failed_returned', transferId: 'T1', deposit: lines[0], returned: lines[1] },
      { code: 'failed_deposit_kept', transferId: 'T2', deposit: lines[2] },
    ])
  })

  it('waits for a deposit that may still come after the statement’s last day', () => {
    const { out } = tie([transfer('T1', { amount: 10_000 })], paidAt('T1', '2026-10-30 10:00'), [], {
      statementTo: '2026-10-30',
    })
    expect(out.notYetDue).toEqual(['T1'])
    expect(out.exceptions).toEqual([])
  })

  it('settles a record when its ledger is in a paid transfer whose deposit is matched', () => {
    const transfers = [transfer('T1', { amount: 1_000 }), transfer('T2', { amount: 2_000 })]
    const ledgers = [ledger('L1', 1_000, { transferId: 'T1' }), ledger('L2', 2_000, { transferId: 'T2' })]
    const changes = [...paidAt('T1', '2026-10-05 10:00'), ...paidAt('T2', '2026-10-05 10:00')]
    const { out, compositions } = tie(transfers, changes, [bankLine(1, '2026-10-05', 1_000)], { ledgers })
    const { ledgerRecords } = linked([
      ['L1', 1_000],
      ['L2', 2_000],
    ])
    const settled = settledRecords(out, compositions.book, ledgerRecords)
    expect(isSettled('charge:L1', settled)).toBe(true)
    expect(isSettled('charge:L2', settled)).toBe(false)
  })
})
