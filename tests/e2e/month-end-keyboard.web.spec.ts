import type { Locator, Page } from '@playwright/test'
import { CountingKeyboard, syncDemo } from './support/keyboard'
import { expect, test } from './support/web-host'
import { chooseDate } from './support/date-parts'

/**
 * Tabs until `target` has focus (at most `max`), counted on `keys`. The target must be on the page first:
 * a walk towards a control that is not there fails at once, naming it, instead of waiting for the test's
 * time-out; each focus check is bounded too.
 */
async function tabTo(page: Page, keys: CountingKeyboard, target: Locator, max = 30): Promise<number> {
  await expect(target, `the Tab walk's target is on the page: ${target.toString()}`).toBeVisible()
  const focused = () => target.evaluate((el) => el === document.activeElement, undefined, { timeout: 5_000 })
  let tabs = 0
  while (!(await focused()) && tabs < max) {
    await keys.press('Tab')
    tabs++
  }
  await expect(target).toBeFocused({ timeout: 1_000 })
  return tabs
}

test.describe('month-end from the keyboard', () => {
  test('close a month with a note, reopen it with a reason, export the workbook: keys counted', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(180_000)
    await syncDemo(page, webHost.launchUrl)
    // Setup by mouse (not measured): the closer's name and the month.
    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    await nav.getByRole('link', { name: 'Settings' }).click()
    await page.getByLabel('Your name (recorded in the audit log)').fill('Hanako Sato')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await nav.getByRole('link', { name: 'Month-end' }).click()
    await chooseDate(page, 'Month', '2026-09')
    // The month chosen is the one shown before the walk starts: its checklist, not the month opened on.
    await expect(page.getByRole('heading', { name: 'Before closing September 2026' })).toBeVisible()
    await expect(page.getByTestId('check-unreconciled')).toContainText('Needs attention')
    const heading = page.getByRole('heading', { level: 1, name: 'Month-end' })
    await heading.focus()

    const keys = new CountingKeyboard(page)
    // Close: the button, the dialog (acknowledge, note, confirm), all by keyboard.
    await tabTo(page, keys, page.getByRole('button', { name: 'Close September 2026…' }))
    await keys.press('Enter')
    const closeDialog = page.getByRole('dialog', { name: 'Close September 2026' })
    await expect(closeDialog).toBeVisible()
    await tabTo(page, keys, closeDialog.getByRole('checkbox', { name: 'Close anyway: my note says why' }), 20)
    await keys.press('Space')
    await tabTo(page, keys, closeDialog.getByLabel('Note (required: why close with open items)'), 20)
    await keys.type('Settles in October')
    await tabTo(page, keys, closeDialog.getByRole('button', { name: 'Close September 2026 now' }), 20)
    await keys.press('Enter')
    await expect(page.getByTestId('close-notice')).toHaveText('September 2026 is closed.')
    await expect.poll(() => page.evaluate(() => document.activeElement !== document.body)).toBe(true)
    const closeKeys = keys.presses

    // Reopen with a reason.
    await tabTo(page, keys, page.getByRole('button', { name: 'Reopen September 2026…' }))
    await keys.press('Enter')
    const reopenDialog = page.getByRole('dialog', { name: 'Reopen September 2026' })
    await expect(reopenDialog).toBeVisible()
    await tabTo(page, keys, reopenDialog.getByLabel('Reason for reopening'), 20)
    await keys.type('Late refund')
    await tabTo(page, keys, reopenDialog.getByRole('button', { name: 'Reopen with this reason' }), 20)
    await keys.press('Enter')
    await expect(page.getByTestId('close-notice')).toHaveText('September 2026 is reopened.')
    await expect.poll(() => page.evaluate(() => document.activeElement !== document.body)).toBe(true)
    const reopenKeys = keys.presses - closeKeys

    // Export the workbook.
    const download = page.waitForEvent('download')
    await tabTo(page, keys, page.getByRole('button', { name: 'Export the month-end workbook…' }))
    await keys.press('Enter')
    expect((await download).suggestedFilename()).toMatch(/2026-09\.xlsx$/)
    await expect(page.getByTestId('export-done')).toContainText('Workbook saved')
    const exportKeys = keys.presses - closeKeys - reopenKeys

    // What it costs today, pinned so that it can only get cheaper (typed text counts a key per character).
    test.info().annotations.push({
      type: 'key presses',
      description: `close ${closeKeys}, reopen ${reopenKeys}, export ${exportKeys}`,
    })
    console.log(`[keys] close ${closeKeys}, reopen ${reopenKeys}, export ${exportKeys}`)
    expect(closeKeys).toBeLessThan(40)
    expect(reopenKeys).toBeLessThan(25)
    expect(exportKeys).toBeLessThan(10)
  })

  test('every part is reached from the section navigation by keyboard; charts open on request and stay so', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(300_000)
    await page.setViewportSize({ width: 1280, height: 900 })
    await syncDemo(page, webHost.launchUrl)
    const openMonth = async (): Promise<void> => {
      await page
        .getByRole('navigation', { name: 'Main navigation' })
        .getByRole('link', { name: 'Month-end' })
        .click()
      await chooseDate(page, 'Month', '2026-10')
      await expect(page.getByRole('heading', { name: 'Before closing October 2026' })).toBeVisible()
      await expect(page.getByTestId('check-unreconciled')).toBeVisible()
    }
    await openMonth()

    // Charts start collapsed, and then the page is no taller than four screens. Measured once the payout
    // sync has ended and its roll-forward is on the page: the page at its full height.
    await expect(page.getByTestId('check-payouts')).toHaveClass(/check-ok/, { timeout: 120_000 })
    const showCharts = page.getByRole('button', { name: 'Show charts' })
    await expect(showCharts).toHaveAttribute('aria-expanded', 'false')
    await expect(page.getByTestId('chart-daily-JPY')).toHaveCount(0)
    const height = await page.evaluate(() => document.documentElement.scrollHeight)
    console.log(`[month-end] page height with charts collapsed: ${height} px at 1280×900`)
    // A few screens: summary, totals, payouts (roll-forward and closing explained), exports, charts closed.
    expect(height).toBeLessThanOrEqual(4 * 900)

    // Each part from the navigation: its heading takes focus and comes into view.
    const parts = page.getByRole('navigation', { name: 'Parts of Month-end' })
    const keys = new CountingKeyboard(page)
    const perPart: string[] = []
    for (const name of ['Summary and checklist', 'Totals', 'Workbook and journal entries', 'Charts']) {
      await page.getByRole('heading', { level: 1, name: 'Month-end' }).focus()
      const before = keys.presses
      await tabTo(page, keys, parts.getByRole('button', { name, exact: true }), 20)
      await keys.press('Enter')
      const heading = page.getByRole('heading', { level: 2, name, exact: true })
      await expect(heading).toBeFocused()
      await expect(heading).toBeInViewport()
      perPart.push(`${name} ${keys.presses - before}`)
    }
    console.log(`[keys] to each part from the page heading: ${perPart.join(', ')}`)

    // From the Charts heading the next key is the toggle; the charts open, and stay open after a reload.
    await keys.press('Tab')
    await expect(showCharts).toBeFocused()
    await keys.press('Enter')
    const hideCharts = page.getByRole('button', { name: 'Hide charts' })
    await expect(hideCharts).toHaveAttribute('aria-expanded', 'true')
    await expect(hideCharts).toBeFocused()
    await expect(page.getByTestId('chart-daily-JPY').locator('svg').first()).toBeVisible()
    await page.reload()
    await openMonth()
    await expect(hideCharts).toHaveAttribute('aria-expanded', 'true')
    await expect(page.getByTestId('chart-totals-JPY').locator('svg').first()).toBeVisible()
    await hideCharts.click()
    await page.reload()
    await openMonth()
    await expect(showCharts).toHaveAttribute('aria-expanded', 'false')

    // The workbook from its part: a few keys from the part's heading.
    await page.getByRole('heading', { level: 1, name: 'Month-end' }).focus()
    await tabTo(page, keys, parts.getByRole('button', { name: 'Workbook and journal entries' }), 20)
    await keys.press('Enter')
    const before = keys.presses
    const download = page.waitForEvent('download')
    await tabTo(page, keys, page.getByRole('button', { name: 'Export the month-end workbook…' }), 10)
    await keys.press('Enter')
    expect((await download).suggestedFilename()).toMatch(/2026-10\.xlsx$/)
    expect(keys.presses - before).toBeLessThanOrEqual(4)
  })
})
