/**
 * Scrolling a filtered million-row result in the real Ledger: the BUILT web host in Debian's Chromium, the
 * demo synced through the UI, then BENCH_SCROLL_RECORDS more history records (default 1,000,000;
 * `--quick`: 300,000, past the height at which the grid maps scroll positions to rows in proportion)
 * written into the app's own cache by a page served on the app's origin (browser/ledger-fill-entry.ts,
 * through the sync writer's putPage). The Ledger is then filtered to charges over all periods and scrolled
 * three ways while a requestAnimationFrame loop records every frame's gap and a PerformanceObserver the
 * main thread's long tasks: 60 wheel turns of 1,200 px, jumps of the scrollbar to 10 places (timed until
 * the rows in view are read), and End from the keyboard, which must show the result's last row.
 * LEDGER_SCROLL_PROFILE=1 logs the page's busiest functions over the scrolling (E2E_SYNC_PROFILE's summary).
 *
 * `scale.ledger_scroll_max_frame_ms` is the longest frame gap while scrolling; the target is 50 ms.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Page } from '@playwright/test'
import { historyItem } from '../../electron/sandbox/serialize'
import { buildWebHost, startProfile, startWebHost, stopGroup } from './e2e-sync-bench'
import { measured, type MetricMap } from './metrics'
import type { LedgerFillArgs, LedgerFillResult } from './shared/ledger-scroll-types'
import { bundleEntry, contentTypeOf, launchBenchChromium } from './support/chromium-runner'
import { yearOfData } from './support/year-data'

/** The connection the demo made (the cache's only one), read with plain IndexedDB on the app's origin. */
async function demoConnectionId(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      new Promise<string>((ok, fail) => {
        const open = indexedDB.open('closebook')
        open.onerror = () => fail(open.error ?? new Error('open failed'))
        open.onsuccess = () => {
          const get = open.result.transaction('connections').objectStore('connections').getAll()
          get.onsuccess = () => {
            open.result.close()
            const rows = get.result as { id: string }[]
            if (rows.length !== 1) fail(new Error(`expected the demo's one connection, found ${rows.length}`))
            else ok(rows[0]!.id)
          }
        }
      }),
  )
}

/** Starts recording frame gaps and long tasks in the page; the returned call stops and reads them. */
async function recordFrames(page: Page): Promise<() => Promise<{ gaps: number[]; tasks: number[] }>> {
  await page.evaluate(() => {
    const rec = { gaps: [] as number[], tasks: [] as number[], running: true }
    ;(globalThis as unknown as { __frames: typeof rec }).__frames = rec
    let last = performance.now()
    const tick = (t: number): void => {
      rec.gaps.push(t - last)
      last = t
      if (rec.running) requestAnimationFrame(tick)
    }
    requestAnimationFrame((t) => {
      last = t
      requestAnimationFrame(tick)
    })
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) rec.tasks.push(e.duration)
    }).observe({ type: 'longtask' })
  })
  return () =>
    page.evaluate(() => {
      const rec = (
        globalThis as unknown as { __frames: { gaps: number[]; tasks: number[]; running: boolean } }
      ).__frames
      rec.running = false
      return { gaps: rec.gaps, tasks: rec.tasks }
    })
}

/** Waits until every row in the grid's view shows its record (no "…" placeholder); the time it took. */
async function rowsShown(page: Page): Promise<number> {
  const started = Date.now()
  await page.waitForFunction(
    () => {
      const grid = document.querySelector('[role="grid"]')
      return grid?.getAttribute('aria-busy') !== 'true' && grid?.querySelector('.grid-row .loading') === null
    },
    undefined,
    { polling: 'raf', timeout: 120_000 },
  )
  return Date.now() - started
}

