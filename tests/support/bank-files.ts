/** Column headers of bank statement downloads, as the banks write them, for import tests and the corpus. */

/** PayPay Bank's 入出金明細 CSV: the date and time split over six columns. */
export const PAYPAY_BANK_HEADER: readonly string[] = [
  '操作日(年)',
  '操作日(月)',
  '操作日(日)',
  '操作時刻(時)',
  '操作時刻(分)',
  '操作時刻(秒)',
  '取引順番号',
  '摘要',
  'お支払金額',
  'お預り金額',
  '残高',
  'メモ',
]

/** MUFG's 入出金明細 CSV: deposits and withdrawals in two columns. */
export const MUFG_HEADER: readonly string[] = [
  '日付',
  '摘要',
  '摘要内容',
  '支払い金額',
  '預かり金額',
  '差引残高',
  'メモ',
  '未資金化区分',
  '入払区分',
]
