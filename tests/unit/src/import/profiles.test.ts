import Encoding from 'encoding-japanese'
import { describe, expect, it } from 'vitest'
import { decodeBytes } from '../../../../src/import/decode'
import { parseCsv } from '../../../../src/import/parse'
import {
  applyProfile,
  fileHash,
  mappingProfileSchema,
  suggestProfile,
  type MappingProfile,
} from '../../../../src/import/profiles'

const ORDERS: MappingProfile = {
  id: 'p-orders',
  name: 'Shop orders',
  source: 'orders',
  columns: {
    orderNumber: '注文番号',
    date: '注文日',
    amount: '合計金額',
    currency: '通貨',
    customer: '顧客名',
  },
  defaultCurrency: 'JPY',
  timeZone: 'Asia/Tokyo',
}

describe('mappingProfileSchema', () => {
  it('accepts a profile', () => {
    expect(mappingProfileSchema.parse(ORDERS)).toEqual(ORDERS)
  })

  it.each([
    ['an unknown source', { source: 'ledger' }],
    ['a lower-case currency', { defaultCurrency: 'jpy' }],
    ['an unknown zone', { timeZone: 'Mars/Olympus' }],
    ['no amount column', { columns: { date: '日付' } }],
    ['an empty name', { name: ' ' }],
  ])('rejects %s', (_label, over) => {
    expect(mappingProfileSchema.safeParse({ ...ORDERS, ...over }).success).toBe(false)
  })
})

describe('applyProfile', () => {
  it('maps an order export into rows, with refunds negative and the day in the accounting zone', () => {
    const parsed = parseCsv(
      [
        '注文番号,注文日,合計金額,通貨,顧客名,メモ',
        'A-1,2026/10/01,"¥1,000",JPY,山田 太郎,',
        'A-2,2026-10-31T23:30:00+09:00,△500,円,,',
        'A-3,2026-10-31T15:30:00Z,"$12.50",USD,Jane,',
      ].join('\n'),
    )
    const { rows, errors } = applyProfile(parsed, ORDERS)
    expect(errors).toEqual([])
    expect(rows).toEqual([
      {
        line: 2,
        source: 'orders',
        orderNumber: 'A-1',
        at: Date.UTC(2026, 8, 30, 15),
        day: '2026-10-01',
        amount: 1000,
        currency: 'JPY',
        customer: '山田 太郎',
        description: null,
      },
      {
        line: 3,
        source: 'orders',
        orderNumber: 'A-2',
        at: Date.UTC(2026, 9, 31, 14, 30),
        day: '2026-10-31',
        amount: -500,
        currency: 'JPY',
        customer: null,
        description: null,
      },
      {
        line: 4,
        source: 'orders',
        orderNumber: 'A-3',
        at: Date.UTC(2026, 9, 31, 15, 30),
        // 00:30 on Nov 1 in Tokyo: the month changes.
        day: '2026-11-01',
        amount: 1250,
        currency: 'USD',
        customer: 'Jane',
        description: null,
      },
    ])
  })

  it('reports bad cells by row and column and imports the other rows', () => {
    const parsed = parseCsv(
      '注文番号,注文日,合計金額\nA-1,2026/10/01,100\n\nA-2,someday,1.5\nA-3,2026/10/02,300\n',
    )
    const profile = { ...ORDERS, columns: { orderNumber: '注文番号', date: '注文日', amount: '合計金額' } }
    const { rows, errors } = applyProfile(parsed, profile)
    expect(rows.map((r) => [r.line, r.orderNumber])).toEqual([
      [2, 'A-1'],
      [5, 'A-3'],
    ])
    expect(errors).toEqual([
      {
        row: 4,
        column: '注文日',
        message: 'not a date: someday',
        code: 'not_a_date',
        params: { text: 'someday' },
      },
      {
        row: 4,
        column: '合計金額',
        message: 'JPY has 0 decimals, got 1.5',
        code: 'too_many_decimals',
        params: { currency: 'JPY', decimals: 0, text: '1.5' },
      },
    ])
  })

  it('reports an unknown currency cell', () => {
    const parsed = parseCsv('注文番号,注文日,合計金額,通貨,顧客名\nA-1,2026/10/01,100,dollars,X\n')
    expect(applyProfile(parsed, ORDERS).errors).toMatchObject([
      { row: 2, column: '通貨', message: 'not a currency: dollars', code: 'not_a_currency' },
    ])
  })

  it('imports nothing when a mapped column is missing', () => {
    const parsed = parseCsv('注文番号,日付,金額\nA-1,2026/10/01,100\n')
    const { rows, errors } = applyProfile(parsed, ORDERS)
    expect(rows).toEqual([])
    expect(errors.map((e) => e.column)).toEqual(['注文日', '合計金額', '通貨', '顧客名'])
    expect(errors[0]).toMatchObject({
      row: 1,
      column: '注文日',
      message: 'column "注文日" not found in the file',
      code: 'column_missing',
    })
  })

  it('finds columns ignoring case, width and spacing', () => {
    const parsed = parseCsv('ORDER NUMBER,Ｄａｔｅ,amount\nA-1,2026-10-01,5\n')
    const profile: MappingProfile = {
      ...ORDERS,
      columns: { orderNumber: 'Order Number', date: 'Date', amount: 'Amount' },
    }
    expect(applyProfile(parsed, profile).rows.map((r) => r.amount)).toEqual([5])
  })

  it('imports a Shift_JIS bank statement end to end', () => {
    const text = '取引日,摘要,入金額,出金額\n2026年10月5日,ﾌﾘｺﾐ ﾕﾆｳﾞｧﾍﾟｲ,"１２，３４５",\n'
    const bytes = Uint8Array.from(
      Encoding.convert(Encoding.stringToCode(text), { to: 'SJIS', from: 'UNICODE', type: 'array' }),
    )
    const decoded = decodeBytes(bytes)
    expect(decoded.encoding).toBe('shift_jis')
    const parsed = parseCsv(decoded.text)
    const columns = suggestProfile(parsed.headers, 'bank')
    expect(columns).toEqual({ date: '取引日', amount: '入金額', withdrawal: '出金額', description: '摘要' })
    const profile = mappingProfileSchema.parse({
      id: 'bank',
      name: 'Bank',
      source: 'bank',
      columns,
      defaultCurrency: 'JPY',
      timeZone: 'Asia/Tokyo',
    })
    expect(applyProfile(parsed, profile).rows).toEqual([
      {
        line: 2,
        source: 'bank',
        orderNumber: null,
        at: Date.UTC(2026, 9, 4, 15),
        day: '2026-10-05',
        amount: 12345,
        currency: 'JPY',
        customer: null,
        description: 'ﾌﾘｺﾐ ﾕﾆｳﾞｧﾍﾟｲ',
      },
    ])
  })
})

