/**
 * The matching corpus: cache records and the files an accountant downloads about them, laid
 * out like the real exports (column layouts of src/import/layouts.ts, Shift_JIS where the bank or shop
 * uses it), each line's truth known because the generator wrote it. Deterministic, no I/O.
 *
 * Traps the corpus holds on purpose: orders paid by COD, bank transfer or konbini whose amount and day
 * equal another order's card charge; a test-mode charge with an order's number; an order whose amount
 * differs from its charge; customer transfers and supplier payments on bank statements; deposits net of
 * fees and of the ¥440 transfer fee, per store, some paid a week after their period.
 */
import Encoding from 'encoding-japanese'
import { chargeRecordOf } from '../../../src/db/charge-record'
import { historyRecordOf } from '../../../src/db/history-record'
import type { ChargeRecord, HistoryRecord, RecordKey } from '../../../src/domain/records'
import { zenginDataRecord } from '../../../src/import/zengin'
import { cardUserData, chargeItem, historyItem, uuid } from '../../support/api-items'
import { MUFG_HEADER, PAYPAY_BANK_HEADER } from '../../support/bank-files'

export const CORPUS_CONNECTION = 'corpus'
export const CORPUS_ZONE = 'Asia/Tokyo'
const TRANSFER_FEE = 440

export interface CorpusFile {
  name: string
  source: 'orders' | 'bank'
  bytes: Uint8Array
  /** By first file line of an order or deposit: the records it truly is (empty: it matches nothing). */
  truth: Map<number, RecordKey[]>
  /** Lines whose truth rests on exact evidence (order number + amount, or an exact payout). */
  exact: Set<number>
}

export interface Corpus {
  history: HistoryRecord[]
  charges: ChargeRecord[]
  files: CorpusFile[]
}

const CORPUS_NAMES = { merchant_name: 'Corpus', store_name: 'Corpus store' }
const holder = (n: number) => ({ ...cardUserData(n), cardholder_email_address: `h${n}@example.com` })
const store = (n: number): string =>
  `${String(n).repeat(8)}-${String(n).repeat(4)}-4${String(n).repeat(3)}-8${String(n).repeat(3)}-${String(n).repeat(12)}`

/** A small seeded generator: the corpus is the same on every run. */
function prng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function sjis(text: string): Uint8Array {
  return Uint8Array.from(
    Encoding.convert(Encoding.stringToCode(text), { to: 'SJIS', from: 'UNICODE', type: 'array' }),
  )
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}

function csvLine(cells: readonly (string | number)[]): string {
  return cells.map((c) => `"${String(c).replace(/"/g, '""')}"`).join(',')
}

/** A line in a published header's column order: named cells filled, every other column empty. */
function csvRecord(header: readonly string[], cells: Readonly<Record<string, string | number>>): string {
  for (const name of Object.keys(cells)) if (!header.includes(name)) throw new Error(`no column ${name}`)
  return csvLine(header.map((h) => cells[h] ?? ''))
}

function yen(n: number): string {
  return n.toLocaleString('en-US')
}

interface RecordSpec {
  n: number
  storeId: string
  /** `2026-11-05T10:00:00+09:00` */
  at: string
  amount: number
  ref?: string | null
  /** Where the service holds the reference. */
  refIn?: 'metadata' | 'charge'
  paymentType?: string
  mode?: 'live' | 'test'
  status?: string
}

class Builder {
  history: HistoryRecord[] = []
  charges: ChargeRecord[] = []

