/**
 * Two accountants close October of the demo merchant together on one real PostgreSQL, as the README sets it
 * up: a preparer (ana) and a reviewer (rei), each on a web host with its own data directory and browser
 * context. One marks, the other sees it without a reload; the preparer submits, the reviewer signs off and
 * both show October closed; a desktop cut off from the server marks a record of October, and once back its
 * late mark is refused and listed with its reason; the audit verifies on both. Every wait is bounded,
 * never a sleep: the machine is shared.
 */
import { readFileSync } from 'node:fs'
import type { Browser, Locator, Page } from '@playwright/test'
import { generateMerchant } from '../../electron/sandbox/generator'
import { en } from '../../src/i18n/en'
import { chooseDate } from './support/date-parts'
import {
  postgresUnavailableReason,
  startRelay,
  startTeamServer,
  type Relay,
  type TeamServer,
} from './support/team-server'
import { expect, startBuiltWebHost, test } from './support/web-host'

const m = en
const COUNTED = /^[1-9][\d,]* records/
const STEP = 60_000
/** The demo's merchant (the embedded sandbox's seed 42, three stores); its records are mostly live. */
const MERCHANT = generateMerchant(42, 3).merchant.id
const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`team close walk skipped: ${unavailable}`)

interface Desktop {
  page: Page
  nav: Locator
  stop(): Promise<void>
}

async function openDesktop(browser: Browser, who: string): Promise<Desktop> {
  const host = await startBuiltWebHost()
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(host.launchUrl)
  await page.getByRole('button', { name: m.connections.tryDemo }).click()
  await expect(page.getByTestId('sync-state'), `${who}'s demo sync`).toHaveText(m.sync.state.done, {
    timeout: 150_000,
  })
  // The payouts sync after the records: the next sync is announced once both are done.
  await expect(page.getByTestId('sync-next'), `${who}'s payouts sync`).toBeVisible({ timeout: 240_000 })
  return {
    page,
    nav: page.getByRole('navigation', { name: m.app.mainNav }),
    stop: async () => {
      await context.close()
      await host.stop()
    },
  }
}

/**
 * Chooses October 2026 as the period once `view` (its h1) is shown, and waits until both parts hold it.
 * Views load on demand: until the new one is there the old one (with its own "Month" group) still is.
 */
async function chooseOctober(page: Page, view: string): Promise<void> {
  await expect(page.getByRole('heading', { level: 1, name: view })).toBeVisible({ timeout: STEP })
  const group = page.getByRole('group', { name: m.ledger.period, exact: true })
  await expect(async () => {
    await chooseDate(page, m.ledger.period, '2026-10')
    await expect(group.locator('select[data-part="year"]')).toHaveValue('2026', { timeout: 2_000 })
    await expect(group.locator('select[data-part="month"]')).toHaveValue('10', { timeout: 2_000 })
  }).toPass({ timeout: STEP })
}

/** Settings → Team workspace: the login's settings saved, the plain loopback connection said, tested OK. */
async function joinWorkspace(d: Desktop, port: number, login: string, password: string): Promise<void> {
  const { page } = d
  await d.nav.getByRole('link', { name: m.nav.settings }).click()
  const team = page.getByTestId('team-settings')
  await team.getByLabel(m.team.host).fill('127.0.0.1')
  await team.getByLabel(m.team.port).fill(String(port))
  await team.getByLabel(m.team.database).fill('closebook')
  await team.getByLabel(m.team.user).fill(login)
  await team.getByLabel(m.team.password, { exact: true }).fill(password)
  await expect(team.getByTestId('team-plain')).toHaveText(m.team.plain)
  const saving = Date.now()
  await team.getByRole('button', { name: m.team.save }).click()
  await expect(team.getByLabel(m.team.password, { exact: true })).toHaveValue('', { timeout: STEP })
  // The save goes through the keychain: its time is the figure to watch when this walk is slow.
  console.log(`team walk: ${login}'s team settings saved in ${Date.now() - saving} ms`)
  await team.getByRole('button', { name: m.team.test }).click()
  await expect(team.getByTestId('team-test-ok')).toContainText(`Connected as ${login}`, { timeout: STEP })
}

/** Month-end of October with this connection's team merchant picked from the login's grants. */
async function octoberTeamClose(d: Desktop): Promise<Locator> {
  const { page } = d
  await d.nav.getByRole('link', { name: m.nav.monthEnd }).click()
  await chooseOctober(page, m.monthEnd.title)
  const team = page.getByTestId('team-close')
  const grant = team.getByTestId('team-grant')
  await expect(grant).toBeVisible({ timeout: STEP })
  if (!(await team.getByTestId('team-month-state').isVisible())) {
    await grant.selectOption(`${MERCHANT}:live`)
    await team.getByRole('button', { name: m.team.close.useMerchant }).click()
  }
  await expect(team.getByTestId('team-month-state')).toBeVisible({ timeout: STEP })
  return team
}

