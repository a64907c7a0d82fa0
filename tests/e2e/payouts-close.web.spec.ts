import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Locator, Page } from '@playwright/test'
import ExcelJS from 'exceljs'
import { en, type MessageSchema } from '../../src/i18n/en'
import { ja } from '../../src/i18n/ja'
import { libreOfficeMissing, recalculate } from '../integration/export/libreoffice'
import { chooseDate } from './support/date-parts'
import { expect, test } from './support/web-host'

/**
 * October closed with its payouts, in the demo, as a new user does it, in English and in Japanese: the
 * Payouts view shows October's transfer and the records it settled; Matching downloads the demo's bank
 * statement, imports it, and ties every deposit to its transfer; Month-end shows the roll-forward with
 * its closing explained in every currency, the repaid failed transfer with how it is known, the payout
 * checklist line OK; the workbook's roll-forward sheet has a Control block of 0 once LibreOffice has
 * recalculated it. Every wait is a per-step timeout, never a sleep: the machine is shared.
 */

type Messages = MessageSchema
const STEP = 60_000
const missingOffice = libreOfficeMissing()

const fill = (text: string, values: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? `{${k}}`)
/** The text before a message's first placeholder. */
const before = (text: string) => (text.split('{')[0] ?? '').trim()

async function openDemo(page: Page, launchUrl: string, m: Messages): Promise<Locator> {
  await page.goto(launchUrl)
  await page.getByRole('button', { name: m.connections.tryDemo }).click()
  await expect(page.getByTestId('sync-state')).toHaveText(m.sync.state.done, { timeout: 150_000 })
  // The payouts sync after the records: the next sync is announced once both are done.
  await expect(page.getByTestId('sync-next')).toBeVisible({ timeout: 240_000 })
  return page.getByRole('navigation', { name: m.app.mainNav })
}

/** Payouts: October's JPY transfer, paid, and the records it settled. */
async function octoberTransfer(page: Page, nav: Locator, m: Messages): Promise<void> {
  const jpy = page.getByRole('region', { name: fill(m.payouts.currency, { currency: 'JPY' }) })
  await expect(async () => {
    await nav.getByRole('link', { name: m.nav.connections }).click()
    await nav.getByRole('link', { name: m.nav.payouts }).click()
    await expect(jpy).toBeVisible({ timeout: 3_000 })
  }).toPass({ timeout: 120_000 })
  const october = jpy
    .getByRole('table', { name: m.payouts.transfers })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: /^2026-10-01 – / }) })
  await expect(october).toHaveCount(1, { timeout: STEP })
  await expect(october.getByRole('cell', { name: m.payouts.statuses.paid, exact: true })).toBeVisible()
  await october.getByRole('button', { name: new RegExp(`^${m.payouts.show}`) }).click()
  const settled = jpy.getByRole('table', {
    name: new RegExp(before(m.payouts.recordsOf)),
  })
  await expect(settled.first()).toBeVisible({ timeout: STEP })
  await expect(
    settled.first().getByRole('cell', { name: m.payouts.origin.charge, exact: true }).first(),
  ).toBeVisible()
}

/** Matching: the demo's bank statement downloaded, imported, every deposit tied to its transfer. */
async function tieDemoStatement(page: Page, nav: Locator, m: Messages, dir: string): Promise<void> {
  await nav.getByRole('link', { name: m.nav.match }).click()
  await expect(page.getByRole('heading', { level: 1, name: m.match.title })).toBeVisible({ timeout: STEP })
  const button = page.getByRole('button', { name: m.depositTie.demoDownload })
  await expect(button).toBeVisible({ timeout: STEP })
  const download = page.waitForEvent('download', { timeout: STEP })
  await button.click()
  const file = await download
  const statement = join(dir, file.suggestedFilename())
  await file.saveAs(statement)
  const bytes = readFileSync(statement)
  // Header and one deposit line per paid JPY transfer: July to October's, each paid in the next month.
  const deposits = bytes.toString('latin1').trim().split(/\r\n/).length - 1
  expect(deposits).toBeGreaterThanOrEqual(3)

  await page.getByRole('combobox', { name: m.match.source }).selectOption('bank')
  await page
    .getByLabel(m.match.file)
    .setInputFiles({ name: file.suggestedFilename(), mimeType: 'text/csv', buffer: bytes })
  await page.getByRole('button', { name: m.match.import }).click()
  await expect(page.getByTestId('match-notice')).toHaveText(
    fill(m.match.imported, { count: String(deposits) }),
    {
      timeout: STEP,
    },
  )
  const tie = page.getByTestId('deposit-tie')
  await expect(tie.getByTestId('deposit-tie-match')).toHaveCount(deposits, { timeout: STEP })
  // No deposit is left without its transfer, and no failed transfer's money came in.
  const exceptions = tie.getByTestId('deposit-tie-exception')
  for (const code of ['deposit_without_transfer', 'failed_returned', 'failed_deposit_kept'] as const)
    await expect(exceptions.filter({ hasText: m.payoutRules.exceptions[code] })).toHaveCount(0)
}

