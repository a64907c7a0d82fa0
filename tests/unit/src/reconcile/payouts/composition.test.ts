import { describe, expect, it } from 'vitest'
import { composeTransfers, type CompositionInput } from '../../../../../src/reconcile/payouts/composition'
import { FEES, GROSS_BANK, ledger, linked, NET_INSIDE, transfer } from '../../../../support/payouts'

function compose(over: Partial<CompositionInput>) {
  return composeTransfers({ ledgers: [], transfers: [], readings: NET_INSIDE, transferFees: FEES, ...over })
}

describe('what each transfer is made of', () => {
  it('adds up net ledgers with the transfer fee inside (manual ledger of −440)', () => {
    const links = linked([
      ['L1', 10_000],
      ['L2', -1_000],
    ])
    const c = compose({
      transfers: [transfer('T1', { amount: 8_200 })],
      ledgers: [
        ledger('L1', 9_640, { transferId: 'T1', percentFee: 3.6 }),
        ledger('L2', -1_000, { transferId: 'T1' }),
        ledger('F1', -440, { transferId: 'T1', origin: 'manual' }),
      ],
      ...links,
    }).byId.get('T1')
    expect(c).toMatchObject({
      ledgerAmountSum: 8_200,
      ledgerNetSum: 8_200,
      difference: 0,
      gross: 9_000,
      percentFees: 360,
      flatFees: 0,
      transferFee: 440,
      manual: 0,
      expectedDeposit: 8_200,
      problems: [],
    })
  })

  it('under the gross reading deducts each ledger’s fees; the bank deducts the transfer fee from the deposit', () => {
    const c = compose({
      readings: GROSS_BANK,
      transfers: [transfer('T1', { amount: 9_610 })],
      ledgers: [
        ledger('L1', 10_000, { transferId: 'T1', percentFee: 3.6, flatFee: 30, flatFeeCurrency: 'jpy' }),
      ],
    }).byId.get('T1')
    expect(c).toMatchObject({
      ledgerNetSum: 9_610,
      difference: 0,
      percentFees: 360,
      flatFees: 30,
      transferFee: 440,
    })
    expect(c?.expectedDeposit).toBe(9_170)
  })

  it('states the difference when the ledgers do not add up to the amount', () => {
    const c = compose({
      transfers: [transfer('T1', { amount: 5_000 })],
      ledgers: [ledger('L1', 4_000, { transferId: 'T1' })],
    }).byId.get('T1')
    expect(c?.difference).toBe(1_000)
  })

  it('lists each bad input with its reason and drops none of the transfers', () => {
    const links = linked([['OK', 1_000]])
    const r = compose({
      transfers: [
        transfer('T1', { amount: 1_000 }),
        transfer('T2', { amount: -300 }),
        transfer('T3', { amount: 700 }),
      ],
      ledgers: [
        ledger('OK', 1_000, { transferId: 'T1' }),
        ledger('USD', 10, { transferId: 'T1', currency: 'USD' }),
        ledger('RATE', 10, { transferId: 'T1', exchangeRate: 105 }),
        ledger('FRAC', 10.5, { transferId: 'T1' }),
        ledger('ORPHAN', 50, { transferId: 'T1' }),
        ledger('NEG', -300, { transferId: 'T2', origin: 'manual' }),
      ],
      unreadLedgers: new Map([['T3', 'HTTP 500 on /transfers/T3/ledgers']]),
      ...links,
    })
    expect(r.transfers.map((c) => c.transfer.id)).toEqual(['T1', 'T2', 'T3'])
    expect(r.problems.map((p) => [p.code, p.ledgerId ?? p.transferId, p.excluded])).toEqual([
      ['ledger_other_currency', 'USD', true],
      ['ledger_exchange_rate', 'RATE', true],
      ['ledger_not_minor_units', 'FRAC', true],
      ['ledger_without_record', 'ORPHAN', false],
      ['transfer_negative', 'T2', false],
      ['transfer_ledgers_unread', 'T3', false],
    ])
    expect(r.byId.get('T1')?.difference).toBe(-50)
    expect(r.byId.get('T3')?.difference).toBeNull()
    expect(r.problems.every((p) => p.detail.length > 0)).toBe(true)
  })
})
