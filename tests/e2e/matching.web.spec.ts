import { readFileSync } from 'node:fs'
import Encoding from 'encoding-japanese'
import Papa from 'papaparse'
import { FINAL_COUNT, openDemoAndSync } from './support/demo'
import { expect, test } from './support/web-host'

test.describe('matching on the web host', () => {
  test('imports a Shift_JIS order export made from the synced data, proposes, accepts, refuses a re-import', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(120_000)
    await openDemoAndSync(page, webHost.launchUrl)

    // The shop's own orders: October's successful JPY charges as the ledger exports them…
    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    await nav.getByRole('link', { name: 'Ledger' }).click()
    const count = page.getByTestId('ledger-count')
    await expect(count).toHaveText(FINAL_COUNT)
    const allMonths = (await count.textContent()) ?? ''
    await page.getByLabel('Month', { exact: true }).fill('2026-10')
    await page.getByLabel('Month', { exact: true }).dispatchEvent('change')
    // Each filter applies after a short debounce; wait for its final count before the next one.
    await expect(count).not.toHaveText(allMonths)
    await expect(count).toHaveText(FINAL_COUNT)
    for (const [label, value] of [
      ['Type', 'charge'],
      ['Status', 'successful'],
      ['Currency', 'JPY'],
    ] as const) {
      const before = (await count.textContent()) ?? ''
      await page.getByRole('combobox', { name: label, exact: true }).selectOption(value)
      await expect(count).not.toHaveText(before)
      await expect(count).toHaveText(FINAL_COUNT)
    }
    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Export these records as CSV…' }).click()
    const ledger = Papa.parse<Record<string, string>>(
      readFileSync(await (await download).path(), 'utf8').replace(/^\uFEFF/, ''),
      {
        header: true,
        skipEmptyLines: true,
      },
    ).data
    const withOrder = ledger.filter((r) => r['Order'])
    expect(withOrder.length).toBeGreaterThan(50)

    // …with what real exports have: some orders missing, some amounts off, one line twice.
    const lines = ['注文番号,注文日,金額,通貨,顧客']
    const kept = withOrder.slice(0, 40)
    kept.forEach((r, i) => {
      const amount = Number(r['Amount']) + (i % 10 === 9 ? 1 : 0)
      lines.push(
        `${r['Order']},${(r['Created'] ?? '').slice(0, 10).replace(/-/g, '/')},"${amount.toLocaleString('en-US')}",JPY,${r['Cardholder']}`,
      )
    })
    lines.push(lines[1] as string) // a duplicated line
    const sjis = Uint8Array.from(
      Encoding.convert(Encoding.stringToCode(lines.join('\r\n') + '\r\n'), { to: 'SJIS', from: 'UNICODE' }),
    )

    await nav.getByRole('link', { name: 'Matching' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Matching' })).toBeVisible()
    await page.getByRole('combobox', { name: 'Kind of file' }).selectOption('orders')
    await page
      .getByLabel('CSV or Excel file')
      .setInputFiles({ name: '注文一覧-2026-10.csv', mimeType: 'text/csv', buffer: Buffer.from(sjis) })
    await expect(page.getByText(/41 lines, read as shift_jis/)).toBeVisible()
    await expect(page.getByRole('combobox', { name: 'Order number column' })).toHaveValue('注文番号')
    await expect(page.getByRole('combobox', { name: 'Amount column' })).toHaveValue('金額')
    await page.getByRole('button', { name: 'Import and match' }).click()
    await expect(page.getByTestId('match-notice')).toHaveText('41 lines imported.')

    const counts = page.getByTestId('match-counts')
    await expect(counts).toHaveText(/^[1-9]\d* proposed · \d+ ambiguous · \d+ unmatched$/)
    // The duplicated line and its original claim the same charge: both left to the accountant.
    await expect(counts).toContainText('2 ambiguous')
    const [proposed] = ((await counts.textContent()) ?? '').match(/\d+/) ?? ['0']
    expect(Number(proposed)).toBeGreaterThanOrEqual(36) // every order with its exact amount, by reference
    await page.getByRole('button', { name: 'Accept all with confidence ≥ 0.9' }).click()
    await expect(page.getByTestId('match-notice')).toHaveText(
      /^\d+ matches accepted and marked reconciled\.$/,
    )

    // The marks carry the link to their line and show in the ledger.
    await nav.getByRole('link', { name: 'Ledger' }).click()
    await page.getByRole('combobox', { name: 'Reconciliation', exact: true }).selectOption('reconciled')
    await expect(page.getByTestId('ledger-count')).toHaveText(/^(3\d|4\d) records/)

    // The same file again adds nothing.
    await nav.getByRole('link', { name: 'Matching' }).click()
    await page
      .getByLabel('CSV or Excel file')
      .setInputFiles({ name: 'again.csv', mimeType: 'text/csv', buffer: Buffer.from(sjis) })
    await page.getByRole('button', { name: 'Import and match' }).click()
    await expect(page.getByTestId('match-notice')).toContainText('already imported')
  })
})
