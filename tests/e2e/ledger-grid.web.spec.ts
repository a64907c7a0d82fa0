import type { Locator } from '@playwright/test'
import { FINAL_COUNT, openDemoAndSync } from './support/demo'
import { expect, test } from './support/web-host'
import { chooseDate } from './support/date-parts'
import { storedSetting } from './support/stored-setting'

/** Parses a ledger amount cell ("￥1,234", "-$12.50", "−¥300") into a signed number. */
function amountOf(text: string): number {
  const negative = /^[-−]/.test(text.trim())
  const digits = text.replace(/[^\d.]/g, '')
  return (negative ? -1 : 1) * Number(digits)
}

async function columnTexts(grid: Locator, cls: string, n: number): Promise<string[]> {
  const cells = grid.locator(`.grid-viewport [role="gridcell"].${cls}`)
  await expect(cells.nth(n - 1)).toBeVisible()
  return (await cells.allTextContents()).slice(0, n)
}

test.describe('ledger grid on the web host', () => {
  test('sorts by a column, resizes a column (remembered), filters by day, range, brand and a name, shows fee and net', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(180_000)
    await openDemoAndSync(page, webHost.launchUrl)
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Ledger' })
      .click()
    const count = page.getByTestId('ledger-count')
    await expect(count).toHaveText(FINAL_COUNT)
    const allMonths = (await count.textContent()) ?? ''
    const grid = page.getByRole('grid', { name: 'Ledger records' })

    await chooseDate(page, 'Month', '2026-09')
    await expect(count).not.toHaveText(allMonths)
    await expect(count).toHaveText(FINAL_COUNT)
    const september = (await count.textContent()) ?? ''
    // Amounts compare within one currency and one sign: yen charges only while sorting.
    await page.getByRole('combobox', { name: 'Currency', exact: true }).selectOption('JPY')
    await page.getByRole('combobox', { name: 'Type', exact: true }).selectOption('charge')
    await expect(count).not.toHaveText(september)
    await expect(count).toHaveText(FINAL_COUNT)
    const yenCharges = (await count.textContent()) ?? ''

    // Sort by amount: ascending, then descending; the header says which.
    const amountHeader = grid.getByRole('columnheader', { name: 'Amount', exact: true })
    await amountHeader.getByRole('button').click()
    await expect(amountHeader).toHaveAttribute('aria-sort', 'ascending')
    await expect(grid.getByRole('columnheader', { name: /^Date and time/ })).not.toHaveAttribute('aria-sort')
    // The sort applies after the filter debounce: wait until the first rows are in order.
    const sortedWithin = async (dir: 1 | -1): Promise<boolean> => {
      const v = (await columnTexts(grid, 'c-amount', 10)).map(amountOf)
      return v.every((x, i) => i === 0 || dir * (x - (v[i - 1] ?? 0)) >= 0)
    }
    await expect.poll(() => sortedWithin(1)).toBe(true)
    await expect(grid).toHaveAttribute('aria-busy', 'false')
    const up = (await columnTexts(grid, 'c-amount', 10)).map(amountOf)
    await amountHeader.getByRole('button').click()
    await expect(amountHeader).toHaveAttribute('aria-sort', 'descending')
    await expect.poll(() => sortedWithin(-1)).toBe(true)
    await expect(grid).toHaveAttribute('aria-busy', 'false')
    const down = (await columnTexts(grid, 'c-amount', 10)).map(amountOf)
    expect(down[0]).toBeGreaterThan(up[0] ?? 0)
    await expect(count).toHaveText(yenCharges)
    await page.getByRole('combobox', { name: 'Currency', exact: true }).selectOption({ index: 0 })
    await page.getByRole('combobox', { name: 'Type', exact: true }).selectOption({ index: 0 })
    await expect(count).toHaveText(september)

    // Fee and net: a successful charge with a fee nets to amount − fee.
    const first = grid.locator('.grid-body [role="row"]').first()
    const amount = amountOf((await first.locator('.c-amount').textContent()) ?? '')
    const feeText = (await first.locator('.c-fee').textContent()) ?? ''
    const net = amountOf((await first.locator('.c-net').textContent()) ?? '')
    expect(net).toBe(amount - (feeText.trim() ? amountOf(feeText) : 0))

    // Resize the Store column from the keyboard; the width survives a reload.
    // The header is reached with Up from the first row; Shift + arrows resize the focused column.
    const handle = grid.getByRole('separator', { name: 'Resize column Store (Shift + arrow keys)' })
    const before = Number(await handle.getAttribute('aria-valuenow'))
    await grid.focus()
    await page.keyboard.press('Home')
    await page.keyboard.press('ArrowUp')
    await page.keyboard.press('ArrowRight')
    await expect(grid).toHaveAttribute('aria-activedescendant', 'ledger-head-store')
    await page.keyboard.press('Shift+ArrowRight')
    await page.keyboard.press('Shift+ArrowRight')
    await expect(handle).toHaveAttribute('aria-valuenow', String(before + 32))
    const storeCell = grid.locator('.grid-viewport [role="gridcell"].c-store').first()
    expect((await storeCell.boundingBox())?.width).toBeCloseTo(before + 32, 0)
    await expect.poll(() => storedSetting(page, 'ledgerColumnWidths')).toMatchObject({ store: before + 32 })
    await page.reload()
    await expect(count).toHaveText(FINAL_COUNT)
    await expect(
      grid.getByRole('separator', { name: 'Resize column Store (Shift + arrow keys)' }),
    ).toHaveAttribute('aria-valuenow', String(before + 32))

    // A day, then a custom range, in the accounting time zone.
    await page.getByRole('combobox', { name: 'Period', exact: true }).selectOption('day')
    await chooseDate(page, 'Day', '2026-09-15')
    // Filters apply after a debounce: poll until the rows shown are all of that day, and the count is final.
    const dateCells = grid.locator('.grid-viewport [role="gridcell"].c-date')
    await expect
      .poll(async () => {
        const dates = await dateCells.allTextContents()
        return dates.length > 0 && dates.every((d) => /^09\/15\/2026, /.test(d))
      })
      .toBe(true)
    await expect(count).toHaveText(FINAL_COUNT)
    const dayCount = Number(((await count.textContent()) ?? '').replace(/\D/g, ''))
    expect(dayCount).toBeLessThan(Number(september.replace(/\D/g, '')))

    await page.getByRole('combobox', { name: 'Period', exact: true }).selectOption('range')
    await chooseDate(page, 'From (day)', '2026-09-15')
    await chooseDate(page, 'To (day, inclusive)', '2026-09-16')
    // Two days: more than the one, fewer than the month, and only those days shown.
    await expect
      .poll(async () => {
        const text = (await count.textContent()) ?? ''
        const n = Number(text.replace(/\D/g, ''))
        const dates = await dateCells.allTextContents()
        return (
          FINAL_COUNT.test(text) &&
          n > dayCount &&
          n < Number(september.replace(/\D/g, '')) &&
          dates.every((d) => /^09\/1[56]\/2026, /.test(d))
        )
      })
      .toBe(true)

    // Brand: every row shown is of that brand.
    const rangeCount = (await count.textContent()) ?? ''
    await page.getByRole('combobox', { name: 'Brand', exact: true }).selectOption('visa')
    const brandCells = grid.locator('.grid-viewport [role="gridcell"].c-brand')
    await expect
      .poll(async () => {
        const brands = await brandCells.allTextContents()
        return brands.length > 0 && brands.every((b) => b.trim() === 'Visa')
      })
      .toBe(true)
    await expect(count).toHaveText(FINAL_COUNT)
    await expect(count).not.toHaveText(rangeCount)

    // Search by the first word of a shown cardholder's name (which the e-mail may hold too): the count is
    // final and no larger than the brand's, and the rows shown include that name.
    const brandText = (await count.textContent()) ?? ''
    const brandCount = Number(brandText.replace(/\D/g, ''))
    const holderCells = grid.locator('.grid-viewport [role="gridcell"].c-holder')
    const holders = (await holderCells.allTextContents()).map((h) => h.trim()).filter((h) => /^\S+/.test(h))
    const word = (holders[0] ?? '').split(/\s+/)[0]!.toLowerCase()
    expect(word).not.toBe('')
    await page.getByLabel('Search (id, order number, name, e-mail, last four)').fill(word)
    await expect(count).not.toHaveText(brandText)
    await expect
      .poll(async () => {
        const text = (await count.textContent()) ?? ''
        const names = await holderCells.allTextContents()
        return (
          FINAL_COUNT.test(text) &&
          Number(text.replace(/\D/g, '')) <= brandCount &&
          names.some((n) => n.toLowerCase().split(/\s+/).includes(word))
        )
      })
      .toBe(true)
  })
})
