/** Key presses counted, so a spec can pin how much keyboard work a task takes. */
import type { Page } from '@playwright/test'

export class CountingKeyboard {
  presses = 0
  constructor(private readonly page: Page) {}

  async press(key: string, times = 1): Promise<void> {
    for (let i = 0; i < times; i++) {
      await this.page.keyboard.press(key)
      this.presses++
    }
  }

  /** Typing text counts as one press per character. */
  async type(text: string): Promise<void> {
    await this.page.keyboard.type(text)
    this.presses += [...text].length
  }
}

/** Demo → sync, by mouse: the setup is not what the keyboard specs measure. */
export async function syncDemo(page: Page, launchUrl: string): Promise<void> {
  await page.goto(launchUrl)
  await page.getByRole('button', { name: 'Try with demo data' }).click()
  const row = page
    .getByRole('table', { name: 'Your connections' })
    .getByRole('row', { name: /Demo merchant/ })
  await row.getByRole('button', { name: 'Sync Demo merchant' }).click()
  await page.getByTestId('sync-state').getByText('Up to date.').waitFor({ timeout: 90_000 })
}