  charge(spec: RecordSpec): RecordKey {
    const ref = spec.ref ?? null
    const created = new Date(spec.at).toISOString()
    const fee = Math.round(spec.amount * 0.036)
    const item = historyItem(spec.n, {
      store_id: spec.storeId,
      amount: spec.amount,
      amount_formatted: spec.amount,
      status: spec.status ?? 'successful',
      metadata: ref !== null && spec.refIn !== 'charge' ? { order_id: ref } : {},
      created_on: created,
      mode: spec.mode ?? 'live',
      ...CORPUS_NAMES,
      payment_type: spec.paymentType ?? 'card',
      user_data: holder(spec.n),
    })
    const charge = chargeItem(spec.n, {
      store_id: spec.storeId,
      transaction_token_id: uuid(900_000 + spec.n),
      merchant_transaction_id: ref !== null && spec.refIn === 'charge' ? ref : null,
      requested_amount: spec.amount,
      requested_amount_formatted: spec.amount,
      charged_amount: spec.amount,
      charged_amount_formatted: spec.amount,
      fee_amount: fee,
      fee_amount_formatted: fee,
      status: spec.status ?? 'successful',
      mode: spec.mode ?? 'live',
      created_on: created,
      ...CORPUS_NAMES,
    })
    const record = historyRecordOf(CORPUS_CONNECTION, item, 0)
    this.history.push(record)
    this.charges.push(chargeRecordOf(CORPUS_CONNECTION, charge, 0))
    return record.key
  }

  refund(n: number, chargeN: number, storeId: string, at: string, amount: number): RecordKey {
    const item = historyItem(n, {
      store_id: storeId,
      charge_id: uuid(chargeN),
      amount,
      amount_formatted: amount,
      type: 'refund',
      metadata: {},
      created_on: new Date(at).toISOString(),
      ...CORPUS_NAMES,
      user_data: holder(chargeN),
    })
    const record = historyRecordOf(CORPUS_CONNECTION, item, 0)
    this.history.push(record)
    return record.key
  }

  /** Fee of a charge, as the charge list gives it. */
  feeOf(key: RecordKey): number {
    const id = key.slice('charge:'.length)
    return this.charges.find((c) => c.id === id)?.feeAmount ?? 0
  }
}

const at = (day: number, hour = 10): string =>
  `2026-11-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00+09:00`
const isoDay = (day: number): string => `2026-11-${String(day).padStart(2, '0')}`

