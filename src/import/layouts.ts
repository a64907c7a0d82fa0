/**
 * Built-in mapping profiles for the exports accountants actually download. Each is recognised by its
 * header row (every `signature` entry present; an entry that is a list is satisfied by any of its names)
 * and named after its source. A field may also list several header names: the first one the file has is
 * used, so the documented variants of one export (older header wording, personal vs corporate accounts)
 * read with one profile. A user-saved profile for the same headers wins over a built-in one.
 *
 * Every layout cites the public evidence it was checked against: a bank's own help page where
 * one is stored, otherwise the test files and parsers of open-source tools that read real downloads
 * (repository + path, or the code-index id of the excerpt when the index names no repository).
 */
import type { Grouping, ImportSource, ProfileColumns, ProfileField } from './profiles'
import { ZENGIN_HEADERS } from './zengin'

/** One header name, or the names it has in the layout's documented variants (first = current). */
export type HeaderChoice = string | readonly string[]

export type LayoutColumns = { date: HeaderChoice; amount: HeaderChoice } & Partial<
  Record<Exclude<ProfileField, 'date' | 'amount'>, HeaderChoice>
>

export interface BuiltInLayout {
  id: string
  name: string
  source: ImportSource
  signature: readonly HeaderChoice[]
  columns: LayoutColumns
  grouping?: Grouping
}

