import { describe, expect, it } from 'vitest'
import { withYear, yearlessParts, yearReference } from '../../../../src/import/yearless'

describe('yearless dates', () => {
  it.each([
    ['10/6', { month: 10, day: 6, time: '' }],
    ['10月6日 14:30', { month: 10, day: 6, time: ' 14:30' }],
    ['10月6日 14時30分', { month: 10, day: 6, time: ' 14:30' }],
    ['10月6日14時30分', { month: 10, day: 6, time: ' 14:30' }],
    ['１０月６日　９時０５分', { month: 10, day: 6, time: ' 9:05' }],
  ])('%s is read as month, day and time', (text, parts) => {
    expect(yearlessParts(text)).toEqual(parts)
  })

  it('takes the year from the file and keeps a kanji time', () => {
    const reference = yearReference(['2026/10/01'], undefined)
    expect(reference).not.toBeNull()
    const parts = yearlessParts('10月6日 14時30分')
    expect(parts && withYear(parts, reference ?? 0)).toBe('2026/10/6 14:30')
  })

  it.each(['2026/10/6', '10月6日 14時', '13/6', 'tomorrow'])('%s is not a yearless date', (text) => {
    expect(yearlessParts(text)).toBeNull()
  })
})
