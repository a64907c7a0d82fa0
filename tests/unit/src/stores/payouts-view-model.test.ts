/** The Payouts view model on hand-made payouts: ties, differences and their explanation, bad input. */
import { describe, expect, it } from 'vitest'
import type { LedgerRow, TransferRow } from '../../../../src/db/payout-rows'
import type { LedgerRecords } from '../../../../src/db/payouts-repository'
import { buildPayoutsView, type PayoutsInput } from '../../../../src/stores/payouts-view-model'
import { chargeRecord } from '../../../support/cache'

const CONN = 'c0000000-0000-4000-8000-000000000000'

function transfer(id: string, amount: number, over: Partial<TransferRow> = {}): TransferRow {
  return {
    connectionId: CONN,
    id,
    merchantId: null,
    bankAccountId: null,
    amount,
    currency: 'JPY',
    status: 'paid',
    errorCode: null,
    errorText: null,
    note: null,
    startedBy: null,
    periodFrom: '2026-10-01',
    periodTo: '2026-11-01',
    createdAt: Date.parse('2026-11-01T00:00:00Z'),
    raw: {},
    syncedAt: 0,
    detailsReadAt: 'paid',
    ledgerCount: 0,
    ...over,
  }
}

function ledger(
  id: string,
  transferId: string | null,
  amount: number,
  over: Partial<LedgerRow> = {},
): LedgerRow {
  return {
    connectionId: CONN,
    id,
    storeId: null,
    transferId,
    transferKey: transferId ?? '',
    amount,
    currency: 'JPY',
    percentFee: 3.24,
    flatFee: 0,
    flatFeeCurrency: 'JPY',
    exchangeRate: 1,
    origin: 'charge',
    note: null,
    createdAt: Date.parse('2026-10-05T00:00:00Z'),
    raw: {},
    syncedAt: 0,
    ...over,
  }
}

/** A cached charge of `charged` yen carrying ledger `ledgerId`. */
function linked(ledgerId: string, n: number, charged: number): [string, LedgerRecords] {
  const charge = { ...chargeRecord(n), chargedAmount: charged, chargedCurrency: 'JPY' }
  return [
    ledgerId,
    {
      link: {
        connectionId: CONN,
        ledgerId,
        kind: 'charge',
        recordId: charge.id,
        createdAt: charge.createdAt,
      },
      charge,
    },
  ]
}

function input(over: Partial<PayoutsInput>): PayoutsInput {
  return {
    transfers: [],
    ledgersByTransfer: new Map(),
    changesByTransfer: new Map(),
    open: [],
    records: new Map(),
    quarantined: [],
    ...over,
  }
}