export const BUILT_IN_LAYOUTS: readonly BuiltInLayout[] = [
  {
    // 三菱UFJ銀行 入出金明細 CSV (Shift_JIS; dates "2018/10/1"; amounts quoted with commas "10,000"):
    // 日付,摘要,摘要内容,支払い金額,預かり金額,差引残高,メモ,未資金化区分,入払区分.
    // Source: yukihiko-shinoda/zaim-csv-converter tests/testresources/test_zaim_csv_converter/
    // csvinput_test_success/mufg201810.csv (Shift_JIS) and mufg202304.csv; zaimcsvconverter/data/mufg.py.
    id: 'builtin:mufg',
    name: '三菱UFJ銀行 (MUFG)',
    source: 'bank',
    signature: ['日付', '摘要内容', '支払い金額', '預かり金額', '差引残高'],
    columns: { date: '日付', amount: '預かり金額', withdrawal: '支払い金額', description: '摘要内容' },
  },
  {
    // 三井住友銀行 普通預金 明細 CSV (Shift_JIS; dates "2022/10/6"): 年月日,お引出し,お預入れ,お取り扱い内容,
    // 残高,メモ,ラベル. Before Aug 2022 withdrawals were written negative (our signing takes |withdrawal|).
    // Source: justuswilhelm/convert-statement test/data/in/smbc_v1/… and smbc_v2/…/transactions.csv,
    // parse/smbc.py. Older wording "お引出し金額,お預入れ金額" and date "お取引日": public parsers in the
    // code index (ids 65870761761, 68806807148).
    id: 'builtin:smbc',
    name: '三井住友銀行 (SMBC)',
    source: 'bank',
    signature: [
      ['年月日', 'お取引日'],
      ['お引出し', 'お引出し金額'],
      ['お預入れ', 'お預入れ金額'],
      'お取り扱い内容',
    ],
    columns: {
      date: ['年月日', 'お取引日'],
      amount: ['お預入れ', 'お預入れ金額'],
      withdrawal: ['お引出し', 'お引出し金額'],
      description: 'お取り扱い内容',
    },
  },
  {
    // みずほ銀行 入出金明細 CSV (Shift_JIS; an account preamble of several lines above the header; dates
    // "2024.10.05"): (明細通番,) 日付, お引出金額, お預入金額, お取引内容, 残高, メモ. Source: public parsers
    // in the code index that read the download with skiprows=9 and format '%Y.%m.%d' (ids 65873156979,
    // 9946093703) and one documenting 明細通番,日付,お引出金額,お預入金額,残高,お取引内容 (id 54130527799);
    // another public parser keys Mizuho on お取引日/お引出金額/お預入金額, so お取引日 is read as the date too.
    id: 'builtin:mizuho',
    name: 'みずほ銀行 (Mizuho)',
    source: 'bank',
    signature: [['日付', 'お取引日'], 'お引出金額', 'お預入金額', 'お取引内容'],
    columns: {
      date: ['日付', 'お取引日'],
      amount: 'お預入金額',
      withdrawal: 'お引出金額',
      description: 'お取引内容',
    },
  },
  {
    // 楽天銀行 入出金明細 CSV (Shift_JIS; dates YYYYMMDD; one signed amount column). Source, personal accounts:
    // 取引日,入出金(円),取引後残高(円),入出金内容 (rlan/beancount-multitool tests/data/rakuten_bank/test.csv,
    // src/beancount_multitool/RakutenBank.py). Business accounts: 取引日,入出金(円),残高(円),入出金先内容
    // (justuswilhelm/convert-statement test/data/in/rakuten_v1/2022-10-06/transactions.csv, parse/rakuten.py).
    id: 'builtin:rakuten',
    name: '楽天銀行 (Rakuten Bank)',
    source: 'bank',
    signature: ['取引日', '入出金(円)', ['入出金内容', '入出金先内容']],
    columns: { date: '取引日', amount: '入出金(円)', description: ['入出金内容', '入出金先内容'] },
  },
  {
    // PayPay銀行 (旧ジャパンネット銀行) CSV (Shift_JIS): 操作日(年),操作日(月),操作日(日),操作時刻(時),
    // 操作時刻(分),操作時刻(秒),取引順番号,摘要,お支払金額,お預り金額,残高,メモ. Source: public parsers in the
    // code index that compare the header line verbatim (ids 14712617663, 14042907490) or list it as
    // required headers (id 56184366197).
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
    // 全銀協 入出金取引明細, read by zengin.ts into these columns (amounts signed by 入払区分). Field
    // positions: see zengin.ts.
    id: 'builtin:zengin',
    name: '全銀協 入出金取引明細 (Zengin)',
    source: 'bank',
    signature: [...ZENGIN_HEADERS],
    columns: { date: '勘定日', amount: '取引金額', customer: '振込依頼人名', description: '摘要内容' },
  },
  {
    // Shopify orders export (UTF-8): one line per line item; only an order's first line has Total,
    // Created at ("2012-01-01 11:13:25 -0500"), Payment Method and Refunded Amount. Header: Name,Email,
    // Financial Status,Paid at,Fulfillment Status,Fulfilled at,Accepts Marketing,Currency,Subtotal,Shipping,
    // Taxes,Total,Discount Code,Discount Amount,Shipping Method,Created at,Lineitem quantity,Lineitem name,…,
    // Billing Name,…,Payment Method,Payment Reference,Refunded Amount,Vendor,Outstanding Balance,…,Id,….
    // Source: help.shopify.com "Exporting orders"; public importers' fixtures in the code index
    // (ids 68493366614, 766567711, 38857112271).
    id: 'builtin:shopify',
    name: 'Shopify orders',
    source: 'orders',
    signature: ['Name', 'Financial Status', 'Total', 'Created at', 'Lineitem name'],
    columns: {
      orderNumber: 'Name',
      orderId: 'Id',
      paymentReference: 'Payment Reference',
      date: 'Created at',
      amount: 'Total',
      currency: 'Currency',
      customer: 'Billing Name',
      paymentMethod: 'Payment Method',
      refunded: 'Refunded Amount',
      shipping: 'Shipping',
    },
    grouping: 'order-total',
  },
  {
    // BASE 注文 CSV: one line per item, the order's fields repeated. Header: 注文ID,注文日時,氏(請求先),
    // 名(請求先),郵便番号(請求先),都道府県(請求先),住所(請求先),住所2(請求先),電話番号(請求先),
    // メールアドレス(請求先),氏(配送先),…,備考,商品名,バリエーション,価格,税率,数量,合計金額,送料,支払い方法,
    // 代引き手数料,発送状況,商品ID,種類ID,購入元,配送日,配送時間帯,注文メモ,調整金額. Source: a public
    // order-CSV converter in the code index (HEADER_BASE, id 10887034338). The older wording 決済方法 and
    // 氏名(姓) is still read.
    id: 'builtin:base',
    name: 'BASE 注文',
    source: 'orders',
    signature: ['注文ID', '注文日時', '合計金額', '商品名', ['支払い方法', '決済方法']],
    columns: {
      orderNumber: '注文ID',
      date: '注文日時',
      amount: '合計金額',
      customer: ['氏(請求先)', '氏名(姓)'],
      paymentMethod: ['支払い方法', '決済方法'],
      shipping: '送料',
      fee: '代引き手数料',
    },
    grouping: 'order-total',
  },
  {
    // EC-CUBE 4 受注CSV (SJIS-win, dates 'Y-m-d H:i:s'): one line per 受注明細 (商品, 送料, 手数料 rows),
    // the order's columns (注文番号, 支払合計, 支払方法(名称), 受注日) repeated on each. Source:
    // EC-CUBE/ec-cube src/Eccube/Resource/doctrine/import_csv/ja/dtb_csv.csv (csv_type_id 3 = 受注CSV:
    // 注文ID,注文番号,会員ID,お名前(姓),…,小計,値引き,送料,税金,合計,支払合計,対応状況(ID),対応状況(名称),
    // 支払方法(ID),支払方法(名称),受注日,入金日,注文詳細ID,…,明細区分(ID),明細区分(名称),…) and
    // app/config/eccube/packages/eccube.yaml (eccube_csv_export_encoding, eccube_csv_export_date_format).
    id: 'builtin:eccube4',
    name: 'EC-CUBE 4 受注',
    source: 'orders',
    signature: [
      '注文番号',
      '支払合計',
      '受注日',
      ['支払方法(名称)', '支払方法'],
      ['明細区分(名称)', '明細区分'],
    ],
    columns: {
      orderNumber: '注文番号',
      date: '受注日',
      amount: '支払合計',
      customer: 'お名前(姓)',
      paymentMethod: ['支払方法(名称)', '支払方法'],
      shipping: '送料',
    },
    grouping: 'order-total',
  },
]

