/** The words the journal tests write files with (Japanese, as the app does for the three vendors). */
import type { JournalLabels } from '../../../src/export/journal/formats'

export const LABELS: JournalLabels = {
  kinds: {
    sales: '売上',
    refunds: '返金',
    fees: '決済手数料',
    deposit: '入金（振込）',
    transferFee: '振込手数料',
  },
  records: (n) => `${n}件`,
  plainHeader: [
    'no',
    'date',
    'cur',
    'store',
    'dr',
    'drsub',
    'drdep',
    'drtax',
    'dramt',
    'cr',
    'crsub',
    'crdep',
    'crtax',
    'cramt',
    'desc',
    'ref',
  ],
  traceHeader: ['ref', 'voucher', 'date', 'type', 'id', 'created', 'store', 'currency', 'amount'],
  traceTypes: { charge: '売上', refund: '返金', fee: '手数料', transfer: '振込' },
}
