/** Key presses counted, so a spec can pin how much keyboard work a task takes. */
import type { Page } from '@playwright/test'
import { openDemoAndSync } from './demo'

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
export const syncDemo: (page: Page, launchUrl: string) => Promise<void> = openDemoAndSync