function normalize(header: string): string {
  return header.normalize('NFKC').replace(/\s+/g, '')
}

function choices(choice: HeaderChoice): readonly string[] {
  return typeof choice === 'string' ? [choice] : choice
}

/** The header of the file (as written there) that a choice names, or null. */
function present(headers: readonly string[], choice: HeaderChoice): string | null {
  for (const name of choices(choice)) {
    const wanted = normalize(name)
    const found = headers.find((h) => normalize(h) === wanted)
    if (found !== undefined) return found
  }
  return null
}

/** The built-in layout whose signature headers the file has, for the chosen kind of file (or any kind). */
export function detectLayout(headers: readonly string[], source?: ImportSource): BuiltInLayout | null {
  return (
    BUILT_IN_LAYOUTS.find(
      (l) =>
        (source === undefined || l.source === source) &&
        l.signature.every((c) => present(headers, c) !== null),
    ) ?? null
  )
}

/**
 * A layout's columns named as this file names them: for each field, the first of its header variants the
 * file has (a variant absent from the file leaves an optional field out; a required one keeps its first
 * name, so applyProfile reports it missing).
 */
export function layoutColumnsFor(layout: BuiltInLayout, headers: readonly string[]): ProfileColumns {
  const out: Partial<Record<ProfileField, string>> = {}
  for (const [field, choice] of Object.entries(layout.columns) as [
    ProfileField,
    HeaderChoice | undefined,
  ][]) {
    if (choice === undefined) continue
    const found = present(headers, choice)
    if (found !== null) out[field] = found
    else if (field === 'date' || field === 'amount') out[field] = choices(choice)[0] ?? ''
  }
  return out as ProfileColumns
}
