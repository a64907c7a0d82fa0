/**
 * An order file made to be read wrong: an ASCII header over Shift_JIS half-width kana that is also valid
 * UTF-8 (`ﾃｽ` reads as `ý`), and an unquoted `¥1,234` that splits its row into one cell too many.
 */
import Encoding from 'encoding-japanese'
import { openDemoAndSync } from './support/demo'
import { expect, test } from './support/web-host'

test('a hostile order file is read as Shift_JIS and its split row is refused with line and counts', async ({
  page,
  webHost,
}) => {
  test.setTimeout(120_000)
  await openDemoAndSync(page, webHost.launchUrl)
  const text = 'order,date,amount,memo\r\nA-1,2026/10/01,1200,ﾃｽ\r\nA-2,2026/10/02,¥1,234,ﾃｽ\r\n'
  const sjis = Uint8Array.from(Encoding.convert(Encoding.stringToCode(text), { to: 'SJIS', from: 'UNICODE' }))
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Matching' })
    .click()
  await page.getByRole('combobox', { name: 'Kind of file' }).selectOption('orders')
  await page
    .getByLabel('CSV or Excel file')
    .setInputFiles({ name: 'hostile.csv', mimeType: 'text/csv', buffer: Buffer.from(sjis) })
  await expect(page.getByText(/hostile\.csv: 1 lines, read as shift_jis/)).toBeVisible()
  const preview = page.getByRole('table', { name: 'First lines of the file' })
  await expect(preview.getByRole('cell', { name: 'ﾃｽ', exact: true })).toHaveCount(1)
  await expect(page.getByText('ý')).toHaveCount(0)
  await expect(page.getByTestId('match-preview')).toHaveText(
    '2 lines in the file: 1 rows will be imported, 0 lines skipped, 1 lines cannot be read.',
  )
  await page.getByRole('button', { name: 'Import and match' }).click()
  await expect(page.getByTestId('match-notice')).toHaveText('1 lines imported.')
  await expect(
    page.getByText(/^Line 3 has 5 cells where the header has 4, .*The line was not imported/),
  ).toBeVisible()
})
