/**
 * The order-file corpus (tests/fixtures/order-files), one file per way shops really write orders: each
 * file read and matched as the app does, scored against its truth.
 */
import { describe, expect, it } from 'vitest'
import { createI18n } from 'vue-i18n'
import { en } from '../../../../src/i18n/en'
import { ja } from '../../../../src/i18n/ja'
import { BUILT_IN_LAYOUTS } from '../../../../src/import/layouts'
import type { LineErrorCode } from '../../../../src/import/line-errors'
import { applyProfile, type MappingProfile } from '../../../../src/import/profiles'
import { parseCsv } from '../../../../src/import/parse'
import { builtInProfileFor, readImportFile } from '../../../../src/import/read-file'
import { proposeMatches } from '../../../../src/reconcile/matching'
import { CORPUS_ZONE } from '../../../bench/shared/match-corpus'
import { byKind, scoreCorpus } from '../../../bench/shared/match-score'
import { loadOrderFiles } from '../../../bench/shared/order-files'

const corpus = loadOrderFiles()

/** A mapping of a plain order file: number, date, total. */
const PLAIN: MappingProfile = {
  id: 'p',
  name: 'p',
  source: 'orders',
  columns: { orderNumber: '注文番号', date: '注文日', amount: '合計金額' },
  defaultCurrency: 'JPY',
  timeZone: CORPUS_ZONE,
}

async function read(name: string) {
  const file = corpus.files.find((f) => f.name === name)
  if (!file) throw new Error(`no corpus file ${name}`)
  const { parsed } = await readImportFile(file.name, file.bytes)
  const profile = builtInProfileFor(parsed.headers, CORPUS_ZONE)
  if (!profile) throw new Error(`${name}: no layout for ${parsed.headers.join(',')}`)
  const applied = applyProfile(parsed, profile, { fileName: file.name })
  const result = proposeMatches({
    rows: applied.rows,
    history: corpus.history,
    charges: corpus.charges,
    timeZone: CORPUS_ZONE,
  })
  return { file, profile, applied, result }
}

