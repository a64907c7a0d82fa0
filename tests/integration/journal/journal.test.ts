import { describe, expect, it } from 'vitest'
import { encodeShiftJis } from '../../../electron/shared/shift-jis'
import {
  FREEE_HEADER,
  journalFiles,
  MONEYFORWARD_HEADER,
  traceFile,
  type JournalFile,
} from '../../../src/export/journal/formats'
import { defaultJournalSettings, type JournalSettings } from '../../../src/export/journal/settings'
import {
  assertBalanced,
  buildJournal,
  convertMinor,
  JournalError,
  voucherTotals,
  type JournalBuild,
} from '../../../src/export/journal/vouchers'
import { summarizeMonth } from '../../../src/reconcile/month-summary'
import { demoMonth, PERIOD, TZ } from './demo-october'
import { readFreee, readMoneyForward, readYayoi, type ParsedVoucher } from './vendor-rules'
import { LABELS } from './labels'

const demo = demoMonth()

function build(over: Partial<JournalSettings> = {}): JournalBuild {
  return buildJournal({
    period: PERIOD,
    timeZone: TZ,
    ...demo,
    settings: { ...defaultJournalSettings(), ...over },
  })
}

/** The month summary's live JPY figures: what the journal must tie to. */
function summaryYen(): { sales: number; refunds: number; fees: number } {
  const s = summarizeMonth({
    history: demo.history,
    charges: demo.charges,
    marks: new Map(),
    timeZone: TZ,
    period: PERIOD,
  })
  const t = { sales: 0, refunds: 0, fees: 0 }
  for (const r of s.rows)
    if (r.currency === 'JPY' && r.mode === 'live') {
      t.sales += r.chargeSum
      t.refunds += r.refundSum
      t.fees += r.feeSum
    }
  return t
}

function bytesOf(f: JournalFile): Uint8Array {
  return f.encoding === 'shift_jis' ? encodeShiftJis(f.text) : new TextEncoder().encode(f.text)
}

/** Debit totals per account over parsed vouchers. */
function byAccount(vouchers: ParsedVoucher[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const v of vouchers)
    for (const r of v.rows) {
      m.set(`Dr ${r.debit}`, (m.get(`Dr ${r.debit}`) ?? 0) + r.debitAmount)
      m.set(`Cr ${r.credit}`, (m.get(`Cr ${r.credit}`) ?? 0) + r.creditAmount)
    }
  return m
}

function expectTiesToSummary(vouchers: ParsedVoucher[]): void {
  const s = summaryYen()
  const a = byAccount(vouchers)
  expect(a.get('Cr 売上高')).toBe(s.sales)
  expect(a.get('Dr 売上値引高')).toBe(s.refunds)
  expect(a.get('Dr 支払手数料')).toBe(s.fees)
  expect((a.get('Dr 売掛金') ?? 0) - (a.get('Cr 売掛金') ?? 0)).toBe(s.sales - s.refunds - s.fees)
}

