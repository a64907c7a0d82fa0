import { describe, expect, it } from 'vitest'
import {
  dayOf,
  dayRange,
  daysOfPeriod,
  isValidDay,
  isValidPeriod,
  isValidTimeZone,
  nextDay,
  nextPeriod,
  periodOf,
  periodRange,
  previousPeriod,
} from '../../../../src/domain/periods'

const at = (iso: string): number => Date.parse(iso)
const iso = (ms: number): string => new Date(ms).toISOString()
const HOUR = 3_600_000

describe('periodOf / dayOf', () => {
  it('puts 2026-10-31T16:30Z in November in Asia/Tokyo and October in UTC', () => {
    const t = at('2026-10-31T16:30:00Z')
    expect(periodOf(t, 'Asia/Tokyo')).toBe('2026-11')
    expect(dayOf(t, 'Asia/Tokyo')).toBe('2026-11-01')
    expect(periodOf(t, 'UTC')).toBe('2026-10')
    expect(dayOf(t, 'UTC')).toBe('2026-10-31')
  })

  it('is exact at the month boundary in Tokyo and UTC', () => {
    expect(periodOf(at('2026-10-31T14:59:59.999Z'), 'Asia/Tokyo')).toBe('2026-10')
    expect(periodOf(at('2026-10-31T15:00:00Z'), 'Asia/Tokyo')).toBe('2026-11')
    expect(periodOf(at('2026-12-31T23:59:59.999Z'), 'UTC')).toBe('2026-12')
    expect(periodOf(at('2027-01-01T00:00:00Z'), 'UTC')).toBe('2027-01')
  })

  it('follows DST in America/New_York', () => {
    // EDT (UTC-4) until Nov 1 2026 02:00 local.
    expect(dayOf(at('2026-11-01T03:59:59Z'), 'America/New_York')).toBe('2026-10-31')
    expect(dayOf(at('2026-11-01T04:00:00Z'), 'America/New_York')).toBe('2026-11-01')
    // EST (UTC-5) in winter.
    expect(dayOf(at('2026-12-01T04:59:59Z'), 'America/New_York')).toBe('2026-11-30')
    expect(periodOf(at('2026-12-01T05:00:00Z'), 'America/New_York')).toBe('2026-12')
  })

  it('throws on an unknown time zone', () => {
    expect(() => periodOf(0, 'Mars/Olympus')).toThrow(RangeError)
  })
})

describe('periodRange', () => {
  it('gives Tokyo and UTC months as [from, to)', () => {
    const tokyo = periodRange('2026-11', 'Asia/Tokyo')
    expect(iso(tokyo.from)).toBe('2026-10-31T15:00:00.000Z')
    expect(iso(tokyo.to)).toBe('2026-11-30T15:00:00.000Z')
    const utc = periodRange('2026-12', 'UTC')
    expect(iso(utc.from)).toBe('2026-12-01T00:00:00.000Z')
    expect(iso(utc.to)).toBe('2027-01-01T00:00:00.000Z')
  })

  it('spans the DST changes of America/New_York', () => {
    const march = periodRange('2026-03', 'America/New_York')
    expect(iso(march.from)).toBe('2026-03-01T05:00:00.000Z')
    expect(iso(march.to)).toBe('2026-04-01T04:00:00.000Z')
    expect(march.to - march.from).toBe((31 * 24 - 1) * HOUR)
    const november = periodRange('2026-11', 'America/New_York')
    expect(iso(november.from)).toBe('2026-11-01T04:00:00.000Z')
    expect(iso(november.to)).toBe('2026-12-01T05:00:00.000Z')
    expect(november.to - november.from).toBe((30 * 24 + 1) * HOUR)
  })

  it('agrees with periodOf at both ends, for every month of a year in several zones', () => {
    const zones = [
      'UTC',
      'Asia/Tokyo',
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'Asia/Kolkata',
    ]
    for (const zone of zones) {
      let period = '2026-01'
      for (let i = 0; i < 12; i++) {
        const { from, to } = periodRange(period, zone)
        expect(periodOf(from, zone), `${zone} ${period} from`).toBe(period)
        expect(periodOf(from - 1, zone), `${zone} ${period} before`).toBe(previousPeriod(period))
        expect(periodOf(to - 1, zone), `${zone} ${period} last`).toBe(period)
        expect(periodOf(to, zone), `${zone} ${period} to`).toBe(nextPeriod(period))
        period = nextPeriod(period)
      }
    }
  })

  it('rejects a malformed period', () => {
    expect(() => periodRange('2026-13', 'UTC')).toThrow(RangeError)
    expect(() => periodRange('2026-1', 'UTC')).toThrow(RangeError)
  })
})

