/**
 * A month of cache for the workbook tests (October 2026, Asia/Tokyo): two stores, JPY and USD, live and
 * test, refunds (one pending), a failed charge, fees in another currency and without one, cross-check
 * differences, reconciled / changed / unreconciled marks, audit entries in and out of the period, and
 * API text that a spreadsheet would evaluate.
 */
import type { AuditEntry, MarkRecord, RecordKey } from '../../../src/domain/records'
import type { MonthWorkbookInput } from '../../../src/export/month-workbook'
import { fingerprintOf } from '../../../src/domain/fingerprint'
import type { ChargeItem, HistoryItem } from '../../../electron/shared/payment-api'
import { chargeRecordOf } from '../../../src/db/charge-record'
import { historyRecordOf } from '../../../src/db/history-record'
import type { ChargeRecord, HistoryRecord } from '../../../src/domain/records'
import {
  cardUserData,
  chargeItem,
  CONN,
  historyItem as apiHistoryItem,
  STORE_1,
  STORE_2,
  uuid,
} from '../../support/api-items'
import { mark as cacheMark } from '../../support/cache'

export { CONN, STORE_1, STORE_2 }

/** Items of this month are dated mid-October unless told otherwise. */
const MID_OCTOBER = '2026-10-15T03:00:00.000000Z'

// Items as the API gives them, through the same mappers sync uses.
function historyItem(n: number, over: Partial<HistoryItem> = {}): HistoryItem {
  return apiHistoryItem(n, {
    amount: 1000,
    amount_formatted: 1000,
    created_on: MID_OCTOBER,
    user_data: cardUserData(n, 'charge'),
    ...over,
  })
}

function history(n: number, over: Partial<HistoryItem> = {}): HistoryRecord {
  return historyRecordOf(CONN, historyItem(n, over), 0)
}

function refund(n: number, chargeN: number, over: Partial<HistoryItem> = {}): HistoryRecord {
  return history(n, { type: 'refund', charge_id: uuid(chargeN), ...over })
}

function charge(n: number, over: Partial<ChargeItem> = {}): ChargeRecord {
  return chargeRecordOf(CONN, chargeItem(n, { created_on: MID_OCTOBER, ...over }), 0)
}

function marksOf(...marks: MarkRecord[]): Map<RecordKey, MarkRecord> {
  return new Map(marks.map((m) => [m.key, m]))
}
export const TZ = 'Asia/Tokyo'
export const PERIOD = '2026-10'
export const GENERATED_AT = Date.parse('2026-11-02T01:02:03Z')

export const EVIL_NAME = "=cmd|' /C calc'!A0"
export const EVIL_NOTE = '=HYPERLINK("http://evil.example","click")'

function mark(key: RecordKey, state: MarkRecord['state'], fingerprint: string | null, note = ''): MarkRecord {
  return cacheMark(key, { state, note, fingerprint, period: PERIOD, updatedAt: 0 })
}

const store2 = { store_id: STORE_2, store_name: '=Evil store' }

