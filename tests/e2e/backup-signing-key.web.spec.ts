import { readFileSync } from 'node:fs'
import { expect, test } from './support/web-host'

test.describe('the backup signing key on the web host', () => {
  test('exports the key under a passphrase and takes it back only with that passphrase', async ({
    page,
    webHost,
  }) => {
    await page.goto(webHost.launchUrl)
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Settings' })
      .click()
    const keychain = page.getByText('Available: credentials are stored in the system keychain.')
    await expect(keychain.or(page.getByTestId('keychain-state'))).toBeVisible()
    test.skip(!(await keychain.isVisible()), 'this host has no keychain: the signing key cannot be kept')

    const panel = page.getByRole('region', { name: 'Backup signing key' })
    const passphrase = panel.getByLabel('Passphrase (at least 10 characters)')
    await passphrase.fill('short')
    await panel.getByRole('button', { name: 'Export signing key' }).click()
    await expect(panel.getByRole('alert')).toHaveText('Choose a passphrase of at least 10 characters.')

    await passphrase.fill('correct horse battery')
    const download = page.waitForEvent('download')
    await panel.getByRole('button', { name: 'Export signing key' }).click()
    const path = await (await download).path()
    await expect(panel.getByRole('status')).toContainText('Signing key saved as closebook-signing-key.json')
    const keyFile = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
    expect(keyFile).toMatchObject({ format: 'closebook-signing-key', kdf: { name: 'scrypt' } })

    await passphrase.fill('wrong horse battery')
    await panel.getByLabel('Import signing key…').setInputFiles(path)
    await expect(panel.getByRole('alert')).toHaveText(
      'The passphrase does not open this key file, or the file is damaged.',
    )
    await passphrase.fill('correct horse battery')
    await panel.getByLabel('Import signing key…').setInputFiles(path)
    await expect(panel.getByRole('status')).toContainText('Signing key imported')
  })
})
