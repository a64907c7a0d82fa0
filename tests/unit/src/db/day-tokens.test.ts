import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import {
  packedTokenRowOf,
  partHits,
  putTokens,
  termSearchOf,
  tokenColumnsOf,
  tokenTextOf,
} from '../../../../src/db/day-tokens'
import { historyRecordOf, matchesSearch, searchDayOf, searchTermsOf } from '../../../../src/db/history-record'
import { HistoryRepository } from '../../../../src/db/history-repository'
import type {
  DayTokensRecord,
  MarkedDayTokensRecord,
  StoredDayTokensRow,
} from '../../../../src/db/storage-rows'
import type { HistoryRecord, RecordKey } from '../../../../src/domain/records'
import type { HistoryItem } from '../../../../electron/shared/payment-api'
import { tokenColumnsOfAny } from '../../../../src/db/token-rows'
import { oldMarkedTokenRow, oldPackedTokenRow, tokenSetOf } from '../../../support/token-layouts'
import { CONN, HOUR, T0, checkpoint, historyItem, openDb, uuid } from './fixtures'

const FIELDS = ['store', 'charge', 'successful', 'JPY', 'live', 'visa']

/** A part of the given texts (keys k0…, fields f0…), as the writer builds one. */
function part(texts: string[], fields?: string[]): DayTokensRecord {
  return {
    connectionId: CONN,
    day: 20_000,
    part: 0,
    keys: texts.map((_, i) => `charge:k${i}` as RecordKey),
    times: texts.map((_, i) => T0 + i),
    texts,
    fields:
      fields ??
      texts.flatMap((_, i) => ['store', 'charge', 'successful', 'JPY', 'live', i % 2 ? '' : 'visa']),
  }
}

/** A part's columns with each text as its set of tokens (the layouts keep a record's tokens, not their order). */
const asTokenSets = (columns: DayTokensRecord) => ({
  ...columns,
  texts: columns.texts.map(tokenSetOf),
})

/** The keys of a stored part's records that a search's terms all begin a token of. */
const hitKeys = (row: StoredDayTokensRow, search: string): RecordKey[] =>
  partHits(row, termSearchOf(searchTermsOf(search)), 'with fields').map((h) => h.key)

/** A varied day: Latin, accented, kana and kanji names, e-mails, ids in upper case, metadata of every kind. */
function variedRecords(): HistoryRecord[] {
  const names = [
    'Ava Stone',
    'Zoë Brontë',
    '山田 太郎',
    'やまだ はなこ',
    'ヤマダ タロウ',
    '𠮷野 家',
    "O'Brien-Smith",
    '',
    'José  Álvarez',
    'ANNA-LENA Åberg',
  ]
  const metadata: HistoryItem['metadata'][] = [
    { order_id: 'ORD-2026-0001' },
    { order_number: '#123', note: '=SUM(A1:A9)' },
    { sku: 'a'.repeat(30) + '-' + 'b'.repeat(30), nested: { deep: 'x-y-z', list: ['q1', 'q2'] } },
    {},
    { ref: '注文-0042', memo: 'ギフト包装' },
    { many: Array.from({ length: 60 }, (_, i) => `tok${i}`).join(' ') },
    { emoji: '🎁gift 🎁' },
    { n: 42, neg: -7.5 },
  ]
  return Array.from({ length: 40 }, (_, i) => {
    const name = names[i % names.length]!
    const item = historyItem(i + 1, {
      resource_id: i % 7 === 3 ? uuid(i + 1).toUpperCase() : uuid(i + 1),
      charge_id: i % 5 === 2 ? uuid(900 + i) : null,
      type: i % 5 === 2 ? 'refund' : 'charge',
      created_on: new Date(T0 + i * 60_000).toISOString(),
      metadata: metadata[i % metadata.length],
      user_data:
        i % 9 === 8
          ? { type: 'bank_transfer' }
          : {
              type: 'card',
              cardholder_name: name || null,
              cardholder_email_address:
                i % 3 === 0 ? null : `${name.split(' ')[0]!.toLowerCase()}.x${i}@example.jp`,
              brand: 'visa',
              last_four: i % 4 === 0 ? '4242' : undefined,
            },
    })
    return historyRecordOf(CONN, item, T0)
  })
}

