/**
 * First guesses at a mapping from header names, for files no layout or saved profile names.
 */
import type { ImportSource, ProfileColumns, ProfileField } from './profiles'

/** A header compared ignoring case, width, spaces and punctuation. */
export function normalizeHeader(header: string): string {
  return header
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_\-.()（）・/:]/g, '')
}

/** Header names seen in English and Japanese exports, by field, most specific first (normalized form). */
const SYNONYMS: Readonly<Record<ImportSource, Readonly<Partial<Record<ProfileField, readonly string[]>>>>> = {
  orders: {
    orderNumber: [
      '注文番号',
      '受注番号',
      '注文id',
      '注文no',
      'オーダー番号',
      '伝票番号',
      'ordernumber',
      'orderno',
      'orderid',
      'order',
      'merchanttransactionid',
      '番号',
    ],
    date: [
      '注文日',
      '注文日時',
      '受注日',
      '決済日',
      '日付',
      '日時',
      'orderdate',
      'date',
      'createdat',
      'created',
    ],
    amount: ['合計金額', '請求金額', '決済金額', '金額', '合計', 'total', 'amount', 'grandtotal', 'price'],
    currency: ['通貨', '通貨コード', 'currency', 'currencycode'],
    customer: [
      '顧客名',
      '顧客',
      '購入者',
      '購入者名',
      'お客様名',
      '氏名',
      '名前',
      'customer',
      'customername',
      'name',
    ],
    description: ['摘要', '備考', '内容', '商品名', 'description', 'memo', 'note', 'notes'],
    paymentMethod: [
      '決済方法',
      '支払方法',
      '支払方法名称',
      'お支払方法',
      '支払い方法',
      'paymentmethod',
      'paymentgateway',
    ],
    refunded: ['返金額', '返金金額', 'refundedamount'],
  },
  bank: {
    orderNumber: ['参照番号', 'reference', 'ref'],
    date: [
      '取引日',
      '入金日',
      '勘定日',
      '日付',
      '年月日',
      'date',
      'transactiondate',
      'valuedate',
      'bookingdate',
    ],
    amount: [
      '入金額',
      '入金金額',
      'お預り金額',
      'お預入金額',
      'お預入れ',
      '預かり金額',
      '預入金額',
      '入出金円',
      '入出金',
      '入金',
      '金額',
      'deposit',
      'credit',
      'amount',
    ],
    withdrawal: [
      '出金額',
      '出金金額',
      'お支払金額',
      '支払い金額',
      'お引出金額',
      'お引出し',
      '引出金額',
      'withdrawal',
      'debit',
    ],
    currency: ['通貨', 'currency'],
    customer: ['振込依頼人名', '振込依頼人', '依頼人名', '相手先', 'payer', 'counterparty', 'name'],
    description: [
      '摘要',
      'お取引内容',
      'お取り扱い内容',
      '入出金先内容',
      '入出金内容',
      '取引内容',
      '内容',
      '備考',
      'description',
      'memo',
      'details',
    ],
  },
}

const WITHDRAWAL_RE = /支払|支出|引出|出金(?!.*入)|withdraw|debit/

/** A first guess at the mapping from header names; fields with no plausible header are left out. */
export function suggestProfile(headers: readonly string[], source: ImportSource): Partial<ProfileColumns> {
  const normalized = headers.map(normalizeHeader)
  const used = new Set<number>()
  const columns: Partial<ProfileColumns> = {}
  // Required fields first so "date"/"amount" win a header another field could also claim.
  const order: ProfileField[] = [
    'date',
    'amount',
    'withdrawal',
    'orderNumber',
    'currency',
    'customer',
    'description',
    'paymentMethod',
    'refunded',
  ]
  for (const field of order) {
    const synonyms = SYNONYMS[source][field]
    if (!synonyms) continue
    let found = -1
    // Exact (normalized) names beat a header that merely contains a synonym ("注文日時" vs "日付").
    for (const synonym of synonyms) {
      found = normalized.findIndex((h, i) => !used.has(i) && h === synonym)
      if (found >= 0) break
    }
    if (found < 0) {
      for (const synonym of synonyms) {
        if (synonym.length < 2) continue
        // A deposit column is never one that names a withdrawal ("支払い金額" contains "金額").
        found = normalized.findIndex(
          (h, i) => !used.has(i) && h.includes(synonym) && !(field === 'amount' && WITHDRAWAL_RE.test(h)),
        )
        if (found >= 0) break
      }
    }
    const header = headers[found]
    if (found >= 0 && header !== undefined) {
      used.add(found)
      columns[field] = header
    }
  }
  return columns
}