/** The Ledger showing October. */
async function octoberLedger(d: Desktop): Promise<Locator> {
  const { page } = d
  await d.nav.getByRole('link', { name: m.nav.ledger }).click()
  await chooseOctober(page, m.ledger.title)
  // The rows are October's (the month's refresh has run), and the count is final; a selection kept from
  // before may follow it.
  const grid = page.getByRole('grid', { name: 'Ledger records' })
  await expect(grid.locator('#ledger-row-0 .c-date')).toHaveText(/^10\/\d\d\/2026/, { timeout: STEP })
  await expect(page.getByTestId('ledger-count')).toHaveText(COUNTED, { timeout: STEP })
  return grid
}

/** Matching: the demo's bank statement imported, so every paid transfer has its deposit (payouts tie). */
async function tieDemoStatement(d: Desktop): Promise<void> {
  const { page } = d
  await d.nav.getByRole('link', { name: m.nav.match }).click()
  const button = page.getByRole('button', { name: m.depositTie.demoDownload })
  await expect(button).toBeVisible({ timeout: STEP })
  const download = page.waitForEvent('download', { timeout: STEP })
  await button.click()
  const file = await download
  const bytes = readFileSync(await file.path())
  const deposits = bytes.toString('latin1').trim().split(/\r\n/).length - 1
  await page.getByRole('combobox', { name: m.match.source }).selectOption('bank')
  await page
    .getByLabel(m.match.file)
    .setInputFiles({ name: file.suggestedFilename(), mimeType: 'text/csv', buffer: bytes })
  await page.getByRole('button', { name: m.match.import }).click()
  await expect(page.getByTestId('deposit-tie').getByTestId('deposit-tie-match')).toHaveCount(deposits, {
    timeout: STEP,
  })
}

/**
 * What October's close checklist needs in the demo, done as the preparer does it: every record of the
 * month marked, the month verified with the service, the bank statement tied to the payouts.
 */
async function completeChecklist(d: Desktop): Promise<void> {
  const { page } = d
  const grid = await octoberLedger(d)
  await expect(grid).toBeVisible()
  page.once('dialog', (dialog) => void dialog.accept())
  await page.getByLabel('Note for the marked records').fill('')
  await page.getByRole('button', { name: /^Mark all [\d,]+ matching$/ }).click()
  await expect(page.getByTestId('ledger-notice')).toHaveText(/^Done: [\d,]+ changed\.$/, { timeout: STEP })
  await tieDemoStatement(d)
  await d.nav.getByRole('link', { name: m.nav.monthEnd }).click()
  await chooseOctober(page, m.monthEnd.title)
  await page.getByRole('button', { name: 'Verify October 2026 with the service' }).click()
  await expect(page.getByTestId('verify-last')).toContainText('Last verified', { timeout: 120_000 })
  // Every blocking item passes: named one by one, so a failure says which.
  for (const id of ['synced', 'verified', 'quarantine', 'changed', 'unreconciled', 'payouts'])
    await expect(page.getByTestId(`check-${id}`), `checklist item ${id}`).not.toHaveClass(/check-blocked/, {
      timeout: STEP,
    })
}

/** The month's state on the server as this desktop's Month-end shows it. */
const stateOf = (team: Locator): Locator => team.getByTestId('team-month-state')