const SEARCHES = [
  'ava',
  'stone ava',
  'zoë',
  'brontë',
  '山田',
  '太',
  'やまだ',
  'はなこ',
  'ヤマ',
  '𠮷',
  '𠮷野',
  "o'brien",
  'brien',
  'smith',
  'o',
  'josé',
  'álv',
  'anna-lena',
  'lena',
  'åberg',
  'ord-2026',
  '2026-0001',
  '0001',
  'd-2026',
  '#123',
  '123',
  '=sum(a1',
  'a1:a9',
  'a9',
  'aaaaaaaaaa',
  'b'.repeat(20),
  'x-y',
  'y-z',
  'q2',
  '注文',
  '0042',
  'ギフト',
  'tok1',
  'tok45',
  'tok59',
  '🎁',
  'gift',
  '42',
  '7.5',
  '4242',
  '00000000-0000',
  '8000-0000',
  uuid(4).toLowerCase(),
  // UUIDs, packed two hex digits to a character: from each word start, odd and even lengths, a hyphen
  // last, across a hyphen, a refund's charge id, an id sent in upper case, and pieces inside a word.
  uuid(5),
  '00000000-0000-4000-8000-00000000000',
  '0000-4000-8000-000000000005',
  '4000-8',
  '8000-0',
  '8000-',
  '000000000005',
  '00000000000',
  '0000000000',
  '0',
  '00',
  uuid(902),
  '000000000386',
  '00000000038',
  '386',
  '86',
  uuid(4).slice(0, 35),
  '000000000004',
  '0000-0000',
  '00-0000',
  '000-4000',
  'example.jp',
  'jp',
  '.x1',
  'x1',
  '\u0001',
  'a\u0002b',
  'zzz',
]

