import { describe, expect, it } from 'vitest'
import { historyRecordOf } from '../../../../src/db/history-record'
import { historyRecordOfRow, storedHistoryRowOf } from '../../../../src/db/history-row'
import type { HistoryRecord } from '../../../../src/domain/records'
import { CONN, T0, historyItem, uuid } from './fixtures'

const charge = historyRecordOf(CONN, historyItem(1), T0)
const refund = historyRecordOf(CONN, historyItem(2, { type: 'refund', charge_id: uuid(1) }), T0)
const pending = historyRecordOf(CONN, historyItem(3, { status: 'pending' }), T0)

describe('history rows as the cache stores them', () => {
  it('leave out what raw gives back, but for the sparse indexes’ fields', () => {
    expect(charge.status).toBe('successful')
    const row = storedHistoryRowOf(charge)
    for (const field of ['type', 'chargeId', 'storeId', 'currency', 'status', 'mode'] as const)
      expect(row).not.toHaveProperty(field)
    expect(storedHistoryRowOf(refund)).toMatchObject({ type: 'refund', chargeId: uuid(1) })
    expect(storedHistoryRowOf(refund)).not.toHaveProperty('status')
    expect(storedHistoryRowOf(pending)).toMatchObject({ status: 'pending' })
    expect(storedHistoryRowOf(pending)).not.toHaveProperty('type')
  })

  it('read back as the same record, fields in the same order (a backup writes that order)', () => {
    for (const record of [charge, refund, pending]) {
      const back = historyRecordOfRow(structuredClone(storedHistoryRowOf(record)))
      expect(back).toEqual(record)
      expect(Object.keys(back)).toEqual(Object.keys(record))
    }
  })

  it('hold the record’s other fields in the record’s order', () => {
    const odd: HistoryRecord = { ...charge, storeId: 'not-the-item-store' }
    const expected = {
      [charge.key]: Object.keys(charge).filter(
        (k) => !['type', 'chargeId', 'storeId', 'currency', 'status', 'mode'].includes(k),
      ),
      [refund.key]: Object.keys(refund).filter((k) => !['storeId', 'currency', 'status', 'mode'].includes(k)),
      [pending.key]: Object.keys(pending).filter(
        (k) => !['type', 'chargeId', 'storeId', 'currency', 'mode'].includes(k),
      ),
    }
    for (const record of [charge, refund, pending])
      expect(Object.keys(storedHistoryRowOf(record))).toEqual(expected[record.key])
    expect(Object.keys(storedHistoryRowOf(odd))).toEqual(
      Object.keys(odd).filter((k) => !['type', 'chargeId', 'currency', 'status', 'mode'].includes(k)),
    )
    expect(storedHistoryRowOf(charge).raw).toBe(charge.raw)
  })

  it('keep a field that raw would not give back as it is', () => {
    const odd: HistoryRecord = { ...charge, storeId: 'not-the-item-store', currency: 'USD' }
    const row = storedHistoryRowOf(odd)
    expect(row).toMatchObject({ storeId: 'not-the-item-store', currency: 'USD' })
    expect(historyRecordOfRow(row)).toEqual(odd)
  })

  it('read a row an older version wrote (every field) as it is', () => {
    const legacy = { ...charge, searchText: 'written until v8' }
    expect(historyRecordOfRow(legacy)).toBe(legacy)
  })
})
