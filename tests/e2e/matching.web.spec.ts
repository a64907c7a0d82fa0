import { readFileSync } from 'node:fs'
import Encoding from 'encoding-japanese'
import Papa from 'papaparse'
import { FINAL_COUNT, openDemoAndSync } from './support/demo'
import { expect, test } from './support/web-host'
import { chooseDate } from './support/date-parts'

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
    await chooseDate(page, 'Month', '2026-10')
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
    // A shop's order export holds its real orders: test-mode payments are never matched.
    const withOrder = ledger.filter((r) => r['Order'] && (r['Mode'] ?? '').toLowerCase() !== 'test')
    expect(ledger.some((r) => 'Mode' in r)).toBe(true)
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
    // Each reconciled row names its order in "Matched to", and the details show the sales-side link.
    const grid = page.getByRole('grid')
    await expect(grid.getByRole('columnheader', { name: 'Matched to' })).toBeVisible()
    const matched = grid.locator('.grid-viewport [role="gridcell"].c-matched')
    await expect(matched.first()).toHaveText(/^Order .+ \(注文一覧-2026-10\.csv, line \d+\)$/)
    await grid.locator('.grid-viewport [role="gridcell"].c-date').first().click()
    const links = page.getByTestId('record-links')
    await expect(links.locator('[data-field="link-sales"]')).toHaveText(
      (await matched.first().textContent())?.trim() ?? '',
    )
    await expect(links.locator('[data-field="link-cash"]')).toHaveText('Not matched')

    // The same file again adds nothing.
    await nav.getByRole('link', { name: 'Matching' }).click()
    await page
      .getByLabel('CSV or Excel file')
      .setInputFiles({ name: 'again.csv', mimeType: 'text/csv', buffer: Buffer.from(sjis) })
    await page.getByRole('button', { name: 'Import and match' }).click()
    await expect(page.getByTestId('match-notice')).toContainText('already imported')

    // A rejected proposal stays rejected, also after leaving the page.
    await page
      .getByRole('combobox', { name: 'Imported file' })
      .selectOption({ label: '注文一覧-2026-10.csv (Order export, 41)' })
    await expect(counts).toHaveText(/^[1-9]\d* proposed/)
    const before = Number(((await counts.textContent()) ?? '').match(/\d+/)?.[0])
    await page
      .getByRole('button', { name: /^Reject the match of line \d+$/ })
      .first()
      .click()
    await expect(counts).toHaveText(new RegExp(`^${before - 1} proposed`))
    // A reload forgets everything held in memory: what is still rejected was stored.
    await page.reload()
    await nav.getByRole('link', { name: 'Matching' }).click()
    await page
      .getByRole('combobox', { name: 'Imported file' })
      .selectOption({ label: '注文一覧-2026-10.csv (Order export, 41)' })
    await expect(counts).toHaveText(new RegExp(`^${before - 1} proposed`))

    // A bank statement in MUFG's layout, chosen while "Kind of file" still says orders: recognised as a
    // bank statement, previewed, the withdrawal signed rather than refused.
    const mufg = [
      '日付,摘要,摘要内容,支払い金額,預かり金額,差引残高,メモ,未資金化区分,入払区分',
      '2026/10/20,振込１,ﾕﾆｳﾞｧﾍﾟｲ(ｶ,,"123,456","1,123,456",,,入金',
      '2026/10/21,カード,ｼｲﾚ,"4,100",,"1,119,356",,,支払い',
    ].join('\r\n')
    const mufgSjis = Uint8Array.from(
      Encoding.convert(Encoding.stringToCode(mufg + '\r\n'), { to: 'SJIS', from: 'UNICODE' }),
    )
    await page
      .getByLabel('CSV or Excel file')
      .setInputFiles({ name: 'mufg.csv', mimeType: 'text/csv', buffer: Buffer.from(mufgSjis) })
    await expect(page.getByRole('combobox', { name: 'Kind of file' })).toHaveValue('bank')
    await expect(page.getByTestId('match-layout')).toHaveText('Recognised layout: 三菱UFJ銀行 (MUFG).')
    await expect(page.getByTestId('match-preview')).toHaveText(
      '2 lines in the file: 2 rows will be imported, 0 lines skipped, 0 lines cannot be read.',
    )
    await page.getByRole('button', { name: 'Import and match' }).click()
    await expect(page.getByTestId('match-notice')).toHaveText('2 lines imported.')
    // The deposit equals no payout: the nearest one is offered with its difference, the withdrawal explained.
    await expect(counts).toHaveText('0 proposed · 1 ambiguous · 1 unmatched')
    await expect(page.getByRole('table', { name: 'Ambiguous: pick by hand' })).toContainText(
      'No payout equals the deposit ¥123,456',
    )
    // Matched by hand to that payout: its records are linked on the cash side next to their order links.
    await page
      .getByRole('button', {
        name: /^Match line 2 to the payout [\d-]+–[\d-]+ \(\d+ records, difference .+\)$/,
      })
      .first()
      .click()
    await expect(page.getByTestId('match-notice')).toHaveText('1 matches accepted and marked reconciled.')

    // The deposit link sits beside the order link: the audit log says which deposit each record was paid by.
    await nav.getByRole('link', { name: 'Ledger' }).click()
    await expect(page.getByRole('table', { name: 'Audit log' })).toContainText(
      /linked to Deposit [\d/-]+ ¥123,456 \(mufg\.csv, line 2\)/,
    )
    await nav.getByRole('link', { name: 'Matching' }).click()

    // Removing the import undoes its matches, audited; the order links stay.
    page.once('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Remove the import mufg.csv' }).click()
    await expect(page.getByTestId('match-notice')).toHaveText(
      /^Import removed; [1-9]\d* marks undone or relinked\.$/,
    )
    await expect(page.getByRole('combobox', { name: 'Imported file' })).not.toContainText('mufg.csv')
  })
})
