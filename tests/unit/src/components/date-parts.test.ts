import { describe, expect, it } from 'vitest'
import { createSSRApp, h } from 'vue'
import { renderToString } from 'vue/server-renderer'
import DatePartsInput from '../../../../src/components/DatePartsInput.vue'
import {
  dayText,
  joinParts,
  meetsBounds,
  monthText,
  splitValue,
  valueText,
  yearOptions,
  yearText,
} from '../../../../src/components/date-parts'
import { actorLabel, actorOrDefault, DEFAULT_ACTOR } from '../../../../src/i18n/actor'
import { createAppI18n, type Locale } from '../../../../src/i18n'

const ENGLISH_MONTHS =
  /January|February|March|April|May|June|July|August|September|October|November|December|Jan\b|Oct\b/

describe('date parts: values', () => {
  it('splits and joins month and day values the native inputs used', () => {
    expect(splitValue('2026-10', 'month')).toEqual({ year: 2026, month: 10, day: null })
    expect(splitValue('2026-10-05', 'day')).toEqual({ year: 2026, month: 10, day: 5 })
    expect(splitValue('2026-13', 'month')).toEqual({ year: null, month: null, day: null })
    expect(splitValue('2026-10', 'day')).toEqual({ year: null, month: null, day: null })
    expect(splitValue(null, 'month')).toEqual({ year: null, month: null, day: null })
    expect(joinParts({ year: 2026, month: 2, day: null }, 'month')).toBe('2026-02')
    expect(joinParts({ year: 2026, month: 2, day: null }, 'day')).toBeNull()
    expect(joinParts({ year: null, month: 2, day: 3 }, 'day')).toBeNull()
    // 31 after choosing February is the month's last day, never an invalid date.
    expect(joinParts({ year: 2026, month: 2, day: 31 }, 'day')).toBe('2026-02-28')
    expect(joinParts({ year: 2028, month: 2, day: 31 }, 'day')).toBe('2028-02-29')
  })

  it('bounds by month or by day', () => {
    expect(meetsBounds('2026-10-01', '2026-10-31', '2026-10-15', null)).toBe(true)
    expect(meetsBounds('2026-09-01', '2026-09-30', '2026-10-15', null)).toBe(false)
    expect(meetsBounds('2026-11-01', '2026-11-30', null, '2026-10')).toBe(false)
    expect(meetsBounds('2026-10-31', '2026-10-31', null, '2026-10')).toBe(true)
  })

  it('offers recent years, widened to the chosen value and the bounds', () => {
    const now = new Date(2026, 10, 24)
    expect(yearOptions(null, now)).toEqual([
      2027, 2026, 2025, 2024, 2023, 2022, 2021, 2020, 2019, 2018, 2017, 2016,
    ])
    expect(yearOptions(2001, now).at(-1)).toBe(2001)
    expect(yearOptions(null, now, ['2030-01-01'])[0]).toBe(2030)
  })
})

describe('date parts: words in the app language, whatever the browser', () => {
  it('says 2026年 / 10月 / 5日 in Japanese and no English month name', () => {
    expect(yearText(2026, 'ja')).toBe('2026年')
    expect(monthText(10, 'ja')).toBe('10月')
    expect(dayText(5, 'ja')).toBe('5日')
    expect(valueText('2026-10', 'month', 'ja')).toBe('2026年10月')
    expect(valueText('2026-10-05', 'day', 'ja')).toBe('2026年10月5日')
    for (let m = 1; m <= 12; m++) expect(monthText(m, 'ja')).not.toMatch(ENGLISH_MONTHS)
  })

  it('says October 2026 in English', () => {
    expect(monthText(10, 'en')).toBe('October')
    expect(yearText(2026, 'en')).toBe('2026')
    expect(valueText('2026-10', 'month', 'en')).toBe('October 2026')
  })
})

type Props = InstanceType<typeof DatePartsInput>['$props']

async function render(locale: Locale, props: Props): Promise<string> {
  const app = createSSRApp({ render: () => h(DatePartsInput, props) })
  app.use(createAppI18n(locale))
  return renderToString(app)
}

const optionTexts = (html: string, part: string): string[] => {
  const select =
    new RegExp(`<select[^>]*data-part="${part}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? ''
  return [...select.matchAll(/<option[^>]*>([^<]*)<\/option>/g)].map((m) => (m[1] ?? '').trim())
}
const selectedText = (html: string, part: string): string | null => {
  const select =
    new RegExp(`<select[^>]*data-part="${part}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? ''
  return /<option[^>]*selected[^>]*>([^<]*)<\/option>/.exec(select)?.[1]?.trim() ?? null
}

describe('DatePartsInput', () => {
  it('renders a named group of labelled selects in Japanese, the value chosen', async () => {
    const html = await render('ja', { modelValue: '2026-10', label: '月', kind: 'month', required: true })
    expect(html).toMatch(/<legend[^>]*>月<\/legend>/)
    expect(html).toMatch(/<span class="part"[^>]*>年<\/span>\s*<select[^>]*data-part="year"/)
    expect(optionTexts(html, 'month')).toEqual(Array.from({ length: 12 }, (_, i) => `${i + 1}月`))
    expect(selectedText(html, 'year')).toBe('2026年')
    expect(selectedText(html, 'month')).toBe('10月')
    expect(html).not.toMatch(ENGLISH_MONTHS)
    // Required: no empty choice to fall into.
    expect(optionTexts(html, 'month')).not.toContain('—')
    expect(html).not.toContain('data-part="day"')
  })

  it('renders a day in English with an empty choice when optional, out-of-bounds days disabled', async () => {
    const html = await render('en', {
      modelValue: '2026-02-10',
      label: 'To (day, inclusive)',
      kind: 'day',
      min: '2026-02-05',
    })
    expect(optionTexts(html, 'month')[0]).toBe('—')
    expect(optionTexts(html, 'month')).toContain('February')
    expect(optionTexts(html, 'day')).toHaveLength(1 + 28)
    expect(selectedText(html, 'day')).toBe('10')
    expect(html).toMatch(/<option value="4"[^>]*disabled[^>]*>\s*4\s*<\/option>/)
    expect(html).not.toMatch(/<option value="5"[^>]*disabled/)
    expect(html).toMatch(/<option value="1"[^>]*disabled[^>]*>\s*January\s*<\/option>/)
  })
})

describe('the unnamed actor', () => {
  it('is stored as a neutral token and worded in the display language', () => {
    expect(actorOrDefault(undefined)).toBe(DEFAULT_ACTOR)
    expect(actorOrDefault('  ')).toBe(DEFAULT_ACTOR)
    expect(actorOrDefault(' 佐藤 ')).toBe('佐藤')
    const tr = (locale: Locale) => {
      const i18n = createAppI18n(locale).global
      return { t: (key: string) => i18n.t(key), te: (key: string) => i18n.te(key) }
    }
    expect(actorLabel(tr('ja'), DEFAULT_ACTOR)).toBe('経理担当者')
    expect(actorLabel(tr('en'), DEFAULT_ACTOR)).toBe('accountant')
    expect(actorLabel(tr('ja'), 'Sato')).toBe('Sato')
  })
})
