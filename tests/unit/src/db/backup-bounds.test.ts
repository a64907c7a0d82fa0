import { describe, expect, it } from 'vitest'
import { ANY_TEXT_MAX, checkTextBounds, hasLongString, longString } from '../../../../src/db/backup-bounds'
import { BackupError } from '../../../../src/db/backup-format'

const MAX = 10

/** Values a row may hold: within bounds, and past them at each kind of place a string can be. */
const VALUES: [string, unknown][] = [
  ['a number', 42],
  ['null', null],
  ['a short string', 'abc'],
  ['a string of exactly the limit', 'x'.repeat(MAX)],
  ['a string one past the limit', 'x'.repeat(MAX + 1)],
  ['a flat object within bounds', { a: 'short', b: 1, c: null, d: true }],
  ['a flat object with one long field', { a: 'short', b: 'y'.repeat(MAX + 1) }],
  ['a long key', { ['k'.repeat(MAX + 1)]: 1 }],
  ['a long key deep inside', { a: { b: [{ ['k'.repeat(MAX + 1)]: 'v' }] } }],
  ['a nested object within bounds', { raw: { user_data: { refunds: [{ id: 'r1' }, { id: 'r2' }] } } }],
  ['a long string inside an array', { raw: { user_data: { refunds: [{ id: 'r1' }, 'z'.repeat(MAX + 1)] } } }],
  ['an array of arrays within bounds', [[['a'], ['b']], [], ['c']]],
  [
    'a long string in the last of many fields',
    Object.fromEntries([...Array(50).keys()].map((i) => [`f${i}`, i === 49 ? 'w'.repeat(MAX + 1) : 'v'])),
  ],
  ['two long strings', { a: 'p'.repeat(MAX + 2), b: { c: 'q'.repeat(MAX + 5) } }],
  ['an empty object and array', { a: {}, b: [] }],
]

describe('the text bounds of a backup row', () => {
  it.each(VALUES)('finds a long string exactly when the path-naming walk does: %s', (_, value) => {
    expect(hasLongString(value, MAX)).toBe(longString(value, MAX) !== null)
  })

  it('answers for a value nested deeper than the call stack goes, as the path-naming walk does', () => {
    let deep: unknown = 'x'.repeat(MAX + 1)
    for (let i = 0; i < 50_000; i++) deep = [deep]
    expect(hasLongString(deep, MAX)).toBe(true)
    expect(longString(deep, MAX)).not.toBeNull()
  })

  it('refuses a row past the limit anywhere, naming the same field as before', () => {
    const row = {
      connectionId: 'c1',
      syncedAt: 1,
      raw: { metadata: { a: 'ok', note: 'n'.repeat(ANY_TEXT_MAX + 1) }, store_name: 's' },
    }
    let error: unknown
    try {
      checkTextBounds('history', row, 7)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(BackupError)
    expect((error as BackupError).code).toBe('text_too_long')
    expect((error as BackupError).params).toEqual({
      table: 'history',
      line: 7,
      field: 'raw.metadata.note',
      max: ANY_TEXT_MAX,
    })
    expect(() => checkTextBounds('history', { ...row, raw: { store_name: 's' } }, 7)).not.toThrow()
  })
})