/** Month-end of October: closing explained, the repayment named, the payout line OK; the workbook. */
async function closeOctober(page: Page, nav: Locator, m: Messages): Promise<void> {
  await nav.getByRole('link', { name: m.nav.monthEnd }).click()
  await chooseDate(page, m.ledger.period, '2026-10')
  const check = page.getByTestId('check-payouts')
  await expect(check).toHaveClass(/check-ok/, { timeout: STEP })
  await expect(check).toContainText(m.payoutRules.checklist.ok)
  const tables = page.getByTestId('month-rollforward')
  await expect(tables.first()).toBeVisible({ timeout: STEP })
  const currencies = await page.locator('.rollforward[data-currency]').count()
  expect(currencies).toBeGreaterThanOrEqual(2)
  for (const cell of await page.getByTestId('rollforward-unexplained').all())
    await expect(cell).toHaveText(/^[^1-9]*0(\.00)?[^1-9]*$/)
  for (const cell of await page.getByTestId('rollforward-control').all())
    await expect(cell).toHaveText(/^[^1-9]*0(\.00)?[^1-9]*$/)
  // JPY's failed transfer was repaid by the transfer paid in October: the link says so.
  const repaid = page
    .locator('.rollforward[data-currency="JPY"]')
    .getByRole('table', { name: fill(m.payoutRepayments.tableLabel, { currency: 'JPY' }) })
  await expect(repaid.getByRole('row').filter({ hasText: m.payoutRepayments.evidence.metadata })).toHaveCount(
    1,
  )
}

async function exportWorkbook(page: Page, m: Messages, dir: string): Promise<string> {
  const download = page.waitForEvent('download', { timeout: 120_000 })
  await page.getByRole('button', { name: m.monthEnd.export }).click()
  const file = await download
  expect(file.suggestedFilename()).toMatch(/2026-10\.xlsx$/)
  const path = join(dir, 'october.xlsx')
  await file.saveAs(path)
  return path
}

/** The Control block of the roll-forward sheet after LibreOffice recalculated it: every figure 0. */
async function controlAfterRecalculation(dir: string, path: string): Promise<Record<string, number[]>> {
  const out = await recalculate(dir, [path])
  const book = new ExcelJS.Workbook()
  await book.xlsx.readFile(join(out, 'october.xlsx'))
  const ws = book.getWorksheet('Roll-forward')
  if (!ws) throw new Error('the workbook has no Roll-forward sheet')
  let title = 0
  ws.eachRow((row, r) => {
    if (row.getCell(1).text.startsWith('Control:')) title = r
  })
  expect(title, 'the Control block’s title row').toBeGreaterThan(0)
  const columns: number[] = []
  ws.getRow(title).eachCell((cell, c) => {
    if (c > 1 && cell.text !== '') columns.push(c)
  })
  const figures: Record<string, number[]> = {}
  for (let r = title + 1; ws.getRow(r).getCell(1).text !== ''; r++) {
    const value = (c: number) => {
      const v = ws.getRow(r).getCell(c).value as { result?: unknown } | number | null
      // LibreOffice leaves a result of 0 out: read as 0.
      return Number(typeof v === 'object' && v !== null ? (v.result ?? 0) : (v ?? 0))
    }
    figures[ws.getRow(r).getCell(1).text] = columns.map(value)
  }
  return figures
}

async function walk(page: Page, launchUrl: string, m: Messages): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'closebook-payouts-close-'))
  try {
    const nav = await openDemo(page, launchUrl, m)
    await octoberTransfer(page, nav, m)
    await tieDemoStatement(page, nav, m, dir)
    await closeOctober(page, nav, m)
    const workbook = await exportWorkbook(page, m, dir)
    if (missingOffice) {
      console.warn(`[skip] the Control block after LibreOffice's recalculation: ${missingOffice}`)
      return
    }
    const control = await controlAfterRecalculation(dir, workbook)
    expect(Object.keys(control).length).toBeGreaterThanOrEqual(2)
    for (const [currency, figures] of Object.entries(control))
      expect(figures, `${currency}'s Control figures`).toEqual([0, 0])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

test.describe('closing October with its payouts in the demo', () => {
  test('English: deposits tied, records settled, the roll-forward explained, the Control block 0', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(420_000)
    await walk(page, webHost.launchUrl, en)
  })

  test('Month-end opened while the payouts still sync reads them again when the sync ends', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(420_000)
    const m = en
    await page.goto(webHost.launchUrl)
    await page.getByRole('button', { name: m.connections.tryDemo }).click()
    await expect(page.getByTestId('sync-state')).toHaveText(m.sync.state.done, { timeout: 150_000 })
    const nav = page.getByRole('navigation', { name: m.app.mainNav })
    await nav.getByRole('link', { name: m.nav.monthEnd }).click()
    await chooseDate(page, m.ledger.period, '2026-10')
    const check = page.getByTestId('check-payouts')
    await expect(check).toBeVisible({ timeout: STEP })
    // A page shown while the payout sync still ran reads a half-synced month: not OK yet. Only such a
    // page proves the re-read, so say so when the sync was faster.
    if (/check-ok/.test((await check.getAttribute('class')) ?? ''))
      console.log('[payouts-close] the payout sync ended before Month-end showed')
    await expect(check).toHaveClass(/check-ok/, { timeout: 240_000 })
  })

  test('Japanese: the same walk in Japanese', async ({ page, webHost }) => {
    test.setTimeout(420_000)
    await page.addInitScript(() => localStorage.setItem('closebook.locale', 'ja'))
    await walk(page, webHost.launchUrl, ja)
  })
})
