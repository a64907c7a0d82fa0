import type { Page } from '@playwright/test'
import { en } from '../../src/i18n/en'
import { ja } from '../../src/i18n/ja'
import { expect, test } from './support/web-host'
import { chooseDate } from './support/date-parts'

/**
 * The Japanese UI is Japanese: on every main screen after a demo sync and one mark, no raw i18n key, no
 * unfilled `{placeholder}`, no English message (what a missing Japanese label falls back to), no raw API
 * value (`successful`, `visa`, `live`) where a label belongs, no raw JSON, and dates and counts in the
 * Japanese format.
 */

type Tree = { readonly [key: string]: string | Tree }

function leaves(tree: Tree, prefix = ''): [string, string][] {
  return Object.entries(tree).flatMap(([k, v]) =>
    typeof v === 'string' ? [[`${prefix}${k}`, v] as [string, string]] : leaves(v, `${prefix}${k}.`),
  )
}

const enLeaves = new Map(leaves(en))
const jaLeaves = new Map(leaves(ja))
const KEY_PATHS = [...enLeaves.keys()]

/**
 * English texts that must not appear in the Japanese UI: each English message that differs from its
 * Japanese one (brand names such as "Visa" are the same in both and allowed), split at placeholders,
 * keeping fragments that cannot be a data value by accident (several words, or one of the label words).
 */
const ENGLISH_FRAGMENTS = [
  ...new Set(
    [...enLeaves].flatMap(([key, text]) => {
      if (jaLeaves.get(key) === text) return []
      const singleWordLabel = /^(labels\.(statuses|paymentTypes|tokenTypes)|ledger\.(modes|types))\./.test(
        key,
      )
      return text
        .split(/\{[^}]*\}|\|/)
        .map((f) => f.trim())
        .filter((f) => (singleWordLabel ? f.length >= 4 : /\S+ \S+/.test(f) && f.length >= 8))
    }),
  ),
]

const RAW_KEY_SHAPE = new RegExp(`\\b(${Object.keys(en).join('|')})\\.[A-Za-z_]+(\\.[A-Za-z_-]+)*`, 'g')

/** How the API spells its values: shown raw, a label is missing. */
const RAW_API_VALUES = [
  'successful',
  'pending',
  'authorized',
  'awaiting',
  'failed',
  'canceled',
  'charge',
  'refund',
  'live',
  'test',
  'visa',
  'master',
  'card',
  'one_time',
]

const ENGLISH_WORDS = new Set(['card', 'test', 'live', 'charge', 'refund', 'pending', 'failed'])

/** Everything a user reads or hears on the page: visible text and accessible names. */
async function userText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const attributes = [
      ...document.querySelectorAll('[aria-label], [title], [placeholder], [aria-valuetext]'),
    ]
      .flatMap((el) =>
        ['aria-label', 'title', 'placeholder', 'aria-valuetext'].map((a) => el.getAttribute(a)),
      )
      .filter((v): v is string => v !== null)
    return [document.body.innerText, ...attributes].join('\n')
  })
}

/** Data the accountant typed or the API sent (names), which may be in any language. */
const DATA_TEXTS = ['Demo merchant']

async function expectJapanese(page: Page, screen: string, language: 'ja' | 'en' = 'ja'): Promise<void> {
  let text = await userText(page)
  for (const d of DATA_TEXTS) text = text.split(d).join('')
  const rawKeys = KEY_PATHS.filter((k) => text.includes(k))
  expect(rawKeys, `${screen}: raw i18n keys`).toEqual([])
  // A key that exists in no locale is printed as itself too: anything shaped like one of our keys.
  expect(text.match(RAW_KEY_SHAPE) ?? [], `${screen}: raw i18n keys`).toEqual([])
  expect(text.match(/\{[a-zA-Z]+\}/g) ?? [], `${screen}: unfilled placeholders`).toEqual([])
  const english = ENGLISH_FRAGMENTS.filter((f) =>
    new RegExp(`(^|[^A-Za-z])${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^A-Za-z]|$)`).test(text),
  )
  if (language === 'ja') expect(english, `${screen}: English messages in the Japanese UI`).toEqual([])
  // In English prose "card payments" or "test" are words; the values no sentence uses still must not show.
  const values = language === 'ja' ? RAW_API_VALUES : RAW_API_VALUES.filter((v) => !ENGLISH_WORDS.has(v))
  const raw = values.filter((v) => new RegExp(`(^|[^A-Za-z_@./-])${v}([^A-Za-z_@./-]|$)`).test(text))
  expect(raw, `${screen}: raw API values`).toEqual([])
  expect(text, `${screen}: raw JSON`).not.toMatch(/\{\s*"[a-z_]+"\s*:/)
}

async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: ja.app.mainNav }).getByRole('link', { name }).click()
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible()
}

