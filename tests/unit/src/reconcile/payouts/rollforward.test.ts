import { describe, expect, it } from 'vitest'
import { rollForwardOfMonth, type RollForwardInput } from '../../../../../src/reconcile/payouts/rollforward'
import type { LedgerItem, Transfer, TransferStatusChange } from '../../../../../src/domain/payouts'
import {
  change,
  FEES,
  GROSS_BANK,
  ledger,
  linked,
  NET_INSIDE,
  paidAt,
  TZ,
  tokyo,
  transfer,
} from '../../../../support/payouts'

function month(
  period: string,
  transfers: Transfer[],
  ledgers: LedgerItem[],
  statusChanges: TransferStatusChange[],
  over: Partial<RollForwardInput> = {},
) {
  return rollForwardOfMonth({
    period,
    timeZone: TZ,
    transfers,
    ledgers,
    statusChanges,
    readings: NET_INSIDE,
    transferFees: FEES,
    ...over,
  })
}

function jpy(r: ReturnType<typeof month>) {
  const c = r.currencies.find((x) => x.currency === 'JPY')
  if (!c) throw new Error('no JPY roll-forward')
  return c
}

/**
 * September: a charge of 10,000 (net) and the transfer fee −440 go into T1, processing at the month's end
 * and paid on 5 October. October: a charge (gross 20,000, 3.6 % fee → 19,280 net) and a refund of 3,000,
 * neither in a transfer yet; T2 is made on 1 November from the charge.
 */
function carryOver() {
  const transfers = [
    transfer('T1', { amount: 9_560, createdAt: tokyo('2026-09-30 20:00') }),
    transfer('T2', { amount: 19_280, status: 'created', createdAt: tokyo('2026-11-01 09:00') }),
  ]
  const ledgers = [
    ledger('L1', 10_000, { transferId: 'T1', createdAt: tokyo('2026-09-20 10:00') }),
    ledger('F1', -440, { transferId: 'T1', origin: 'manual', createdAt: tokyo('2026-09-30 20:00') }),
    ledger('L2', 19_280, { transferId: 'T2', percentFee: 3.6, createdAt: tokyo('2026-10-10 10:00') }),
    ledger('L3', -3_000, { createdAt: tokyo('2026-10-12 10:00') }),
  ]
  const statusChanges = [
    change('T1', null, 'processing', '2026-09-30 20:00'),
    change('T1', 'processing', 'paid', '2026-10-05 15:00'),
    change('T2', null, 'created', '2026-11-01 09:00'),
  ]
  const links = linked([
    ['L1', 10_000],
    ['L2', 20_000],
    ['L3', -3_000],
  ])
  return { transfers, ledgers, statusChanges, links }
}

