import { describe, expect, it } from 'vitest'
import { createSSRApp, h } from 'vue'
import { renderToString } from 'vue/server-renderer'
import MonthEndSectionNav from '../../../../src/components/month-end/MonthEndSectionNav.vue'
import { MONTH_END_SECTIONS, sectionTitleId } from '../../../../src/components/month-end/sections'
import { createAppI18n, type Locale } from '../../../../src/i18n'

async function renderNav(locale: Locale): Promise<string> {
  const app = createSSRApp({ render: () => h(MonthEndSectionNav, { sections: MONTH_END_SECTIONS }) })
  app.use(createAppI18n(locale))
  return renderToString(app)
}

describe('Month-end parts', () => {
  it('come in page order, summary first and charts last, each with its own id', () => {
    const ids = MONTH_END_SECTIONS.map((s) => s.id)
    expect(ids).toEqual(['summary', 'totals', 'payouts', 'exports', 'charts'])
    expect(new Set(ids.map(sectionTitleId)).size).toBe(ids.length)
  })

  it('are named in the navigation in each language, as buttons, the navigation itself named', async () => {
    const en = await renderNav('en')
    expect(en).toContain('aria-label="Parts of Month-end"')
    expect([...en.matchAll(/<button[^>]*>\s*([^<]*?)\s*<\/button>/g)].map((m) => m[1])).toEqual([
      'Summary and checklist',
      'Totals',
      'Payouts',
      'Workbook and journal entries',
      'Charts',
    ])
    const ja = await renderNav('ja')
    expect(ja).toContain('aria-label="月次締めの項目"')
    expect([...ja.matchAll(/<button[^>]*>\s*([^<]*?)\s*<\/button>/g)].map((m) => m[1])).toEqual([
      '概要とチェックリスト',
      '合計',
      '振込',
      'ワークブックと仕訳',
      'グラフ',
    ])
  })
})
