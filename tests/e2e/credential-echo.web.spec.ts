import { startSandbox, type RunningSandbox } from '../../electron/sandbox/server'
import { startEchoProxy, type EchoProxy } from '../integration/support/echo-proxy'
import { CANARY_SECRET, CANARY_TOKEN, canaryLeaks } from '../support/canary'
import { en } from '../../src/i18n/en'
import { expect, test } from './support/web-host'

/**
 * A server that echoes the credentials back in another case or spaced out (into the merchant's and the
 * stores' names, and into an error's field list) gets none of them onto the screen: the connection test's
 * answer, its per-store lines and an error's Details are read as the user sees them.
 */
const keychain = Boolean(process.env['DBUS_SESSION_BUS_ADDRESS'])
const required = process.env['CLOSEBOOK_REQUIRE_KEYCHAIN'] === '1'

test.describe('credentials echoed by a hostile server', () => {
  let sandbox: RunningSandbox | undefined
  let echo: EchoProxy | undefined
  test.afterEach(async () => {
    await echo?.close()
    await sandbox?.close()
  })

  test('a connection test against an echoing server shows no part of the secret or app token', async ({
    page,
    webHost,
  }) => {
    if (!keychain && !required)
      console.log('skipped: no Secret Service in this session (run under scripts/with-keychain.sh)')
    test.skip(!keychain && !required, 'no Secret Service: a real connection cannot keep its credentials')
    sandbox = await startSandbox({
      seed: 9,
      stores: 2,
      records: 40,
      secret: CANARY_SECRET,
      appToken: CANARY_TOKEN,
    })
    echo = await startEchoProxy(sandbox.url)
    await page.goto(webHost.launchUrl)
    const form = en.connections.form
    await page.getByLabel(form.label, { exact: true }).fill('Echoing server')
    await page.getByLabel(form.baseUrl).fill(echo.url)
    await page.getByLabel(form.secret, { exact: true }).fill(CANARY_SECRET)
    await page.getByLabel(form.appToken).fill(CANARY_TOKEN)
    await page.getByLabel(form.storeIds).fill(sandbox.storeIds.join(', '))
    await page.getByRole('button', { name: form.submit }).click()
    const row = page.getByRole('table', { name: 'Your connections' }).getByRole('row', { name: /Echoing/ })
    await expect(row).toBeVisible()

    await row.getByRole('button', { name: 'Test connection Echoing server' }).click()
    await expect(page.getByRole('status')).toContainText('Connected to')
    await expect(page.getByTestId('store-test')).toContainText(sandbox.storeIds[0] ?? '')
    expect(echo.echoedPages).toBeGreaterThan(0)
    const answered = await page.locator('body').innerText()
    expect(answered).toContain('[redacted]')
    expect(canaryLeaks(answered)).toEqual([])

    // An error whose field list and reasons echo them: shown with its Details open.
    echo.failNext(2)
    await row.getByRole('button', { name: 'Test connection Echoing server' }).click()
    const error = page.getByTestId('error-message').or(page.getByTestId('store-test'))
    await expect(error.first()).toBeVisible()
    for (const details of await page.locator('details').all())
      await details.evaluate((d) => d.setAttribute('open', ''))
    const refused = await page.locator('body').innerText()
    expect(canaryLeaks(refused)).toEqual([])
    expect(canaryLeaks(await page.content())).toEqual([])
  })
})
