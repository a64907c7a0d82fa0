import { describe, expect, it } from 'vitest'
import { rollForwardOfMonth, type RollForwardInput } from '../../../../../src/reconcile/payouts/rollforward'
import type { LedgerItem, Transfer, TransferStatusChange } from '../../../../../src/domain/payouts'
import { change, FEES, ledger, NET_INSIDE, paidAt, TZ, tokyo, transfer } from '../../../../support/payouts'

interface Book {
  transfers: Transfer[]
  ledgers: LedgerItem[]
  statusChanges: TransferStatusChange[]
}

function month(period: string, book: Book, over: Partial<RollForwardInput> = {}) {
  return rollForwardOfMonth({
    period,
    timeZone: TZ,
    ...book,
    readings: NET_INSIDE,
    transferFees: FEES,
    ...over,
  })
}

function of(r: ReturnType<typeof month>, currency = 'JPY') {
  const c = r.currencies.find((x) => x.currency === currency)
  if (!c) throw new Error(`no ${currency} roll-forward`)
  return c
}

/**
 * F (September's 5,000) fails on 15 October; R (October's 3,000, plus F's 5,000 = 8,000) is made on
 * 1 November and paid on 16 November. `link` says how R names F.
 */
function failedThenRepaid(link: 'metadata' | 'note' | 'none', currency = 'JPY'): Book {
  const linkFields: Partial<Transfer> =
    link === 'metadata'
      ? { raw: { metadata: { repays_transfer_id: 'tf-f' } } }
      : link === 'note'
        ? { note: 'Includes the unpaid transfer TF-F' }
        : {}
  return {
    transfers: [
      transfer('tf-f', { amount: 5_000, currency, status: 'failed', createdAt: tokyo('2026-10-01 01:00') }),
      transfer('tf-r', { amount: 8_000, currency, createdAt: tokyo('2026-11-01 01:00'), ...linkFields }),
    ],
    ledgers: [
      ledger('lf', 5_000, { transferId: 'tf-f', currency, createdAt: tokyo('2026-09-10 10:00') }),
      ledger('lr', 3_000, { transferId: 'tf-r', currency, createdAt: tokyo('2026-10-10 10:00') }),
    ],
    statusChanges: [
      change('tf-f', 'created', 'processing', '2026-10-14 10:00'),
      change('tf-f', 'processing', 'failed', '2026-10-15 10:00'),
      change('tf-r', 'created', 'processing', '2026-11-15 10:00'),
      change('tf-r', 'processing', 'paid', '2026-11-16 10:00'),
    ],
  }
}