function shopify(b: Builder, next: () => number): CorpusFile {
  const S = store(1)
  const header = [
    'Name',
    'Email',
    'Financial Status',
    'Paid at',
    'Fulfillment Status',
    'Currency',
    'Subtotal',
    'Shipping',
    'Taxes',
    'Total',
    'Discount Code',
    'Discount Amount',
    'Created at',
    'Lineitem quantity',
    'Lineitem name',
    'Lineitem price',
    'Billing Name',
    'Payment Method',
    'Payment Reference',
    'Refunded Amount',
    'Id',
  ]
  const lines: string[] = [csvLine(header)]
  const truth = new Map<number, RecordKey[]>()
  const exact = new Set<number>()
  const order = (
    num: number,
    day: number,
    total: number,
    items: number,
    method: string,
    refunded = 0,
  ): number => {
    const first = lines.length + 1
    const created = `2026-11-${String(day).padStart(2, '0')} 10:${String(num % 60).padStart(2, '0')}:00 +0900`
    for (let i = 0; i < items; i++) {
      lines.push(
        csvLine(
          i === 0
            ? [
                `#${num}`,
                `c${num}@example.com`,
                refunded ? 'partially_refunded' : 'paid',
                created,
                'fulfilled',
                'JPY',
                total,
                0,
                0,
                total,
                '',
                0,
                created,
                1,
                `Item ${i}`,
                Math.floor(total / items),
                `Buyer ${num}`,
                method,
                `c.${num}.1`,
                refunded,
                5_000_000 + num,
              ]
            : [
                `#${num}`,
                `c${num}@example.com`,
                '',
                '',
                '',
                '',
                '',
                '',
                '',
                '',
                '',
                '',
                '',
                1,
                `Item ${i}`,
                Math.floor(total / items),
                '',
                '',
                '',
                '',
                '',
              ],
        ),
      )
    }
    return first
  }
  for (let num = 1001; num <= 1030; num++) {
    const day = 1 + (num % 20)
    const total = 1000 + Math.floor(next() * 90) * 110
    const n = 10_000 + num
    const key = b.charge({
      n,
      storeId: S,
      at: at(day),
      amount: total,
      ref: num % 2 ? `#${num}` : String(num),
      refIn: num % 3 ? 'metadata' : 'charge',
    })
    const refunded = num % 10 === 3 ? 500 : 0
    const keys = [key]
    if (refunded) keys.push(b.refund(20_000 + num, n, S, at(day + 1), refunded))
    const line = order(
      num,
      day,
      total,
      1 + (num % 3),
      num % 4 ? 'Shopify Payments' : 'クレジットカード',
      refunded,
    )
    truth.set(line, keys)
    exact.add(line)
  }
  // Traps: COD, bank deposit and konbini orders whose amount and day equal another shop's card charge.
  for (const [num, method, amount, day] of [
    [1031, 'Cash on Delivery (COD)', 3300, 5],
    [1032, 'Bank Deposit', 5500, 6],
    [1033, 'Bank Deposit', 7700, 7],
  ] as const) {
    b.charge({ n: 30_000 + num, storeId: S, at: at(day), amount, ref: `OTHER-${num}` })
    truth.set(order(num, day, amount, 1, method), [])
  }
  // A konbini order paid through the service: matched by its number to the konbini payment.
  const konbini = b.charge({
    n: 11_034,
    storeId: S,
    at: at(8),
    amount: 4400,
    ref: '#1034',
    paymentType: 'konbini',
  })
  b.charge({ n: 31_034, storeId: S, at: at(8), amount: 4400, ref: 'OTHER-1034' })
  const kLine = order(1034, 8, 4400, 1, 'コンビニ決済')
  truth.set(kLine, [konbini])
  exact.add(kLine)
  // A test order: its charge is in test mode and must not be reconciled.
  b.charge({ n: 11_035, storeId: S, at: at(9), amount: 2000, ref: '#1035', mode: 'test' })
  truth.set(order(1035, 9, 2000, 1, 'Shopify Payments'), [])
  // An order whose total was changed after payment: a person must look (not exact).
  const changed = b.charge({ n: 11_036, storeId: S, at: at(9), amount: 3800, ref: '#1036' })
  truth.set(order(1036, 9, 4000, 2, 'Shopify Payments'), [changed])
  // A manually paid order (no number the service knows) on the day of a point-of-sale charge of the same
  // amount with no order number: only amount and day agree, which is never enough to accept.
  b.charge({ n: 31_037, storeId: S, at: at(10), amount: 6600, ref: null })
  truth.set(order(1037, 10, 6600, 1, 'manual'), [])
  return { name: 'shopify-orders.csv', source: 'orders', bytes: utf8(lines.join('\n') + '\n'), truth, exact }
}

/**
 * BASE 注文 CSV, in the column order a public converter checks verbatim (see src/import/layouts.ts):
 * one line per item, the order's columns repeated; Shift_JIS.
 */
const BASE_HEADER = [
  '注文ID',
  '注文日時',
  '氏(請求先)',
  '名(請求先)',
  '郵便番号(請求先)',
  '都道府県(請求先)',
  '住所(請求先)',
  '住所2(請求先)',
  '電話番号(請求先)',
  'メールアドレス(請求先)',
  '氏(配送先)',
  '名(配送先)',
  '郵便番号(配送先)',
  '都道府県(配送先)',
  '住所(配送先)',
  '住所2(配送先)',
  '電話番号(配送先)',
  '備考',
  '商品名',
  'バリエーション',
  '価格',
  '税率',
  '数量',
  '合計金額',
  '送料',
  '支払い方法',
  '代引き手数料',
  '発送状況',
  '商品ID',
  '種類ID',
  '購入元',
  '配送日',
  '配送時間帯',
  '注文メモ',
  '調整金額',
]

