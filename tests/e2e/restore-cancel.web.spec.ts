/**
 * Cancel stops a restore in the real browser: pressed in each phase before the switch, the restore ends
 * with the cache answering exactly as before (the ledger's count, a note made after the backup), Settings
 * says so, and the next restore of the same file runs to its end.
 */
import { type Page } from '@playwright/test'
import { PHASE_LIST, backUpThenNote, expectLedger, restoreToEnd, startSlowRestore } from './support/restore'
import { expect, test } from './support/web-host'

/** Presses the restore's Cancel and waits for the restore to end, the page back at full speed. */
async function cancelRestore(page: Page): Promise<void> {
  const progress = page.getByTestId('backup-progress')
  await progress.getByRole('button', { name: 'Cancel' }).click()
  await expect(progress).toHaveCount(0, { timeout: 120_000 })
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 })
  await expect(
    page.getByRole('status').filter({ hasText: 'Restore cancelled. The cache is as it was before.' }),
  ).toBeVisible()
  // Nothing failed (the unverified file's warning stays with its confirmation, which is not an error).
  await expect(page.getByRole('alert').filter({ hasText: 'stopped before it finished' })).toHaveCount(0)
  await expect(page.getByRole('alert').filter({ hasNotText: 'cannot confirm' })).toHaveCount(0)
}

test.describe('a restore cancelled before its switch', () => {
  for (const [name, phase] of PHASE_LIST)
    test(`by Cancel while ${name} leaves the cache as it was, and the next restore succeeds`, async ({
      page,
      webHost,
    }, testInfo) => {
      test.setTimeout(420_000)
      const backup = testInfo.outputPath('backup.jsonl')
      const { file, count } = await backUpThenNote(page, webHost.launchUrl, backup, name)

      await startSlowRestore(page, file, phase)
      await cancelRestore(page)
      await expectLedger(page, count, 1)

      await restoreToEnd(page, file)
      await expectLedger(page, count, 0)
    })
})
