import { describe, expect, it } from 'vitest'
import { historyRecordOf } from '../../../../src/db/history-record'
import { fingerprintOf } from '../../../../src/domain/fingerprint'
import type { HistoryRecord, MarkRecord } from '../../../../src/domain/records'
import { csvLine } from '../../../../src/export/csv'
import { LedgerCsvLines } from '../../../../src/export/ledger-csv-line'
import { transactionRow } from '../../../../src/export/month-workbook'
import { wallClockDayOffset, wallClockMs } from '../../../../src/export/sheet-values'
import { CONN, historyItem } from '../../../support/api-items'

const DAY = 86_400_000
const HOUR = 3_600_000

/** A small deterministic generator, so a failure names a reproducible record. */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0
    return s / 2 ** 32
  }
}

const TEXTS = [
  '',
  'Plain',
  '=1+2',
  '-3',
  '+x',
  '@SUM(A1)',
  ' \u00A0=HYPERLINK("http://x","y")',
  'a;=b',
  'tab\there',
  'line\nbreak',
  'cr\r\n=1',
  'say "hi", ok',
  '山田 太郎',
  '\u3000=全角',
  'x'.repeat(40_000),
]
const STATUSES = ['successful', 'failed', 'pending', 'authorized', ' Successful ', 'awaiting', 'error']
const CURRENCIES = ['JPY', 'jpy', 'USD', 'usd ', 'KWD', 'EUR', 'XYZ']
const ZONES = ['Asia/Tokyo', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'UTC']

/** Records of every shape the line has a branch for: refunds, text to guard and quote, odd currencies. */
function variedRecords(n: number, seed: number): { record: HistoryRecord; mark: MarkRecord | undefined }[] {
  const next = rng(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T
  // Instants around the zones' offset changes of 2026 (March, April, October, November) and a plain year.
  const anchors = [
    Date.UTC(2026, 2, 8),
    Date.UTC(2026, 2, 29),
    Date.UTC(2026, 3, 5),
    Date.UTC(2026, 9, 4),
    Date.UTC(2026, 9, 25),
    Date.UTC(2026, 10, 1),
    Date.UTC(2025, 0, 1),
    Date.UTC(1970, 0, 1),
  ]
  return Array.from({ length: n }, (_, i) => {
    const at =
      pick(anchors) + Math.floor((next() * 3 - 1) * DAY) + (next() < 0.2 ? 0 : Math.floor(next() * 999))
    const refund = next() < 0.3
    const item = historyItem(i, {
      type: refund ? 'refund' : 'charge',
      charge_id: refund ? (next() < 0.5 ? pick(TEXTS) : `ch-${i}`) : null,
      resource_id: next() < 0.1 ? pick(TEXTS) || `r-${i}` : `r-${i}`,
      store_id: next() < 0.2 ? pick(TEXTS) : `store-${i % 3}`,
      store_name: next() < 0.2 ? pick(TEXTS) : 'Store',
      amount: Math.floor((next() - 0.2) * 2_000_000),
      currency: pick(CURRENCIES),
      status: pick(STATUSES),
      // A mode the service does not send is still written as given (the row keeps it).
      mode: (next() < 0.5 ? 'live' : pick(TEXTS) || 'test') as 'live',
      created_on: new Date(at).toISOString(),
      metadata: next() < 0.2 ? {} : next() < 0.3 ? { note: pick(TEXTS), n: i } : { order_id: `ORD-${i}` },
      user_data:
        next() < 0.2
          ? {}
          : {
              type: 'card',
              cardholder_name: pick(TEXTS),
              cardholder_email_address: pick(TEXTS),
              brand: next() < 0.7 ? 'visa' : pick(TEXTS),
            },
    })
    const record = historyRecordOf(CONN, item, 0)
    if (next() < 0.1) record.orderRef = null
    const kind = next()
    const mark: MarkRecord | undefined =
      kind < 0.5
        ? undefined
        : {
            connectionId: CONN,
            key: record.key,
            state: kind < 0.8 ? 'reconciled' : 'unreconciled',
            note: next() < 0.5 ? pick(TEXTS) : '',
            fingerprint: next() < 0.3 ? null : next() < 0.5 ? 'stale' : fingerprintOf(record),
            changedSinceReconciled: 0,
            period: '2026-10',
            updatedAt: 0,
            updatedBy: 'me',
          }
    return { record, mark }
  })
}

describe('ledger CSV lines', () => {
  it.each(ZONES)('are the Transactions row as csvLine writes it, for varied records in %s', (zone) => {
    const lines = new LedgerCsvLines(zone)
    for (const { record, mark } of variedRecords(3_000, zone.length)) {
      const name = record.raw.store_name || null
      const expected = csvLine(transactionRow(record, mark, zone, name))
      const line = lines.line(record, mark, name)
      if (line !== expected) expect(line, JSON.stringify({ record, mark }).slice(0, 2_000)).toBe(expected)
    }
  })

  it('refuses what the row refuses: a time that is not one, an amount not in minor units', () => {
    const { record } = variedRecords(1, 7)[0]!
    const lines = new LedgerCsvLines('Asia/Tokyo')
    expect(() => lines.line({ ...record, createdAt: Number.NaN }, undefined, null)).toThrow(/not a time/)
    expect(() => lines.line({ ...record, amount: 10.5 }, undefined, null)).toThrow(/minor units/)
  })
})

describe('wallClockDayOffset', () => {
  it("is each quarter hour's offset on a day without a change, and null on a day with one", () => {
    // March to April and October to November 2026: every zone above changes its offset in them.
    const days = [2, 9].flatMap((month) =>
      Array.from({ length: 61 }, (_, i) => Date.UTC(2026, month, 1) / DAY + i),
    )
    for (const zone of ZONES)
      for (const day of days) {
        const offset = wallClockDayOffset(day, zone)
        const quarters = Array.from(
          { length: 96 },
          (_, q) => wallClockMs(day * DAY + q * 900_000, zone) - (day * DAY + q * 900_000),
        )
        const changes = new Set(quarters).size > 1
        if (changes) expect(offset, `${zone} ${day}`).toBeNull()
        else if (offset !== null) expect(offset, `${zone} ${day}`).toBe(quarters[0])
      }
    // New York moved its clocks on 2026-03-08 at 07:00 UTC.
    expect(wallClockDayOffset(Date.UTC(2026, 2, 8) / DAY, 'America/New_York')).toBeNull()
    expect(wallClockDayOffset(Date.UTC(2026, 2, 9) / DAY, 'America/New_York')).toBe(-4 * HOUR)
  })
})
