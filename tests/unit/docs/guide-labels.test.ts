import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { en } from '../../../src/i18n/en'
import { ja } from '../../../src/i18n/ja'
import { PENDING_MARKER, guideImages, guideLabels, guideQuotes, labelShown, messageTexts } from './guide-text'

/**
 * The user guide names only what the app shows: every **bold** label of an English page is a text of
 * src/i18n/en.ts, every one of a Japanese page a text of ja.ts (placeholders stand for any value), every
 * quoted message (a `> ` line) is one too, and every image it shows exists. A page about a part not in
 * this build says so with a marker, and its unknown labels and not yet taken screenshots are printed
 * instead of failing.
 */
const GUIDE = resolve(__dirname, '../../../docs/guide')
const LANGS = { en: messageTexts(en), ja: messageTexts(ja) } as const

function pages(lang: keyof typeof LANGS): string[] {
  const dir = resolve(GUIDE, lang)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => resolve(dir, f))
}

describe('user guide', () => {
  for (const lang of ['en', 'ja'] as const) {
    it(`${lang}: has an index and the same pages as the other language`, () => {
      const names = pages(lang).map((p) => p.slice(p.lastIndexOf('/') + 1))
      const other = pages(lang === 'en' ? 'ja' : 'en').map((p) => p.slice(p.lastIndexOf('/') + 1))
      expect(names).toContain('README.md')
      expect(names.sort()).toEqual(other.sort())
    })

    it(`${lang}: every bold label and quoted message is a text the app shows`, () => {
      const unknown: string[] = []
      for (const page of pages(lang)) {
        const text = readFileSync(page, 'utf8')
        const name = page.slice(GUIDE.length + 1)
        const missing = [...guideLabels(text), ...guideQuotes(text)].filter(
          (label) => !labelShown(label, LANGS[lang]),
        )
        const pending = PENDING_MARKER.exec(text)?.[1]
        if (pending !== undefined) {
          if (missing.length === 0)
            console.log(`${name}: every label is in the app now: drop its marker and renew its screenshots`)
          else
            console.log(
              `${name}: ${missing.length} labels not in this build (${pending}): ${missing.join(' | ')}`,
            )
          continue
        }
        unknown.push(...missing.map((label) => `${name}: “${label}”`))
      }
      expect(unknown, 'labels the app does not show').toEqual([])
    })

    it(`${lang}: every image a page shows exists`, () => {
      const absent: string[] = []
      for (const page of pages(lang)) {
        const text = readFileSync(page, 'utf8')
        const name = page.slice(GUIDE.length + 1)
        const missing = guideImages(text).filter((src) => !existsSync(resolve(dirname(page), src)))
        const pending = PENDING_MARKER.exec(text)?.[1]
        if (pending !== undefined && missing.length > 0)
          console.log(
            `${name}: screenshots to renew once the screen is built (${pending}): ${missing.join(' | ')}`,
          )
        else absent.push(...missing.map((src) => `${name}: ${src}`))
      }
      expect(absent, 'images the guide shows that do not exist').toEqual([])
    })
  }

  it('reads labels, quotes and images the way pages write them', () => {
    const page = [
      'Press **Sync** and then **Close {period}…**.',
      '> Cancelled.',
      '![The ledger](../images/en/04-ledger.png)',
      '`**not a label**`',
    ].join('\n')
    expect(guideLabels(page)).toEqual(['Sync', 'Close {period}…'])
    expect(guideQuotes(page)).toEqual(['Cancelled.'])
    expect(guideImages(page)).toEqual(['../images/en/04-ledger.png'])
    const texts = messageTexts(en)
    expect(labelShown('Close October 2026…', texts)).toBe(true)
    expect(labelShown('Sync', texts)).toBe(true)
    expect(labelShown('1 record changed.', texts)).toBe(true)
    expect(labelShown('Synchronise', texts)).toBe(false)
  })
})