describe('dayRange', () => {
  it('is 23 and 25 hours on New York DST days', () => {
    const spring = dayRange('2026-03-08', 'America/New_York')
    expect(iso(spring.from)).toBe('2026-03-08T05:00:00.000Z')
    expect(spring.to - spring.from).toBe(23 * HOUR)
    const fall = dayRange('2026-11-01', 'America/New_York')
    expect(iso(fall.from)).toBe('2026-11-01T04:00:00.000Z')
    expect(fall.to - fall.from).toBe(25 * HOUR)
  })

  it('starts a day at the end of a DST gap that swallows midnight (America/Santiago)', () => {
    // Chile springs forward at 00:00 on 2026-09-06: the day begins at 01:00 local, 04:00Z.
    const gap = dayRange('2026-09-06', 'America/Santiago')
    expect(iso(gap.from)).toBe('2026-09-06T04:00:00.000Z')
    expect(dayOf(gap.from - 1, 'America/Santiago')).toBe('2026-09-05')
    expect(gap.to - gap.from).toBe(23 * HOUR)
  })

  it('is 24 hours in Tokyo', () => {
    const d = dayRange('2026-11-01', 'Asia/Tokyo')
    expect(iso(d.from)).toBe('2026-10-31T15:00:00.000Z')
    expect(d.to - d.from).toBe(24 * HOUR)
  })

  it('rejects an impossible day', () => {
    expect(() => dayRange('2026-02-30', 'UTC')).toThrow(RangeError)
  })
})

describe('period and day arithmetic', () => {
  it('steps across year ends', () => {
    expect(nextPeriod('2026-12')).toBe('2027-01')
    expect(previousPeriod('2027-01')).toBe('2026-12')
    expect(nextPeriod('2026-09')).toBe('2026-10')
    expect(previousPeriod('2026-10')).toBe('2026-09')
    expect(nextDay('2028-02-28')).toBe('2028-02-29')
    expect(nextDay('2026-12-31')).toBe('2027-01-01')
  })

  it('lists the days of a month', () => {
    expect(daysOfPeriod('2026-02')).toHaveLength(28)
    expect(daysOfPeriod('2028-02').at(-1)).toBe('2028-02-29')
    expect(daysOfPeriod('2026-10')[0]).toBe('2026-10-01')
  })

  it('validates periods, days and zones', () => {
    expect(isValidPeriod('2026-11')).toBe(true)
    expect(isValidPeriod('2026-00')).toBe(false)
    expect(isValidPeriod('26-11')).toBe(false)
    expect(isValidDay('2026-02-29')).toBe(false)
    expect(isValidDay('2028-02-29')).toBe(true)
    expect(isValidTimeZone('Asia/Tokyo')).toBe(true)
    expect(isValidTimeZone('UTC')).toBe(true)
    expect(isValidTimeZone('Not/AZone')).toBe(false)
    expect(isValidTimeZone('')).toBe(false)
  })
})

describe('periodOf / dayOf agree with Intl in every zone (the per-day offset cache)', () => {
  /** The day as Intl formats it, computed independently of periods.ts. */
  const formats = new Map<string, Intl.DateTimeFormat>()
  function intlDay(ms: number, timeZone: string): string {
    let format = formats.get(timeZone)
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      })
      formats.set(timeZone, format)
    }
    const parts = format.formatToParts(ms)
    const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? ''
    return `${get('year').padStart(4, '0')}-${get('month')}-${get('day')}`
  }

  // DST at 00:00 (Santiago), 30-minute DST (Lord Howe), +05:45, +12:45/+13:45, a whole-day skip (Apia
  // 2011-12-30), historical offsets with seconds (Amsterdam 1930s), half-hour zones.
  const zones = [
    'Asia/Tokyo',
    'America/Santiago',
    'Australia/Lord_Howe',
    'Asia/Kathmandu',
    'Pacific/Chatham',
    'Pacific/Apia',
    'Europe/Amsterdam',
    'America/St_Johns',
    'Europe/London',
    'UTC',
  ]

  it('matches every 17 minutes across transitions', () => {
    const windows = [
      at('2026-04-04T00:00:00Z'), // Santiago and Lord Howe leave DST in early April
      at('2026-09-05T00:00:00Z'), // and enter it in September / October
      at('2026-10-03T12:00:00Z'),
      at('2026-03-29T00:00:00Z'), // Europe
      at('2011-12-29T00:00:00Z'), // Apia skips 2011-12-30
      at('1937-06-30T12:00:00Z'), // Amsterdam's +00:19:32 → +00:20
    ]
    for (const zone of zones) {
      for (const start of windows) {
        for (let ms = start; ms < start + 48 * HOUR; ms += 17 * 60_000 + 13_000) {
          const day = intlDay(ms, zone)
          expect(dayOf(ms, zone), `${zone} ${iso(ms)}`).toBe(day)
          expect(periodOf(ms, zone), `${zone} ${iso(ms)}`).toBe(day.slice(0, 7))
        }
      }
    }
  })

  it('matches at the last millisecond before and the first after a local midnight', () => {
    for (const zone of zones) {
      for (const day of ['2026-01-01', '2026-04-05', '2026-09-06', '2026-10-04', '2026-11-01']) {
        const { from } = dayRange(day, zone)
        for (const ms of [from - 1, from, from + 999, from - 1000]) {
          expect(dayOf(ms, zone), `${zone} ${iso(ms)}`).toBe(intlDay(ms, zone))
        }
      }
    }
  })

  it('keeps the formatter for instants outside the cached years', () => {
    for (const ms of [Date.UTC(1850, 5, 1, 3), Date.UTC(2300, 0, 1), -1]) {
      expect(dayOf(ms, 'Asia/Tokyo')).toBe(intlDay(ms, 'Asia/Tokyo'))
    }
  })
})
