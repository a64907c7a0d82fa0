import Encoding from 'encoding-japanese'
import { describe, expect, it } from 'vitest'
import { detectLayout } from '../../../../src/import/layouts'
import { parseCsv, parseDateDay, toIsoLikeDate } from '../../../../src/import/parse'
import { applyProfile, suggestProfile, type MappingProfile } from '../../../../src/import/profiles'
import { builtInProfileFor, readImportFile } from '../../../../src/import/read-file'
import { isZengin, readZengin, zenginDataRecord } from '../../../../src/import/zengin'
import { MUFG_HEADER, PAYPAY_BANK_HEADER } from '../../../support/bank-files'

const TOKYO = 'Asia/Tokyo'
const dayOf = (text: string): string | null => {
  const r = parseDateDay(text, TOKYO)
  return r.ok ? r.value.day : null
}

describe('date forms of Japanese exports', () => {
  it('reads 和暦, compact, two-digit-year, full-width and Excel serial dates', () => {
    expect(dayOf('R6.11.24')).toBe('2024-11-24')
    expect(dayOf('R06.11.24')).toBe('2024-11-24')
    expect(dayOf('令和6年11月24日')).toBe('2024-11-24')
    expect(dayOf('令和元年5月1日')).toBe('2019-05-01')
    expect(dayOf('H31.4.30')).toBe('2019-04-30')
    expect(dayOf('Ｒ６．１１．２４')).toBe('2024-11-24')
    expect(dayOf('2024/11/24')).toBe('2024-11-24')
    expect(dayOf('20241124')).toBe('2024-11-24')
    expect(dayOf('24-11-24')).toBe('2024-11-24')
    expect(dayOf('２０２４／１１／２４')).toBe('2024-11-24')
    expect(dayOf('45620')).toBe('2024-11-24')
    expect(toIsoLikeDate('45620.5')).toBe('2024-11-24 12:00:00')
    expect(dayOf('2024-11-24 10:15:00 +0900')).toBe('2024-11-24')
  })

  it('still refuses what is not a date', () => {
    expect(dayOf('R6.13.01')).toBeNull()
    expect(dayOf('20241332')).toBeNull()
    expect(dayOf('123')).toBeNull()
    expect(dayOf('X6.11.24')).toBeNull()
  })
})

describe('bank statement layouts', () => {
  it('skips a preamble above the header (Mizuho)', () => {
    const parsed = parseCsv(
      '"お取引明細"\n"口座","普通 1234567"\n"日付","お引出金額","お預入金額","お取引内容","残高","メモ"\n"2026.11.05","","12,000","ﾌﾘｺﾐ","100",""\n',
    )
    expect(parsed.headers[0]).toBe('日付')
    expect(parsed.lines).toEqual([4])
    expect(detectLayout(parsed.headers)?.id).toBe('builtin:mizuho')
  })

  it('signs two-column amounts and never calls a withdrawal an error (MUFG)', () => {
    const headers = [...MUFG_HEADER]
    // The deposit column, not the withdrawal column that also ends in 金額.
    expect(suggestProfile(headers, 'bank')).toMatchObject({ amount: '預かり金額', withdrawal: '支払い金額' })
    const text = [
      headers.join(','),
      '2026/11/02,カード,ｼｲﾚ,"4,100",,995900,,,支払い',
      '2026/11/11,振込１,ﾕﾆｳﾞｧﾍﾟｲ,,"87,208",1083108,,,入金',
    ].join('\n')
    const profile = builtInProfileFor(headers, TOKYO) as MappingProfile
    const applied = applyProfile(parseCsv(text), profile)
    expect(applied.errors).toEqual([])
    expect(applied.rows.map((r) => [r.line, r.day, r.amount])).toEqual([
      [2, '2026-11-02', -4100],
      [3, '2026-11-11', 87208],
    ])
  })

  it('skips (and says so) withdrawals on a deposits-only mapping', () => {
    const profile: MappingProfile = {
      id: 'x',
      name: 'x',
      source: 'bank',
      columns: { date: '日付', amount: '入金額' },
      defaultCurrency: 'JPY',
      timeZone: TOKYO,
    }
    const applied = applyProfile(parseCsv('日付,入金額,出金額\n2026/11/02,,4100\n2026/11/03,500,\n'), profile)
    expect(applied.errors).toEqual([])
    expect(applied.skipped).toEqual([{ row: 2, reason: 'no_amount' }])
    expect(applied.rows.map((r) => r.amount)).toEqual([500])
    expect(applied.lineCount).toBe(2)
  })

  it('joins a date split over three columns (PayPay Bank)', () => {
    const headers = [...PAYPAY_BANK_HEADER]
    const profile = builtInProfileFor(headers, TOKYO) as MappingProfile
    const applied = applyProfile(
      parseCsv(`${headers.join(',')}\n2026,11,5,9,0,0,1,ﾌﾘｺﾐ,,12000,1,\n`),
      profile,
    )
    expect(applied.rows.map((r) => [r.day, r.amount])).toEqual([['2026-11-05', 12000]])
  })

  it('reads Zengin fixed-width records in Shift_JIS with 和暦 dates and signed amounts', async () => {
    const header = `1030081130081101081130${'0'.repeat(178)}`
    const records = [
      header,
      zenginDataRecord({
        inquiry: 1,
        date: '081105',
        deposit: true,
        kind: '11',
        amount: 12000,
        payer: 'ﾕﾆｳﾞｧﾍﾟｲ(ｶ',
        memo: 'ﾌﾘｺﾐ',
      }),
      zenginDataRecord({
        inquiry: 2,
        date: '081106',
        deposit: false,
        kind: '11',
        amount: 4100,
        payer: 'ﾏﾙｲﾁ',
        memo: 'ｼｲﾚ',
      }),
      `8${'0'.repeat(199)}`,
      `9${' '.repeat(199)}`,
    ]
    expect(records.every((r) => r.length === 200)).toBe(true)
    const bytes = Uint8Array.from(
      Encoding.convert(Encoding.stringToCode(records.join('\r\n')), {
        to: 'SJIS',
        from: 'UNICODE',
        type: 'array',
      }),
    )
    const read = await readImportFile('meisai.txt', bytes)
    expect(read.format).toBe('zengin')
    expect(read.encoding).toBe('shift_jis')
    expect(read.parsed.rows).toEqual([
      ['2026-11-05', '1', '11', '12000', 'ﾕﾆｳﾞｧﾍﾟｲ(ｶ', 'ﾌﾘｺﾐ'],
      ['2026-11-06', '2', '11', '-4100', 'ﾏﾙｲﾁ', 'ｼｲﾚ'],
    ])
    // Without line breaks ("改行なし") too.
    expect(readZengin(records.join('')).rows).toHaveLength(2)
    expect(isZengin('日付,金額\n')).toBe(false)
  })
})

