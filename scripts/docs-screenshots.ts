/**
 * Renews the user guide's screenshots: starts the built web host with a throwaway data directory, walks
 * the demo in English and in Japanese with Debian's Chromium, and writes PNGs to
 * docs/guide/images/{en,ja}/. A screen this build does not have is never faked: it is reported with its
 * reason, and the run fails (exit 1) unless MAY_BE_MISSING names that screen and says why the guide can do
 * without it. Usage: `npm run build && npm run docs:screenshots [-- --lang en|ja]`.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { chromium, type Browser, type Locator, type Page } from '@playwright/test'
import Encoding from 'encoding-japanese'
import Papa from 'papaparse'
import { en } from '../src/i18n/en'
import { ja } from '../src/i18n/ja'
import { startBuiltWebHost } from '../tests/e2e/support/web-host'

type Lang = 'en' | 'ja'
type Tree = { readonly [key: string]: string | Tree }
const MESSAGES: Record<Lang, Tree> = { en, ja }
const OUT = resolve(__dirname, '../docs/guide/images')
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'
/**
 * Screens the guide may go without, each with the reason; any other missing screen fails the run, so a
 * locator that no longer finds its screen is noticed rather than leaving the guide an old picture.
 */
const MAY_BE_MISSING: Readonly<Record<string, string>> = {}

/** The demo's busiest complete month, the one the guide closes. */
const MONTH = '2026-10'

/** The message at `path`, or undefined where this build has no such message (a screen not built yet). */
function lookup(lang: Lang, path: string): string | undefined {
  let node: string | Tree | undefined = MESSAGES[lang]
  for (const part of path.split('.')) node = typeof node === 'object' ? node[part] : undefined
  return typeof node === 'string' ? node : undefined
}

class Shots {
  readonly written: string[] = []
  readonly skipped: string[] = []
  constructor(
    readonly page: Page,
    readonly lang: Lang,
  ) {}

  t(path: string, values: Record<string, string> = {}): string {
    const text = lookup(this.lang, path)
    if (text === undefined) throw new Error(`no message ${path} in ${this.lang}`)
    return text.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? `{${k}}`)
  }

  /** A message with its placeholders as wildcards, to find a control whatever month it names. */
  pattern(path: string): RegExp {
    const parts = this.t(path).split(/\{\w+\}/)
    return new RegExp(`^${parts.map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('.+')}$`)
  }

  has(path: string): boolean {
    return lookup(this.lang, path) !== undefined
  }

  skip(name: string, reason: string): void {
    this.skipped.push(name)
    console.log(`skipped ${this.lang}/${name}.png: ${reason}`)
  }

  /**
   * One element, or the viewport: from the top of the view, or scrolled to show `element` first. An
   * element this build does not show is skipped, saying so, rather than failing the whole walk.
   */
  async take(name: string, element?: Locator, scrollTo = false): Promise<void> {
    const path = resolve(OUT, this.lang, `${name}.png`)
    if (
      element &&
      !(await element.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      ))
    ) {
      this.skip(name, `${String(element)} is not on this build's screen`)
      return
    }
    await this.page.waitForTimeout(300) // past transitions and debounced counts
    if (element && !scrollTo) await element.screenshot({ path, animations: 'disabled' })
    else {
      await (element ?? this.page.locator('h1').first()).scrollIntoViewIfNeeded()
      await this.page.screenshot({ path, animations: 'disabled' })
    }
    this.written.push(path)
    console.log(`wrote ${this.lang}/${name}.png`)
  }

  /** One of Month-end's parts, found by its title as the section navigation names it. */
  monthEndPart(id: 'summary' | 'totals' | 'payouts' | 'exports' | 'charts'): Locator {
    return this.page.getByRole('region', { name: this.t(`monthEndSections.titles.${id}`), exact: true })
  }

  async go(navKey: string): Promise<void> {
    const nav = this.page.getByRole('navigation', { name: this.t('app.mainNav') })
    await nav.getByRole('link', { name: this.t(navKey), exact: true }).click()
    await this.page.getByRole('heading', { level: 1, name: this.t(navKey) }).waitFor()
  }

  async chooseMonth(value: string): Promise<void> {
    const group = this.page.getByRole('group', { name: this.t('ledger.period'), exact: true })
    const [year, month] = value.split('-').map((part) => String(Number(part)))
    await group.locator('select[data-part="year"]').selectOption(year ?? '')
    await group.locator('select[data-part="month"]').selectOption(month ?? '')
  }
}

