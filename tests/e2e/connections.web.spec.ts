import { expect, test } from './support/web-host'

test.describe('connections on the web host', () => {
  test('"Try with demo data" starts the sandbox, registers the demo connection, and it answers a test', async ({
    page,
    webHost,
  }) => {
    await page.goto(webHost.launchUrl)
    await expect(page.getByRole('heading', { level: 1, name: 'Connections' })).toBeVisible()
    await page.getByRole('button', { name: 'Try with demo data' }).click()

    const table = page.getByRole('table', { name: 'Your connections' })
    const row = table.getByRole('row', { name: /Demo merchant/ })
    await expect(row).toBeVisible()
    await expect(row).toContainText('Demo')
    await expect(row).toContainText('3 stores')
    await expect(row).toContainText('Asia/Tokyo')
    await expect(row).toContainText(/http:\/\/127\.0\.0\.1:\d+/)

    // The demo's first sync starts by itself.
    await expect(page.getByTestId('sync-state')).toHaveText(/Syncing|Up to date/)
    await expect(page.getByTestId('sync-state')).toHaveText('Up to date.', { timeout: 90_000 })
    await expect(row.getByTestId('last-synced')).not.toHaveText('Never synced')

    await row.getByRole('button', { name: 'Test connection Demo merchant' }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Connected to' })).toBeVisible()

    // Nothing the page received holds a credential: the demo's secret never left main.
    const html = await page.content()
    expect(html).not.toMatch(/sk_sandbox_/)
  })
})