describe('buildPayoutsView', () => {
  it('ties a transfer to its net ledgers, with the fees its charges paid, and says the data is net', () => {
    // 10,000 charged, 3.24 % = 324: the ledger is 9,676; the transfer fee is a manual ledger.
    const view = buildPayoutsView(
      input({
        transfers: [transfer('t1', 9_676 - 440)],
        ledgersByTransfer: new Map([
          [
            't1',
            [
              ledger('l1', 't1', 9_676),
              ledger('fee', 't1', -440, { origin: 'manual', note: 'Transfer fee', percentFee: 0 }),
            ],
          ],
        ]),
        records: new Map([linked('l1', 1, 10_000)]),
      }),
    )
    expect(view.reading).toBe('net')
    const t = view.currencies[0]?.transfers[0]
    expect(t).toMatchObject({ ledgerTotal: 9_236, difference: 0, fees: 324, problems: [] })
    expect(t?.lines[1]?.record).toBeNull()
  })

  it('gross ledgers: the transfer pays them less their fees', () => {
    const view = buildPayoutsView(
      input({
        transfers: [transfer('t1', 9_676)],
        ledgersByTransfer: new Map([['t1', [ledger('l1', 't1', 10_000)]]]),
        records: new Map([linked('l1', 1, 10_000)]),
      }),
    )
    expect(view.reading).toBe('gross')
    expect(view.currencies[0]?.transfers[0]).toMatchObject({ fees: 324, ledgerTotal: 9_676, difference: 0 })
  })

  it('shows the difference when ledgers do not add up, and names the unpaid transfer it repays', () => {
    const failed = transfer('t0', 5_000, { status: 'failed', periodFrom: '2026-09-01' })
    const view = buildPayoutsView(
      input({
        transfers: [failed, transfer('t1', 8_000, { raw: { metadata: { repays_transfer_id: 'T0' } } })],
        ledgersByTransfer: new Map([['t1', [ledger('l1', 't1', 3_000, { origin: 'manual' })]]]),
      }),
    )
    const t1 = view.currencies[0]?.transfers.find((t) => t.transfer.id === 't1')
    expect(t1?.difference).toBe(5_000)
    expect(t1?.repays?.id).toBe('t0')
    expect(t1?.repaysEvidence).toBe('metadata')
  })

  it('names the transfer repaid as the roll-forward rule found it, with the evidence, link or not', () => {
    const failed = transfer('t0', 5_000, { status: 'failed', periodFrom: '2026-09-01' })
    const given = {
      transfers: [failed, transfer('t1', 8_000)],
      ledgersByTransfer: new Map([['t1', [ledger('l1', 't1', 3_000, { origin: 'manual' as const })]]]),
    }
    const byAmount = buildPayoutsView(
      input({
        ...given,
        repayments: [
          {
            transferId: 't0',
            byTransferId: 't1',
            currency: 'JPY',
            amount: 5_000,
            ledgerCount: 1,
            evidence: 'amount',
          },
        ],
      }),
    )
    const t1 = byAmount.currencies[0]?.transfers.find((t) => t.transfer.id === 't1')
    expect([t1?.repays?.id, t1?.repaysEvidence]).toEqual(['t0', 'amount'])
    // The rule found nothing: no metadata either, so nothing is named.
    const none = buildPayoutsView(input({ ...given, repayments: [] }))
    expect(none.currencies[0]?.transfers.find((t) => t.transfer.id === 't1')?.repays).toBeNull()
  })

  it('lists bad input with its reason and never adds a ledger of another currency', () => {
    const view = buildPayoutsView(
      input({
        transfers: [transfer('t1', -200, { detailsReadAt: null })],
        ledgersByTransfer: new Map([
          [
            't1',
            [
              ledger('usd', 't1', 500, { currency: 'USD' }),
              ledger('fx', 't1', -200, { exchangeRate: 105, origin: 'refund' }),
            ],
          ],
        ]),
        quarantined: [
          {
            connectionId: CONN,
            id: 'ledger:x',
            kind: 'ledger',
            itemId: 'x',
            transferId: 't1',
            reason: 'amount: expected number',
            issues: [],
            request: 'GET /transfers/t1/ledgers',
            raw: {},
            seenAt: 0,
          },
        ],
      }),
    )
    const t = view.currencies[0]?.transfers[0]
    expect(t?.problems.map((p) => p.code)).toEqual([
      'negative_amount',
      'details_unread',
      'unreadable_ledgers',
    ])
    expect(t?.ledgerTotal).toBe(-200)
    expect(t?.lines[0]?.problems).toEqual([
      { code: 'other_currency', currency: 'USD' },
      { code: 'no_record' },
    ])
    expect(t?.lines[1]?.problems).toEqual([{ code: 'exchange_rate', rate: 105 }, { code: 'no_record' }])
  })

  it('keeps open ledgers apart, per currency', () => {
    const view = buildPayoutsView(
      input({
        open: [
          ledger('o1', null, 700, { origin: 'manual' }),
          ledger('o2', null, 300, { currency: 'USD', origin: 'manual' }),
        ],
      }),
    )
    expect(view.currencies.map((c) => [c.currency, c.openTotal])).toEqual([
      ['JPY', 700],
      ['USD', 300],
    ])
  })

  it('follows the connection setting only where the cached charges cannot tell, and says so', () => {
    const fromData = buildPayoutsView(
      input({
        transfers: [transfer('t1', 9_676)],
        ledgersByTransfer: new Map([['t1', [ledger('l1', 't1', 10_000)]]]),
        records: new Map([linked('l1', 1, 10_000)]),
        setting: 'net',
      }),
    )
    expect([fromData.reading, fromData.readingSource]).toEqual(['gross', 'data'])
    const noEvidence = {
      transfers: [transfer('t1', 9_676)],
      ledgersByTransfer: new Map([['t1', [ledger('l1', 't1', 10_000)]]]),
    }
    const bySetting = buildPayoutsView(input({ ...noEvidence, setting: 'gross' }))
    expect([bySetting.reading, bySetting.readingSource]).toEqual(['gross', 'setting'])
    expect(bySetting.currencies[0]?.transfers[0]).toMatchObject({ fees: 324, ledgerTotal: 9_676 })
    const none = buildPayoutsView(input(noEvidence))
    expect(none.reading).toBe('unknown')
  })
})
