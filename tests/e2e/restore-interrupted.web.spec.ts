/**
 * A restore is all or nothing in the real browser: stopped while it writes its generation, by a page
 * reload or by the browser process being killed, it leaves the cache answering exactly as before (the
 * ledger's count, a note made after the backup), and the next restore of the same file runs to its end.
 *
 * The cache is the synced demo; the backup is taken before a record is marked with a note, so a restore
 * that got through shows up as the note gone. The restore's work is slowed (Chromium's CPU throttling of
 * the page) so that its writing phase lasts long enough to be interrupted after it is seen on screen.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from '@playwright/test'
import { FINAL_COUNT, openDemoAndSync } from './support/demo'
import { expect, test } from './support/web-host'

const NOTE = 'Kept by the cache the restore must not replace'
/** The restore's phases before its switch, as Settings shows them: the old cache is the one read. */
const PHASES = {
  writing: /^Restoring: \d+ %\. Your current cache stays as it is until the restore finishes\.$/,
  indexing: /^Restoring: filing the search index, \d+ %\. Your current cache stays as it is until the end\.$/,
}

/**
 * The demo synced to the end, payouts included: a backup is refused while a sync still writes (the cache
 * changed while it was written), and after this first run the demo syncs only when asked.
 */
async function syncDemo(page: Page, launchUrl: string): Promise<void> {
  await openDemoAndSync(page, launchUrl)
  await expect(page.getByTestId('sync-next')).toBeVisible({ timeout: 240_000 })
}

async function open(page: Page, view: 'Ledger' | 'Settings'): Promise<void> {
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: view }).click()
  await expect(page.getByRole('heading', { level: 1, name: view })).toBeVisible()
}

/** Backs the cache up through Settings and keeps the file at `path`. */
async function backUp(page: Page, path: string): Promise<void> {
  await open(page, 'Settings')
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Back up the cache to a file…' }).click()
  await (await download).saveAs(path)
  await expect(page.getByRole('status').filter({ hasText: 'Backup saved' })).toBeVisible()
}

/** Marks the ledger's first record reconciled with NOTE; returns the ledger's count text. */
async function markFirstWithNote(page: Page): Promise<string> {
  await open(page, 'Ledger')
  const count = page.getByTestId('ledger-count')
  await expect(count).toHaveText(FINAL_COUNT, { timeout: 30_000 })
  const before = ((await count.textContent()) ?? '').trim()
  const grid = page.getByRole('grid', { name: 'Ledger records' })
  await grid.getByRole('checkbox').first().check()
  await expect(count).toContainText('1 selected')
  await page.getByLabel('Note for the marked records').fill(NOTE)
  await page.getByRole('button', { name: 'Mark selected as reconciled' }).click()
  await expect(page.getByTestId('ledger-notice')).toHaveText('Done: 1 changed.')
  await expect(grid.getByRole('gridcell', { name: NOTE })).toHaveCount(1)
  return before
}

/** The ledger as the cache answers it now: its count and how many records carry NOTE. */
async function expectLedger(page: Page, count: string, notes: 0 | 1): Promise<void> {
  await open(page, 'Ledger')
  await expect(page.getByTestId('ledger-count')).toHaveText(count, { timeout: 30_000 })
  const grid = page.getByRole('grid', { name: 'Ledger records' })
  await expect(grid.getByRole('gridcell').first()).toBeVisible()
  await expect(grid.getByRole('gridcell', { name: NOTE })).toHaveCount(notes)
}

/** Chooses the backup in Settings and confirms it (past the warning when this host cannot sign). */
async function confirmRestore(page: Page, path: string): Promise<void> {
  await open(page, 'Settings')
  await page.getByLabel('Restore from a backup file…').setInputFiles(path)
  const confirm = page.getByRole('group', { name: 'What the restore replaces' })
  await expect(confirm).toBeFocused()
  const verification = (await page.getByTestId('backup-verification').textContent()) ?? ''
  if (!verification.includes('has not been changed since'))
    await page.getByLabel('I understand; restore this unverified backup').check()
  await page.getByRole('button', { name: 'Replace the cache with this backup' }).click()
}

