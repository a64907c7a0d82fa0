import { readFileSync } from 'node:fs'
import { readYayoi } from '../integration/journal/vendor-rules'
import { openDemoAndSync } from './support/demo'
import { expect, test } from './support/web-host'
import { chooseDate } from './support/date-parts'

test.describe('journal entries on the web host', () => {
  test('settings per connection → Month-end → Yayoi file asked for an unclosed month, parsed, tied to the preview', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(120_000)
    await openDemoAndSync(page, webHost.launchUrl)

    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    await nav.getByRole('link', { name: 'Settings' }).click()
    const settings = page.getByRole('region', { name: 'Journal entries (posting to accounting software)' })
    await settings.getByLabel('Tax class of the fee').selectOption('nonTaxable')
    // A refused value is named and nothing is stored.
    await settings.getByLabel('Sales account').fill('=cmd')
    await settings.getByRole('button', { name: 'Save journal settings' }).click()
    await expect(settings.getByRole('alert')).toContainText('may not start with')
    await settings.getByLabel('Sales account').fill('売上高')
    await settings.getByRole('button', { name: 'Save journal settings' }).click()
    await expect(settings.getByRole('status')).toHaveText('Journal settings saved.')

    await nav.getByRole('link', { name: 'Month-end' }).click()
    await chooseDate(page, 'Month', '2026-10')
    const journal = page.getByRole('region', { name: 'Journal entries for accounting software' })
    const preview = journal.getByTestId('journal-preview')
    await expect(preview).toContainText('vouchers')
    await expect(journal.getByTestId('journal-exceptions')).toContainText('no conversion rate given')
    const sales = Number(
      /sales ¥([\d,]+)/.exec((await preview.textContent()) ?? '')?.[1]?.replaceAll(',', ''),
    )
    expect(sales).toBeGreaterThan(0)

    await journal.getByLabel('Format').selectOption('yayoi')
    await journal.getByRole('button', { name: 'Export journal entries…' }).click()
    const confirm = journal.getByRole('alertdialog')
    await expect(confirm).toContainText('not closed')
    await expect(confirm.getByRole('button', { name: 'Export anyway' })).toBeFocused()
    const first = page.waitForEvent('download')
    await confirm.getByRole('button', { name: 'Export anyway' }).click()
    const yayoi = await first
    expect(yayoi.suggestedFilename()).toBe('closebook-journal-yayoi-2026-10.txt')
    const vouchers = readYayoi(new Uint8Array(readFileSync(await yayoi.path())))
    const credited = vouchers.flatMap((v) => v.rows).filter((r) => r.credit === '売上高')
    expect(credited.reduce((s, r) => s + r.creditAmount, 0)).toBe(sales)
    expect(vouchers.flatMap((v) => v.rows).some((r) => r.debitTax === '非課仕入')).toBe(true)
    await expect(journal.getByTestId('journal-written')).toContainText('closebook-journal-2026-10-trace.csv')
  })
})