describe("journal entries for the demo's October", () => {
  it('has live JPY money to post and other currencies as exceptions', () => {
    const s = summaryYen()
    expect(s.sales).toBeGreaterThan(0)
    expect(s.refunds).toBeGreaterThan(0)
    expect(s.fees).toBeGreaterThan(0)
    const b = build()
    expect(b.vouchers.length).toBeGreaterThan(20)
    assertBalanced(b.vouchers)
    expect(voucherTotals(b.vouchers)).toEqual(s)
    expect(b.exceptions.some((e) => e.reason === 'currency_without_rate' && e.currency !== 'JPY')).toBe(true)
    expect(b.vouchers.every((v) => v.date.startsWith('2026-10-'))).toBe(true)
  })

  it('freee: parsed by its rules, balances, ties to the month summary', () => {
    const files = journalFiles('freee', build(), defaultJournalSettings(), LABELS)
    const vouchers = files.flatMap((f) => readFreee(bytesOf(f), FREEE_HEADER))
    expectTiesToSummary(vouchers)
    expect(vouchers.some((v) => v.rows.length > 1)).toBe(true) // compound entries exist
    expect(vouchers[0]?.rows[0]?.creditTax).toBe('課税売上10%')
  })

  it('freee: splits into several files at the row limit, never inside a voucher', () => {
    // Ten months' worth of the demo's vouchers (about 2,800 rows): more than one file's 2,000 rows.
    const one = build({ perStore: true })
    const many: JournalBuild = {
      ...one,
      vouchers: Array.from({ length: 10 }, (_, k) =>
        one.vouchers.map((v) => ({ ...v, number: k * one.vouchers.length + v.number })),
      ).flat(),
    }
    const rows = many.vouchers.reduce((n, v) => n + v.lines.length, 0)
    expect(rows).toBeGreaterThan(2000)
    const files = journalFiles('freee', many, defaultJournalSettings(), LABELS)
    expect(files.length).toBeGreaterThanOrEqual(2)
    expect(files[0]?.name).toBe('closebook-journal-freee-2026-10-1of2.csv')
    const vouchers = files.flatMap((f) => readFreee(bytesOf(f), FREEE_HEADER))
    // A voucher cut across two files would be read as two (or fail to balance).
    expect(vouchers).toHaveLength(many.vouchers.length)
    const a = byAccount(vouchers)
    expect(a.get('Cr 売上高')).toBe(10 * summaryYen().sales)
  })

  it('Money Forward: parsed by its template rules, Shift_JIS, ties to the month summary', () => {
    const files = journalFiles('moneyforward', build(), defaultJournalSettings(), LABELS)
    expect(files).toHaveLength(1)
    const vouchers = readMoneyForward(bytesOf(files[0] as JournalFile), MONEYFORWARD_HEADER)
    expectTiesToSummary(vouchers)
    expect(vouchers[0]?.rows[0]?.debitTax).toBe('対象外')
  })

  it('Yayoi: parsed by its import-format rules (flags, 25 columns, Shift_JIS), ties to the summary', () => {
    const files = journalFiles('yayoi', build(), defaultJournalSettings(), LABELS)
    const vouchers = readYayoi(bytesOf(files[0] as JournalFile))
    expectTiesToSummary(vouchers)
    expect(vouchers.some((v) => v.rows.length > 1)).toBe(true)
  })

  it('month granularity: one voucher per month (merged stores) with the same totals', () => {
    const b = build({ granularity: 'month' })
    expect(b.vouchers).toHaveLength(1)
    expect(b.vouchers[0]?.date).toBe('2026-10-31')
    expectTiesToSummary(
      readYayoi(bytesOf(journalFiles('yayoi', b, defaultJournalSettings(), LABELS)[0] as JournalFile)),
    )
  })

  it('net booking: sales net of fees, no fee line; reverse-sales refunds debit the sales account', () => {
    const s = summaryYen()
    const b = build({ booking: 'net', refundBooking: 'reverseSales' })
    const vouchers = readMoneyForward(
      bytesOf(journalFiles('moneyforward', b, defaultJournalSettings(), LABELS)[0] as JournalFile),
      MONEYFORWARD_HEADER,
    )
    const a = byAccount(vouchers)
    expect(a.get('Dr 支払手数料')).toBeUndefined()
    expect((a.get('Cr 売上高') ?? 0) - (a.get('Dr 売上高') ?? 0)).toBe(s.sales - s.fees - s.refunds)
    expect((a.get('Dr 売掛金') ?? 0) - (a.get('Cr 売掛金') ?? 0)).toBe(s.sales - s.refunds - s.fees)
  })

  it('converts another currency only at the rate the user gives, exactly', () => {
    expect(convertMinor(1234, 'USD', 'JPY', '151.25')).toBe(1866) // 12.34 × 151.25 = 1866.425
    expect(convertMinor(1, 'USD', 'JPY', '50')).toBe(1) // 0.5 rounds half away from zero
    const without = build()
    const withRate = build({ rates: { USD: '150' } })
    const usd = withRate.postedBySourceCurrency.get('USD')
    expect(usd?.sales).toBeGreaterThan(0)
    expect(
      withRate.exceptions.some((e) => e.currency === 'USD' && e.reason === 'currency_without_rate'),
    ).toBe(false)
    expect(withRate.vouchers.length).toBeGreaterThan(without.vouchers.length)
    expect(withRate.vouchers.some((v) => v.convertedFrom?.currency === 'USD')).toBe(true)
    assertBalanced(withRate.vouchers)
  })

  it('traces every posted record exactly once', () => {
    const b = build()
    const trace = traceFile(b, LABELS)
    const lines = trace.text.trim().split('\r\n').slice(1)
    const posted = b.vouchers.flatMap((v) => v.lines.flatMap((l) => l.records))
    expect(lines).toHaveLength(posted.length)
    expect(new Set(posted.map((r) => r.key)).size).toBe(posted.length)
  })
})

describe('journal refusals', () => {
  it('refuses a non-yen posting currency for the Japanese formats', () => {
    const b = build({ accountingCurrency: 'USD' })
    expect(() => journalFiles('yayoi', b, defaultJournalSettings(), LABELS)).toThrow(JournalError)
    expect(() => journalFiles('plain', b, defaultJournalSettings(), LABELS)).not.toThrow()
  })

  it('refuses a character Shift_JIS cannot hold instead of writing "?"', () => {
    const settings = {
      ...defaultJournalSettings(),
      accounts: { ...defaultJournalSettings().accounts, sales: '売上😀' },
    }
    const b = buildJournal({ period: PERIOD, timeZone: TZ, ...demo, settings })
    expect(() => journalFiles('moneyforward', b, settings, LABELS)).toThrow(/journal_not_shift_jis/)
  })

  it('Yayoi: a line over 9 digits is written as several rows of one balanced voucher', () => {
    const b: JournalBuild = {
      ...build({ granularity: 'month' }),
    }
    const v = b.vouchers[0]
    if (!v?.lines[0]) throw new Error('no voucher')
    v.lines[0].amount = 2_500_000_000
    const parsed = readYayoi(
      bytesOf(journalFiles('yayoi', b, defaultJournalSettings(), LABELS)[0] as JournalFile),
    )
    expect(parsed).toHaveLength(1)
    expect(parsed[0]?.rows.filter((r) => r.credit === '売上高').map((r) => r.creditAmount)).toEqual([
      999_999_999, 999_999_999, 500_000_002,
    ])
  })
})
