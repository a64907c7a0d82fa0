import { describe, expect, it } from 'vitest'
import { linkChangeText, matchLinkText, matchRefText } from '../../../../src/components/match-link-text'
import { en } from '../../../../src/i18n/en'
import { formatDate } from '../../../../src/i18n/format'
import { ja } from '../../../../src/i18n/ja'
import type { useDisplay } from '../../../../src/i18n/labels'
import { formatAmount } from '../../../../src/domain/currency'
import { describeMatchRef, rowIdOf, type LinkedRow } from '../../../../src/reconcile/match-links'

type Tree = { readonly [key: string]: string | Tree }
type Display = ReturnType<typeof useDisplay>

/** The parts of useDisplay the link texts use, over the real messages of one language. */
function displayOf(messages: Tree, locale: string): Display {
  const get = (key: string): string | undefined => {
    let node: string | Tree | undefined = messages
    for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined
    return typeof node === 'string' ? node : undefined
  }
  const tr = {
    te: (key: string) => get(key) !== undefined,
    t: (key: string, named: Record<string, unknown> = {}) =>
      (get(key) ?? key).replace(/\{(\w+)\}/g, (_, name: string) => String(named[name])),
  }
  return {
    tr,
    date: (ms: number, zone?: string) => formatDate(ms, locale, zone),
    money: (minor: number, currency: string) => formatAmount(minor, currency, locale),
  } as unknown as Display
}

const TZ = 'Asia/Tokyo'
const row = (over: Partial<LinkedRow>): LinkedRow => ({
  importId: 'o-1',
  line: 2,
  source: 'orders',
  fileName: 'orders.csv',
  orderNumber: 'ORD-12',
  at: Date.parse('2026-10-19T16:00:00Z'), // October 20th in Tokyo
  amount: 1000,
  currency: 'JPY',
  matchedKeys: [],
  ...over,
})
const rows = new Map(
  [
    row({}),
    row({
      importId: 'b-1',
      line: 7,
      source: 'bank',
      fileName: 'bank.csv',
      orderNumber: null,
      amount: 123_456,
    }),
  ].map((r) => [rowIdOf(r), r]),
)
const describe_ = (ref: string | undefined) => describeMatchRef(ref, rows)

describe('match links in words', () => {
  it('names the order and the deposit, in English and in Japanese, amounts in major units', () => {
    const both = 'orders:o-1:2 bank:b-1:7'
    expect(matchRefText(displayOf(en, 'en'), TZ, describe_, both)).toBe(
      'Order ORD-12 (orders.csv, line 2) · Deposit 10/20/2026 ¥123,456 (bank.csv, line 7)',
    )
    expect(matchRefText(displayOf(ja, 'ja'), TZ, describe_, both)).toBe(
      '注文 ORD-12（orders.csv、2 行目） · 入金 2026/10/20 ￥123,456（bank.csv、7 行目）',
    )
    const [gone] = describe_('bank:removed:4')
    expect(gone && matchLinkText(displayOf(ja, 'ja'), TZ, gone)).toBe('削除されたファイルの入金行（4 行目）')
  })

  it('says which link an audit entry added or removed', () => {
    const d = displayOf(en, 'en')
    const mark = (matchRef?: string) => ({ state: 'reconciled', note: '', ...(matchRef ? { matchRef } : {}) })
    expect(
      linkChangeText(d, TZ, describe_, {
        before: mark('orders:o-1:2'),
        after: mark('orders:o-1:2 bank:b-1:7'),
      }),
    ).toBe('linked to Deposit 10/20/2026 ¥123,456 (bank.csv, line 7)')
    expect(linkChangeText(d, TZ, describe_, { before: mark('orders:o-1:2'), after: null })).toBe(
      'link removed: Order ORD-12 (orders.csv, line 2)',
    )
    expect(
      linkChangeText(d, TZ, describe_, { before: mark('orders:o-1:2'), after: mark('orders:o-1:2') }),
    ).toBe('')
  })
})