/**
 * Starts a restore of `path` and returns once `phase` is on screen: slowed enough for each phase to be
 * seen, then much more, so that it is still under way when the test stops it.
 */
async function startSlowRestore(page: Page, path: string, phase: RegExp): Promise<void> {
  const cdp = await page.context().newCDPSession(page)
  await confirmRestore(page, path)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })
  await expect(page.getByTestId('backup-progress').getByText(phase)).toBeVisible({ timeout: 60_000 })
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 })
  await expect(page.getByTestId('backup-progress').getByText(phase)).toBeVisible()
}

/** A restore of `path` to its end: the progress goes, nothing is refused. */
async function restoreToEnd(page: Page, path: string): Promise<void> {
  await confirmRestore(page, path)
  await expect(page.getByRole('group', { name: 'What the restore replaces' })).toHaveCount(0, {
    timeout: 60_000,
  })
  await expect(page.getByTestId('backup-progress')).toHaveCount(0, { timeout: 60_000 })
  await expect(page.getByRole('alert')).toHaveCount(0)
}

/**
 * The Chromium browser process started with `userDataDir` (not its renderers or helpers). Its command line
 * is split on NULs and spaces: the browser process may rewrite it as one space-separated string.
 */
function browserProcessOf(userDataDir: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let args: string[]
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split(/[\0\s]+/)
    } catch {
      continue // exited meanwhile
    }
    if (args.includes(`--user-data-dir=${userDataDir}`) && !args.some((a) => a.startsWith('--type=')))
      return Number(entry)
  }
  throw new Error(`no Chromium process runs with ${userDataDir}`)
}

test.describe('a restore stopped half-way', () => {
  for (const [name, phase] of Object.entries(PHASES))
    test(`by a page reload while ${name} leaves the cache as it was, and the next restore succeeds`, async ({
      page,
      webHost,
    }, testInfo) => {
      test.setTimeout(420_000)
      await syncDemo(page, webHost.launchUrl)
      const backup = testInfo.outputPath('backup.jsonl')
      await backUp(page, backup)
      const count = await markFirstWithNote(page)

      await startSlowRestore(page, backup, phase)
      await page.reload()
      const cdp = await page.context().newCDPSession(page)
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 })
      await expectLedger(page, count, 1)

      await restoreToEnd(page, backup)
      await expectLedger(page, count, 0)
    })

  for (const [name, phase] of Object.entries(PHASES))
    test(`by the browser process killed while ${name} leaves the cache as it was, and the next restore succeeds`, async ({
      webHost,
    }, testInfo) => {
      test.setTimeout(480_000)
      // A profile of its own that outlives the browser, as the desktop app's does.
      const userDataDir = mkdtempSync(join(tmpdir(), 'closebook-e2e-profile-'))
      const launch = (): Promise<BrowserContext> =>
        chromium.launchPersistentContext(userDataDir, { ...testInfo.project.use.launchOptions })
      let context = await launch()
      try {
        let page = context.pages()[0] ?? (await context.newPage())
        await syncDemo(page, webHost.launchUrl)
        const backup = testInfo.outputPath('backup.jsonl')
        await backUp(page, backup)
        const count = await markFirstWithNote(page)

        await startSlowRestore(page, backup, phase)
        const closed = new Promise((resolve) => context.once('close', resolve))
        process.kill(browserProcessOf(userDataDir), 'SIGKILL')
        await closed

        context = await launch()
        page = context.pages()[0] ?? (await context.newPage())
        await page.goto(webHost.launchUrl)
        await expectLedger(page, count, 1)

        await restoreToEnd(page, backup)
        await expectLedger(page, count, 0)
      } finally {
        await context.close().catch(() => undefined)
        rmSync(userDataDir, { recursive: true, force: true })
      }
    })
})
