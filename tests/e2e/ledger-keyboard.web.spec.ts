import { CountingKeyboard, syncDemo } from './support/keyboard'
import { expect, test } from './support/web-host'
import { chooseDate } from './support/date-parts'

test.describe('ledger from the keyboard', () => {
  test('reach the grid, select two non-adjacent rows, mark with a note, undo: under 15 presses from the grid', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(120_000)
    await syncDemo(page, webHost.launchUrl)
    const keys = new CountingKeyboard(page)
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Ledger' })
      .click()
    // The view moves focus to its heading and says where we are.
    await expect(page.getByRole('heading', { level: 1, name: 'Ledger' })).toBeFocused()
    await expect(page).toHaveTitle('Ledger — Closebook')
    const grid = page.getByRole('grid', { name: 'Ledger records' })
    await expect(grid.getByRole('row').nth(1)).toBeVisible()

    // Reaching the grid: no sort button, resize handle or row checkbox is a tab stop.
    let tabs = 0
    while (!(await grid.evaluate((g) => g === document.activeElement)) && tabs < 40) {
      await keys.press('Tab')
      tabs++
    }
    await expect(grid).toBeFocused()
    expect(tabs).toBeLessThan(30)

    const fromGrid = keys.presses
    const active = () => grid.getAttribute('aria-activedescendant')
    expect(await active()).toBe('ledger-row-0')
    await keys.press('Space') // row 1 selected
    await keys.press('ArrowDown', 2) // moves without changing the selection
    await expect(page.getByTestId('ledger-count')).toContainText('1 selected')
    expect(await active()).toBe('ledger-row-2')
    await keys.press('Space') // row 3: two non-adjacent rows
    await expect(page.getByTestId('ledger-count')).toContainText('2 selected')
    await expect(grid.locator('#ledger-row-1')).toHaveAttribute('aria-selected', 'false')

    await keys.press('n')
    await expect(page.getByLabel('Note for the marked records')).toBeFocused()
    await keys.type('ok')
    await keys.press('Enter') // note on the selection, focus back in the grid
    await expect(grid).toBeFocused()
    await keys.press('m')
    await expect(page.getByTestId('ledger-notice')).toHaveText('Done: 2 changed.')
    await expect(grid).toBeFocused()
    await expect(grid.getByRole('gridcell', { name: 'ok', exact: true })).toHaveCount(2)
    await keys.press('Control+z')
    await expect(page.getByTestId('ledger-notice')).toHaveText('Undone: 2 restored.')
    await expect(grid).toBeFocused()
    expect(keys.presses - fromGrid).toBeLessThan(15)

    // Up from the first row reaches the header; Enter sorts; Down comes back.
    await keys.press('Home')
    await keys.press('ArrowUp')
    expect(await active()).toBe('ledger-head-date')
    await keys.press('ArrowRight')
    expect(await active()).toBe('ledger-head-store')
    await keys.press('ArrowDown')
    expect(await active()).toBe('ledger-row-0')

    // Enter opens the details, Escape returns; Ctrl+A selects every matching record with its count.
    await keys.press('Enter')
    await expect(page.getByRole('region', { name: /Record details/ })).toBeFocused()
    await keys.press('Escape')
    await expect(grid).toBeFocused()
    await keys.press('Control+a')
    await expect(page.getByTestId('ledger-count')).toContainText(/all [\d,]+ matching selected/)

    // One Tab leaves the grid.
    await keys.press('Escape')
    await keys.press('Tab')
    await expect(grid).not.toBeFocused()
  })

  test('header and body scroll sideways together; Reconciled and Note can be reached at 1360×860', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(120_000)
    await page.setViewportSize({ width: 1360, height: 860 })
    await syncDemo(page, webHost.launchUrl)
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Ledger' })
      .click()
    const grid = page.getByRole('grid', { name: 'Ledger records' })
    await expect(grid.getByRole('row').nth(1)).toBeVisible()
    const viewport = grid.locator('.grid-viewport')
    await viewport.evaluate((v) => (v.scrollLeft = v.scrollWidth))
    const note = grid.getByRole('columnheader', { name: 'Note' })
    await expect(note).toBeInViewport()
    const head = await note.boundingBox()
    const cell = await grid.locator('#ledger-row-0 .c-note').boundingBox()
    expect(Math.abs((head?.x ?? 0) - (cell?.x ?? -100))).toBeLessThan(1)
  })

  test('the skip link focuses the content without changing the route; the close link leads to the Month-end heading', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(120_000)
    await syncDemo(page, webHost.launchUrl)
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Ledger' })
      .click()
    await expect(page.getByRole('heading', { level: 1, name: 'Ledger' })).toBeFocused()
    const url = page.url()
    await page.keyboard.press('Shift+Tab') // back to the top of the page order is not guaranteed: use the link
    await page.getByRole('link', { name: 'Skip to content' }).focus()
    await page.keyboard.press('Enter')
    expect(page.url()).toBe(url)
    await expect(page.locator('#main-content')).toBeFocused()
    await expect(page.getByRole('heading', { level: 1, name: 'Ledger' })).toBeVisible()

    // Closing and reopening moved to Month-end: the ledger links there, and the link is one tab stop.
    await chooseDate(page, 'Month', '2026-09')
    await page.getByTestId('close-in-month-end').focus()
    await page.keyboard.press('Enter')
    await expect(page).toHaveTitle('Month-end — Closebook')
    await expect(page.getByRole('heading', { level: 1, name: 'Month-end' })).toBeFocused()
  })
})