function base(b: Builder, next: () => number): CorpusFile {
  const S = store(2)
  const lines = [csvLine(BASE_HEADER)]
  const truth = new Map<number, RecordKey[]>()
  const exact = new Set<number>()
  const methods = [
    'クレジットカード決済',
    'クレジットカード決済',
    'Amazon Pay',
    'コンビニ決済',
    '銀行振込(BASE口座)',
    '後払い決済',
  ]
  for (let i = 0; i < 24; i++) {
    const id = `${(0xa1b2c3d4 + i * 7919).toString(16).toUpperCase()}${String(i).padStart(2, '0')}`
    const day = 2 + (i % 18)
    const method = methods[i % methods.length] ?? ''
    const items = 1 + (i % 3)
    const total = 1500 + Math.floor(next() * 60) * 100
    const first = lines.length + 1
    for (let k = 0; k < items; k++) {
      lines.push(
        csvRecord(BASE_HEADER, {
          注文ID: id,
          注文日時: `2026-11-${String(day).padStart(2, '0')} 1${k}:30:00`,
          '氏(請求先)': '山田',
          '名(請求先)': `花子${i}`,
          '郵便番号(請求先)': '100-0001',
          '都道府県(請求先)': '東京都',
          '氏(配送先)': '山田',
          '名(配送先)': `花子${i}`,
          商品名: `商品${k}`,
          価格: Math.floor(total / items),
          税率: '10%',
          数量: 1,
          合計金額: total,
          送料: 0,
          支払い方法: method,
          代引き手数料: 0,
          発送状況: '発送済み',
          商品ID: 100 + k,
          購入元: 'BASE',
        }),
      )
    }
    if (method.startsWith('銀行振込')) {
      // Paid into the shop's bank: no record. Another store's card charge has the same amount and day.
      b.charge({ n: 40_000 + i, storeId: S, at: at(day), amount: total, ref: `X-${i}` })
      truth.set(first, [])
      continue
    }
    const paymentType = method === 'コンビニ決済' ? 'konbini' : method === '後払い決済' ? 'paidy' : 'card'
    truth.set(first, [
      b.charge({
        n: 41_000 + i,
        storeId: S,
        at: at(day, 11),
        amount: total,
        ref: id,
        refIn: 'charge',
        paymentType,
      }),
    ])
    exact.add(first)
  }
  return { name: 'base-orders.csv', source: 'orders', bytes: sjis(lines.join('\r\n') + '\r\n'), truth, exact }
}

/**
 * EC-CUBE 4 受注CSV with every column of its default definition (EC-CUBE/ec-cube
 * src/Eccube/Resource/doctrine/import_csv/ja/dtb_csv.csv, csv_type_id 3, in sort order; 送料 twice: the
 * order's and the shipping's), SJIS-win, dates 'Y-m-d H:i:s' (app/config/eccube/packages/eccube.yaml).
 */
const ECCUBE_HEADER = [
  '注文ID',
  '注文番号',
  '会員ID',
  'お名前(姓)',
  'お名前(名)',
  'お名前(セイ)',
  'お名前(メイ)',
  '会社名',
  '郵便番号',
  '都道府県(ID)',
  '都道府県(名称)',
  '住所1',
  '住所2',
  'メールアドレス',
  'TEL',
  '性別(ID)',
  '性別(名称)',
  '職業(ID)',
  '職業(名称)',
  '誕生日',
  'ショップ用メモ欄',
  '小計',
  '値引き',
  '送料',
  '税金',
  '合計',
  '支払合計',
  '対応状況(ID)',
  '対応状況(名称)',
  '支払方法(ID)',
  '支払方法(名称)',
  '受注日',
  '入金日',
  '注文詳細ID',
  '商品ID',
  '商品規格ID',
  '商品名',
  '商品コード',
  '規格名1',
  '規格名2',
  '規格分類名1',
  '規格分類名2',
  '価格',
  '個数',
  '税率',
  '税率ルール(ID)',
  '明細区分(ID)',
  '明細区分(名称)',
  '出荷ID',
  '配送先_お名前(姓)',
  '配送先_お名前(名)',
  '配送先_お名前(セイ)',
  '配送先_お名前(メイ)',
  '配送先_会社名',
  '配送先_郵便番号',
  '配送先_都道府県(ID)',
  '配送先_都道府県(名称)',
  '配送先_住所1',
  '配送先_住所2',
  '配送先_TEL',
  '配送業者(ID)',
  '配送業者(名称)',
  'お届け時間ID',
  'お届け時間(名称)',
  'お届け希望日',
  '送料',
  '発送日',
  '出荷伝票番号',
  '配達用メモ',
  '出荷メール送信日',
]

