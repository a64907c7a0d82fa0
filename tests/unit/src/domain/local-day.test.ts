import { describe, expect, it } from 'vitest'
import { createDayResolver } from '../../../../src/domain/local-day'
import { dayOf } from '../../../../src/domain/periods'

describe('createDayResolver', () => {
  it.each(['Asia/Tokyo', 'UTC', 'America/New_York', 'Asia/Kolkata', 'America/Santiago', 'Pacific/Chatham'])(
    'agrees with dayOf in %s, including DST changes and month ends',
    (zone) => {
      const resolve = createDayResolver(zone)
      // Every 53 minutes over a year (drifting through all minutes of the hour): crosses both DST changes where there are any.
      const from = Date.UTC(2026, 0, 1)
      for (let t = from; t < from + 366 * 86_400_000; t += 53 * 60_000) {
        const expected = dayOf(t, zone)
        if (resolve(t) !== expected)
          expect.fail(`${zone} ${new Date(t).toISOString()}: ${resolve(t)} ≠ ${expected}`)
      }
    },
  )

  it('puts the first instant of a Tokyo day on that day', () => {
    const resolve = createDayResolver('Asia/Tokyo')
    expect(resolve(Date.UTC(2026, 9, 31, 14, 59, 59, 999))).toBe('2026-10-31')
    expect(resolve(Date.UTC(2026, 9, 31, 15))).toBe('2026-11-01')
  })
})
