import { describe, expect, it } from 'vitest'
import { defaultJournalSettings } from '../../../../src/export/journal/settings'
import { assertBalanced, buildJournal, voucherTotals } from '../../../../src/export/journal/vouchers'
import { chargeRecord, historyRecord, refundRecord } from '../../../support/cache'

function journal(booking: 'gross' | 'net') {
  return buildJournal({
    period: '2026-10',
    timeZone: 'Asia/Tokyo',
    // A day whose fee (300) exceeds its sales (100), and a refund.
    history: [historyRecord(1, { amount: 100 }), refundRecord(2, 1, { amount: 40 })],
    charges: [chargeRecord(1, { charged_amount: 100, fee_amount: 300 })],
    storeNames: new Map(),
    settings: { ...defaultJournalSettings(), booking },
  })
}

describe('voucher lines carry their sign', () => {
  it('net booking: a sales line below zero swaps its sides and counts negatively in the totals', () => {
    const { vouchers } = journal('net')
    assertBalanced(vouchers)
    const sales = vouchers.flatMap((v) => v.lines).find((l) => l.kind === 'sales')
    expect(sales).toMatchObject({ amount: 200, sign: -1 })
    expect(voucherTotals(vouchers)).toEqual({ sales: -200, refunds: 40, fees: 0 })
  })

  it('gross booking: every line as booked, positive', () => {
    const { vouchers } = journal('gross')
    expect(vouchers.flatMap((v) => v.lines).map((l) => [l.kind, l.amount, l.sign])).toEqual([
      ['sales', 100, 1],
      ['refunds', 40, 1],
      ['fees', 300, 1],
    ])
    expect(voucherTotals(vouchers)).toEqual({ sales: 100, refunds: 40, fees: 300 })
  })
})
