import { describe, expect, it } from 'vitest'
import { auditRecordText, auditValueText } from '../../../../src/export/audit-text'
import type { HistoryRecord, RecordKey } from '../../../../src/domain/records'

const TZ = 'Asia/Tokyo'

describe('the Audit sheet in words', () => {
  it('says what a mark was, with its note, instead of its JSON', () => {
    expect(
      auditValueText({ state: 'reconciled', note: 'bank 0915', fingerprint: 'x', period: '2026-10' }, TZ),
    ).toBe('Reconciled (note: "bank 0915")')
    expect(auditValueText({ state: 'unreconciled', note: '' }, TZ)).toBe('Not reconciled')
    expect(auditValueText({ state: 'reconciled', changedSinceReconciled: true }, TZ)).toBe(
      'Reconciled; changed since reconciled',
    )
    expect(auditValueText(null, TZ)).toBeNull()
  })

  it('says who closed a month and when, in the accounting zone', () => {
    const at = Date.parse('2026-11-02T01:00:00Z')
    expect(auditValueText({ period: '2026-10', lockedBy: 'Hanako', lockedAt: at, records: 12 }, TZ)).toBe(
      'Closed by Hanako at 2026-11-02 10:00:00; 12 records kept',
    )
  })

  it('keeps a shape it does not know as JSON, so nothing is lost', () => {
    expect(auditValueText({ imported: 3 }, TZ)).toBe('{"imported":3}')
  })

  it('names a record by type, amount, time and customer, and keeps its key', () => {
    const key = 'charge:abc' as RecordKey
    const record = {
      key,
      type: 'charge',
      amount: 1200,
      currency: 'jpy',
      createdAt: Date.parse('2026-10-15T03:00:00Z'),
      cardholderName: 'Hanako Sato',
    } as HistoryRecord
    expect(auditRecordText(key, new Map([[key, record]]), TZ)).toBe(
      'charge 1,200 JPY · 2026-10-15 12:00:00 · Hanako Sato (charge:abc)',
    )
    expect(auditRecordText('refund:gone', new Map(), TZ)).toBe('refund:gone')
    expect(auditRecordText(null, new Map(), TZ)).toBeNull()
  })
})
