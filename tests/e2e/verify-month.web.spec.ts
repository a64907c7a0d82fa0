import { openDemoAndSync } from './support/demo'
import { expect, test } from './support/web-host'
import { chooseDate } from './support/date-parts'

test.describe('verify month on the web host', () => {
  test('Month-end and Ledger offer "Verify month"; a run is remembered with what changed', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(150_000)
    await openDemoAndSync(page, webHost.launchUrl)

    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Month-end' })
      .click()
    await chooseDate(page, 'Month', '2026-09')
    // The month chosen stays shown: the slower read of the month the page opened on never replaces it.
    await expect(page.getByRole('heading', { name: 'Before closing September 2026' })).toBeVisible()
    const last = page.getByTestId('verify-last')
    await expect(last).toHaveText('This month has not been verified with the service yet.')
    await page.getByRole('button', { name: 'Verify September 2026 with the service' }).click()
    await expect(last).toContainText('Last verified', { timeout: 90_000 })
    await expect(last).toContainText(/records? changed then|no record changed then/)
    await expect(last).toContainText('no change since')

    // Remembered per month: another month is not verified; back to September, it still is.
    await chooseDate(page, 'Month', '2026-08')
    await expect(last).toHaveText('This month has not been verified with the service yet.')

    // The Ledger offers it once a month is chosen, and knows September was verified.
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Ledger' })
      .click()
    await expect(page.getByRole('button', { name: /^Verify .* with the service$/ })).toHaveCount(0)
    await chooseDate(page, 'Month', '2026-09')
    await expect(page.getByRole('button', { name: 'Verify September 2026 with the service' })).toBeVisible()
    // The ledger reads the month's digest after its own first page: allow it the time a loaded machine takes.
    await expect(page.getByTestId('verify-last')).toContainText('Last verified', { timeout: 30_000 })
  })
})
