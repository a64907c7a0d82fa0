import type { Locator, Page } from '@playwright/test'
import { en, type MessageSchema } from '../../src/i18n/en'
import { ja } from '../../src/i18n/ja'
import { expect, startBuiltWebHost, test } from './support/web-host'

/**
 * The Payouts view end to end on the web host, in English and in Japanese: the demo syncs by itself, then
 * Payouts lists each currency's transfers with their period, status history, amount and fees; a
 * transfer's settled records open below it; open ledgers and the ledger reading are named. A store-scoped
 * demo token shows the words telling the user what to do.
 */

type Messages = MessageSchema

/** Every message of the payouts section that differs in Japanese, as fragments of two words or more. */
const ENGLISH_PAYOUT_FRAGMENTS = (() => {
  const out = new Set<string>()
  const walk = (e: unknown, j: unknown): void => {
    if (typeof e === 'string') {
      if (e === j) return
      for (const f of e.split(/\{[^}]*\}/).map((s) => s.trim()))
        if (/\S+ \S+/.test(f) && f.length >= 8) out.add(f)
      return
    }
    if (e && typeof e === 'object')
      for (const [k, v] of Object.entries(e)) walk(v, (j as Record<string, unknown>)?.[k])
  }
  walk(en.payouts, ja.payouts)
  return [...out]
})()

async function openDemo(page: Page, launchUrl: string, m: Messages): Promise<void> {
  await page.goto(launchUrl)
  await page.getByRole('button', { name: m.connections.tryDemo }).click()
  await expect(page.getByTestId('sync-state')).toHaveText(m.sync.state.done, { timeout: 120_000 })
  // The payouts sync after the records (ledgers, their links to the charges): the next sync is announced
  // once both are done, so the view reads them whole.
  await expect(page.getByTestId('sync-next')).toBeVisible({ timeout: 240_000 })
}

/** Opens Payouts, coming back until the payout sync that follows the records has stored its transfers. */
async function openPayouts(page: Page, m: Messages): Promise<Locator> {
  const nav = page.getByRole('navigation', { name: m.app.mainNav })
  const jpy = page.getByRole('region', { name: m.payouts.currency.replace('{currency}', 'JPY') })
  await expect(async () => {
    await nav.getByRole('link', { name: m.nav.connections }).click()
    await nav.getByRole('link', { name: m.nav.payouts }).click()
    await expect(page.getByRole('heading', { level: 1, name: m.payouts.title })).toBeVisible()
    await expect(jpy).toBeVisible({ timeout: 3_000 })
  }).toPass({ timeout: 90_000 })
  return jpy
}

async function walkPayouts(page: Page, m: Messages): Promise<void> {
  const jpy = await openPayouts(page, m)
  await expect(page.getByText(m.payouts.reading.net)).toBeVisible()
  const transfers = jpy.getByRole('table', { name: m.payouts.transfers })
  const header = transfers.getByRole('row').first()
  for (const column of [m.payouts.period, m.payouts.status, m.payouts.amount, m.payouts.fees])
    await expect(header.getByRole('columnheader', { name: column, exact: true })).toBeVisible()
  // A paid transfer: its period, its history up to Paid, a yen amount and yen fees.
  const paid = transfers
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: m.payouts.statuses.paid, exact: true }) })
    .first()
  await expect(paid.getByRole('rowheader')).toHaveText(/^\d{4}-\d{2}-\d{2} – \d{4}-\d{2}-\d{2}$/)
  const cells = paid.getByRole('cell')
  await expect(cells.nth(2)).toHaveText(/^[¥￥][\d,]+$/)
  await expect(cells.nth(3)).toHaveText(/^-?[¥￥][\d,]+$|^[¥￥]-?[\d,]+$/)
  const history = paid.getByRole('listitem')
  expect(await history.count()).toBeGreaterThan(1)
  await expect(history.last()).toContainText(`→ ${m.payouts.statuses.paid}`)

  // Its settled records open below it: charges (and refunds, manual items) with amounts.
  const show = paid.getByRole('button', { name: new RegExp(`^${m.payouts.show}`) })
  await expect(show).toHaveAttribute('aria-expanded', 'false')
  await show.click()
  await expect(paid.getByRole('button', { name: new RegExp(`^${m.payouts.hide}`) })).toHaveAttribute(
    'aria-expanded',
    'true',
  )
  // The records' table is the one in the row that opened below the transfer, named by its caption.
  const settled = jpy.getByRole('table').nth(1)
  await expect(settled).toBeVisible()
  await expect(settled.locator('caption')).toContainText(/\d{4}-\d{2}-\d{2} – \d{4}-\d{2}-\d{2}/)
  const charges = settled
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: m.payouts.origin.charge, exact: true }) })
  expect(await charges.count()).toBeGreaterThan(0)
  await expect(charges.first().getByRole('cell').nth(1)).toHaveText(/^-?[¥￥]-?[\d,]+$/)

  // Open ledgers: counted with their total, or said to be none.
  const [openBefore] = m.payouts.open.split('{count}')
  await expect(
    jpy
      .getByText(openBefore!.trim())
      .or(jpy.getByText(m.payouts.noOpen, { exact: true }))
      .first(),
  ).toBeVisible()
}

test.describe('the Payouts view on the web host', () => {
  test('English: transfers per currency with period, status history, amount, fees, records and open ledgers', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(240_000)
    await openDemo(page, webHost.launchUrl, en)
    await walkPayouts(page, en)
  })

  test('Japanese: the same walk, and no English message left in the view', async ({ page, webHost }) => {
    test.setTimeout(240_000)
    await page.addInitScript(() => localStorage.setItem('closebook.locale', 'ja'))
    await openDemo(page, webHost.launchUrl, ja)
    await walkPayouts(page, ja)
    // A status change's reason is the service's own words, shown as it sent them: not the app's text.
    const [reasonBefore] = ja.payouts.historyReason.split('{reason}')
    const text = (await page.locator('#main-content').innerText()).replace(
      new RegExp(`\\(${reasonBefore}[^)]*\\)`, 'g'),
      '',
    )
    expect(ENGLISH_PAYOUT_FRAGMENTS.filter((f) => text.includes(f))).toEqual([])
    // Statuses and origins appear as labels, never as the API spells them.
    const raw = [
      'created',
      'approved',
      'processing',
      'paid',
      'failed',
      'canceled',
      'charge',
      'refund',
      'manual',
    ]
    expect(raw.filter((w) => new RegExp(`(^|[^A-Za-z_])${w}([^A-Za-z_]|$)`).test(text))).toEqual([])
  })

  test('a store-scoped token: Payouts says the token may not read payouts and what to do', async ({
    page,
  }) => {
    test.setTimeout(240_000)
    const host = await startBuiltWebHost({ extraArgs: ['--demo-store-scoped-token'] })
    try {
      await page.goto(host.launchUrl)
      await page.getByRole('button', { name: en.connections.tryDemo }).click()
      const nav = page.getByRole('navigation', { name: en.app.mainNav })
      const [forbiddenStart] = en.payouts.forbidden.split('({code})')
      const alert = page.getByRole('alert').filter({ hasText: forbiddenStart!.trim() })
      await expect(async () => {
        await nav.getByRole('link', { name: en.nav.connections }).click()
        await nav.getByRole('link', { name: en.nav.payouts }).click()
        await expect(alert).toBeVisible({ timeout: 3_000 })
      }).toPass({ timeout: 150_000 })
      await expect(alert).toContainText('INVALID_PERMISSIONS')
      await expect(alert).toContainText('merchant-wide app token')
    } finally {
      await host.stop()
    }
  })
})
