/**
 * Records for the reconciliation tests, built through the same pure mappers sync uses. The API items are
 * the cache tests' (../db/fixtures), with the fixed amount and time these tests reason about: every
 * charge 1,000 JPY on 2026-10-15 12:00 in Tokyo, unless a test says otherwise.
 */
import type { ChargeItem, HistoryItem } from '../../../../electron/shared/payment-api'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { historyRecordOf } from '../../../../src/db/history-record'
import type { ChargeRecord, HistoryRecord, MarkRecord, RecordKey } from '../../../../src/domain/records'
import type { ImportedRow } from '../../../../src/import/profiles'
import { CONN, chargeItem as cacheChargeItem, historyItem as cacheHistoryItem, uuid } from '../db/fixtures'

export { CONN, STORE_1, STORE_2, uuid } from '../db/fixtures'

const CREATED_ON = '2026-10-15T03:00:00.000000Z'

export function historyItem(n: number, over: Partial<HistoryItem> = {}): HistoryItem {
  return cacheHistoryItem(n, { amount: 1000, amount_formatted: 1000, created_on: CREATED_ON, ...over })
}

export function history(n: number, over: Partial<HistoryItem> = {}): HistoryRecord {
  return historyRecordOf(CONN, historyItem(n, over), 0)
}

export function refund(n: number, chargeN: number, over: Partial<HistoryItem> = {}): HistoryRecord {
  return history(n, { type: 'refund', charge_id: uuid(chargeN), ...over })
}

export function chargeItem(n: number, over: Partial<ChargeItem> = {}): ChargeItem {
  return cacheChargeItem(n, { created_on: CREATED_ON, ...over })
}

export function charge(n: number, over: Partial<ChargeItem> = {}): ChargeRecord {
  return chargeRecordOf(CONN, chargeItem(n, over), 0)
}

export function marksOf(...marks: MarkRecord[]): Map<RecordKey, MarkRecord> {
  return new Map(marks.map((m) => [m.key, m]))
}

/** An order-file row: 1,000 JPY on 2026-10-15, no order number, unless a test says otherwise. */
export function orderRow(line: number, over: Partial<ImportedRow> = {}): ImportedRow {
  return {
    line,
    source: 'orders',
    orderNumber: null,
    at: 0,
    day: '2026-10-15',
    amount: 1000,
    currency: 'JPY',
    customer: null,
    description: null,
    ...over,
  }
}