describe('order exports', () => {
  it('groups Shopify line-item rows into one order, with its refunded amount and payment method', () => {
    const headers = [
      'Name',
      'Financial Status',
      'Currency',
      'Total',
      'Created at',
      'Lineitem name',
      'Billing Name',
      'Payment Method',
      'Refunded Amount',
    ]
    const text = [
      headers.join(','),
      '#1001,partially_refunded,JPY,3300,2026-11-05 10:00:00 +0900,A,Buyer,Shopify Payments,500',
      '#1001,,,,,B,,,',
      '#1002,paid,JPY,1100,2026-11-06 10:00:00 +0900,C,Buyer,Cash on Delivery (COD),0',
    ].join('\n')
    const profile = builtInProfileFor(headers, TOKYO) as MappingProfile
    expect(profile.id).toBe('builtin:shopify')
    // Not "Payment Reference": Shopify's order number is Name.
    expect(profile.columns.orderNumber).toBe('Name')
    const applied = applyProfile(parseCsv(text), profile)
    expect(applied.errors).toEqual([])
    expect(
      applied.rows.map((r) => [r.line, r.lines, r.orderNumber, r.amount, r.refunded, r.paymentMethod]),
    ).toEqual([
      [2, [2, 3], '#1001', 3300, 500, 'Shopify Payments'],
      [4, undefined, '#1002', 1100, undefined, 'Cash on Delivery (COD)'],
    ])
  })

  it('sums line amounts with order-lines grouping, and with order-total when each line holds its own total', () => {
    const base: MappingProfile = {
      id: 'x',
      name: 'x',
      source: 'orders',
      columns: { orderNumber: 'no', date: 'date', amount: 'amount' },
      defaultCurrency: 'JPY',
      timeZone: TOKYO,
      grouping: 'order-lines',
    }
    const text = 'no,date,amount\nA,2026/11/01,1000\nA,2026/11/01,800\nA,2026/11/01,330\nB,2026/11/02,500\n'
    expect(applyProfile(parseCsv(text), base).rows.map((r) => [r.orderNumber, r.amount])).toEqual([
      ['A', 2130],
      ['B', 500],
    ])
    const totals = applyProfile(parseCsv(text), { ...base, grouping: 'order-total' })
    expect(totals.errors).toEqual([])
    expect(totals.rows.map((r) => [r.orderNumber, r.amount, r.lines])).toEqual([
      ['A', 2130, [2, 3, 4]],
      ['B', 500, undefined],
    ])
  })
})
