import { describe, expect, it } from 'vitest'
import { columnLetter, workbookFileName } from '../../../../src/export/month-workbook'
import { wallClockMs } from '../../../../src/export/sheet-values'

const TZ = 'Asia/Tokyo'

describe('workbook names and values', () => {
  it('names the file after the store or connection and the period', () => {
    expect(workbookFileName('Tokyo shop', '2026-10')).toBe('closebook-Tokyo-shop-2026-10.xlsx')
    expect(workbookFileName('a/b:c*?"<>|', '2026-10')).toBe('closebook-a-b-c-2026-10.xlsx')
    expect(workbookFileName('..', '2026-10')).toBe('closebook-all-stores-2026-10.xlsx')
    expect(workbookFileName('渋谷店', '2026-10')).toBe('closebook-渋谷店-2026-10.xlsx')
  })

  it('writes dates as the accounting zone wall clock', () => {
    expect(wallClockMs(Date.parse('2026-10-31T16:30:00.250Z'), TZ)).toBe(Date.UTC(2026, 10, 1, 1, 30, 0, 250))
    expect(wallClockMs(Date.parse('2026-03-08T10:30:00Z'), 'America/New_York')).toBe(
      Date.UTC(2026, 2, 8, 6, 30),
    )
  })

  it('spells column letters as Excel does', () => {
    expect([1, 26, 27, 52, 53, 702, 703].map(columnLetter)).toEqual(['A', 'Z', 'AA', 'AZ', 'BA', 'ZZ', 'AAA'])
  })
})

describe('wallClockMs', () => {
  it('agrees with Intl at every quarter hour around DST changes and odd offsets', () => {
    const zones = [
      'America/New_York',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'America/Santiago',
      'Europe/London',
    ]
    for (const timeZone of zones) {
      const format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 7 * 60_000 + 13_000) {
        const p = Object.fromEntries(format.formatToParts(t).map((x) => [x.type, Number(x.value)]))
        const expected = Date.UTC(
          p['year'] ?? 0,
          (p['month'] ?? 0) - 1,
          p['day'],
          p['hour'],
          p['minute'],
          p['second'],
        )
        if (wallClockMs(t, timeZone) !== expected) throw new Error(`${timeZone} ${new Date(t).toISOString()}`)
      }
    }
    // ~360k Intl calls: seconds when idle, much longer on a loaded CI runner.
  }, 120_000)
})
