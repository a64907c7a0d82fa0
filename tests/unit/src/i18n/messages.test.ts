import { describe, expect, it } from 'vitest'
import { en } from '../../../../src/i18n/en'
import { ja } from '../../../../src/i18n/ja'
import { backupRefusalText, labelOf, zoneLabel, type Translator } from '../../../../src/i18n/labels'

type Tree = { readonly [key: string]: string | Tree }

function leaves(tree: Tree, prefix = ''): [string, string][] {
  return Object.entries(tree).flatMap(([k, v]) =>
    typeof v === 'string' ? [[`${prefix}${k}`, v] as [string, string]] : leaves(v, `${prefix}${k}.`),
  )
}

/** Messages that are the same in Japanese on purpose: names and marks, not words. */
const SAME_IN_JAPANESE =
  /^(app\.name|languages\.|labels\.brands\.(visa|master|mastercard|jcb)$|labels\.paymentTypes\.(apple_pay|google_pay)$|ledger\.recordView\.none$|ledger\.auditView\.noValue$|ledger\.recordView\.related$|ledger\.keyboard\.keys\.(arrows|shiftArrows|space|selectAll|home|enter|escape|mark|unmark|note|undo|help)$)/

function translator(messages: Tree): Translator {
  const get = (key: string): string | undefined => {
    let node: string | Tree | undefined = messages
    for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined
    return typeof node === 'string' ? node : undefined
  }
  return {
    te: (key) => get(key) !== undefined,
    t: (key, named = {}) =>
      (get(key) ?? key).replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = named[name]
        return typeof value === 'string' || typeof value === 'number' ? String(value) : `{${name}}`
      }),
  }
}

describe('messages', () => {
  it('en and ja have the same keys', () => {
    expect(
      leaves(ja)
        .map(([k]) => k)
        .sort(),
    ).toEqual(
      leaves(en)
        .map(([k]) => k)
        .sort(),
    )
  })

  it('every Japanese message is Japanese, except names that are the same in both', () => {
    const notJapanese = leaves(ja).filter(
      ([key, text]) =>
        !SAME_IN_JAPANESE.test(key) &&
        !/[\u3040-\u30ff\u4e00-\u9fff]/.test(text) &&
        // A message of placeholders and punctuation only ("{name}（{zone}）") has no words to translate.
        /[A-Za-z]/.test(text.replace(/\{\w+\}/g, '')),
    )
    expect(notJapanese).toEqual([])
  })
})

describe('labels', () => {
  it('words statuses, brands and payment types in the display language', () => {
    const tr = translator(ja)
    expect(labelOf(tr, 'statuses', 'successful')).toBe('成功')
    expect(labelOf(tr, 'statuses', 'CANCELED')).toBe('キャンセル済み')
    expect(labelOf(tr, 'brands', 'master')).toBe('Mastercard')
    expect(labelOf(tr, 'paymentTypes', 'card')).toBe('クレジットカード')
    expect(labelOf(translator(en), 'statuses', 'awaiting')).toBe('Awaiting payment')
  })

  it('shows a value the API added later as the API spells it, never as a key', () => {
    expect(labelOf(translator(ja), 'statuses', 'disputed')).toBe('disputed')
    expect(labelOf(translator(ja), 'brands', '')).toBe('')
  })

  it('names time zones in the display language with their id', () => {
    expect(zoneLabel(translator(ja), 'Asia/Tokyo', 'ja')).toBe('日本標準時（Asia/Tokyo）')
    expect(zoneLabel(translator(en), 'UTC', 'en')).toBe('Coordinated Universal Time (UTC)')
    expect(zoneLabel(translator(en), 'Not/AZone', 'en')).toBe('Not/AZone')
  })

  it('words a backup refusal with the file section named as Settings lists it, in the display language', () => {
    const refused = { code: 'duplicate_key', params: { table: 'marks', key: 'charge:c1', line: 12 } }
    const inJapanese = backupRefusalText(translator(ja), refused)
    expect(inJapanese).toContain('「消込とメモ」')
    expect(inJapanese).not.toContain('marks')
    expect(backupRefusalText(translator(en), refused)).toContain(en.settings.tables.marks)
    // A section with no Settings name (none today) stays as the file spells it; the code keeps its message.
    expect(
      backupRefusalText(translator(ja), { ...refused, params: { ...refused.params, table: 'newer' } }),
    ).toContain('「newer」')
    expect(backupRefusalText(translator(ja), { code: 'restore_failed', params: { message: 'x' } })).toBe(
      translator(ja).t('settings.restoreStaging.failed', { message: 'x' }),
    )
  })
})
