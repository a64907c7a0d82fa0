/**
 * The desktop app through Playwright's Electron driver. Needs a real Electron binary, which these build
 * machines cannot download; then the test is skipped and the reason is printed.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { _electron as electron, expect, test } from '@playwright/test'

function electronBinary(): { path: string } | { missing: string } {
  try {
    const path = createRequire(__filename)('electron') as unknown
    if (typeof path === 'string' && existsSync(path)) return { path }
    return { missing: 'the electron package is installed without its binary (ELECTRON_SKIP_BINARY_DOWNLOAD)' }
  } catch (error) {
    return {
      missing: `no Electron binary: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    }
  }
}

const binary = electronBinary()
if ('missing' in binary) console.log(`[e2e electron] skipped: ${binary.missing}`)

test('desktop app opens the frame with the preload bridge and no Node in the page', async () => {
  test.skip('missing' in binary, 'missing' in binary ? binary.missing : '')
  const app = await electron.launch({ args: [resolve(__dirname, '../../out/main/index.js')] })
  try {
    const window = await app.firstWindow()
    await expect(window.getByRole('navigation', { name: 'Main navigation' })).toBeVisible()
    await expect(window.getByTestId('host-kind')).toHaveText('Desktop app')
    const exposure = await window.evaluate(() => ({
      hasBridge: typeof (window as unknown as { closebook?: unknown }).closebook === 'object',
      hasRequire: typeof (window as unknown as { require?: unknown }).require !== 'undefined',
      hasProcess: typeof (window as unknown as { process?: unknown }).process !== 'undefined',
    }))
    expect(exposure).toEqual({ hasBridge: true, hasRequire: false, hasProcess: false })
  } finally {
    await app.close()
  }
})
