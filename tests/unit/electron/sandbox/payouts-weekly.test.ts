/**
 * The sandbox's weekly transfer schedule: weeks Monday to Sunday in Tokyo, each week's ledgers in that
 * week's transfer (across a month and a year end), the transfer created the next Monday and paid that
 * Friday, and `/me` saying so in the real service's fields.
 */
import { describe, expect, it } from 'vitest'
import { optionsFromArgs } from '../../../../electron/sandbox/cli'
import { calendarOf, tokyoDate } from '../../../../electron/sandbox/payout-calendar'
import type { SandboxLedger, SandboxTransfer } from '../../../../electron/sandbox/payouts'
import { startSandbox } from '../../../../electron/sandbox/server'
import { get, useSandbox } from './support'

const weekly = calendarOf('weekly')
const JST = (iso: string) => Date.parse(`${iso}+09:00`)
/** Day of the week in Tokyo, 0 = Sunday. */
const weekdayOf = (ms: number) => new Date(ms + 9 * 3600_000).getUTCDay()

describe('the weekly payout calendar', () => {
  it('closes weeks Monday 00:00 to Sunday 24:00 in Tokyo, across a year end', () => {
    const sunday = weekly.periodIndexOf(JST('2025-12-28T23:59:59.999'))
    const monday = weekly.periodIndexOf(JST('2025-12-29T00:00:00'))
    expect(monday).toBe(sunday + 1)
    expect(weekly.periodIndexOf(JST('2026-01-04T23:59:59.999'))).toBe(monday)
    expect(weekly.periodIndexOf(JST('2026-01-05T00:00:00'))).toBe(monday + 1)
    expect(weekly.periodStartMs(monday)).toBe(JST('2025-12-29T00:00:00'))
    expect(tokyoDate(weekly.periodStartMs(monday + 1))).toBe('2026-01-05')
    expect(weekly.payoutDayMs(monday)).toBe(JST('2026-01-09T10:00:00'))
  })

  it('gives every day of a year one week, each seven days long and starting on a Monday', () => {
    let last = weekly.periodIndexOf(JST('2026-01-01T00:00:00'))
    for (let day = 0; day < 366; day++) {
      const ms = JST('2026-01-01T12:00:00') + day * 86_400_000
      const index = weekly.periodIndexOf(ms)
      expect(index - last).toBeLessThanOrEqual(1)
      expect(weekly.periodStartMs(index)).toBeLessThanOrEqual(ms)
      expect(weekly.periodStartMs(index + 1)).toBeGreaterThan(ms)
      expect(weekly.periodStartMs(index + 1) - weekly.periodStartMs(index)).toBe(7 * 86_400_000)
      expect(weekdayOf(weekly.periodStartMs(index))).toBe(1)
      expect(weekdayOf(weekly.payoutDayMs(index))).toBe(5)
      last = index
    }
  })

  it('takes --transfer-schedule and refuses another schedule by name', async () => {
    expect(optionsFromArgs(['--transfer-schedule', 'weekly'])).toMatchObject({
      payouts: { transferSchedule: 'weekly' },
    })
    expect(() => optionsFromArgs(['--transfer-schedule', 'biweekly'])).toThrow(
      /^--transfer-schedule: expected monthly, weekly, got "biweekly"/,
    )
    await expect(
      startSandbox({ records: 10, payouts: { transferSchedule: 'daily' as 'weekly' } }),
    ).rejects.toThrow(/^transferSchedule: must be one of monthly, weekly/)
  })
})

describe('sandbox payouts on a weekly schedule', () => {
  const sandbox = useSandbox({
    seed: 11,
    stores: 2,
    records: 2500,
    from: '2025-11-20T00:00:00Z',
    to: '2026-02-01T00:00:00Z',
    rateLimit: false,
    lateChangeEveryMs: 0,
    now: () => Date.parse('2026-03-01T00:00:00Z'),
    payouts: { transferSchedule: 'weekly' },
  })
  const jpy = () =>
    sandbox()
      .payouts()
      .transfers.filter((t) => t.currency === 'JPY')
  const ledgersOf = (t: SandboxTransfer): SandboxLedger[] =>
    sandbox()
      .payouts()
      .ledgers.filter((l) => l.transferId === t.id)

  it('makes one JPY transfer a week, Monday to Monday, created the next Monday and paid that Friday', () => {
    const transfers = jpy()
    expect(transfers.length).toBeGreaterThanOrEqual(10)
    for (const [i, t] of transfers.entries()) {
      const fromMs = JST(`${t.from}T00:00:00`)
      expect(weekdayOf(fromMs), t.from).toBe(1)
      expect(JST(`${t.to}T00:00:00`) - fromMs).toBe(7 * 86_400_000)
      if (i > 0) expect(t.from).toBe(transfers[i - 1]!.to)
      const created = t.createdUs / 1000
      expect(tokyoDate(created)).toBe(t.to)
      const settled = t.changes.find((c) => c.newStatus === 'paid' || c.newStatus === 'failed')
      expect(settled, `transfer of ${t.from}`).toBeDefined()
      expect(weekdayOf(settled!.createdUs / 1000)).toBe(5)
      expect(settled!.createdUs / 1000 - created).toBeLessThan(5 * 86_400_000)
    }
    expect(transfers.map((t) => t.status)).toContain('failed')
  })

  it('puts each JPY ledger in the transfer of its own week, across the month and the year end', () => {
    const transfers = jpy()
    let checked = 0
    for (const t of transfers)
      for (const l of ledgersOf(t)) {
        // The transfer fee is booked when the transfer is made, after its week.
        if (l.origin === 'manual' && l.amount === -440) {
          expect(l.createdUs).toBe(t.createdUs)
          continue
        }
        const day = tokyoDate(l.createdUs / 1000)
        expect(day >= t.from && day < t.to, `${l.origin} ledger of ${day} in ${t.from}–${t.to}`).toBe(true)
        checked++
      }
    expect(checked).toBeGreaterThan(500)
    const yearEnd = transfers.find((t) => t.from === '2025-12-29')
    const days = new Set(ledgersOf(yearEnd!).map((l) => tokyoDate(l.createdUs / 1000)))
    expect([...days].some((d) => d.startsWith('2025-12'))).toBe(true)
    expect([...days].some((d) => d.startsWith('2026-01'))).toBe(true)
    const monthEnd = transfers.find((t) => t.from === '2026-01-26')
    expect(ledgersOf(monthEnd!).some((l) => tokyoDate(l.createdUs / 1000) === '2026-01-31')).toBe(true)
  })

  it('adds up each transfer from its ledgers, the transfer fee and any unpaid transfer it repays', () => {
    const book = sandbox().payouts()
    for (const t of book.transfers) {
      const repays = t.metadata['repays_transfer_id']
      const repaid = repays ? (book.transferById.get(repays)?.amount ?? NaN) : 0
      const own = ledgersOf(t).reduce((s, l) => s + l.amount, 0)
      expect(own + repaid, `${t.currency} transfer of ${t.from}`).toBe(t.amount)
    }
    const fees = book.ledgers.filter((l) => l.origin === 'manual' && l.amount === -440)
    expect(fees.length).toBe(jpy().length)
  })

  it('reports the weekly schedule in /me as the real service does', async () => {
    const me = await get(sandbox(), '/me')
    expect(me.status).toBe(200)
    expect(me.body['transfer_schedule']).toEqual({
      wait_period: 'P4D',
      period: 'weekly',
      full_period_required: false,
      day_of_week: 'friday',
      week_of_month: null,
      day_of_month: null,
      weekly_closing_day: 'sunday',
      weekly_payout_day: 'friday',
    })
  })
})
