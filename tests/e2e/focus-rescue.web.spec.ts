import { expect, test } from './support/web-host'

/** What has focus, named: the body means focus was lost to the page. */
const focused = (page: import('@playwright/test').Page) =>
  page.evaluate(() => {
    const a = document.activeElement
    return !a || a === document.body
      ? 'body'
      : `${a.tagName.toLowerCase()} ${a.textContent?.trim().slice(0, 40) ?? ''}`
  })

test.describe('focus is never lost to the page', () => {
  test('the demo button and Sync replace or disable themselves: focus stays in their section', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(120_000)
    await page.goto(webHost.launchUrl)
    const demo = page.getByRole('button', { name: 'Try with demo data' })
    await demo.focus()
    await page.keyboard.press('Enter')
    const row = page
      .getByRole('table', { name: 'Your connections' })
      .getByRole('row', { name: /Demo merchant/ })
    await expect(row).toBeVisible()
    await expect.poll(() => focused(page)).not.toBe('body')

    // The demo's first sync runs by itself; a second one is asked for from the keyboard.
    await expect(page.getByTestId('sync-state')).toHaveText('Up to date.', { timeout: 90_000 })
    const sync = row.getByRole('button', { name: 'Sync Demo merchant' })
    await sync.focus()
    await page.keyboard.press('Enter')
    await expect(page.getByTestId('sync-state')).toHaveText('Up to date.', { timeout: 90_000 })
    await expect.poll(() => focused(page)).not.toBe('body')
  })
})
