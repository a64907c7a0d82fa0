import type { Page } from '@playwright/test'
import { en } from '../../src/i18n/en'
import { ja } from '../../src/i18n/ja'
import { chooseDate } from './support/date-parts'
import { expect, test } from './support/web-host'

/**
 * In the Japanese UI on an ENGLISH browser, month and day controls and the unnamed
 * actor are worded in the app's language. Native <input type="month|date"> followed the browser
 * ("October 2026" in a Japanese screen); the default actor was stored and shown as "accountant".
 */
test.use({ locale: 'en-US' })

const ENGLISH_MONTH =
  /\b(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b/

/** Visible text and accessible names, option texts included. */
async function userText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const attributes = [...document.querySelectorAll('[aria-label], [title], [placeholder]')]
      .flatMap((el) => ['aria-label', 'title', 'placeholder'].map((a) => el.getAttribute(a)))
      .filter((v): v is string => v !== null)
    const options = [...document.querySelectorAll('option')].map((o) => o.textContent ?? '')
    return [document.body.innerText, ...attributes, ...options].join('\n')
  })
}

async function expectAppLanguageOnly(page: Page, screen: string): Promise<void> {
  // The browser's language must not reach the screen through a native date widget.
  await expect(page.locator('input[type="month"], input[type="date"]'), screen).toHaveCount(0)
  const text = await userText(page)
  expect(text.match(ENGLISH_MONTH) ?? [], `${screen}: English month names`).toEqual([])
  expect(text.match(/\baccountant\b/i) ?? [], `${screen}: English default actor`).toEqual([])
}

async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: ja.app.mainNav }).getByRole('link', { name }).click()
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible()
}

test('Japanese UI in an English browser: months, days and the unnamed actor are Japanese', async ({
  page,
  webHost,
}) => {
  test.setTimeout(180_000)
  expect(await page.evaluate(() => navigator.language)).toBe('en-US')
  await page.addInitScript(() => localStorage.setItem('closebook.locale', 'ja'))
  await page.goto(webHost.launchUrl)
  await page.getByRole('button', { name: ja.connections.tryDemo }).click()
  await expect(page.getByTestId('sync-state')).toHaveText(ja.sync.state.done, { timeout: 120_000 })

  // Ledger: the month, then a day, then a range, each a group of labelled Japanese selects.
  await nav(page, ja.ledger.title)
  const count = page.getByTestId('ledger-count')
  await expect(count).toHaveText(/^[1-9][\d,]* 件\s*$/)
  const all = (await count.textContent()) ?? ''
  const period = page.getByRole('group', { name: ja.ledger.period, exact: true })
  await expect(period.getByRole('combobox', { name: ja.labels.dateParts.year })).toBeVisible()
  await chooseDate(page, ja.ledger.period, '2026-10')
  await expect(period.getByRole('combobox', { name: ja.labels.dateParts.month })).toHaveValue('10')
  await expect(period.locator('select[data-part="month"] option:checked')).toHaveText('10月')
  await expect(period.locator('select[data-part="year"] option:checked')).toHaveText('2026年')
  await expect(count).not.toHaveText(all)
  await expect(count).toHaveText(/^[1-9][\d,]* 件\s*$/)
  await expectAppLanguageOnly(page, 'ledger (month)')

  // A mark with no name set in Settings (the month's rows are final: a filter change would clear the
  // selection): the audit log says who in Japanese.
  const grid = page.getByRole('grid', { name: ja.ledger.gridLabel })
  await grid.locator('.grid-row[aria-rowindex="2"]').getByRole('checkbox').check()
  await page.getByRole('button', { name: ja.ledger.markSelected }).click()
  await expect(page.getByTestId('ledger-notice')).toHaveText(
    ja.ledger.notices.marked.replace('{changed}', '1'),
  )
  const audit = page.getByRole('table', { name: ja.ledger.audit })
  await expect(audit.getByRole('row').nth(1)).toContainText(ja.labels.actor.default)
  await expectAppLanguageOnly(page, 'ledger (audit log)')

  // Keyboard: the month select answers arrow keys like any select.
  await period.getByRole('combobox', { name: ja.labels.dateParts.month }).focus()
  await page.keyboard.press('ArrowUp')
  await expect(period.locator('select[data-part="month"] option:checked')).toHaveText('9月')
  await chooseDate(page, ja.ledger.period, '2026-10')

  const kind = page.getByRole('combobox', { name: ja.ledger.periodKind, exact: true })
  await kind.selectOption('day')
  const day = page.getByRole('group', { name: ja.ledger.day, exact: true })
  await expect(day.locator('select[data-part="day"] option').nth(5)).toHaveText('5日')
  await chooseDate(page, ja.ledger.day, '2026-10-05')
  await expect(day.locator('select[data-part="day"] option:checked')).toHaveText('5日')
  await expectAppLanguageOnly(page, 'ledger (day)')
  await kind.selectOption('range')
  await chooseDate(page, ja.ledger.rangeFrom, '2026-10-01')
  await chooseDate(page, ja.ledger.rangeTo, '2026-10-31')
  await expectAppLanguageOnly(page, 'ledger (range)')

  // Month-end: the same control, the chosen month in Japanese.
  await nav(page, ja.monthEnd.title)
  await chooseDate(page, ja.ledger.period, '2026-10')
  const monthEnd = page.getByRole('group', { name: ja.ledger.period, exact: true })
  await expect(monthEnd.locator('select[data-part="month"] option:checked')).toHaveText('10月')
  await expect(monthEnd.locator('select[data-part="year"] option:checked')).toHaveText('2026年')
  await expect(page.getByTestId('month-zone')).toContainText('日本標準時')
  await expectAppLanguageOnly(page, 'month-end')

  // Settings: the name field starts empty rather than holding the English token.
  await nav(page, ja.settings.title)
  await expect(page.getByLabel(ja.settings.actorName)).toHaveValue('')
  await expectAppLanguageOnly(page, 'settings')

  // The same screens in English still read as English ("October"), from the app, not the browser.
  await page.evaluate(() => localStorage.setItem('closebook.locale', 'en'))
  await page.addInitScript(() => localStorage.setItem('closebook.locale', 'en'))
  await page.reload()
  await page
    .getByRole('navigation', { name: en.app.mainNav })
    .getByRole('link', { name: en.monthEnd.title })
    .click()
  await chooseDate(page, en.ledger.period, '2026-10')
  await expect(
    page
      .getByRole('group', { name: en.ledger.period, exact: true })
      .locator('select[data-part="month"] option:checked'),
  ).toHaveText('October')
})
