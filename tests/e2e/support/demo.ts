import type { Page } from '@playwright/test'
import { expect } from './web-host'

/** The ledger's count once final: not "Counting…", not zero. */
export const FINAL_COUNT = /^[1-9][\d,]* records\s*$/

/** Opens the app and starts the demo connection, whose first sync runs by itself, to its end. */
export async function openDemoAndSync(page: Page, launchUrl: string): Promise<void> {
  await page.goto(launchUrl)
  await page.getByRole('button', { name: 'Try with demo data' }).click()
  await expect(page.getByTestId('sync-state')).toHaveText('Up to date.', { timeout: 90_000 })
}
