/**
 * The web host keeps one origin per data directory, so the browser's IndexedDB (records, marks, notes,
 * audit log) is still there after a restart with default flags; and one data directory has one host.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FINAL_COUNT, openDemoAndSync } from './support/demo'
import { expect, startBuiltWebHost, test } from './support/web-host'

let dataDir = ''
test.beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'closebook-e2e-restart-'))
})
test.afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

test('marks survive stopping and starting the web host with default flags', async ({ page }) => {
  test.setTimeout(150_000)
  const first = await startBuiltWebHost({ dataDir, port: 'default' })
  let firstOrigin = ''
  try {
    firstOrigin = first.origin
    await openDemoAndSync(page, first.launchUrl)
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Ledger' })
      .click()
    await expect(page.getByTestId('ledger-count')).toHaveText(FINAL_COUNT)
    const grid = page.getByRole('grid', { name: 'Ledger records' })
    await grid.getByRole('checkbox').nth(0).check()
    await page.getByLabel('Note for the marked records').fill('Kept across restarts')
    await page.getByRole('button', { name: 'Mark selected as reconciled' }).click()
    await expect(page.getByTestId('ledger-notice')).toHaveText('Done: 1 changed.')
  } finally {
    await first.stop()
  }
  // The data directory and what the host keeps in it are its owner's alone.
  expect(statSync(dataDir).mode & 0o777).toBe(0o700)
  expect(statSync(join(dataDir, 'web-host.json')).mode & 0o777).toBe(0o600)

  const second = await startBuiltWebHost({ dataDir, port: 'default' })
  try {
    await page.goto(second.launchUrl)
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Ledger' })
      .click()
    await expect(page.getByTestId('ledger-count')).toHaveText(FINAL_COUNT)
    await expect(
      page
        .getByRole('grid', { name: 'Ledger records' })
        .getByRole('gridcell', { name: 'Kept across restarts' }),
    ).toHaveCount(1)
    expect(second.origin).toBe(firstOrigin)
  } finally {
    await second.stop()
  }
})

test('a second host on the same data directory refuses and says what is running', async () => {
  const first = await startBuiltWebHost({ dataDir, port: 'default' })
  try {
    const error = await startBuiltWebHost({ dataDir, port: 'default' }).then(
      (unexpected) => unexpected.stop().then(() => null),
      (e: unknown) => e as Error,
    )
    expect(error?.message).toContain('exited with 2')
    expect(error?.message).toContain('already running on this data directory')
    expect(error?.message).toContain(first.origin)
    expect(error?.message).not.toContain('token=')
  } finally {
    await first.stop()
  }
})

test('a remembered port taken by another program is named, and the host does not move', async () => {
  const first = await startBuiltWebHost({ dataDir, port: 'default' })
  const port = Number(new URL(first.origin).port)
  await first.stop()
  const squatter: Server = createServer()
  await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve))
  try {
    const error = await startBuiltWebHost({ dataDir, port: 'default' }).then(
      (unexpected) => unexpected.stop().then(() => null),
      (e: unknown) => e as Error,
    )
    expect(error?.message).toContain(`port ${port} is in use by another program`)
    expect(error?.message).toContain(`http://127.0.0.1:${port}`)
  } finally {
    await new Promise((resolve) => squatter.close(resolve))
  }
})