async function connectAndSync(s: Shots): Promise<void> {
  const { page } = s
  const tryDemo = page.getByRole('button', { name: s.t('connections.tryDemo') })
  await tryDemo.waitFor()
  await s.take('01-first-screen')
  await tryDemo.click()
  const row = page
    .getByRole('table', { name: s.t('connections.listLabel') })
    .getByRole('row')
    .nth(1)
  await row.waitFor()
  const state = page.getByTestId('sync-state')
  // A build where the demo syncs by itself has started; otherwise the guide's step: press Sync.
  await page.waitForTimeout(2_000)
  if (!(await state.isVisible())) await row.getByRole('button', { name: s.t('connections.sync') }).click()
  await page.getByRole('progressbar', { name: s.t('sync.progressLabel') }).waitFor({ timeout: 30_000 })
  await s.take('02-sync-running')
  await page.getByText(s.t('sync.state.done'), { exact: true }).waitFor({ timeout: 180_000 })
  await s.take('03-sync-done')
}

async function ledger(s: Shots): Promise<void> {
  const { page } = s
  await s.go('nav.ledger')
  const count = page.getByTestId('ledger-count')
  await count.filter({ hasText: /\d/ }).waitFor()
  await s.chooseMonth(MONTH)
  await page.waitForTimeout(1_500)
  const grid = page.getByRole('grid', { name: s.t('ledger.gridLabel') })
  const boxes = grid.getByRole('checkbox')
  await boxes.nth(0).check()
  await boxes.nth(1).check()
  await page.getByLabel(s.t('ledger.note')).fill(s.lang === 'en' ? 'Bank deposit 10/31' : '10/31 入金分')
  await page.getByRole('button', { name: s.t('ledger.markSelected') }).click()
  await page.getByTestId('ledger-notice').waitFor()
  await boxes.nth(2).check()
  await grid.locator('.grid-viewport [role="gridcell"].c-date').nth(2).click()
  await s.take('04-ledger')
  // The first marked record's details: its fields, its mark and note, its audit trail.
  await grid.locator('.grid-viewport [role="gridcell"].c-date').nth(0).click()
  await s.take('04-record-details', page.locator('section.record-detail'))
  await grid.locator('.grid-viewport [role="gridcell"].c-date').nth(2).focus()
  await page.keyboard.press('?')
  await s.take('05-ledger-keys', page.locator('details.shortcuts'))
  await page.keyboard.press('?')
}

/** An order export of October's first card charges, in Shift_JIS as Japanese shops write it. */
async function orderFile(s: Shots): Promise<Buffer> {
  const { page } = s
  for (const [label, value] of [
    ['ledger.type', 'charge'],
    ['ledger.status', 'successful'],
    ['ledger.currency', 'JPY'],
    ['ledger.mode', 'live'],
  ] as const) {
    await page.getByRole('combobox', { name: s.t(label), exact: true }).selectOption(value)
    await page.waitForTimeout(800)
  }
  // The records as the ledger exports them, as a shop's own order list would hold them.
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: s.t('ledger.exportCsv') }).click()
  const csv = Papa.parse<Record<string, string>>(
    readFileSync((await (await download).path()) ?? '', 'utf8').replace(/^\uFEFF/, ''),
    { header: true, skipEmptyLines: true },
  ).data
  const lines = ['注文番号,注文日,金額,通貨,顧客']
  for (const r of csv.filter((row) => row['Order']).slice(0, 12)) {
    const day = (r['Created'] ?? '').slice(0, 10).replace(/-/g, '/')
    lines.push(`${r['Order']},${day},"${Number(r['Amount']).toLocaleString('en-US')}",JPY,${r['Cardholder']}`)
  }
  lines.push(lines[1] ?? '') // a line twice, as real exports have: left to the accountant
  lines.push('ORD-UNKNOWN-1,2026/10/31,"4800",JPY,山田 花子')
  const sjis = Encoding.convert(Encoding.stringToCode(lines.join('\r\n') + '\r\n'), {
    to: 'SJIS',
    from: 'UNICODE',
  })
  return Buffer.from(Uint8Array.from(sjis))
}

async function matching(s: Shots): Promise<void> {
  const { page } = s
  const file = await orderFile(s)
  await s.go('nav.match')
  await page.getByRole('combobox', { name: s.t('match.source') }).selectOption('orders')
  await page
    .getByLabel(s.t('match.file'))
    .setInputFiles({ name: '注文一覧-2026-10.csv', mimeType: 'text/csv', buffer: file })
  await page.getByRole('button', { name: s.t('match.import') }).waitFor()
  await s.take('06-matching-import')
  await page.getByRole('button', { name: s.t('match.import') }).click()
  await page.getByTestId('match-counts').waitFor()
  await s.take('07-matching-review')
  await page.getByRole('button', { name: s.pattern('match.acceptAbove') }).click()
  await page.getByTestId('match-notice').waitFor()
}

