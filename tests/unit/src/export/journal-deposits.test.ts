import { describe, expect, it } from 'vitest'
import { buildDepositJournal, depositJournalTie } from '../../../../src/export/journal/deposits'
import { defaultJournalSettings, type JournalSettings } from '../../../../src/export/journal/settings'
import { assertBalanced, voucherTotals } from '../../../../src/export/journal/vouchers'
import type { PayoutReadings } from '../../../../src/domain/payouts'
import { rollForwardOfMonth } from '../../../../src/reconcile/payouts/rollforward'
import { tieDeposits } from '../../../../src/reconcile/payouts/tie-out'
import { bankLine, FEES, GROSS_BANK, NET_INSIDE, octoberPayouts, TZ } from '../../../support/payouts'

function october(readings: PayoutReadings = NET_INSIDE, settings: Partial<JournalSettings> = {}) {
  const data = octoberPayouts()
  // Where the bank deducts the fee, no fee ledger sits inside the transfers.
  if (readings.transferFee === 'bank_deducted')
    data.ledgers = data.ledgers.filter((l) => l.origin !== 'manual')
  const rf = rollForwardOfMonth({ period: '2026-10', timeZone: TZ, ...data, readings, transferFees: FEES })
  const tie = tieDeposits({
    ...data,
    compositions: rf.compositions,
    bankLines: [bankLine(1, '2026-10-06', 9_560)],
    timeZone: TZ,
  })
  const build = buildDepositJournal({
    rollForward: rf,
    tie,
    settings: { ...defaultJournalSettings(), ...settings },
  })
  return { rf, build }
}

const rows = (b: ReturnType<typeof october>['build']) =>
  b.vouchers.map((v) => [v.date, ...v.lines.map((l) => `${l.debit.account}/${l.credit.account} ${l.amount}`)])

describe('deposit entries of the month’s payouts', () => {
  it('posts Dr bank + Dr transfer fee / Cr receivable per paid transfer, and reverses the one that came back', () => {
    const { build } = october()
    assertBalanced(build.vouchers)
    expect(rows(build)).toEqual([
      ['2026-10-05', '普通預金/売掛金 9560', '支払手数料/売掛金 440'],
      ['2026-10-06', '売掛金/普通預金 8000'],
      ['2026-10-20', '普通預金/売掛金 19840', '支払手数料/売掛金 440'],
    ])
    const fee = build.vouchers[0]?.lines[1]
    expect(fee?.debit.taxClass).toBe('fee.taxable10')
    expect(fee?.records[0]).toMatchObject({
      key: 'transfer:T1',
      resourceId: 'T1 (bank 2026-10-06)',
      type: 'transfer',
    })
    expect(voucherTotals(build.vouchers)).toEqual({ sales: 0, refunds: 0, fees: 0 })
    expect(build.exceptions).toEqual([
      { reason: 'currency_without_rate', currency: 'USD', count: 1, sum: 1_250 },
    ])
  })

  it('ties to the roll-forward: credited = payouts + transfer fees inside the paid transfers', () => {
    const { rf, build } = october()
    expect(depositJournalTie(build, rf)).toEqual([
      { currency: 'JPY', credited: 22_280, payouts: 21_400, transferFeeLedgers: 880, difference: 0 },
    ])
  })

  it('where the bank deducts the fee, posts the deposit less the fee and credits the transfer’s amount', () => {
    const { rf, build } = october(GROSS_BANK)
    expect(rows(build)[0]).toEqual(['2026-10-05', '普通預金/売掛金 9120', '支払手数料/売掛金 440'])
    expect(depositJournalTie(build, rf).map((t) => t.difference)).toEqual([0])
  })

  it('converts another currency at the user’s rate', () => {
    const { build } = october(NET_INSIDE, { rates: { USD: '150' } })
    expect(build.exceptions).toEqual([])
    expect(build.vouchers.find((v) => v.convertedFrom)?.lines[0]?.amount).toBe(1_875)
  })
})