test.describe('the Japanese UI on the web host', () => {
  test('main screens after a demo sync and a mark show no raw key, English word, raw value or raw JSON', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(180_000)
    await page.addInitScript(() => localStorage.setItem('closebook.locale', 'ja'))
    await page.goto(webHost.launchUrl)
    await expect(page.getByRole('heading', { level: 1, name: ja.connections.title })).toBeVisible()
    await expectJapanese(page, 'connections (empty)')

    // The demo's first sync starts by itself; guidance follows once it is done.
    await page.getByRole('button', { name: ja.connections.tryDemo }).click()
    const row = page
      .getByRole('table', { name: ja.connections.listLabel })
      .getByRole('row', { name: /Demo merchant/ })
    await expect(row).toContainText(ja.connections.display.credentialsDemo)
    await expect(page.getByTestId('sync-state')).toHaveText(ja.sync.state.done, { timeout: 120_000 })
    // Each list counted apart, with thousands separators.
    await expect(page.getByTestId('sync-counts')).toHaveText(
      /^売上・返金 \d{1,3}(,\d{3})+ \/ [\d,]+ 件 · 課金一覧 [\d,]+ \/ [\d,]+ 件/,
    )
    await expect(page.getByTestId('last-synced')).toContainText('日本標準時')
    await expect(page.getByTestId('sync-next')).toContainText(ja.sync.display.nextAfterSync)
    await expect(page.getByTestId('next-step')).toHaveCount(0)
    await page.getByText(/^詳細（\d+ 区分）$/).click()
    // Parts name their store, not its id.
    const parts = page.getByRole('table', { name: ja.sync.partitionTable })
    await expect(parts).toContainText('梅田店')
    expect(await parts.innerText()).not.toMatch(/[0-9a-f]{8}(-[0-9a-f]{4})?/)
    await expectJapanese(page, 'connections (synced)')

    // A host error reads as Japanese: its code's message, the host's English only under 詳細.
    await page.getByLabel(ja.connections.form.label).fill('本番')
    await page.getByLabel(ja.connections.form.baseUrl).fill('https://api.example.test')
    await page.getByLabel(ja.connections.form.secret).fill('sk_live_not_a_secret')
    await page.getByLabel(ja.connections.form.appToken).fill('a.b.c')
    await page.getByRole('button', { name: ja.connections.form.submit }).click()
    const error = page.getByTestId('error-message')
    await expect(error).toBeVisible()
    const code = (await error.getAttribute('data-error-code')) ?? ''
    await expect(error.locator('p').first()).toHaveText(
      (ja.errors as unknown as Record<string, string | undefined>)[code] ?? `(no ja message for ${code})`,
    )
    if (code === 'invalid_argument')
      await expect(error.locator('li')).toContainText([ja.connections.form.appToken])
    await expectJapanese(page, 'connections (error)')

    await nav(page, ja.ledger.title)
    const count = page.getByTestId('ledger-count')
    await expect(count).toHaveText(/^\d{1,3}(,\d{3})+ 件\s*$/)
    const grid = page.getByRole('grid', { name: ja.ledger.gridLabel })
    const firstRow = grid.locator('.grid-row[aria-rowindex="2"]')
    await expect(firstRow.locator('.c-date')).toHaveText(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/)
    // Label cells hold labels only: a raw value or a fallback would not be one of them.
    const cells = async (column: string): Promise<string[]> =>
      // A status starts with its icon (aria-hidden): the label is what follows.
      (await grid.locator(`.grid-body .c-${column}`).allInnerTexts()).map((s) =>
        s.replace(/^[✓◷✕•]/u, '').trim(),
      )
    const allowed = (tree: Tree): string[] => leaves(tree).map(([, v]) => v)
    for (const s of await cells('status')) expect(allowed(ja.labels.statuses)).toContain(s)
    // A card brand; for a konbini or bank transfer the payment type (its "brand" is a chain or bank code); or none.
    for (const b of await cells('brand'))
      expect(['', ...allowed(ja.labels.brands), ...allowed(ja.labels.paymentTypes)]).toContain(b)
    for (const m of await cells('mode')) expect(allowed(ja.ledger.modes)).toContain(m)
    for (const ty of await cells('type')) expect(allowed(ja.ledger.types)).toContain(ty)

    // Select a record (its labelled details) and mark it with a note (an audit entry in words).
    await firstRow.getByRole('checkbox').check()
    await page.getByLabel(ja.ledger.note).fill('銀行入金と照合')
    await page.getByRole('button', { name: ja.ledger.markSelected }).click()
    await expect(page.getByTestId('ledger-notice')).toHaveText(
      ja.ledger.notices.marked.replace('{changed}', '1'),
    )
    await firstRow.locator('.c-date').click()
    const fields = page.getByTestId('record-fields')
    await expect(fields.locator('[data-field="status"]')).toHaveText(
      new RegExp(allowed(ja.labels.statuses).join('|')),
    )
    await expect(fields.locator('[data-field="amount"]')).toHaveText(/^-?[￥¥$€][\d,]+(\.\d+)?$/)
    const audit = page.getByRole('table', { name: ja.ledger.audit })
    await expect(audit.getByRole('row', { name: /消込済み（メモ：「銀行入金と照合」）/ })).toHaveCount(1)
    await expect(audit).toContainText('未消込 → 消込済み（メモ：「銀行入金と照合」）')
    await expectJapanese(page, 'ledger')
    // Raw JSON only on demand.
    await page.getByText(ja.ledger.recordView.showRaw).click()
    await expect(page.getByLabel(ja.ledger.recordView.rawLabel)).toContainText('"resource_id"')

    await nav(page, ja.monthEnd.title)
    await chooseDate(page, ja.ledger.period, '2026-10')
    await expect(page.getByTestId('month-zone')).toContainText('日本標準時（Asia/Tokyo）')
    await expectJapanese(page, 'month-end')
    // Every part of Month-end, reached from its navigation, charts and the per-store table opened.
    const monthParts = page.getByRole('navigation', { name: ja.monthEndSections.navLabel })
    for (const title of Object.values(ja.monthEndSections.titles)) {
      await monthParts.getByRole('button', { name: title, exact: true }).click()
      await expect(page.getByRole('heading', { level: 2, name: title, exact: true })).toBeFocused()
    }
    await page.getByRole('button', { name: ja.monthEndSections.showCharts }).click()
    await expect(page.getByTestId('chart-daily-JPY').locator('svg').first()).toBeVisible()
    await page.getByRole('heading', { name: ja.monthEnd.totals.storeTable, exact: true }).click()
    await expect(page.getByRole('table', { name: ja.monthEnd.summaryLabel })).toBeVisible()
    await expectJapanese(page, 'month-end (every part open)')
    // No English word in any part: Latin letters only in currency codes, the zone's name, the store
    // names the service sends, and the names of the accounting programs and file formats.
    const storeNames = await page
      .getByRole('combobox', { name: ja.monthEnd.exportScope })
      .locator('option')
      .allInnerTexts()
    const names = ['Asia', 'Tokyo', 'freee', 'Shift', 'JIS', 'CSV']
    for (const title of Object.values(ja.monthEndSections.titles)) {
      let text = await page.getByRole('region', { name: title, exact: true }).innerText()
      for (const name of storeNames) text = text.split(name).join('')
      // The service's ids (a transfer's) are data, not words.
      text = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '')
      const latin = (text.match(/[A-Za-z]{2,}/g) ?? []).filter(
        (w) => !/^[A-Z]{3}$/.test(w) && !names.includes(w),
      )
      expect(latin, `month-end part "${title}": English words`).toEqual([])
    }

    await nav(page, ja.match.title)
    await expectJapanese(page, 'matching')

    await nav(page, ja.settings.title)
    await expect(page.getByRole('table', { name: ja.settings.cacheTables })).toBeVisible()
    const stores = page.getByRole('row', { name: new RegExp(`^${ja.settings.tables.stores}`) })
    await expect(stores).toHaveText(/3$/)
    await expectJapanese(page, 'settings')
  })

  test('at 1440 px the header scrolls sideways with the rows, and reading a row keeps the ticked rows', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(180_000)
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.addInitScript(() => localStorage.setItem('closebook.locale', 'ja'))
    await page.goto(webHost.launchUrl)
    await page.getByRole('button', { name: ja.connections.tryDemo }).click()
    await expect(page.getByTestId('sync-state')).toHaveText(ja.sync.state.done, { timeout: 120_000 })
    await nav(page, ja.ledger.title)
    await expect(page.getByTestId('ledger-count')).toHaveText(/^[\d,]+ 件\s*$/)
    const grid = page.getByRole('grid', { name: ja.ledger.gridLabel })
    const row = (i: number) => grid.locator(`.grid-row[aria-rowindex="${i + 2}"]`)

    // Tick two rows, then click a third to read it: the two stay ticked, the details show the third.
    await row(0).getByRole('checkbox').check()
    await row(1).getByRole('checkbox').check()
    // A cell that is never empty (a konbini payment has no cardholder): its date.
    await row(2).locator('.c-date').click()
    await expect(page.getByTestId('ledger-count')).toContainText(
      ja.ledger.selectedCount.replace('{count}', '2'),
    )
    await expect(row(0).getByRole('checkbox')).toBeChecked()
    await expect(row(2).getByRole('checkbox')).not.toBeChecked()
    const when = (await row(2).locator('.c-date').innerText()).trim()
    await expect(page.locator('[data-field="createdAt"]')).toContainText(when)

    // Scroll the rows sideways: every header stays over its column.
    const viewport = grid.locator('.grid-viewport')
    const overflow = await viewport.evaluate((el) => el.scrollWidth - el.clientWidth)
    expect(overflow, 'the columns are wider than the grid at 1440 px').toBeGreaterThan(100)
    await viewport.evaluate((el) => {
      el.scrollLeft = el.scrollWidth
    })
    for (const column of ['amount', 'net', 'holder', 'note']) {
      const head = await grid.locator(`.grid-head .c-${column}`).boundingBox()
      const cell = await row(0).locator(`.c-${column}`).boundingBox()
      expect(Math.abs((head?.x ?? 0) - (cell?.x ?? -100)), column).toBeLessThan(2)
    }

    // "Mark all 5,381 matching" asks first; saying no marks nothing.
    let asked = ''
    page.once('dialog', (dialog) => {
      asked = dialog.message()
      void dialog.dismiss()
    })
    await page.getByRole('button', { name: /^条件に合う [\d,]+ 件をすべて消込$/ }).click()
    await expect
      .poll(() => asked)
      .toMatch(/^絞り込み条件に合う \d{1,3}(,\d{3})+ 件をすべて消込済みにしますか？/)
    await expect(page.getByTestId('ledger-notice')).toHaveCount(0)
    await expect(grid.locator('.c-rec', { hasText: ja.ledger.stateReconciled })).toHaveCount(0)
  })

  test('the English UI has no raw key, raw API value or raw JSON either', async ({ page, webHost }) => {
    test.setTimeout(180_000)
    await page.addInitScript(() => localStorage.setItem('closebook.locale', 'en'))
    await page.goto(webHost.launchUrl)
    await page.getByRole('button', { name: en.connections.tryDemo }).click()
    await expect(page.getByTestId('sync-state')).toHaveText(en.sync.state.done, { timeout: 120_000 })
    await expectJapanese(page, 'connections (en)', 'en')
    const go = async (name: string): Promise<void> => {
      await page.getByRole('navigation', { name: en.app.mainNav }).getByRole('link', { name }).click()
      await expect(page.getByRole('heading', { level: 1, name })).toBeVisible()
    }
    await go(en.ledger.title)
    await expect(page.getByTestId('ledger-count')).toHaveText(/^\d{1,3}(,\d{3})+ records\s*$/)
    await page
      .getByRole('grid', { name: en.ledger.gridLabel })
      .locator('.grid-row[aria-rowindex="2"] .c-date')
      .click()
    await expect(page.getByTestId('record-fields')).toBeVisible()
    await expectJapanese(page, 'ledger (en)', 'en')
    await go(en.monthEnd.title)
    await chooseDate(page, en.ledger.period, '2026-10')
    await expect(page.getByTestId('month-zone')).toContainText('Japan Standard Time (Asia/Tokyo)')
    await expectJapanese(page, 'month-end (en)', 'en')
    await go(en.settings.title)
    await expectJapanese(page, 'settings (en)', 'en')
  })
})