async function settings(s: Shots): Promise<void> {
  const { page } = s
  await s.go('nav.settings')
  const you = page.locator('section[aria-labelledby="settings-you"]')
  await you.getByRole('textbox').fill(s.lang === 'en' ? 'Aiko Tanaka' : '田中 愛子')
  await you.getByRole('button', { name: s.t('settings.save') }).click()
  await s.take('08-settings')
  const journal = page.getByRole('heading', { name: s.t('journal.settingsTitle') })
  await s.take('09-journal-settings', page.locator('section').filter({ has: journal }).last())
  if (!s.has('team.title')) {
    s.skip('10-team', 'this build has no team workspace section in Settings')
    return
  }
  const team = page.getByRole('heading', { name: s.t('team.title') })
  await s.take('10-team', page.locator('section').filter({ has: team }).last())
}

async function monthEnd(s: Shots): Promise<void> {
  const { page } = s
  await s.go('nav.monthEnd')
  await s.chooseMonth(MONTH)
  // The month re-verified after it ended, as the guide asks before a close.
  await page.getByRole('button', { name: s.pattern('monthEnd.verify.action') }).click()
  await page
    .getByTestId('verify-last')
    .filter({ hasText: s.pattern('monthEnd.verify.lastVerified') })
    .waitFor({
      timeout: 120_000,
    })
  const checklist = page.getByRole('list', { name: s.pattern('monthEnd.close.checklistLabel') })
  await checklist.waitFor()
  await s.take('11-month-end')
  await s.take('12-month-end-totals', s.monthEndPart('totals'))
  await s.take('13-month-end-exports', s.monthEndPart('exports'), true)
  await s.take('14-payouts', s.monthEndPart('payouts'))
  await closeMonth(s)
}

/** Closes the month with open items acknowledged, as the guide walks it, and shows the closed month. */
async function closeMonth(s: Shots): Promise<void> {
  const { page } = s
  await page.getByRole('button', { name: s.pattern('monthEnd.close.openButton') }).click()
  const dialog = page.getByRole('dialog', { name: s.pattern('monthEnd.close.dialogTitle') })
  await dialog.waitFor()
  await dialog.getByRole('checkbox', { name: s.t('monthEnd.close.acknowledge') }).check()
  await dialog
    .getByRole('textbox')
    .fill(
      s.lang === 'en'
        ? 'Demo: test-mode and foreign-currency records left open.'
        : 'デモ：テストモードと外貨の記録は未消込のまま',
    )
  await s.take('15-month-end-close', dialog)
  await dialog.getByRole('button', { name: s.pattern('monthEnd.close.confirm') }).click()
  await page.getByText(s.t('monthEnd.closed')).first().waitFor()
  await s.take('16-month-end-closed')
}

async function walk(browser: Browser, lang: Lang): Promise<Shots> {
  mkdirSync(resolve(OUT, lang), { recursive: true })
  const host = await startBuiltWebHost()
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    locale: lang === 'en' ? 'en-GB' : 'ja-JP',
    timezoneId: 'Asia/Tokyo',
  })
  await context.addInitScript(`localStorage.setItem('closebook.locale', '${lang}')`)
  const page = await context.newPage()
  page.setDefaultTimeout(20_000)
  const shots = new Shots(page, lang)
  try {
    await page.goto(host.launchUrl)
    await connectAndSync(shots)
    await ledger(shots)
    await matching(shots)
    await settings(shots)
    await monthEnd(shots)
  } finally {
    await context.close()
    await host.stop()
  }
  return shots
}

async function main(): Promise<void> {
  const only = process.argv.indexOf('--lang')
  const langs: Lang[] = only >= 0 ? [process.argv[only + 1] as Lang] : ['en', 'ja']
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-gpu',
    ],
  })
  const missing: string[] = []
  try {
    for (const lang of langs) {
      const shots = await walk(browser, lang)
      console.log(`${lang}: ${shots.written.length} written, ${shots.skipped.length} skipped`)
      missing.push(
        ...shots.skipped.filter((name) => !(name in MAY_BE_MISSING)).map((name) => `${lang}/${name}`),
      )
    }
  } finally {
    await browser.close()
  }
  if (missing.length > 0) {
    console.error(`missing screens (not in MAY_BE_MISSING): ${missing.join(', ')}`)
    process.exit(1)
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