export async function benchLedgerScroll({ quick }: { quick: boolean }): Promise<MetricMap> {
  const wanted = Number(process.env['BENCH_SCROLL_RECORDS'] ?? (quick ? 300_000 : 1_000_000))
  const log = (s: string): void => void process.stderr.write(`bench: ledger-scroll: ${s}\n`)
  buildWebHost(log)
  const work = mkdtempSync(join(tmpdir(), 'closebook-ledger-scroll-'))
  const fillDir = join(work, 'fill')
  await bundleEntry(resolve(__dirname, 'browser/ledger-fill-entry.ts'), join(work, 'fill-src'), fillDir)
  const { data, names } = yearOfData(405, wanted)
  let web: { url: string; child: ChildProcess } | undefined
  try {
    web = await startWebHost(join(work, 'data'))
    const context = await launchBenchChromium(join(work, 'profile'))
    try {
      const page = context.pages()[0] ?? (await context.newPage())
      page.setDefaultTimeout(3_600_000)
      // tsx keeps function names with a `__name` helper the page does not have.
      await page.addInitScript('globalThis.__name = globalThis.__name || ((f) => f)')
      await page.goto(web.url)
      await page.getByRole('button', { name: 'Try with demo data' }).click()
      await page.getByTestId('sync-next').waitFor({ timeout: 600_000 })
      const connectionId = await demoConnectionId(page)
      log(`demo synced; filling ${data.history.length} records into connection ${connectionId}`)

      // The fill page on the app's origin: the same IndexedDB as the app.
      const origin = new URL(web.url).origin
      await page.route(`${origin}/__bench/**`, async (route) => {
        const path = new URL(route.request().url()).pathname.replace(/^\/__bench\/?/, '') || 'index.html'
        const file = join(fillDir, path)
        if (!file.startsWith(fillDir)) return route.fulfill({ status: 404 })
        const body = await readFile(file).catch(() => null)
        if (!body) return route.fulfill({ status: 404 })
        return route.fulfill({ body, contentType: contentTypeOf(file) })
      })
      const started = Date.now()
      await page.exposeFunction('__stage', (s: string) =>
        log(`${s} (${Math.round((Date.now() - started) / 1000)} s)`),
      )
      await page.exposeFunction('__items', (offset: number, count: number) =>
        JSON.stringify(data.history.slice(offset, offset + count).map((e) => historyItem(e, names))),
      )
      await page.goto(`${origin}/__bench/index.html`)
      await page.waitForFunction(() => typeof (globalThis as { __bench?: unknown }).__bench === 'function')
      const args: LedgerFillArgs = { connectionId, records: data.history.length }
      const filled = await page.evaluate(
        (a) =>
          (globalThis as unknown as { __bench: (x: LedgerFillArgs) => Promise<LedgerFillResult> }).__bench(a),
        args,
      )
      log(`filled: ${filled.cached} records in ${Math.round(filled.fillMs / 1000)} s`)

      // The Ledger, charges over all periods.
      await page.setViewportSize({ width: 1280, height: 900 })
      await page.goto(web.url)
      await page
        .getByRole('navigation', { name: 'Main navigation' })
        .getByRole('link', { name: 'Ledger' })
        .click()
      await page.getByRole('form', { name: 'Filters' }).getByLabel('Type').selectOption('charge')
      const grid = page.getByRole('grid', { name: 'Ledger records' })
      await page.waitForFunction(
        (least) => Number(document.querySelector('[role="grid"]')?.getAttribute('aria-rowcount')) > least,
        Math.floor(wanted / 2),
        { timeout: 600_000 },
      )
      await rowsShown(page)
      const rows = Number(await grid.getAttribute('aria-rowcount')) - 1
      log(`ledger shows ${rows} charges; scrolling`)

      // LEDGER_SCROLL_PROFILE=1: the page's CPU profile over the scrolling, its top functions logged.
      const profiler = process.env['LEDGER_SCROLL_PROFILE'] ? await startProfile(page) : undefined
      const stop = await recordFrames(page)
      const box = await grid.boundingBox()
      if (!box) throw new Error('the ledger grid is not on screen')
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
      for (let i = 0; i < 60; i++) {
        await page.mouse.wheel(0, 1200)
        await page.waitForTimeout(30)
      }
      await rowsShown(page)
      const jumps: number[] = []
      for (const share of [0.5, 0.1, 0.9, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6, 1]) {
        await page.evaluate((s) => {
          const v = document.querySelector('[role="grid"] .grid-viewport') as HTMLElement
          v.scrollTop = Math.round((v.scrollHeight - v.clientHeight) * s)
        }, share)
        jumps.push(await rowsShown(page))
      }
      await grid.focus()
      await page.keyboard.press('End')
      await rowsShown(page)
      const lastShown = await page
        .locator(`[role="row"][aria-rowindex="${rows + 1}"]`)
        .isVisible()
        .catch(() => false)
      const { gaps, tasks } = await stop()
      if (profiler) log(`the page's busiest functions while scrolling:\n${await profiler()}`)
      const sortedJumps = [...jumps].sort((a, b) => a - b)
      const maxGap = Math.round(Math.max(...gaps))
      const on = `${rows} charges of ${filled.cached} records filtered in the Ledger, 1280×900`
      return {
        'scale.ledger_scroll_max_frame_ms': measured(
          'scale.ledger_scroll_max_frame_ms',
          maxGap,
          `longest gap between frames over 60 wheel turns, 10 scrollbar jumps and End (${gaps.length} frames; ` +
            `${gaps.filter((g) => g > 50).length} over 50 ms; long tasks: ${tasks.length}, longest ` +
            `${Math.round(Math.max(0, ...tasks))} ms); ${on}`,
        ),
        'scale.ledger_scroll_jump_ms': measured(
          'scale.ledger_scroll_jump_ms',
          sortedJumps[Math.floor(sortedJumps.length / 2)] ?? NaN,
          `median time until the rows in view are read after a scrollbar jump (all: ${jumps.join(', ')} ms); ${on}`,
        ),
        'scale.ledger_scroll_reaches_end': measured(
          'scale.ledger_scroll_reaches_end',
          lastShown ? 1 : 0,
          `End shows row ${rows} of ${rows} (1) or not (0); ${on}`,
        ),
      }
    } finally {
      await context.close()
    }
  } finally {
    if (web) await stopGroup(web.child)
    rmSync(work, { recursive: true, force: true })
  }
}