function eccube(b: Builder, next: () => number): CorpusFile {
  const S = store(3)
  const lines = [csvLine(ECCUBE_HEADER)]
  const truth = new Map<number, RecordKey[]>()
  const exact = new Set<number>()
  for (let i = 0; i < 20; i++) {
    const number = 4900 + i * 3
    const cod = i % 7 === 6
    const day = 1 + i
    const subtotal = 2000 + Math.floor(next() * 40) * 250
    const shipping = 800
    const fee = cod ? 330 : 0
    const total = subtotal + shipping + fee
    const first = lines.length + 1
    // 明細区分 ids as EC-CUBE numbers them: 1 商品, 2 送料, 3 手数料.
    const line = (kindId: number, kind: string, name: string, price: number): string =>
      csvRecord(ECCUBE_HEADER, {
        注文ID: i + 1,
        注文番号: String(number).padStart(7, '0'),
        'お名前(姓)': '佐藤',
        'お名前(名)': `次郎${i}`,
        小計: subtotal,
        値引き: 0,
        送料: shipping,
        税金: Math.floor(total / 11),
        合計: total,
        支払合計: total,
        '対応状況(ID)': 5,
        '対応状況(名称)': '発送済み',
        '支払方法(ID)': cod ? 4 : 5,
        '支払方法(名称)': cod ? '代金引換' : 'クレジットカード決済',
        受注日: `${isoDay(day)} 09:15:00`,
        注文詳細ID: lines.length,
        商品名: name,
        価格: price,
        個数: 1,
        税率: 10,
        '明細区分(ID)': kindId,
        '明細区分(名称)': kind,
      })
    lines.push(line(1, '商品', '商品A', subtotal))
    lines.push(line(2, '送料', '送料', shipping))
    if (fee) lines.push(line(3, '手数料', '代引手数料', fee))
    if (cod) {
      b.charge({ n: 50_000 + i, storeId: S, at: at(day), amount: total, ref: `OTHER-${i}` })
      truth.set(first, [])
      continue
    }
    truth.set(first, [
      b.charge({ n: 51_000 + i, storeId: S, at: at(day, 9), amount: total, ref: String(number) }),
    ])
    exact.add(first)
  }
  return {
    name: 'eccube4-orders.csv',
    source: 'orders',
    bytes: sjis(lines.join('\r\n') + '\r\n'),
    truth,
    exact,
  }
}

interface Deposit {
  day: number
  amount: number
  keys: RecordKey[]
}

/** Daily live card charges of one store from `from` to `to`, and the payouts of the given periods. */
function payouts(
  b: Builder,
  storeNo: number,
  next: () => number,
  periods: readonly [number, number, number][],
  seedN: number,
): Deposit[] {
  const S = store(storeNo)
  const byDay = new Map<number, RecordKey[]>()
  let n = seedN
  for (let day = 1; day <= 28; day++) {
    const keys: RecordKey[] = []
    const count = 1 + Math.floor(next() * 3)
    for (let k = 0; k < count; k++)
      keys.push(
        b.charge({
          n: n++,
          storeId: S,
          at: at(day, 9 + k),
          amount: 2000 + Math.floor(next() * 80) * 110,
          ref: `P${storeNo}-${n}`,
        }),
      )
    byDay.set(day, keys)
  }
  // A test-mode charge inside a period: never part of a payout.
  b.charge({ n: n++, storeId: S, at: at(3), amount: 1234, mode: 'test' })
  return periods.map(([from, to, paid]) => {
    const keys: RecordKey[] = []
    let net = -TRANSFER_FEE
    for (let d = from; d <= to; d++) {
      for (const key of byDay.get(d) ?? []) {
        keys.push(key)
        const record = b.history.find((h) => h.key === key)
        net += (record?.amount ?? 0) - b.feeOf(key)
      }
    }
    return { day: paid, amount: net, keys }
  })
}

