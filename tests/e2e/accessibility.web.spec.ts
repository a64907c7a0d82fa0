/**
 * axe-core (WCAG 2.1 A and AA rules) on every view, in English and Japanese, with data synced.
 * The app's CSP refuses injected scripts, so this context bypasses it for axe only.
 */
import { createRequire } from 'node:module'
import type { Page } from '@playwright/test'
import { syncDemo } from './support/keyboard'
import { expect, test } from './support/web-host'

test.use({ bypassCSP: true })

const axePath = createRequire(__filename).resolve('axe-core/axe.min.js')

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[] }[]
}

async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axePath })
  const found = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: AxeViolation[] }> } }
    ).axe
    const r = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    })
    return r.violations
  })
  return found.map(
    (v) =>
      `${v.id} (${v.impact ?? '?'}): ${v.help} — ${v.nodes
        .map((n) => JSON.stringify(n.target))
        .slice(0, 3)
        .join(', ')}`,
  )
}

const VIEWS = [
  ['Connections', '接続'],
  ['Ledger', '台帳'],
  ['Matching', '照合'],
  ['Month-end', '月次締め'],
  ['Settings', '設定'],
] as const

test.describe('accessibility', () => {
  test('axe finds no WCAG 2.1 AA violation on any view, in English and Japanese', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(180_000)
    await syncDemo(page, webHost.launchUrl)
    const report: string[] = []
    for (const lang of ['en', 'ja'] as const) {
      if (lang === 'ja') await page.getByLabel('Language').selectOption('ja')
      for (const [en, ja] of VIEWS) {
        const name = lang === 'en' ? en : ja
        await page.getByRole('navigation').getByRole('link', { name, exact: true }).click()
        await expect(page.locator('#main-content h1')).toBeVisible()
        await page.waitForTimeout(300) // lazy rows and summaries
        for (const v of await violations(page)) report.push(`[${lang} ${en}] ${v}`)
      }
    }
    expect(report).toEqual([])
  })

  test('at 200 % zoom (640×450 CSS px) the navigation collapses, nothing scrolls sideways, the grid fits', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(120_000)
    await syncDemo(page, webHost.launchUrl)
    await page.setViewportSize({ width: 640, height: 450 })
    const menu = page.getByRole('button', { name: 'Menu' })
    await expect(menu).toBeVisible()
    await expect(page.getByRole('navigation').getByRole('link', { name: 'Ledger', exact: true })).toBeHidden()
    await menu.click()
    await expect(menu).toHaveAttribute('aria-expanded', 'true')
    await page.getByRole('navigation').getByRole('link', { name: 'Ledger', exact: true }).click()
    const grid = page.getByRole('grid', { name: 'Ledger records' })
    await expect(grid.getByRole('row').nth(1)).toBeVisible()
    const pageScroll = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(pageScroll).toBeLessThanOrEqual(0)
    const box = await grid.boundingBox()
    expect(box?.height ?? 1000).toBeLessThanOrEqual(450)
    // The header stays visible while the body scrolls.
    const scroller = grid.locator('.grid-viewport')
    await scroller.evaluate((v) => (v.scrollTop = 600))
    const top = (await scroller.boundingBox())?.y ?? 0
    const headTop = (await grid.getByRole('row').first().boundingBox())?.y ?? -1
    expect(Math.abs(headTop - top)).toBeLessThan(2)

    // Reflow at 320 px: no sideways page scroll on any view.
    await page.setViewportSize({ width: 320, height: 640 })
    const toggle = page.getByRole('button', { name: 'Menu' })

    // A menu opened while a view is still loading stays open when the view arrives (the menu closed
    // at the end of the navigation once, and a CI run clicked into a menu that had just shut).
    let release = (): void => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route(/\/SettingsView-[^/]*\.js$/, async (route) => {
      await held
      await route.continue()
    })
    await toggle.click()
    await page.getByRole('navigation').getByRole('link', { name: 'Settings', exact: true }).click()
    await expect(toggle).toHaveAttribute('aria-expanded', 'false')
    await toggle.click()
    await expect(toggle).toHaveAttribute('aria-expanded', 'true')
    release()
    await expect(page.locator('#settings-title')).toBeVisible()
    await page.waitForTimeout(200) // the view's focus and announcement run after it renders
    await expect(toggle).toHaveAttribute('aria-expanded', 'true')
    await expect(
      page.getByRole('navigation').getByRole('link', { name: 'Ledger', exact: true }),
    ).toBeVisible()
    await page.unroute(/\/SettingsView-[^/]*\.js$/)

    const headings: Record<string, string> = {
      Connections: '#connections-title',
      Ledger: '#ledger-title',
      Matching: '#match-title',
      'Month-end': '#month-end-title',
      Settings: '#settings-title',
    }
    for (const [name, heading] of Object.entries(headings)) {
      if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click()
      await expect(toggle).toHaveAttribute('aria-expanded', 'true')
      await page.getByRole('navigation').getByRole('link', { name, exact: true }).click()
      // Choosing a view closes the menu.
      await expect(toggle).toHaveAttribute('aria-expanded', 'false')
      await expect(page.locator(heading)).toBeVisible()
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      expect(overflow, name).toBeLessThanOrEqual(0)
    }
  })
})