describe('the order-file corpus', () => {
  it('links every line with an exact order number and amount, and nothing wrong, in every file', async () => {
    const scores = await scoreCorpus(corpus)
    const summary = scores.map((s) => [s.name, s.precision, s.recall, s.refused])
    expect(summary).toEqual(corpus.files.map((f) => [f.name, 1, 1, 0]))
    expect([...byKind(scores).keys()].sort()).toEqual([
      'bank_preamble',
      'multi_line',
      'order_number',
      'payment_method',
      'shipping_fee',
      'yearless_date',
    ])
  })

  it('ties EC-CUBE numbers to the integration’s ORD-0004961 ids, naming the rule, never one digit off', async () => {
    const { result, file } = await read('eccube4-integration-prefix.csv')
    const tied = result.proposals.filter((p) => p.confidence >= 0.9)
    expect(tied.map((p) => p.explanation.params['tie'])).toEqual(Array(5).fill('decoration'))
    const nearMiss = [...file.truth].find(([, keys]) => keys.length === 0)?.[0]
    expect(result.proposals.map((p) => p.rowLine)).not.toContain(nearMiss)
  })

  it('reads a BASE order whose lines hold their own totals as one order of their sum', async () => {
    const { applied } = await read('base-line-totals.csv')
    expect(applied.errors).toEqual([])
    expect(applied.rows.map((r) => [r.orderNumber, r.amount, r.linesTotal, r.lines?.length ?? 1])).toEqual([
      ['B1A2C3D4E5F60001', 5660, undefined, 2],
      ['B1A2C3D4E5F60002', 1500, 3000, 2],
      ['B1A2C3D4E5F60003', 4480, undefined, 3],
      ['B1A2C3D4E5F60004', 1800, undefined, 1],
    ])
  })

  it('offers a total without shipping or fee with the difference named, never accepted', async () => {
    const { result } = await read('base-total-without-shipping.csv')
    expect(
      result.proposals.map((p) => [p.explanation.code, p.explanation.params['extra'], p.confidence < 0.9]),
    ).toEqual([
      ['reference_differs_shipping', 880, true],
      ['reference_differs_shipping', 660, true],
      ['reference_differs_fee', 330, true],
      ['reference_differs_shipping_fee', 1210, true],
      ['reference_exact', undefined, false],
    ])
  })

  it('dates lines without a year from the file name, and across New Year from the other dates', async () => {
    const named = await read('base-orders-2026-10.csv')
    expect(named.applied.rows.map((r) => r.day)).toEqual([
      '2026-10-06',
      '2026-10-07',
      '2026-10-08',
      '2026-10-09',
      '2026-10-10',
    ])
    const yearEnd = await read('base-year-end.csv')
    expect(yearEnd.applied.rows.map((r) => r.day)).toEqual([
      '2026-12-29',
      '2026-12-30',
      '2026-12-31',
      '2027-01-02',
      '2027-01-03',
    ])
  })

  it('refuses a date without a year when neither the file nor its name gives one', () => {
    const parsed = parseCsv('注文番号,注文日,合計金額\nA-1,10/6,100\n')
    expect(applyProfile(parsed, PLAIN, { fileName: 'orders.csv' }).errors).toMatchObject([
      { row: 2, code: 'date_no_year', params: { text: '10/6' } },
    ])
  })

  it('matches Google Pay, Apple Pay under クレジットカード, コンビニ後払い and 後払い; COD never', async () => {
    const { result, file } = await read('base-payment-words.csv')
    const accepted = result.proposals.filter((p) => p.confidence >= 0.9).map((p) => p.rowLine)
    expect(accepted).toEqual([...file.exact].sort((a, b) => a - b))
    const cod = [...file.truth].find(([, keys]) => keys.length === 0)?.[0] ?? -1
    expect(result.unmatchedReasons.get(cod)?.code).toBe('method_excluded')
  })

  it('finds the Mizuho header below its 照会口座 line', async () => {
    const { profile, applied } = await read('mizuho-shoukai-kouza.csv')
    expect(profile.id).toBe('builtin:mizuho')
    expect(applied.rows.map((r) => [r.day, r.amount])).toEqual([
      ['2026-10-05', 12345],
      ['2026-10-09', -55000],
      ['2026-10-20', 3300],
    ])
  })
})

const LINE_ERRORS: LineErrorCode[] = [
  'column_missing',
  'not_a_date',
  'not_a_time',
  'date_no_year',
  'empty_date',
  'empty_amount',
  'not_an_amount',
  'other_currency',
  'too_many_decimals',
  'amount_too_large',
  'not_a_currency',
  'order_empty_date',
  'order_empty_amount',
  'order_several_currencies',
  'quote_unterminated',
  'quote_malformed',
  'other',
]

describe('line errors and layout names in the UI’s language', () => {
  const i18n = createI18n({ legacy: false, locale: 'ja', messages: { en, ja } })
  const japanese = /[\u3040-\u30ff\u4e00-\u9fff]/

  it('words every line error in Japanese', () => {
    for (const code of LINE_ERRORS) {
      const key = `orderFiles.lineErrors.${code}`
      expect(i18n.global.te(key, 'en'), code).toBe(true)
      expect(i18n.global.t(key, { text: '10/6', order: 'A', message: 'x' }), code).toMatch(japanese)
    }
  })

  it('names every built-in layout in Japanese', () => {
    for (const layout of BUILT_IN_LAYOUTS) {
      const key = `orderFiles.layouts.${layout.id.replace(/^builtin:/, '')}`
      expect(i18n.global.te(key, 'ja'), layout.id).toBe(true)
      expect(i18n.global.te(key, 'en'), layout.id).toBe(true)
    }
  })

  it('words the errors of a real file in Japanese, the order’s and the cells’', () => {
    const parsed = parseCsv('注文番号,注文日,合計金額\nA-1,someday,100\nA-2,2026/10/01,1.5\n')
    const errors = applyProfile(parsed, PLAIN).errors
    const words = errors.map((e) =>
      i18n.global.t(`orderFiles.lineErrors.${e.code ?? 'other'}`, e.params ?? {}),
    )
    expect(words).toEqual(['日付として読めません：someday', 'JPY の小数は 0 桁までですが、1.5 です'])
  })
})