type BankLine = { day: number; deposit: number; withdrawal: number; text: string; payer?: string }

function bankLines(deposits: readonly Deposit[]): {
  lines: BankLine[]
  truthOf: (i: number) => RecordKey[] | null
} {
  const lines: BankLine[] = [
    { day: 2, deposit: 0, withdrawal: 4100, text: 'ｼｲﾚｻｷ ｶ)ﾏﾙｲﾁ' },
    { day: 4, deposit: 3300, withdrawal: 0, text: 'ﾌﾘｺﾐ ﾔﾏﾀﾞ ﾀﾛｳ', payer: 'ﾔﾏﾀﾞ ﾀﾛｳ' },
    { day: 9, deposit: 0, withdrawal: 55000, text: 'ﾔﾁﾝ' },
    { day: 13, deposit: 5500, withdrawal: 0, text: 'ﾌﾘｺﾐ ｽｽﾞｷ ﾊﾅｺ', payer: 'ｽｽﾞｷ ﾊﾅｺ' },
  ]
  const truthAt = new Map<number, RecordKey[]>()
  for (const d of deposits) {
    truthAt.set(lines.length, d.keys)
    lines.push({ day: d.day, deposit: d.amount, withdrawal: 0, text: 'ﾌﾘｺﾐ ﾕﾆｳﾞｧﾍﾟｲ(ｶ', payer: 'ﾕﾆｳﾞｧﾍﾟｲ(ｶ' })
  }
  const order = lines.map((l, i) => ({ l, i })).sort((a, b) => a.l.day - b.l.day || a.i - b.i)
  return {
    lines: order.map((o) => o.l),
    truthOf: (i) => {
      const original = order[i]?.i ?? -1
      return truthAt.get(original) ?? (order[i]?.l.deposit ? [] : null)
    },
  }
}

function bankFile(
  name: string,
  deposits: readonly Deposit[],
  header: readonly string[],
  preamble: readonly string[],
  cells: (l: BankLine, balance: number, seq: number) => (string | number)[],
  encode: (text: string) => Uint8Array = sjis,
): CorpusFile {
  const { lines, truthOf } = bankLines(deposits)
  const out = [...preamble, csvLine(header)]
  const truth = new Map<number, RecordKey[]>()
  const exact = new Set<number>()
  let balance = 1_000_000
  lines.forEach((l, i) => {
    balance += l.deposit - l.withdrawal
    out.push(csvLine(cells(l, balance, i + 1)))
    const t = truthOf(i)
    if (t !== null) {
      truth.set(out.length, t)
      if (t.length > 0) exact.add(out.length)
    }
  })
  return { name, source: 'bank', bytes: encode(out.join('\r\n') + '\r\n'), truth, exact }
}

const money = (n: number): string => (n ? yen(n) : '')

function zenginFile(deposits: readonly Deposit[]): CorpusFile {
  const { lines, truthOf } = bankLines(deposits)
  const header =
    `1030${'081130'}${'081101'}${'081130'}0001${'ｾﾞﾝｷﾞﾝ'.padEnd(15)}001${'ﾎﾝﾃﾝ'.padEnd(15)}000100012345${'ｶ)ｸﾛｰｽﾞﾌﾞｯｸ'.padEnd(40)}00${'0'.repeat(14)}`.padEnd(
      200,
      ' ',
    )
  const records = [header]
  const truth = new Map<number, RecordKey[]>()
  const exact = new Set<number>()
  lines.forEach((l, i) => {
    records.push(
      zenginDataRecord({
        inquiry: i + 1,
        date: `0811${String(l.day).padStart(2, '0')}`,
        deposit: l.deposit > 0,
        kind: '11',
        amount: l.deposit || l.withdrawal,
        payer: l.payer ?? l.text,
        memo: l.text.slice(0, 10),
      }),
    )
    const t = truthOf(i)
    if (t !== null) {
      truth.set(records.length, t)
      if (t.length > 0) exact.add(records.length)
    }
  })
  records.push(`8${'0'.repeat(199)}`, `9${' '.repeat(199)}`)
  return {
    name: 'zengin-nyushukkin.txt',
    source: 'bank',
    bytes: sjis(records.join('\r\n') + '\r\n'),
    truth,
    exact,
  }
}

