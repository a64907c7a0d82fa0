/**
 * Under a 429 storm every sync call waits for the rate limit. Chromium opens at most six connections per
 * host for the whole profile, so calls held open while they wait would leave none for Cancel or another
 * tab. The web host answers every call within a quarter of a second (pending calls are collected with one
 * wait per tab), so Cancel and a second tab still get through.
 */
import { expect, startBuiltWebHost, test } from './support/web-host'

test('Cancel and a second tab get through while a 429 storm holds every sync call', async ({
  page,
  context,
}) => {
  test.setTimeout(90_000)
  // 429 for all but the first few milliseconds of every ten minutes, with Retry-After up to ten minutes.
  const host = await startBuiltWebHost({ extraArgs: ['--demo-storm', '600000:599990'] })
  try {
    await page.goto(host.launchUrl)
    // The demo's first sync starts by itself.
    await page.getByRole('button', { name: 'Try with demo data' }).click()
    await expect(page.getByText(/Waiting for the rate limit until/)).toBeVisible({ timeout: 20_000 })
    // Let every partition's call queue behind the storm (more than six of them).
    await page.waitForTimeout(3_000)

    const second = await context.newPage()
    const loaded = Date.now()
    await second.goto(host.launchUrl)
    // The page loads and its first call (the connection list) is answered.
    await expect(
      second.getByRole('table', { name: 'Your connections' }).getByRole('row', { name: /Demo merchant/ }),
    ).toBeVisible({ timeout: 10_000 })
    expect(Date.now() - loaded).toBeLessThan(10_000)
    await second.close()

    await page.getByRole('button', { name: 'Cancel sync' }).click()
    await expect(page.getByTestId('sync-state')).toHaveText(
      'Stopped. Sync again to resume where it stopped.',
      { timeout: 10_000 },
    )
  } finally {
    await host.stop()
  }
})
