import { expect, test } from './support/web-host'

test.describe('app frame on the web host', () => {
  test('shows the frame in English, then in Japanese, with named controls', async ({ page, webHost }) => {
    await page.goto(webHost.launchUrl)
    // The token leaves the address bar as soon as the renderer has read it.
    await expect(page).not.toHaveURL(/token=/)

    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    for (const name of ['Connections', 'Ledger', 'Month-end', 'Settings']) {
      await expect(nav.getByRole('link', { name })).toBeVisible()
    }
    await expect(page.getByRole('heading', { level: 1, name: 'Connections' })).toBeVisible()
    await expect(page.getByTestId('host-kind')).toHaveText('Web host (this computer only)')

    await nav.getByRole('link', { name: 'Settings' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible()
    await expect(page.getByTestId('app-version')).toHaveText(/^Version \d+\.\d+\.\d+/)

    await page.getByRole('combobox', { name: 'Language' }).selectOption('ja')
    const navJa = page.getByRole('navigation', { name: 'メインナビゲーション' })
    for (const name of ['接続', '台帳', '月次締め', '設定']) {
      await expect(navJa.getByRole('link', { name })).toBeVisible()
    }
    await expect(page.getByRole('heading', { level: 1, name: '設定' })).toBeVisible()
    await expect(page.locator('html')).toHaveAttribute('lang', 'ja')

    // The choice survives a reload (and the reload still has its session token).
    await page.reload()
    await expect(page.getByRole('combobox', { name: '言語' })).toHaveValue('ja')
    await expect(page.getByTestId('app-version')).toHaveText(/^バージョン/)
  })

  test('runs under a CSP that refuses injected inline script', async ({ page, webHost }) => {
    const response = await page.goto(webHost.launchUrl)
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'")
    await expect(page.getByRole('navigation')).toBeVisible()
    const ran = await page.evaluate(() => {
      const script = document.createElement('script')
      script.textContent = 'window.__injected = true'
      document.body.append(script)
      return (window as unknown as { __injected?: boolean }).__injected === true
    })
    expect(ran).toBe(false)
  })

  test('a page without the token cannot call the API', async ({ page, webHost }) => {
    await page.goto(`${webHost.origin}/#/settings`)
    await expect(page.getByRole('alert').first()).toContainText('session token')
    const status = await page.evaluate(async () => {
      const r = await fetch('/api/call/app:info', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      })
      return r.status
    })
    expect(status).toBe(401)
  })
})