/**
 * The same statement in the Zengin CSV form some banks deliver: the fixed-width fields in their order,
 * comma-separated (header 1,03,…; data 2,…; trailer 8; end 9), amounts without leading zeros.
 */
function zenginCsvFile(deposits: readonly Deposit[]): CorpusFile {
  const { lines, truthOf } = bankLines(deposits)
  const records = [
    [
      '1',
      '03',
      '0',
      '081201',
      '081101',
      '081130',
      '0001',
      'ｾﾞﾝｷﾞﾝ',
      '001',
      'ﾎﾝﾃﾝ',
      '1',
      '0012345',
      'ｶ)ｸﾛｰｽﾞﾌﾞｯｸ',
      '0',
      '0',
    ].join(','),
  ]
  const truth = new Map<number, RecordKey[]>()
  const exact = new Set<number>()
  lines.forEach((l, i) => {
    const date = `0811${String(l.day).padStart(2, '0')}`
    records.push(
      [
        '2',
        String(i + 1),
        date,
        date,
        l.deposit > 0 ? '1' : '2',
        '11',
        String(l.deposit || l.withdrawal),
        '0',
        '',
        '',
        '',
        '',
        '',
        '',
        l.payer ?? l.text,
        'ｷﾞﾝｺｳ',
        'ｼﾃﾝ',
        l.text.slice(0, 10),
        '',
      ].join(','),
    )
    const t = truthOf(i)
    if (t !== null) {
      truth.set(records.length, t)
      if (t.length > 0) exact.add(records.length)
    }
  })
  records.push('8,0,0,0,0,0', '9')
  return {
    name: 'zengin-nyushukkin.csv',
    source: 'bank',
    bytes: sjis(records.join('\r\n') + '\r\n'),
    truth,
    exact,
  }
}