describe('marked token parts', () => {
  it.each([
    ['one record', ['\nalpha\nbeta']],
    ['records without tokens first, between and last', ['', '\na', '', '', '\nb\nc', '']],
    ['only records without tokens', ['', '']],
    ['ids and e-mails by their word starts', ['\nord-2026-1\n2026-1\n1', '\nx.y@ex.jp\ny@ex.jp\nex.jp\njp']],
    [
      'punctuation, kana and kanji',
      ['\n#123\n123\n=sum(a1)\nsum(a1)\na1)', '\n山田\n太郎', '\nやまだ\nヤマダ'],
    ],
  ])('unpack to the tokens they were marked from: %s', (_, texts) => {
    const columns = part(texts)
    const stored = packedTokenRowOf(columns)
    expect(stored).toHaveProperty('latin')
    expect(asTokenSets(tokenColumnsOf(stored))).toEqual(asTokenSets(columns))
    expect(tokenColumnsOf(stored, 'without fields').fields).toEqual([])
  })

  it('stores a Latin-1 token a byte a character and the rest apart', () => {
    const stored = packedTokenRowOf(part(['\nzoë\nx-y\ny', '\n山田\nava'])) as { latin: string; wide: string }
    expect(stored.latin).toBe('\nzoë\nx-\u0001y\u0002\nava')
    expect(stored.wide).toBe('\u0002\n山田')
  })

  it('leaves out the keys each record type and first token imply, and stores them where one does not', () => {
    const records = variedRecords()
    const lower = records.filter((r) => r.resourceId === r.resourceId.toLowerCase())
    const rows = (rs: HistoryRecord[]) =>
      part(
        rs.map(tokenTextOf),
        rs.flatMap((r) => [r.storeId, r.type, r.status, r.currency, r.mode, r.brand]),
      )
    const implied = packedTokenRowOf({ ...rows(lower), keys: lower.map((r) => r.key) })
    expect(implied).not.toHaveProperty('keyText')
    expect(tokenColumnsOf(implied).keys).toEqual(lower.map((r) => r.key))
    const stored = packedTokenRowOf({ ...rows(records), keys: records.map((r) => r.key) })
    expect(stored).toHaveProperty('keyText')
    expect(tokenColumnsOf(stored).keys).toEqual(records.map((r) => r.key))
  })

  it('finds what matchesSearch finds, in the marked, the packed and the plain layouts', () => {
    const records = variedRecords()
    const columns: DayTokensRecord = {
      ...part(
        records.map(tokenTextOf),
        records.flatMap((r) => [r.storeId, r.type, r.status, r.currency, r.mode, r.brand]),
      ),
      keys: records.map((r) => r.key),
      times: records.map((r) => r.createdAt),
    }
    const marked = packedTokenRowOf(columns) as MarkedDayTokensRecord
    expect(marked).toHaveProperty('latin')
    // Every id is packed: none is left as text.
    expect(marked.ids).toHaveLength(16 * (records.length + records.filter((r) => r.type === 'refund').length))
    expect(marked.latin).not.toMatch(/00000000-/)
    const unpacked = oldMarkedTokenRow(marked)
    expect(unpacked).not.toHaveProperty('ids')
    expect(unpacked.latin).toMatch(/00000000-/)
    const combined = [
      'ava 山田',
      'ord-2026 ava',
      'stone zzz',
      'tok1 ギフト',
      `${uuid(7)} 4000`,
      '0005 ava',
      'zoë 386',
    ]
    for (const search of [...SEARCHES, ...combined]) {
      const want = records.filter((r) => matchesSearch(r, search)).map((r) => r.key)
      expect(hitKeys(marked, search), search).toEqual(want)
      expect(hitKeys(unpacked, search), search).toEqual(want)
      expect(hitKeys(oldPackedTokenRow(columns), search), search).toEqual(want)
      expect(hitKeys(columns, search), search).toEqual(want)
    }
    // Each hit carries its record's fields, for a search narrowed by store, type, status and so on.
    const fieldsOf = (r: HistoryRecord) => [r.storeId, r.type, r.status, r.currency, r.mode, r.brand]
    for (const stored of [marked, unpacked, oldPackedTokenRow(columns), columns])
      expect(partHits(stored, termSearchOf(['ava']), 'with fields').map((h) => h.fields)).toEqual(
        records.filter((r) => matchesSearch(r, 'ava')).map(fieldsOf),
      )
    // The corpus holds matches and misses of each kind.
    expect(SEARCHES.filter((s) => records.some((r) => matchesSearch(r, s))).length).toBeGreaterThan(55)
  })

  it('keeps a record whose tokens were cut at the limit exact: its part stays packed', () => {
    // Word starts beyond the 48-token limit are not tokens; marking the value would find them.
    const record = historyRecordOf(
      CONN,
      historyItem(1, {
        metadata: { a: 'x ' + Array.from({ length: 50 }, (_, i) => `w${i}-v${i}`).join(' ') },
      }),
      T0,
    )
    const columns = { ...part([tokenTextOf(record)]), keys: [record.key] }
    const stored = packedTokenRowOf(columns)
    const searches = ['w17', 'v17', 'w18', 'v18', 'w18-v18', 'w19', 'v49']
    for (const search of searches)
      expect(hitKeys(stored, search), search).toEqual(matchesSearch(record, search) ? [record.key] : [])
    expect(searches.filter((s) => matchesSearch(record, s))).toEqual(['w17', 'v17', 'w18', 'w18-v18'])
    expect(stored).toHaveProperty('text')
  })

  it('packs a marked part the old way when a record whose tokens were cut joins it, and it reads the same', () => {
    const records = variedRecords()
    const fieldsOf = (rs: HistoryRecord[]) =>
      rs.flatMap((r) => [r.storeId, r.type, r.status, r.currency, r.mode, r.brand])
    const marked = packedTokenRowOf({
      ...part(records.map(tokenTextOf), fieldsOf(records)),
      keys: records.map((r) => r.key),
      times: records.map((r) => r.createdAt),
    })
    expect(marked).toHaveProperty('latin')
    const cut = historyRecordOf(
      CONN,
      historyItem(99, {
        metadata: { a: 'x ' + Array.from({ length: 50 }, (_, i) => `w${i}-v${i}`).join(' ') },
      }),
      T0,
    )
    // As the writer appends it: the stored part's columns (texts still marked) and the new record.
    const columns = tokenColumnsOfAny(marked)
    const joined = packedTokenRowOf({
      ...columns,
      keys: [...columns.keys, cut.key],
      times: [...columns.times, cut.createdAt],
      texts: [...columns.texts, tokenTextOf(cut)],
      fields: [...columns.fields, ...fieldsOf([cut])],
    })
    expect(joined).toHaveProperty('text')
    const held = [...records, cut]
    for (const search of [...SEARCHES, 'w18', 'v18', 'holder'])
      expect(hitKeys(joined, search), search).toEqual(
        held.filter((r) => matchesSearch(r, search)).map((r) => r.key),
      )
  })

  it('keeps a part over the packed size limit as plain columns, which read the same', () => {
    const texts = Array.from({ length: 0x10000 }, (_, i) => `\nname${i % 97}`)
    const columns = part(
      texts,
      texts.flatMap(() => FIELDS),
    )
    const stored = packedTokenRowOf(columns)
    expect(stored).toHaveProperty('texts')
    expect(hitKeys(stored, 'name96')).toHaveLength(texts.filter((t) => t === '\nname96').length)
  })

  it('keeps a part whose values hold a joiner as plain columns, which read the same', () => {
    for (const columns of [
      part(['\na'], ['st\u0001ore', 'charge', 'successful', 'JPY', 'live', 'visa']),
      part(['\na'], ['store', 'charge', 'successful', 'JPY', 'live', 'vi\u0002sa']),
      { ...part(['\na']), keys: ['charge:a\nb' as RecordKey] },
    ]) {
      const stored = packedTokenRowOf(columns)
      expect(stored).toHaveProperty('texts')
      expect(tokenColumnsOf(stored)).toEqual(columns)
    }
  })

  it('packs, the old way, a part holding a token with a marker character', () => {
    const columns = part(['\na\u0001b', '\nc'])
    const stored = packedTokenRowOf(columns)
    expect(stored).toHaveProperty('text')
    expect(tokenColumnsOf(stored)).toEqual(columns)
    expect(hitKeys(stored, 'a\u0001')).toEqual(['charge:k0'])
  })

  it('refuses a stored part that does not unpack to its records', () => {
    const marked = { ...packedTokenRowOf(part(['\na', '\nb'])), times: [T0] }
    expect(() => tokenColumnsOf(marked)).toThrow(/does not unpack to 1 records/)
    expect(() => hitKeys(marked, 'a')).toThrow(/does not unpack to 1 records/)
    const texts = packedTokenRowOf(part(['\na', '\nb'])) as { latin: string; wide: string }
    const moreTexts = { ...packedTokenRowOf(part(['\na', '\nb'])), latin: `${texts.latin}\u0002\nc` }
    expect(() => tokenColumnsOf(moreTexts)).toThrow(/does not unpack to 2 records/)
    const fewerTexts = { ...packedTokenRowOf(part(['\na', '\nb'])), wide: '' }
    expect(() => tokenColumnsOf(fewerTexts)).toThrow(/does not unpack to 2 records/)
    const fewerKeys = { ...packedTokenRowOf(part(['\na', '\nb'])), keyText: 'charge:k0' }
    expect(() => hitKeys(fewerKeys, 'a')).toThrow(/does not unpack to 2 records/)
    const twoIds = [1, 2].map((n) => historyRecordOf(CONN, historyItem(n), T0))
    const withIds = packedTokenRowOf({
      ...part(twoIds.map(tokenTextOf)),
      keys: twoIds.map((r) => r.key),
    }) as MarkedDayTokensRecord
    expect(withIds.ids).toHaveLength(32)
    for (const broken of [
      { ...withIds, ids: withIds.ids?.slice(1) },
      { ...withIds, ids: withIds.ids?.slice(16) },
      { ...withIds, idCounts: withIds.idCounts?.slice(1) },
      { ...withIds, idCounts: '\u0005\u0003' },
      { ...withIds, ids: undefined },
    ]) {
      expect(() => tokenColumnsOf(broken)).toThrow(/does not unpack to 2 records/)
      expect(() => hitKeys(broken, '00000000')).toThrow(/does not unpack to 2 records/)
    }
    const packed = { ...oldPackedTokenRow(part(['\na', '\nb'])), times: [T0] }
    expect(() => tokenColumnsOf(packed)).toThrow(/does not unpack to 1 records/)
  })

  it('passes over a part that lacks a term anywhere, in each layout', () => {
    const columns = part(['\nyamada\ntaro', '\nsuzuki'])
    for (const stored of [packedTokenRowOf(columns), oldPackedTokenRow(columns), columns]) {
      expect(hitKeys(stored, 'yama taro')).toEqual(['charge:k0'])
      expect(hitKeys(stored, 'yama suz')).toEqual([])
      expect(hitKeys(stored, 'ada')).toEqual([])
    }
  })
})

