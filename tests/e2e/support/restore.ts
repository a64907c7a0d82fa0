/**
 * Driving a restore through Settings for the restore specs: the synced demo, a backup taken before a
 * record is marked with a note (so a restore that got through shows up as the note gone), a restore slowed
 * (Chromium's CPU throttling of the page) so that each phase lasts long enough to act on once it is seen.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import type { Page } from '@playwright/test'
import { FINAL_COUNT, openDemoAndSync } from './demo'
import { expect } from './web-host'

export const NOTE = 'Kept by the cache the restore must not replace'
/** The restore's phases before its switch, as Settings shows them: the old cache is the one read. */
export const PHASES = {
  writing: /^Restoring: \d+ %\. Your current cache stays as it is until the restore finishes\.$/,
  indexing: /^Restoring: filing the search index, \d+ %\. Your current cache stays as it is until the end\.$/,
}

/** The phases by name, for a test per phase. */
export const PHASE_LIST = Object.entries(PHASES) as [keyof typeof PHASES, RegExp][]

/**
 * The file a phase is reached with: a backup lists its records in time order and is filed while it is
 * read, so only a file in another order (its history and charges listed backwards, as an edited file
 * may be) has the phase that files the search index after reading. Returns the path to restore.
 */
export function fileFor(phase: keyof typeof PHASES, backup: string): string {
  if (phase === 'writing') return backup
  // The app writes its backup gzip-compressed; the reordered copy is written as plain text, which restores too.
  const bytes = readFileSync(backup)
  const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b
  const lines = (gzip ? gunzipSync(bytes) : bytes).toString('utf8').split('\n')
  for (const table of ['history', 'charges']) {
    const start = lines.findIndex((l) => l.startsWith(`{"table":"${table}"`)) + 1
    const end = lines.findIndex((l, i) => i >= start && l.startsWith('{"table":'))
    lines.splice(start, end - start, ...lines.slice(start, end).reverse())
  }
  const path = backup.replace(/\.jsonl$/, '-out-of-order.jsonl')
  writeFileSync(path, lines.join('\n'))
  return path
}

/**
 * The demo synced to the end, payouts included: a backup is refused while a sync still writes (the cache
 * changed while it was written), and after this first run the demo syncs only when asked.
 */
export async function syncDemo(page: Page, launchUrl: string): Promise<void> {
  await openDemoAndSync(page, launchUrl)
  await expect(page.getByTestId('sync-next')).toBeVisible({ timeout: 240_000 })
}

export async function open(page: Page, view: 'Ledger' | 'Settings'): Promise<void> {
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: view }).click()
  await expect(page.getByRole('heading', { level: 1, name: view })).toBeVisible()
}

/** Backs the cache up through Settings and keeps the file at `path`. */
export async function backUp(page: Page, path: string): Promise<void> {
  await open(page, 'Settings')
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Back up the cache to a file…' }).click()
  await (await download).saveAs(path)
  await expect(page.getByRole('status').filter({ hasText: 'Backup saved' })).toBeVisible()
}

/** Marks the ledger's first record reconciled with NOTE; returns the ledger's count text. */
export async function markFirstWithNote(page: Page): Promise<string> {
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
  // The selection cleared: the page that stays open shows the count alone, as a reloaded one does.
  await grid.getByRole('checkbox').first().uncheck()
  await expect(count).toHaveText(before)
  return before
}

/** The ledger as the cache answers it now: its count and how many records carry NOTE. */
export async function expectLedger(page: Page, count: string, notes: 0 | 1): Promise<void> {
  await open(page, 'Ledger')
  await expect(page.getByTestId('ledger-count')).toHaveText(count, { timeout: 30_000 })
  const grid = page.getByRole('grid', { name: 'Ledger records' })
  await expect(grid.getByRole('gridcell').first()).toBeVisible()
  await expect(grid.getByRole('gridcell', { name: NOTE })).toHaveCount(notes)
}

/** Chooses the backup in Settings and confirms it (past the warning when this host cannot sign). */
export async function confirmRestore(page: Page, path: string): Promise<void> {
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
export async function startSlowRestore(page: Page, path: string, phase: RegExp): Promise<void> {
  const cdp = await page.context().newCDPSession(page)
  await confirmRestore(page, path)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })
  await expect(page.getByTestId('backup-progress').getByText(phase)).toBeVisible({ timeout: 60_000 })
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 })
  await expect(page.getByTestId('backup-progress').getByText(phase)).toBeVisible()
}

/** A restore of `path` to its end: the progress goes, nothing is refused. */
export async function restoreToEnd(page: Page, path: string): Promise<void> {
  await confirmRestore(page, path)
  await expect(page.getByRole('group', { name: 'What the restore replaces' })).toHaveCount(0, {
    timeout: 60_000,
  })
  await expect(page.getByTestId('backup-progress')).toHaveCount(0, { timeout: 60_000 })
  await expect(page.getByRole('alert')).toHaveCount(0)
}

/**
 * The demo synced and backed up to `backup`, then a record marked with NOTE: the file a restore of
 * `phase` is started with (fileFor) and the ledger's count before the restore.
 */
export async function backUpThenNote(
  page: Page,
  launchUrl: string,
  backup: string,
  phase: keyof typeof PHASES,
): Promise<{ file: string; count: string }> {
  await syncDemo(page, launchUrl)
  await backUp(page, backup)
  const file = fileFor(phase, backup)
  return { file, count: await markFirstWithNote(page) }
}