describe('fileHash', () => {
  it('is the SHA-256 of the bytes', async () => {
    expect(await fileHash(new TextEncoder().encode('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
  })

  it('is equal for a re-imported file and different for a changed one', async () => {
    const csv = '注文番号,注文日,合計金額\nA-1,2026/10/01,100\n'
    const first = await fileHash(new TextEncoder().encode(csv))
    const again = await fileHash(Uint8Array.from(new TextEncoder().encode(csv)))
    const changed = await fileHash(new TextEncoder().encode(csv.replace('100', '101')))
    expect(again).toBe(first)
    expect(changed).not.toBe(first)
  })
})

describe('suggestProfile', () => {
  it('guesses Japanese order headers', () => {
    expect(suggestProfile(['注文番号', '注文日時', '顧客名', '合計金額', '通貨', '備考'], 'orders')).toEqual({
      orderNumber: '注文番号',
      date: '注文日時',
      customer: '顧客名',
      amount: '合計金額',
      currency: '通貨',
      description: '備考',
    })
  })

  it('guesses English order headers', () => {
    expect(
      suggestProfile(['Order ID', 'Created At', 'Customer Name', 'Total', 'Currency'], 'orders'),
    ).toEqual({
      orderNumber: 'Order ID',
      date: 'Created At',
      customer: 'Customer Name',
      amount: 'Total',
      currency: 'Currency',
    })
  })

  it('prefers the deposit column of a bank statement', () => {
    expect(suggestProfile(['日付', '金額', '入金額', '摘要'], 'bank')).toEqual({
      date: '日付',
      amount: '入金額',
      description: '摘要',
    })
  })

  it('leaves out fields it cannot guess', () => {
    expect(suggestProfile(['foo', 'bar'], 'orders')).toEqual({})
  })
})
