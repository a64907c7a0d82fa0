import type { Shell } from 'electron'
import { EXTERNAL_LINKS } from '../services/handlers/app-handlers'

const ALLOWED = new Set<string>(Object.values(EXTERNAL_LINKS))

/** The only way the app opens anything outside itself: exact URLs from one allow-list, https only. */
export function createOpenExternal(shell: Pick<Shell, 'openExternal'>): (url: string) => Promise<void> {
  return async (url: string) => {
    if (!ALLOWED.has(url) || !url.startsWith('https://')) {
      throw new Error('This link is not on the allow-list.')
    }
    await shell.openExternal(url)
  }
}