describe('the month roll-forward of the receivable from the payment service', () => {
  it('carries last month’s closing into this month’s opening and explains the closing', () => {
    const { transfers, ledgers, statusChanges, links } = carryOver()
    const sep = jpy(month('2026-09', transfers, ledgers, statusChanges, links))
    expect(sep).toMatchObject({
      opening: 0,
      sales: 10_000,
      manual: -440,
      transferFeeLedgers: 440,
      payouts: 0,
    })
    expect(sep.closing).toBe(9_560)
    expect(sep.open).toEqual([
      { bucket: 'processing', transferId: 'T1', status: 'processing', ledgerCount: 2, amount: 9_560 },
    ])

    const oct = jpy(
      month('2026-10', transfers, ledgers, statusChanges, {
        ...links,
        previousClosing: { JPY: sep.closing },
      }),
    )
    expect(oct).toMatchObject({
      opening: 9_560,
      carriedOpening: 9_560,
      openingDifference: 0,
      sales: 20_000,
      refunds: 3_000,
      fees: 720,
      manual: 0,
      payouts: 9_560,
      closing: 16_280,
      control: 0,
      unexplained: 0,
      ties: true,
    })
    // T2 was made after October ended: at the month's end its charge was in no transfer.
    expect(oct.open).toEqual([
      { bucket: 'notInTransfer', transferId: null, status: null, ledgerCount: 2, amount: 16_280 },
    ])
    expect(oct.movements).toEqual([
      { transferId: 'T1', kind: 'paid', at: tokyo('2026-10-05 15:00'), amount: 9_560 },
    ])
  })

  it('flags an opening that differs from the closing carried from last month’s close', () => {
    const { transfers, ledgers, statusChanges, links } = carryOver()
    const oct = jpy(
      month('2026-10', transfers, ledgers, statusChanges, { ...links, previousClosing: { JPY: 9_000 } }),
    )
    expect(oct.openingDifference).toBe(560)
    expect(oct.ties).toBe(false)
  })

  it('keeps a failed transfer in the receivable until it is paid again', () => {
    const transfers = [transfer('T3', { amount: 5_000, createdAt: tokyo('2026-10-15 09:00') })]
    const ledgers = [ledger('L4', 5_000, { transferId: 'T3', createdAt: tokyo('2026-10-03 10:00') })]
    const statusChanges = [
      change('T3', null, 'processing', '2026-10-15 09:00'),
      change('T3', 'processing', 'failed', '2026-10-20 09:00'),
      change('T3', 'failed', 'processing', '2026-11-14 09:00'),
      change('T3', 'processing', 'paid', '2026-11-15 09:00'),
    ]
    const oct = jpy(month('2026-10', transfers, ledgers, statusChanges))
    expect(oct).toMatchObject({ sales: 5_000, payouts: 0, closing: 5_000, ties: true })
    expect(oct.explained.failed).toBe(5_000)
    const nov = jpy(month('2026-11', transfers, ledgers, statusChanges, { previousClosing: { JPY: 5_000 } }))
    expect(nov).toMatchObject({ opening: 5_000, payouts: 5_000, closing: 0, ties: true })
  })

  it('takes back a payout whose transfer failed after it was paid (the money came back)', () => {
    const transfers = [transfer('T5', { amount: 8_000, status: 'failed' })]
    const ledgers = [ledger('L5', 8_000, { transferId: 'T5', createdAt: tokyo('2026-09-25 10:00') })]
    const statusChanges = [
      ...paidAt('T5', '2026-09-30 10:00'),
      change('T5', 'paid', 'failed', '2026-10-06 10:00'),
    ]
    const oct = jpy(month('2026-10', transfers, ledgers, statusChanges))
    expect(oct).toMatchObject({ opening: 0, returned: 8_000, payouts: -8_000, closing: 8_000, ties: true })
    expect(oct.explained.failed).toBe(8_000)
  })

  it('ties when failed ledgers moved to the next cycle’s transfer', () => {
    const transfers = [
      transfer('T6', { amount: 4_000, status: 'failed', createdAt: tokyo('2026-10-15 09:00') }),
      transfer('T7', { amount: 4_000, createdAt: tokyo('2026-11-15 09:00') }),
    ]
    const ledgers = [ledger('L6', 4_000, { transferId: 'T7', createdAt: tokyo('2026-10-03 10:00') })]
    const statusChanges = [
      change('T6', null, 'processing', '2026-10-15 09:00'),
      change('T6', 'processing', 'failed', '2026-10-20 09:00'),
      ...paidAt('T7', '2026-11-16 09:00'),
    ]
    const oct = jpy(month('2026-10', transfers, ledgers, statusChanges))
    expect(oct).toMatchObject({ closing: 4_000, unexplained: 0, ties: true })
    expect(oct.explained.notInTransfer).toBe(4_000)
  })

  it('explains ledgers carried over in a blank transfer (a payout under the minimum)', () => {
    const transfers = [transfer('TB', { amount: 0, status: 'blank', createdAt: tokyo('2026-10-25 09:00') })]
    const ledgers = [ledger('B1', 6_000, { transferId: 'TB', createdAt: tokyo('2026-10-20 10:00') })]
    const statusChanges = [change('TB', null, 'blank', '2026-10-25 09:00')]
    const oct = jpy(month('2026-10', transfers, ledgers, statusChanges))
    expect(oct).toMatchObject({ closing: 6_000, payouts: 0, unexplained: 0, ties: true })
    expect(oct.open).toEqual([
      { bucket: 'carriedOver', transferId: 'TB', status: 'blank', ledgerCount: 1, amount: 6_000 },
    ])
  })

  it('counts a payout in the month of its paid change in the accounting time zone', () => {
    const transfers = [transfer('TZ1', { amount: 500, createdAt: tokyo('2026-10-20 09:00') })]
    const ledgers = [ledger('Z1', 500, { transferId: 'TZ1', createdAt: tokyo('2026-10-02 10:00') })]
    // 23:30 on 31 October in Tokyo is 14:30 UTC: October's.
    const changes = paidAt('TZ1', '2026-10-31 23:30', '2026-10-20 09:00')
    expect(jpy(month('2026-10', transfers, ledgers, changes))).toMatchObject({ payouts: 500, closing: 0 })
    expect(jpy(month('2026-11', transfers, ledgers, changes))).toMatchObject({ opening: 0, payouts: 0 })
  })

  it('goes negative when a refund is larger than the period’s sales', () => {
    const ledgers = [
      ledger('L7', 1_000, { createdAt: tokyo('2026-10-02 10:00') }),
      ledger('L8', -5_000, { createdAt: tokyo('2026-10-03 10:00') }),
    ]
    const oct = jpy(month('2026-10', [], ledgers, []))
    expect(oct).toMatchObject({ sales: 1_000, refunds: 5_000, closing: -4_000, control: 0, ties: true })
  })

  it('rolls each currency on its own, never adding one to another', () => {
    const transfers = [transfer('TU', { amount: 1_250, currency: 'usd' })]
    const ledgers = [
      ledger('U1', 1_250, { transferId: 'TU', currency: 'usd', createdAt: tokyo('2026-10-02 10:00') }),
      ledger('J1', 7_000, { createdAt: tokyo('2026-10-02 10:00') }),
    ]
    const r = month('2026-10', transfers, ledgers, paidAt('TU', '2026-10-20 10:00'))
    expect(r.currencies.map((c) => [c.currency, c.sales, c.payouts, c.closing])).toEqual([
      ['JPY', 7_000, 0, 7_000],
      ['USD', 1_250, 1_250, 0],
    ])
    expect(r.ties).toBe(true)
  })

  it('counts a month in the accounting time zone (a ledger at 23:30 on 31 October in Tokyo is October’s)', () => {
    const ledgers = [ledger('L9', 100, { createdAt: Date.parse('2026-10-31T14:30:00Z') })]
    expect(jpy(month('2026-10', [], ledgers, [])).sales).toBe(100)
    expect(month('2026-11', [], ledgers, []).currencies[0]?.opening).toBe(100)
  })

  it('counts a ledger given twice once, and says so', () => {
    const l = ledger('L10', 2_000, { createdAt: tokyo('2026-10-02 10:00') })
    const r = month('2026-10', [], [l, { ...l }], [])
    expect(jpy(r)).toMatchObject({ sales: 2_000, closing: 2_000, excluded: { count: 0, amount: 0 } })
    expect(r.problems.map((p) => [p.code, p.ledgerId])).toEqual([['ledger_duplicate', 'L10']])
  })

  it('under the gross reading deducts each ledger’s fees; the bank-deducted fee is not in the receivable', () => {
    const transfers = [transfer('TG', { amount: 9_640 })]
    const ledgers = [
      ledger('G1', 10_000, { transferId: 'TG', percentFee: 3.6, createdAt: tokyo('2026-10-02 10:00') }),
    ]
    const oct = jpy(
      month('2026-10', transfers, ledgers, paidAt('TG', '2026-10-20 10:00'), { readings: GROSS_BANK }),
    )
    expect(oct).toMatchObject({
      sales: 10_000,
      fees: 360,
      payouts: 9_640,
      closing: 0,
      transferFeeLedgers: 0,
      ties: true,
    })
  })

  it('with net ledgers and the fee deducted by the bank, the payout is the transfer’s whole amount', () => {
    const transfers = [transfer('TN', { amount: 9_640 })]
    const ledgers = [
      ledger('N1', 9_640, { transferId: 'TN', percentFee: 3.6, createdAt: tokyo('2026-10-02 10:00') }),
    ]
    const links = linked([['N1', 10_000]])
    const oct = jpy(
      month('2026-10', transfers, ledgers, paidAt('TN', '2026-10-20 10:00'), {
        ...links,
        readings: { ledgerAmounts: 'net', transferFee: 'bank_deducted' },
      }),
    )
    expect(oct).toMatchObject({ sales: 10_000, fees: 360, manual: 0, payouts: 9_640, closing: 0, ties: true })
  })

  it('with gross ledgers and the fee inside, the fee is a manual item and the payout what reaches the bank', () => {
    const transfers = [transfer('TI', { amount: 9_200 })]
    const ledgers = [
      ledger('I1', 10_000, { transferId: 'TI', percentFee: 3.6, createdAt: tokyo('2026-10-02 10:00') }),
      ledger('IF', -440, { transferId: 'TI', origin: 'manual', createdAt: tokyo('2026-10-19 10:00') }),
    ]
    const oct = jpy(
      month('2026-10', transfers, ledgers, paidAt('TI', '2026-10-20 10:00'), {
        readings: { ledgerAmounts: 'gross', transferFee: 'manual_ledger' },
      }),
    )
    expect(oct).toMatchObject({
      sales: 10_000,
      fees: 360,
      manual: -440,
      transferFeeLedgers: 440,
      payouts: 9_200,
      closing: 0,
      ties: true,
    })
  })

  it('leaves out a ledger in another currency than its transfer, and shows it', () => {
    const transfers = [transfer('TX', { amount: 1_000 })]
    const ledgers = [
      ledger('X1', 1_000, { transferId: 'TX', createdAt: tokyo('2026-10-02 10:00') }),
      ledger('X2', 300, { transferId: 'TX', currency: 'USD', createdAt: tokyo('2026-10-02 10:00') }),
      ledger('X3', 0.5, { createdAt: tokyo('2026-10-02 10:00') }),
    ]
    const r = month('2026-10', transfers, ledgers, paidAt('TX', '2026-10-20 10:00'))
    expect(r.problems.map((p) => [p.code, p.excluded])).toEqual([
      ['ledger_other_currency', true],
      ['ledger_not_minor_units', true],
    ])
    expect(r.currencies.find((c) => c.currency === 'USD')?.excluded).toEqual({ count: 1, amount: 300 })
    expect(jpy(r)).toMatchObject({ sales: 1_000, closing: 0, excluded: { count: 1, amount: 0 }, ties: true })
  })

  it('shows a paid transfer whose ledgers do not add up as unexplained', () => {
    const transfers = [transfer('TD', { amount: 900 })]
    const ledgers = [ledger('D1', 1_000, { transferId: 'TD', createdAt: tokyo('2026-10-02 10:00') })]
    const oct = jpy(month('2026-10', transfers, ledgers, paidAt('TD', '2026-10-20 10:00')))
    expect(oct).toMatchObject({ closing: 100, unexplained: 100, control: 0, ties: false })
    expect(oct.paidDifferences).toEqual([{ transferId: 'TD', difference: 100 }])
  })
})
