import { readFileSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { expect, test } from './support/web-host'

test.describe('settings on the web host', () => {
  test('backs the cache up to a download and restores it after showing what it replaces', async ({
    page,
    webHost,
  }) => {
    await page.goto(webHost.launchUrl)
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Settings' })
      .click()
    await expect(page.getByRole('table', { name: 'What the cache holds' })).toBeVisible()
    await page.getByLabel('Your name (recorded in the audit log)').fill('Sato Hanako')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await expect(page.getByTestId('cache-size')).toContainText('MB')

    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Back up the cache to a file…' }).click()
    const file = await download
    expect(file.suggestedFilename()).toMatch(/^closebook-backup-\d{4}-\d{2}-\d{2}\.jsonl\.gz$/)
    const path = await file.path()
    // Gzip of line-delimited JSON: a header, a section line per table, a row per line, an end line.
    const text = gunzipSync(readFileSync(path)).toString('utf8')
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines[0]).toMatchObject({ format: 'closebook-backup', version: 2 })
    expect(lines).toContainEqual({ table: 'settings', rows: 1 })
    expect(lines).toContainEqual({ key: 'actorName', value: 'Sato Hanako' })
    // Signed when the host has a keychain: the signature is the last line, after the end line.
    const signed = 'signature' in (lines.at(-1) ?? {})
    if (!signed) console.log('backup written unsigned: this host has no keychain')
    expect(lines.at(signed ? -2 : -1)).toMatchObject({ end: true })
    await expect(page.getByRole('status')).toContainText('Backup saved')

    // The confirmation takes focus; Escape cancels it and changes nothing.
    await page.getByLabel('Restore from a backup file…').setInputFiles(path)
    const confirmGroup = page.getByRole('group', { name: 'What the restore replaces' })
    await expect(confirmGroup).toBeFocused()
    await page.keyboard.press('Escape')
    await expect(confirmGroup).toHaveCount(0)
    await expect.poll(() => page.evaluate(() => document.activeElement !== document.body)).toBe(true)

    // The same file again: after a cancel it must ask again.
    await page.getByLabel('Restore from a backup file…').setInputFiles(path)
    const summary = page.getByRole('table', { name: 'What the restore replaces' })
    await expect(summary.getByRole('row', { name: /Settings 1 1/ })).toBeVisible()
    await expect(confirmGroup).toBeFocused()
    const replace = page.getByRole('button', { name: 'Replace the cache with this backup' })
    const acknowledge = page.getByLabel('I understand; restore this unverified backup')
    if (signed)
      await expect(page.getByTestId('backup-verification')).toContainText('has not been changed since')
    else await acknowledge.check()
    await replace.click()
    await expect(summary).toHaveCount(0)

    // The same backup edited outside Closebook (and kept uncompressed): it does not verify, and restores
    // only past the warning.
    const edited = text.replace('"Sato Hanako"', '"Sato Hanakx"')
    const editedPath = `${path}-edited.jsonl`
    writeFileSync(editedPath, edited)
    await page.getByLabel('Restore from a backup file…').setInputFiles(editedPath)
    await expect(page.getByTestId('backup-verification')).toContainText(
      signed ? 'was changed after Closebook wrote it' : 'carries no signature',
    )
    await expect(confirmGroup.getByRole('alert')).toContainText(
      'cannot confirm that this backup is unchanged',
    )
    await expect(replace).toBeDisabled()
    await acknowledge.check()
    await replace.click()
    await expect(summary).toHaveCount(0)

    // A broken file is refused with the reason, and nothing changes.
    await page.getByLabel('Restore from a backup file…').setInputFiles({
      name: 'broken.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify({ format: 'closebook-backup', version: 1, exportedAt: 'x', tables: {} }),
      ),
    })
    await expect(page.getByRole('alert')).toContainText('is not valid')
  })
})
