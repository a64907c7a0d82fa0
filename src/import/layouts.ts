/**
 * Built-in mapping profiles for the exports accountants actually download. Each is recognised by its
 * header row (every `signature` header present) and named after its source; the column names are those
 * of the published download layouts (bank help pages "明細のダウンロード (CSV) 項目", the shops' help on
 * their order CSV). A user-saved profile for the same headers wins over a built-in one.
 */
import type { Grouping, ImportSource, ProfileColumns } from './profiles'
import { ZENGIN_HEADERS } from './zengin'

export interface BuiltInLayout {
  id: string
  name: string
  source: ImportSource
  signature: readonly string[]
  columns: ProfileColumns
  grouping?: Grouping
}

export const BUILT_IN_LAYOUTS: readonly BuiltInLayout[] = [
  {
    // 三菱UFJ銀行 入出金明細 CSV: 日付, 摘要, 摘要内容, 支払い金額, 預かり金額, 差引残高, メモ, 未資金化区分, 入払区分.
    id: 'builtin:mufg',
    name: '三菱UFJ銀行 (MUFG)',
    source: 'bank',
    signature: ['日付', '摘要内容', '支払い金額', '預かり金額', '差引残高'],
    columns: { date: '日付', amount: '預かり金額', withdrawal: '支払い金額', description: '摘要内容' },
  },
  {
    // 三井住友銀行 明細 CSV: 年月日, お引出し, お預入れ, お取り扱い内容, 残高, メモ, ラベル (dates may be 和暦).
    id: 'builtin:smbc',
    name: '三井住友銀行 (SMBC)',
    source: 'bank',
    signature: ['年月日', 'お引出し', 'お預入れ', 'お取り扱い内容'],
    columns: { date: '年月日', amount: 'お預入れ', withdrawal: 'お引出し', description: 'お取り扱い内容' },
  },
  {
    // みずほ銀行 入出金明細 CSV: a preamble (口座, 期間) above 日付, お引出金額, お預入金額, お取引内容, 残高, メモ.
    id: 'builtin:mizuho',
    name: 'みずほ銀行 (Mizuho)',
    source: 'bank',
    signature: ['日付', 'お引出金額', 'お預入金額', 'お取引内容'],
    columns: { date: '日付', amount: 'お預入金額', withdrawal: 'お引出金額', description: 'お取引内容' },
  },
  {
    // 楽天銀行 入出金明細 CSV: 取引日 (YYYYMMDD), 入出金(円) (signed), 取引後残高(円), 入出金内容.
    id: 'builtin:rakuten',
    name: '楽天銀行 (Rakuten Bank)',
    source: 'bank',
    signature: ['取引日', '入出金(円)', '入出金内容'],
    columns: { date: '取引日', amount: '入出金(円)', description: '入出金内容' },
  },
  {
    // PayPay銀行 (旧ジャパンネット銀行) CSV: 操作日(年), 操作日(月), 操作日(日), 操作時刻(時/分/秒), 取引順番号,
    // 摘要, お支払金額, お預り金額, 残高, メモ.
    id: 'builtin:paypay-bank',
    name: 'PayPay銀行 (PayPay Bank)',
    source: 'bank',
    signature: ['操作日(年)', '操作日(月)', '操作日(日)', 'お預り金額'],
    columns: {
      date: '操作日(年)',
      dateMonth: '操作日(月)',
      dateDay: '操作日(日)',
      amount: 'お預り金額',
      withdrawal: 'お支払金額',
      description: '摘要',
    },
  },
  {
    // 全銀協 入出金取引明細, read by zengin.ts into these columns (amounts signed by 入払区分).
    id: 'builtin:zengin',
    name: '全銀協 入出金取引明細 (Zengin)',
    source: 'bank',
    signature: [...ZENGIN_HEADERS],
    columns: { date: '勘定日', amount: '取引金額', customer: '振込依頼人名', description: '摘要内容' },
  },
  {
    // Shopify orders export: one line per line item; only an order's first line has Total, Created at,
    // Payment Method and Refunded Amount (help.shopify.com "Exporting orders").
    id: 'builtin:shopify',
    name: 'Shopify orders',
    source: 'orders',
    signature: ['Name', 'Financial Status', 'Total', 'Created at', 'Lineitem name'],
    columns: {
      orderNumber: 'Name',
      date: 'Created at',
      amount: 'Total',
      currency: 'Currency',
      customer: 'Billing Name',
      paymentMethod: 'Payment Method',
      refunded: 'Refunded Amount',
    },
    grouping: 'order-total',
  },
  {
    // BASE 注文 CSV: one line per item, the order's fields (注文ID, 注文日時, 合計金額, 決済方法) repeated.
    id: 'builtin:base',
    name: 'BASE 注文',
    source: 'orders',
    signature: ['注文ID', '注文日時', '合計金額', '決済方法', '商品名'],
    columns: {
      orderNumber: '注文ID',
      date: '注文日時',
      amount: '合計金額',
      customer: '氏名(姓)',
      paymentMethod: '決済方法',
    },
    grouping: 'order-total',
  },
  {
    // EC-CUBE 4 受注CSV: one line per 受注明細 (商品, 送料, 手数料 rows), order fields repeated on each.
    id: 'builtin:eccube4',
    name: 'EC-CUBE 4 受注',
    source: 'orders',
    signature: ['注文番号', '支払合計', '支払方法', '受注日', '明細区分'],
    columns: {
      orderNumber: '注文番号',
      date: '受注日',
      amount: '支払合計',
      customer: 'お名前(姓)',
      paymentMethod: '支払方法',
    },
    grouping: 'order-total',
  },
]

function normalize(header: string): string {
  return header.normalize('NFKC').trim()
}

/** The built-in layout whose signature headers the file has, for the chosen kind of file (or any kind). */
export function detectLayout(headers: readonly string[], source?: ImportSource): BuiltInLayout | null {
  const present = new Set(headers.map(normalize))
  return (
    BUILT_IN_LAYOUTS.find(
      (l) =>
        (source === undefined || l.source === source) && l.signature.every((h) => present.has(normalize(h))),
    ) ?? null
  )
}