export function mixedMonth(): MonthWorkbookInput {
  const h1 = history(1, {
    amount: 10_000,
    created_on: '2026-10-05T03:00:00Z',
    user_data: { ...historyItem(1).user_data, cardholder_name: EVIL_NAME },
    metadata: { order_id: '+81-3-1234', memo: '@SUM(A1:A9)' },
    store_name: 'Shibuya',
    merchant_name: '@merchant',
  })
  const h2 = history(2, { amount: 5000, created_on: '2026-10-31T14:59:59Z', store_name: 'Shibuya' }) // Tokyo Oct 31
  const h3 = history(3, { amount: 7000, created_on: '2026-10-31T16:30:00Z', store_name: 'Shibuya' }) // Tokyo Nov 1
  const h4 = refund(4, 1, { amount: 2000, created_on: '2026-10-10T00:00:00Z', store_name: 'Shibuya' })
  const h5 = refund(5, 1, { amount: 1000, status: 'pending', created_on: '2026-10-11T00:00:00Z' })
  const h6 = history(6, { ...store2, amount: 1999, currency: 'USD', created_on: '2026-10-06T00:00:00Z' })
  const h7 = history(7, {
    ...store2,
    amount: 1001,
    currency: 'usd',
    mode: 'test',
    created_on: '2026-10-07T00:00:00Z',
    user_data: { ...historyItem(7).user_data, cardholder_name: '山田 太郎', brand: 'master' },
  })
  // 0.10 + 0.20 USD: the sum must come out as 0.30, not 0.30000000000000004.
  const h9 = history(9, { ...store2, amount: 10, currency: 'USD', created_on: '2026-10-09T00:00:00Z' })
  const h10 = history(10, { ...store2, amount: 20, currency: 'USD', created_on: '2026-10-09T01:00:00Z' })
  const h11 = history(11, { ...store2, amount: 1500, status: 'failed', created_on: '2026-10-12T00:00:00Z' })
  const h12 = refund(12, 6, { ...store2, amount: 500, currency: 'USD', created_on: '2026-10-20T00:00:00Z' })
  const h14 = history(14, { amount: 3000, created_on: '2026-10-14T00:00:00Z', store_name: 'Shibuya' })

  const charges = [
    charge(1, {
      charged_amount: 10_000,
      fee_amount: 360,
      descriptor: '-2+3',
      created_on: '2026-10-05T03:00:00Z',
    }),
    charge(2, { charged_amount: 5100, fee_amount: 180, created_on: '2026-10-31T14:59:59Z' }), // amount differs
    charge(3, { charged_amount: 7000, fee_amount: 252, created_on: '2026-10-31T16:30:00Z' }), // November
    charge(6, {
      store_id: STORE_2,
      charged_amount: 1999,
      charged_currency: 'USD',
      fee_amount: 60,
      fee_currency: 'USD',
      created_on: '2026-10-06T00:00:00Z',
    }),
    charge(7, {
      store_id: STORE_2,
      charged_amount: 1001,
      charged_currency: 'USD',
      fee_amount: null,
      fee_currency: null,
      mode: 'test',
      created_on: '2026-10-07T00:00:00Z',
    }),
    ...[9, 10].map((n) =>
      charge(n, {
        store_id: STORE_2,
        charged_amount: n === 9 ? 10 : 20,
        charged_currency: 'USD',
        fee_amount: 1,
        fee_currency: 'USD',
        created_on: n === 9 ? '2026-10-09T00:00:00Z' : '2026-10-09T01:00:00Z',
      }),
    ),
    charge(11, {
      store_id: STORE_2,
      charged_amount: 1500,
      fee_amount: 54,
      status: 'failed',
      created_on: '2026-10-12T00:00:00Z',
    }),
    // Only in the charge list, and its fee has no currency.
    charge(13, { fee_amount: 36, fee_currency: null, created_on: '2026-10-13T00:00:00Z' }),
    // A JPY charge whose fee is in USD: that fee belongs to store 1's USD row.
    charge(14, {
      charged_amount: 3000,
      fee_amount: 25,
      fee_currency: 'USD',
      created_on: '2026-10-14T00:00:00Z',
    }),
  ]

  const marks = marksOf(
    mark(h1.key, 'reconciled', fingerprintOf(h1), EVIL_NOTE),
    mark(h4.key, 'reconciled', fingerprintOf(h4)),
    mark(h6.key, 'reconciled', fingerprintOf(history(6, { ...store2, amount: 1899, currency: 'USD' }))),
    mark(h7.key, 'unreconciled', null, 'waiting for the bank'),
  )

  const audit: AuditEntry[] = [
    {
      seq: 1,
      connectionId: CONN,
      at: Date.parse('2026-10-20T00:00:00Z'),
      actor: 'alice',
      action: 'mark',
      key: h1.key,
      period: PERIOD,
      before: null,
      after: { state: 'reconciled' },
    },
    {
      seq: 2,
      connectionId: CONN,
      at: Date.parse('2026-10-21T00:00:00Z'),
      actor: 'alice',
      action: 'note',
      key: h1.key,
      period: PERIOD,
      before: '',
      after: EVIL_NOTE,
    },
    {
      seq: 3,
      connectionId: CONN,
      at: Date.parse('2026-11-01T00:00:00Z'),
      actor: 'bob',
      action: 'close-period',
      key: null,
      period: PERIOD,
      before: null,
      after: null,
    },
    {
      seq: 4,
      connectionId: CONN,
      at: Date.parse('2026-11-01T01:00:00Z'),
      actor: 'bob',
      action: 'reopen-period',
      key: null,
      period: PERIOD,
      before: null,
      after: null,
      reason: 'late refund',
    },
    {
      seq: 5,
      connectionId: CONN,
      at: Date.parse('2026-11-03T00:00:00Z'),
      actor: 'alice',
      action: 'mark',
      key: h3.key,
      period: '2026-11',
      before: null,
      after: { state: 'reconciled' },
    },
    {
      seq: 6,
      connectionId: CONN,
      at: Date.parse('2026-10-25T00:00:00Z'),
      actor: 'alice',
      action: 'restore',
      key: null,
      period: null,
      before: null,
      after: { records: 12 },
    },
    {
      seq: 7,
      connectionId: CONN,
      at: Date.parse('2026-10-22T00:00:00Z'),
      actor: 'carol',
      action: 'mark',
      key: h6.key,
      period: PERIOD,
      before: null,
      after: { state: 'reconciled' },
    },
  ]

  return {
    merchantName: '@merchant',
    connection: { id: CONN, label: 'Tokyo shop', timeZone: TZ },
    period: PERIOD,
    storeId: null,
    storeNames: new Map([[STORE_1, 'Shibuya']]),
    history: [h1, h2, h3, h4, h5, h6, h7, h9, h10, h11, h12, h14],
    charges,
    marks,
    audit,
    generatedAt: GENERATED_AT,
    appVersion: '0.1.0',
    filters: ['Modes: live, test'],
  }
}

/** Store 1 only, yen only (the zero-decimal case). */
export function jpyMonth(): MonthWorkbookInput {
  const base = mixedMonth()
  return {
    ...base,
    storeId: STORE_1,
    history: base.history.filter((r) => r.storeId === STORE_1 && r.currency === 'JPY'),
    charges: base.charges.filter(
      (c) => c.storeId === STORE_1 && c.chargedCurrency === 'JPY' && c.feeCurrency !== 'USD',
    ),
  }
}
