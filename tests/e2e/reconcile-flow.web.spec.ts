import ExcelJS from 'exceljs'
import { FINAL_COUNT } from './support/demo'
import { expect, test } from './support/web-host'

test.describe('month-end flow on the web host', () => {
  test('demo → sync → filter a month → mark with a note → undo → mark all → close → refused → reopen → audit', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(120_000)
    await page.goto(webHost.launchUrl)
    await page.getByRole('button', { name: 'Try with demo data' }).click()
    const row = page
      .getByRole('table', { name: 'Your connections' })
      .getByRole('row', { name: /Demo merchant/ })
    await row.getByRole('button', { name: 'Sync Demo merchant' }).click()
    await expect(page.getByTestId('sync-state')).toHaveText(/Syncing|Up to date/)
    await expect(page.getByRole('progressbar', { name: 'Sync progress' })).toBeVisible()
    await expect(page.getByTestId('sync-state')).toHaveText('Up to date.', { timeout: 90_000 })
    await expect(page.getByTestId('sync-counts')).toHaveText(
      /^[\d,]+ of [\d,]+ charges and refunds · [\d,]+ of [\d,]+ charge-list records/,
    )

    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Ledger' })
      .click()
    await expect(page.getByRole('heading', { level: 1, name: 'Ledger' })).toBeVisible()
    const count = page.getByTestId('ledger-count')
    await expect(count).toHaveText(FINAL_COUNT)

    // Column choice is remembered across a reload.
    const grid0 = page.getByRole('grid', { name: 'Ledger records' })
    await expect(grid0.getByRole('columnheader', { name: 'Brand' })).toBeVisible()
    await page.getByText('Columns', { exact: true }).click()
    await page.getByRole('checkbox', { name: 'Brand' }).uncheck()
    await expect(grid0.getByRole('columnheader', { name: 'Brand' })).toHaveCount(0)
    await page.reload()
    await expect(count).toHaveText(FINAL_COUNT)
    await expect(grid0.getByRole('columnheader', { name: 'Cardholder' })).toBeVisible()
    await expect(grid0.getByRole('columnheader', { name: 'Brand' })).toHaveCount(0)

    const allMonths = (await count.textContent()) ?? ''
    await page.getByLabel('Month', { exact: true }).fill('2026-09')
    await page.getByLabel('Month', { exact: true }).dispatchEvent('change')
    // Wait for September's rows and count: selecting before the filter applies would be cleared by it.
    await expect(count).not.toHaveText(allMonths)
    await expect(count).toHaveText(FINAL_COUNT)
    const grid = page.getByRole('grid', { name: 'Ledger records' })
    await expect(grid.getByRole('gridcell').first()).toBeVisible()
    const boxes = grid.getByRole('checkbox')
    await boxes.nth(0).check()
    await boxes.nth(1).check()
    await expect(count).toContainText('2 selected')

    await page.getByLabel('Note for the marked records').fill('Matched to bank deposit 0915')
    await page.getByRole('button', { name: 'Mark selected as reconciled' }).click()
    await expect(page.getByTestId('ledger-notice')).toHaveText('Done: 2 changed.')
    await expect(grid.getByRole('gridcell', { name: 'Matched to bank deposit 0915' })).toHaveCount(2)

    await page.getByRole('button', { name: 'Undo last action' }).click()
    await expect(page.getByTestId('ledger-notice')).toHaveText('Undone: 2 restored.')
    await expect(grid.getByRole('gridcell', { name: 'Matched to bank deposit 0915' })).toHaveCount(0)

    // Only this month's refunds, then all of them at once.
    const allInMonth = (await count.textContent()) ?? ''
    await page.getByRole('combobox', { name: 'Type', exact: true }).selectOption('refund')
    await expect(count).not.toHaveText(allInMonth)
    await expect(count).toHaveText(/^[\d,]+ records?\s*$/)
    const matching = await count.textContent()
    const n = Number((matching ?? '').replace(/[^\d].*$/, '').replace(/,/g, ''))
    expect(n).toBeGreaterThan(0)
    await page.getByLabel('Note for the marked records').fill('')
    await page.getByRole('button', { name: `Mark all ${n} matching` }).click()
    await expect(page.getByTestId('ledger-notice')).toHaveText(`Done: ${n} changed.`)

    await page.getByRole('button', { name: 'Close 2026-09' }).click()
    await expect(
      page.getByText('2026-09 is closed: its marks cannot change until it is reopened.'),
    ).toBeVisible()

    await boxes.nth(0).check()
    await page.getByRole('button', { name: 'Unmark selected' }).click()
    await expect(page.getByRole('alert')).toHaveText(
      '2026-09 is closed. Reopen it (with a reason) before changing its marks.',
    )

    await page.getByRole('button', { name: 'Reopen 2026-09' }).click()
    await page.getByLabel('Reason for reopening').fill('Late refund found on bank statement')
    await page.getByRole('button', { name: 'Reopen with this reason' }).click()
    await expect(page.getByTestId('ledger-notice')).toHaveText('2026-09 is reopened.')
    await page.getByRole('button', { name: 'Unmark selected' }).click()
    await expect(page.getByTestId('ledger-notice')).toHaveText('Done: 1 changed.')

    const audit = page.getByRole('table', { name: 'Audit log' })
    await expect(
      audit.getByRole('row', { name: /Reopened month.*Late refund found on bank statement/ }),
    ).toBeVisible()
    await expect(audit.getByRole('row', { name: /Closed month/ })).toBeVisible()
    await expect(audit.getByRole('row', { name: /Unmarked/ })).toHaveCount(3) // undo of 2, then 1
    await expect(audit.getByRole('row', { name: /Marked.*Matched to bank deposit 0915/ })).toHaveCount(2)
    await expect(audit.getByRole('row', { name: /^\S+ \S+ accountant Marked / })).toHaveCount(2 + n)

    // The ledger's current filter as CSV.
    const csv = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Export these records as CSV…' }).click()
    expect((await csv).suggestedFilename()).toBe('closebook-ledger-2026-09.csv')

    // Month-end: the summary of September and its workbook.
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Month-end' })
      .click()
    await page.getByLabel('Month', { exact: true }).fill('2026-09')
    await page.getByLabel('Month', { exact: true }).dispatchEvent('change')
    const summary = page.getByRole('table', { name: 'Month summary per store, currency and mode' })
    await expect(summary.getByRole('row')).not.toHaveCount(1)
    await expect(page.getByTestId('month-zone')).toContainText('Asia/Tokyo')
    await expect(page.getByTestId('month-progress')).toHaveText(/^[\d,]+ of [\d,]+ records reconciled/)
    const xlsx = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Export the month-end workbook…' }).click()
    const file = await xlsx
    expect(file.suggestedFilename()).toMatch(/^closebook-.*2026-09\.xlsx$/)
    await expect(page.getByTestId('export-done')).toContainText('Workbook saved')
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(await file.path())
    expect(book.worksheets.map((w) => w.name)).toEqual([
      'Summary',
      'Transactions',
      'Charges',
      'Refunds',
      'Exceptions',
      'Audit',
    ])
    expect(book.getWorksheet('Audit')?.rowCount).toBeGreaterThan(2 + n)
  })
})
