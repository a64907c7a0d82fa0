/**
 * A restore is all or nothing in the real browser: stopped while it writes its generation, by a page
 * reload or by the browser process being killed, it leaves the cache answering exactly as before (the
 * ledger's count, a note made after the backup), and the next restore of the same file runs to its end.
 *
 * The cache is the synced demo; the backup is taken before a record is marked with a note, so a restore
 * that got through shows up as the note gone (support/restore.ts drives it).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from '@playwright/test'
import { PHASE_LIST, backUpThenNote, expectLedger, restoreToEnd, startSlowRestore } from './support/restore'
import { test } from './support/web-host'

/**
 * The Chromium browser process started with `userDataDir` (not its renderers or helpers). Its command line
 * is split on NULs and spaces: the browser process may rewrite it as one space-separated string.
 */
function browserProcessOf(userDataDir: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let args: string[]
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split(/[\0\s]+/)
    } catch {
      continue // exited meanwhile
    }
    if (args.includes(`--user-data-dir=${userDataDir}`) && !args.some((a) => a.startsWith('--type=')))
      return Number(entry)
  }
  throw new Error(`no Chromium process runs with ${userDataDir}`)
}

test.describe('a restore stopped half-way', () => {
  for (const [name, phase] of PHASE_LIST)
    test(`by a page reload while ${name} leaves the cache as it was, and the next restore succeeds`, async ({
      page,
      webHost,
    }, testInfo) => {
      test.setTimeout(420_000)
      const backup = testInfo.outputPath('backup.jsonl')
      const { file, count } = await backUpThenNote(page, webHost.launchUrl, backup, name)

      await startSlowRestore(page, file, phase)
      await page.reload()
      const cdp = await page.context().newCDPSession(page)
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 })
      await expectLedger(page, count, 1)

      await restoreToEnd(page, file)
      await expectLedger(page, count, 0)
    })

  for (const [name, phase] of PHASE_LIST)
    test(`by the browser process killed while ${name} leaves the cache as it was, and the next restore succeeds`, async ({
      webHost,
    }, testInfo) => {
      test.setTimeout(480_000)
      // A profile of its own that outlives the browser, as the desktop app's does.
      const userDataDir = mkdtempSync(join(tmpdir(), 'closebook-e2e-profile-'))
      const launch = (): Promise<BrowserContext> =>
        chromium.launchPersistentContext(userDataDir, { ...testInfo.project.use.launchOptions })
      let context = await launch()
      try {
        let page = context.pages()[0] ?? (await context.newPage())
        const backup = testInfo.outputPath('backup.jsonl')
        const { file, count } = await backUpThenNote(page, webHost.launchUrl, backup, name)

        await startSlowRestore(page, file, phase)
        const closed = new Promise((resolve) => context.once('close', resolve))
        process.kill(browserProcessOf(userDataDir), 'SIGKILL')
        await closed

        context = await launch()
        page = context.pages()[0] ?? (await context.newPage())
        await page.goto(webHost.launchUrl)
        await expectLedger(page, count, 1)

        await restoreToEnd(page, file)
        await expectLedger(page, count, 0)
      } finally {
        await context.close().catch(() => undefined)
        rmSync(userDataDir, { recursive: true, force: true })
      }
    })
})