test.describe('team close on PostgreSQL', () => {
  test.skip(unavailable !== null, unavailable ?? '')

  let server: TeamServer
  let relayA: Relay
  let relayB: Relay
  const passwords = { ana: 'ana-walks-october-1', rei: 'rei-signs-october-2' }
  test.beforeAll(async () => {
    server = await startTeamServer()
    await server.admin(['init'])
    for (const [login, password] of Object.entries(passwords))
      await server.admin(['add-user', login, '--password-stdin'], password)
    await server.admin(['grant', 'ana', MERCHANT, 'live', 'preparer', '--name', 'Demo shop'])
    await server.admin(['grant', 'rei', MERCHANT, 'live', 'reviewer', '--name', 'Demo shop'])
    relayA = await startRelay(server.cluster)
    relayB = await startRelay(server.cluster)
  })
  test.afterAll(async () => {
    await relayA?.close()
    await relayB?.close()
    await server?.stop()
  })

  test('a preparer and a reviewer close October together', async ({ browser }) => {
    test.setTimeout(600_000)
    const [a, b] = await Promise.all([openDesktop(browser, 'ana'), openDesktop(browser, 'rei')])
    try {
      await joinWorkspace(a, relayA.port, 'ana', passwords.ana)
      await joinWorkspace(b, relayB.port, 'rei', passwords.rei)
      await octoberTeamClose(a)
      await octoberTeamClose(b)

      // A marks one record of October; B, on its Ledger, shows it reconciled without a reload.
      const gridB = await octoberLedger(b)
      const gridA = await octoberLedger(a)
      await gridA.getByRole('checkbox').nth(0).check()
      await a.page.getByLabel('Note for the marked records').fill('Checked by ana')
      await a.page.getByRole('button', { name: 'Mark selected as reconciled' }).click()
      await expect(a.page.getByTestId('ledger-notice')).toHaveText('Done: 1 changed.')
      const started = Date.now()
      await expect(gridB.getByRole('gridcell', { name: 'Checked by ana' })).toHaveCount(1, {
        timeout: 15_000,
      })
      console.log(`team walk: a mark on ana's desktop shown on rei's after ${Date.now() - started} ms`)

      // A (preparer) completes October's checklist and submits; B sees it waiting for review.
      await completeChecklist(a)
      const teamA = a.page.getByTestId('team-close')
      await expect(teamA.getByTestId('team-checklist-open')).toHaveCount(0)
      await expect(teamA.getByTestId('team-outbox')).toHaveCount(0, { timeout: STEP })
      await teamA.getByRole('button', { name: m.team.close.submit }).click()
      await expect(stateOf(teamA)).toHaveAttribute('data-state', 'submitted', { timeout: STEP })
      await expect(stateOf(teamA)).toContainText('Submitted by ana')
      const teamB = await octoberTeamClose(b)
      await expect(stateOf(teamB)).toHaveAttribute('data-state', 'submitted', { timeout: 20_000 })

      // A loses the server (its network goes); B (reviewer) signs off; A does not know yet.
      await relayA.offline()
      await teamB.getByRole('button', { name: m.team.close.signOff }).click()
      await expect(stateOf(teamB)).toHaveAttribute('data-state', 'signed_off', { timeout: STEP })
      await expect(stateOf(teamB)).toContainText('Signed off by rei')

      // Offline, A changes a record of October: its cache takes it, the server has not seen it.
      const lateGrid = await octoberLedger(a)
      // Only the second record: the first stays selected from the first mark.
      await lateGrid.getByRole('checkbox').nth(0).uncheck()
      await lateGrid.getByRole('checkbox').nth(1).check()
      await a.page.getByLabel('Note for the marked records').fill('Late note from ana')
      await a.page.getByRole('button', { name: 'Mark selected as reconciled' }).click()
      await expect(a.page.getByTestId('ledger-notice')).toHaveText('Done: 1 changed.')

      // Back online, the late mark is refused and listed with its reason; October is closed on A too.
      await relayA.online()
      const backA = await octoberTeamClose(a)
      await expect(stateOf(backA)).toHaveAttribute('data-state', 'signed_off', { timeout: 30_000 })
      const refused = backA.getByRole('table', { name: m.team.close.refusedTitle })
      await expect(
        refused.getByRole('row').filter({ hasText: m.team.close.reasons.month_closed }),
      ).toHaveCount(1, { timeout: 30_000 })
      const lateOnServer = await server.value<string>(
        "SELECT count(*)::text AS v FROM closebook.marks WHERE note = 'Late note from ana'",
      )
      expect(lateOnServer).toBe('0')
      // A's cache takes the server's mark back: the late note is gone from its Ledger too.
      const afterGrid = await octoberLedger(a)
      await expect(afterGrid.getByRole('gridcell', { name: 'Late note from ana' })).toHaveCount(0, {
        timeout: 30_000,
      })

      // The audit chain verifies on both, through the server's last row.
      const head = await server.value<string>('SELECT max(seq)::text AS v FROM closebook.audit')
      const verified = m.team.close.chainVerified.replace('{through}', head)
      const endA = await octoberTeamClose(a)
      await expect(endA.getByTestId('team-chain')).toHaveText(verified, { timeout: 30_000 })
      await b.page.getByTestId('team-close').getByRole('button', { name: m.team.close.refresh }).click()
      await expect(b.page.getByTestId('team-chain')).toHaveText(verified, { timeout: 30_000 })
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })
})
