import { defineConfig } from '@playwright/test'

/**
 * End-to-end tests. `web` runs the built web host in Debian's Chromium (never a downloaded browser:
 * `npx playwright install` cannot work on these machines); `electron` runs the desktop app where an
 * Electron binary exists and skips with a printed reason where it does not.
 */
const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: process.env['CI'] ? 1 : 2,
  // A shared 2-core CI machine: one retry tells load from a real failure, which fails both tries.
  retries: process.env['CI'] ? 1 : 0,
  reporter: [['list']],
  use: { trace: 'off', screenshot: 'only-on-failure' },
  projects: [
    {
      name: 'web',
      testMatch: /.*\.web\.spec\.ts/,
      use: {
        browserName: 'chromium',
        launchOptions: {
          executablePath: chromiumPath,
          // The machine has no network but loopback: keep Chromium from trying to phone home.
          args: [
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
            '--disable-gpu',
          ],
        },
      },
    },
    { name: 'electron', testMatch: /.*\.electron\.spec\.ts/ },
  ],
})
