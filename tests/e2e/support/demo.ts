import type { Page } from '@playwright/test'
import { expect } from './web-host'

/** The ledger's count once final: not "Counting…", not zero. */
export const FINAL_COUNT = /^[1-9][\d,]* records\s*$/

/** Opens the app, starts the demo connection and syncs it to the end. */
export async function openDemoAndSync(page: Page, launchUrl: string): Promise<void> {
  await page.goto(launchUrl)
  await page.getByRole('button', { name: 'Try with demo data' }).click()
  const row = page
    .getByRole('table', { name: 'Your connections' })
    .getByRole('row', { name: /Demo merchant/ })
  await row.getByRole('button', { name: 'Sync Demo merchant' }).click()
  await expect(page.getByTestId('sync-state')).toHaveText('Up to date.', { timeout: 90_000 })
}