describe('a day filed before the packed parts', () => {
  let db: ClosebookDb
  beforeEach(() => {
    db = openDb()
  })
  afterEach(() => db.close())

  const record = (n: number, name: string): HistoryRecord =>
    historyRecordOf(
      CONN,
      historyItem(n, {
        created_on: new Date(T0 + (n % 20) * HOUR).toISOString(),
        user_data: { name, email: `${name.split(' ')[0]!.toLowerCase()}@example.jp` },
      }),
      T0,
    )

  it('takes new and replaced records beside its plain parts, and the search finds what matchesSearch does', async () => {
    const names = ['Ava Stone', 'Ben Stone', '山田 太郎', 'Ava Brook']
    const first = Array.from({ length: 12 }, (_, i) => record(i + 1, names[i % names.length]!))
    // As an older release left the day: plain columns, parts of 5.
    const plain: DayTokensRecord[] = []
    const day = searchDayOf(first[0]!.createdAt)
    const sameDay = first.filter((r) => searchDayOf(r.createdAt) === day)
    for (let i = 0; i < sameDay.length; i += 5) {
      const slice = sameDay.slice(i, i + 5)
      plain.push({
        connectionId: CONN,
        day,
        part: i / 5,
        keys: slice.map((r) => r.key),
        times: slice.map((r) => r.createdAt),
        texts: slice.map(tokenTextOf),
        fields: slice.flatMap((r) => [r.storeId, r.type, r.status, r.currency, r.mode, r.brand]),
      })
    }
    const repo = new HistoryRepository(db, () => '', { firstRows: 1, maxRows: 2, partSize: 5 })
    await repo.putPage(CONN, first, checkpoint())
    await db.dayTokens.clear()
    await db.dayTokens.bulkPut(plain)
    const others = first.filter((r) => searchDayOf(r.createdAt) !== day)
    await db.transaction('rw', db.dayTokens, () => putTokens(db.dayTokens, CONN, others, 5))
    // A record renamed where it stands in a plain part, and new ones appended after it.
    const renamed = record(1, 'Cal Stone')
    const added = Array.from({ length: 7 }, (_, i) => record(100 + i, names[i % names.length]!))
    await repo.putPage(CONN, [renamed, ...added], checkpoint())
    const held = [renamed, ...first.slice(1), ...added]
    const all = { connectionId: CONN, from: 0, to: T0 * 2 }
    for (const search of ['ava', 'stone', 'stone ava', '山田', 'cal', 'brook@', 'zzz']) {
      const want = held.filter((r) => matchesSearch(r, search))
      expect(await repo.count({ ...all, search }), search).toBe(want.length)
      const page = await repo.queryPage({ ...all, search, order: 'asc', offset: 0, limit: 100 })
      expect(page.map((r) => r.key).sort(), search).toEqual(want.map((r) => r.key).sort())
    }
    // The parts written since are marked.
    const rows = await db.dayTokens.toArray()
    expect(rows.some((r) => 'latin' in r)).toBe(true)
  })
})
