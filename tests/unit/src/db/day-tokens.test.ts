import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import {
  packedTokenRowOf,
  partMayMatch,
  putTokens,
  tokenColumnsOf,
  tokenTextOf,
} from '../../../../src/db/day-tokens'
import { historyRecordOf, matchesSearch, searchDayOf } from '../../../../src/db/history-record'
import { HistoryRepository } from '../../../../src/db/history-repository'
import type { DayTokensRecord } from '../../../../src/db/storage-rows'
import type { HistoryRecord, RecordKey } from '../../../../src/domain/records'
import { CONN, HOUR, T0, checkpoint, historyItem, openDb } from './fixtures'

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

describe('packed token parts', () => {
  it.each([
    ['one record', ['\nalpha\nbeta']],
    ['records without tokens first, between and last', ['', '\na', '', '', '\nb\nc', '']],
    ['only records without tokens', ['', '']],
    ['tokens with punctuation and Japanese script', ['\n#123\n=sum(a1)', '\n山田\n太郎', '\nord-1\n1']],
  ])('unpack to the columns they were packed from: %s', (_, texts) => {
    const columns = part(texts)
    const stored = packedTokenRowOf(columns)
    expect(stored).toHaveProperty('text')
    expect(tokenColumnsOf(stored)).toEqual(columns)
    expect(tokenColumnsOf(stored, 'without fields')).toEqual({ ...columns, fields: [] })
  })

  it('keeps a part whose values hold a joiner as plain columns, which read the same', () => {
    for (const columns of [
      part(['\na'], ['st\u0001ore', 'charge', 'successful', 'JPY', 'live', 'visa']),
      part(['\na'], ['store', 'charge', 'successful', 'JPY', 'live', 'vi\u0002sa']),
      { ...part(['\na']), keys: ['charge:a\nb' as RecordKey] },
    ]) {
      const stored = packedTokenRowOf(columns)
      expect(stored).not.toHaveProperty('text')
      expect(tokenColumnsOf(stored)).toEqual(columns)
    }
  })

  it('refuses a packed part that does not unpack to its records', () => {
    const stored = { ...packedTokenRowOf(part(['\na', '\nb'])), times: [T0] }
    expect(() => tokenColumnsOf(stored)).toThrow(/does not unpack to 1 records/)
  })

  it('tells a packed part that lacks a term anywhere, and never passes over a plain one', () => {
    const texts = ['\nyamada\ntaro', '\nsuzuki']
    const packed = packedTokenRowOf(part(texts))
    expect(partMayMatch(packed, ['yama', 'suz'])).toBe(true)
    expect(partMayMatch(packed, ['ada'])).toBe(false)
    expect(partMayMatch(part(texts), ['ada'])).toBe(true)
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
    // The parts written since are packed.
    const rows = await db.dayTokens.toArray()
    expect(rows.some((r) => 'text' in r)).toBe(true)
  })
})