describe('a later transfer repaying what an earlier one did not pay', () => {
  it.each([
    ['metadata', 'metadata'],
    ['note', 'note'],
    ['none', 'amount'],
  ] as const)('a failed transfer is owed until it is repaid (link: %s, evidence: %s)', (link, evidence) => {
    const book = failedThenRepaid(link)
    const oct = of(month('2026-10', book))
    expect(oct).toMatchObject({ closing: 8_000, unexplained: 0, ties: true })
    // At October's end R did not exist: F's ledgers are owed in a failed transfer.
    expect(oct.explained).toMatchObject({ failed: 5_000, notInTransfer: 3_000 })
    expect(oct.repayments).toEqual([])
    const nov = of(month('2026-11', book, { previousClosing: { JPY: 8_000 } }))
    expect(nov).toMatchObject({ opening: 8_000, payouts: 8_000, closing: 0, unexplained: 0, ties: true })
    expect(nov.paidDifferences).toEqual([])
    expect(nov.repayments).toEqual([
      { transferId: 'tf-f', byTransferId: 'tf-r', currency: 'JPY', amount: 5_000, ledgerCount: 1, evidence },
    ])
  })

  it('holds a failed transfer’s ledgers in its repaying transfer across the month boundary until that is paid', () => {
    const book = failedThenRepaid('metadata')
    book.statusChanges = book.statusChanges.map((c) =>
      c.transferId === 'tf-r' && c.newStatus === 'paid' ? { ...c, createdAt: tokyo('2026-12-15 10:00') } : c,
    )
    const nov = of(month('2026-11', book))
    expect(nov).toMatchObject({ closing: 8_000, unexplained: 0, ties: true })
    expect(nov.open).toEqual([
      { bucket: 'processing', transferId: 'tf-r', status: 'processing', ledgerCount: 2, amount: 8_000 },
    ])
    expect(of(month('2026-12', book))).toMatchObject({
      opening: 8_000,
      payouts: 8_000,
      closing: 0,
      ties: true,
    })
  })

  it('a canceled transfer’s ledgers are carried over until the next transfer pays them', () => {
    const book = failedThenRepaid('metadata', 'USD')
    book.transfers[0] = { ...book.transfers[0]!, status: 'canceled' }
    book.statusChanges[0] = change('tf-f', 'created', 'approved', '2026-10-02 10:00')
    book.statusChanges[1] = change('tf-f', 'approved', 'canceled', '2026-10-03 10:00')
    const oct = of(month('2026-10', book), 'USD')
    expect(oct.open.find((o) => o.bucket === 'carriedOver')).toMatchObject({
      transferId: 'tf-f',
      status: 'canceled',
      amount: 5_000,
    })
    expect(of(month('2026-11', book), 'USD')).toMatchObject({ closing: 0, unexplained: 0, ties: true })
  })

  it('ledgers left pointing at a blank transfer are paid by a later transfer whose amount covers them', () => {
    const book: Book = {
      transfers: [
        transfer('tb', { amount: 0, status: 'blank', createdAt: tokyo('2026-10-01 01:00') }),
        transfer('tn', { amount: 16_000, createdAt: tokyo('2026-11-01 01:00') }),
      ],
      ledgers: [
        ledger('b1', 6_000, { transferId: 'tb', createdAt: tokyo('2026-09-10 10:00') }),
        ledger('n1', 10_000, { transferId: 'tn', createdAt: tokyo('2026-10-10 10:00') }),
      ],
      statusChanges: [
        change('tb', 'created', 'blank', '2026-10-01 01:01'),
        ...paidAt('tn', '2026-11-16 10:00'),
      ],
    }
    expect(of(month('2026-10', book)).explained).toMatchObject({ carriedOver: 6_000, notInTransfer: 10_000 })
    const nov = of(month('2026-11', book))
    expect(nov).toMatchObject({ payouts: 16_000, closing: 0, ties: true })
    expect(nov.repayments).toMatchObject([{ transferId: 'tb', byTransferId: 'tn', evidence: 'amount' }])
  })

  it('ledgers carried over without a transfer id are paid by the later transfer that covers exactly them', () => {
    const book: Book = {
      transfers: [transfer('tn', { amount: 16_000, createdAt: tokyo('2026-11-01 01:00') })],
      ledgers: [
        ledger('c1', 2_000, { createdAt: tokyo('2026-09-10 10:00') }),
        ledger('c2', 4_000, { createdAt: tokyo('2026-09-20 10:00') }),
        ledger('n1', 10_000, { transferId: 'tn', createdAt: tokyo('2026-10-10 10:00') }),
        // After the transfer was made: the next cycle's, still open.
        ledger('c3', 700, { createdAt: tokyo('2026-11-02 10:00') }),
      ],
      statusChanges: paidAt('tn', '2026-11-16 10:00'),
    }
    const nov = of(month('2026-11', book))
    expect(nov).toMatchObject({ closing: 700, unexplained: 0, ties: true })
    expect(nov.open).toEqual([
      { bucket: 'notInTransfer', transferId: null, status: null, ledgerCount: 1, amount: 700 },
    ])
    expect(nov.repayments).toEqual([
      {
        transferId: null,
        byTransferId: 'tn',
        currency: 'JPY',
        amount: 6_000,
        ledgerCount: 2,
        evidence: 'amount',
      },
    ])
  })

  it('repays within each currency only, never across currencies', () => {
    const jpy = failedThenRepaid('none')
    const usd = failedThenRepaid('none', 'USD')
    const rename = (id: string) => `${id}-usd`
    const book: Book = {
      transfers: [...jpy.transfers, ...usd.transfers.map((t) => ({ ...t, id: rename(t.id) }))],
      ledgers: [
        ...jpy.ledgers,
        ...usd.ledgers.map((l) => ({ ...l, id: rename(l.id), transferId: rename(l.transferId ?? '') })),
      ],
      statusChanges: [
        ...jpy.statusChanges,
        ...usd.statusChanges.map((c) => ({ ...c, id: rename(c.id), transferId: rename(c.transferId) })),
      ],
    }
    const nov = month('2026-11', book)
    expect(nov.ties).toBe(true)
    expect(of(nov).repayments.map((r) => [r.transferId, r.byTransferId])).toEqual([['tf-f', 'tf-r']])
    expect(of(nov, 'USD').repayments.map((r) => [r.transferId, r.byTransferId])).toEqual([
      ['tf-f-usd', 'tf-r-usd'],
    ])
  })

  it('does not guess between two failed transfers that each owe the difference: an exception with its reason', () => {
    const book = failedThenRepaid('none')
    book.transfers.push(
      transfer('tf-g', { amount: 5_000, status: 'failed', createdAt: tokyo('2026-10-02 01:00') }),
    )
    book.ledgers.push(ledger('lg', 5_000, { transferId: 'tf-g', createdAt: tokyo('2026-09-11 10:00') }))
    const nov = month('2026-11', book)
    expect(of(nov)).toMatchObject({ unexplained: -5_000, ties: false, repayments: [] })
    expect(nov.problems.map((p) => [p.code, p.transferId])).toEqual([
      ['transfer_repayment_ambiguous', 'tf-r'],
    ])
    expect(nov.problems[0]?.detail).toContain('tf-f, tf-g each owe exactly that')
  })

  it('follows the link where the amount alone could not tell two failed transfers apart', () => {
    const book = failedThenRepaid('none')
    book.transfers.push(
      transfer('tf-g', { amount: 5_000, status: 'failed', createdAt: tokyo('2026-10-02 01:00') }),
    )
    book.ledgers.push(ledger('lg', 5_000, { transferId: 'tf-g', createdAt: tokyo('2026-09-11 10:00') }))
    book.transfers[1] = { ...book.transfers[1]!, raw: { metadata: { repays_transfer_id: 'TF-G' } } }
    const nov = month('2026-11', book)
    expect(nov.problems).toEqual([])
    // tf-f is still owed in a failed transfer; tf-g went out with tf-r.
    expect(of(nov)).toMatchObject({
      closing: 5_000,
      explained: { failed: 5_000 },
      unexplained: 0,
      ties: true,
    })
    expect(of(nov).repayments).toMatchObject([{ transferId: 'tf-g', evidence: 'metadata' }])
  })

  it('knows a failed transfer repaid by its amount when its ledgers do not add up to it, and shows the rest', () => {
    const book = failedThenRepaid('none')
    book.ledgers[0] = { ...book.ledgers[0]!, amount: 4_900 }
    const nov = of(month('2026-11', book))
    expect(nov.repayments).toMatchObject([{ transferId: 'tf-f', amount: 4_900, evidence: 'amount' }])
    expect(nov.paidDifferences).toEqual([{ transferId: 'tf-r', difference: -100 }])
    expect(nov).toMatchObject({ unexplained: -100, ties: false })
  })

  it('says so when a transfer names as repaid one that is not an earlier unpaid transfer', () => {
    const book = failedThenRepaid('none')
    // tp was paid: there is nothing of it to repay.
    book.transfers.push(transfer('tp', { amount: 1, createdAt: tokyo('2026-09-01 01:00') }))
    book.statusChanges.push(...paidAt('tp', '2026-09-15 10:00'))
    book.transfers[1] = { ...book.transfers[1]!, raw: { metadata: { repays_transfer_id: 'tp' } } }
    const nov = month('2026-11', book)
    expect(nov.problems.map((p) => [p.code, p.transferId])).toEqual([['transfer_repays_unknown', 'tf-r']])
  })
})