export function buildCorpus(): Corpus {
  const b = new Builder()
  const next = prng(21)
  const files: CorpusFile[] = [shopify(b, next), base(b, next), eccube(b, next)]
  // Weekly payouts, paid four days after the week (one a week late); twice monthly; per store.
  const mufg = payouts(
    b,
    4,
    next,
    [
      [1, 7, 11],
      [8, 14, 18],
      [15, 21, 25],
      [22, 28, 30],
    ],
    60_000,
  )
  files.push(
    bankFile('mufg-meisai.csv', mufg, [...MUFG_HEADER], [], (l, bal) => [
      `2026/11/${String(l.day).padStart(2, '0')}`,
      l.deposit ? '振込１' : 'カード',
      l.text,
      money(l.withdrawal),
      money(l.deposit),
      yen(bal),
      '',
      '',
      l.deposit ? '入金' : '支払い',
    ]),
  )
  const smbc = payouts(
    b,
    5,
    next,
    [
      [1, 10, 15],
      [11, 15, 20],
      [16, 25, 30],
    ],
    61_000,
  )
  files.push(
    bankFile(
      'smbc-meisai.csv',
      smbc,
      ['年月日', 'お引出し', 'お預入れ', 'お取り扱い内容', '残高', 'メモ', 'ラベル'],
      [],
      (l, bal) => [
        `R8.11.${String(l.day).padStart(2, '0')}`,
        money(l.withdrawal),
        money(l.deposit),
        l.text,
        yen(bal),
        '',
        '',
      ],
    ),
  )
  // SMBC's older wording (お引出し金額/お預入れ金額), unpadded Western dates, withdrawals written negative
  // (the format before Aug 2022): the same deposits.
  files.push(
    bankFile(
      'smbc-legacy-meisai.csv',
      smbc,
      ['年月日', 'お引出し金額', 'お預入れ金額', 'お取り扱い内容', '残高', 'メモ'],
      [],
      (l, bal) => [
        `2026/11/${l.day}`,
        l.withdrawal ? `-${yen(l.withdrawal)}` : '',
        money(l.deposit),
        l.text,
        yen(bal),
        '',
      ],
    ),
  )
  const mizuho = payouts(
    b,
    6,
    next,
    [
      [1, 5, 10],
      [6, 12, 17],
      [13, 19, 24],
      [20, 26, 30],
    ],
    62_000,
  )
  files.push(
    bankFile(
      'mizuho-meisai.csv',
      mizuho,
      ['明細通番', '日付', 'お引出金額', 'お預入金額', 'お取引内容', '残高', 'メモ'],
      // Nine lines above the header, as the public readers of this download skip (skiprows=9).
      [
        csvLine(['みずほ銀行 入出金明細']),
        csvLine(['お客さま名', 'ｸﾛｰｽﾞﾌﾞｯｸ ﾀﾛｳ']),
        csvLine(['店番号', '001']),
        csvLine(['店名', '本店']),
        csvLine(['口座', '普通 1234567']),
        csvLine(['照会期間', '2026.11.01～2026.11.30']),
        csvLine(['照会日時', '2026.12.01 09:00']),
        csvLine(['件数', '8']),
        '',
      ],
      (l, bal, seq) => [
        seq,
        `2026.11.${String(l.day).padStart(2, '0')}`,
        money(l.withdrawal),
        money(l.deposit),
        l.text,
        yen(bal),
        '',
      ],
    ),
  )
  const rakuten = payouts(
    b,
    7,
    next,
    [
      [1, 7, 12],
      [8, 15, 20],
      [16, 22, 27],
    ],
    63_000,
  )
  files.push(
    bankFile(
      'rakuten-meisai.csv',
      rakuten,
      ['取引日', '入出金(円)', '取引後残高(円)', '入出金内容'],
      [],
      (l, bal) => [
        `202611${String(l.day).padStart(2, '0')}`,
        l.deposit ? l.deposit : -l.withdrawal,
        bal,
        l.text,
      ],
    ),
  )
  // Rakuten business accounts name two columns differently (残高(円), 入出金先内容) and quote amounts
  // with thousands separators: the same deposits, read with the same profile.
  files.push(
    bankFile(
      'rakuten-business-meisai.csv',
      rakuten,
      ['取引日', '入出金(円)', '残高(円)', '入出金先内容'],
      [],
      (l, bal) => [
        `202611${String(l.day).padStart(2, '0')}`,
        yen(l.deposit ? l.deposit : -l.withdrawal),
        yen(bal),
        l.text,
      ],
    ),
  )
  const paypay = payouts(
    b,
    8,
    next,
    [
      [1, 9, 13],
      [10, 16, 21],
      [17, 23, 28],
    ],
    64_000,
  )
  files.push(
    bankFile('paypay-bank-meisai.csv', paypay, [...PAYPAY_BANK_HEADER], [], (l, bal) => [
      2026,
      11,
      l.day,
      9,
      0,
      0,
      l.day * 10,
      l.text,
      l.withdrawal || '',
      l.deposit || '',
      bal,
      '',
    ]),
  )
  const zengin = payouts(
    b,
    9,
    next,
    [
      [1, 6, 9],
      [7, 13, 18],
      [14, 20, 25],
      [21, 27, 30],
    ],
    65_000,
  )
  files.push(zenginFile(zengin), zenginCsvFile(zengin))
  return { history: b.history, charges: b.charges, files }
}
