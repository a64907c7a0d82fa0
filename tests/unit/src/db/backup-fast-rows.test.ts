/**
 * The fast check of history and charge rows against zod: over the writer's shapes, each kind of payload
 * and a hostile corpus (every field wrong in turn, missing, null, extra, reordered, huge, unicode,
 * `__proto__`), the fast check accepts only what zod accepts, with zod's output key for key, and a row
 * read through rowOf (pass two) or checkedRow (pass one) is accepted or refused exactly as zod alone
 * accepts or refuses it, with the same error.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  chargeItemSchema,
  historyItemSchema,
  type ChargeItem,
  type HistoryItem,
} from '../../../../electron/shared/payment-api'
import { fastChargeRow, fastHistoryRow } from '../../../../src/db/backup-fast-rows'
import { BackupError } from '../../../../src/db/backup-format'
import {
  checkedRow,
  chargeRowSchema,
  historyRowSchema,
  rowOf,
  type Row,
} from '../../../../src/db/backup-read'
import { checkTextBounds } from '../../../../src/db/backup-bounds'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { historyRecordOf } from '../../../../src/db/history-record'
import { CONN, T0, cardUserData, chargeItem, historyItem, uuid } from './fixtures'

type Table = 'history' | 'charges'
type Json = Record<string, unknown>

/** A value with its keys' order and undefined fields made visible, for a comparison that sees both. */
function ordered(value: unknown): unknown {
  if (value === undefined) return { undefined: true }
  if (Array.isArray(value)) return value.map(ordered)
  if (value !== null && typeof value === 'object')
    return Object.keys(value).map((k) => [k, ordered((value as Json)[k])])
  return value
}

/** What rowOf did before the fast check: zod alone. The reference the fast path must match. */
function zodRowOf(table: Table, value: unknown, line: number): Row {
  checkTextBounds(table, value, line)
  const parsed = (table === 'history' ? historyRowSchema : chargeRowSchema).safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new BackupError('invalid_row', {
      table,
      line,
      issue: `${(issue?.path ?? []).join('.')}: ${issue?.message ?? ''}`.slice(0, 200),
    })
  }
  const row = parsed.data as { connectionId: string; syncedAt: number; raw: never }
  const record =
    table === 'history'
      ? historyRecordOf(row.connectionId, row.raw, row.syncedAt)
      : chargeRecordOf(row.connectionId, row.raw, row.syncedAt)
  if (!Number.isFinite(record.createdAt))
    throw new BackupError('invalid_row', { table, line, issue: 'raw.created_on' })
  return { table, record } as Row
}

const outcome = (run: () => Row): unknown => {
  try {
    return { ok: ordered(run().record) }
  } catch (error) {
    if (!(error instanceof BackupError)) throw error
    return { error: error.code, params: error.params }
  }
}

/** Runs the fast check and zod over a row; returns whether the fast check took it. */
function compare(table: Table, value: unknown, label: string): boolean {
  const fast = table === 'history' ? fastHistoryRow(value) : fastChargeRow(value)
  const zod = (table === 'history' ? historyRowSchema : chargeRowSchema).safeParse(value)
  if (fast !== null) {
    expect(zod.success, `${label}: the fast check took a row zod refuses`).toBe(true)
    expect(ordered(fast), label).toStrictEqual(ordered(zod.data))
  }
  const item = { kind: 'row', table, value, line: 7 } as const
  const read = outcome(() => rowOf(item))
  expect(read, label).toStrictEqual(outcome(() => zodRowOf(table, value, 7)))
  // Pass one's check refuses the same rows with the same error, and keeps only the connection.
  const checked = outcome(() => {
    const row = checkedRow(item)
    return { table, record: row.record } as Row
  })
  if ('error' in (read as object)) expect(checked, label).toStrictEqual(read)
  else
    expect(checked, label).toStrictEqual({
      ok: ordered({ connectionId: (rowOf(item).record as { connectionId: string }).connectionId }),
    })
  return fast !== null
}

const clone = (v: unknown): Json => JSON.parse(JSON.stringify(v)) as Json

/** History payloads of each kind the real service sends (real-service.md), built as the API items are. */
function historyPayloads(n: number): HistoryItem[] {
  return [
    historyItem(n),
    historyItem(n + 1, {
      type: 'refund',
      charge_id: uuid(n),
      amount: 500,
      user_data: { type: 'refund', reason: 'requested_by_customer' },
      metadata: null,
    }),
    historyItem(n + 2, {
      payment_type: 'konbini',
      user_data: { type: 'konbini', customer_name: '山田 太郎 🍣', convenience_store: 'seven_eleven' },
      created_on: '2026-10-31T16:30:00.123456+09:00',
    }),
    historyItem(n + 3, {
      payment_type: 'paidy',
      currency: 'usd',
      amount_formatted: 10.5,
      user_data: {
        type: 'paidy',
        cardholder_email_address: 'a@example.com',
        cardholder_phone_number: '+8190',
      },
    }),
    historyItem(n + 4, {
      payment_type: 'online',
      status: 'pending',
      user_data: { type: 'online', brand: null, gateway: null },
      bank_transfer_payment_status: 'waiting',
      bank_transfer_latest_deposit_date: '2026-10-02',
    }),
    historyItem(n + 5, {
      user_data: {
        ...cardUserData(n + 5),
        refunds: [
          {
            refund_id: uuid(n + 90),
            amount: 100,
            currency: 'JPY',
            amount_formatted: 100,
            reason: null,
            status: 'successful',
          },
          { id: uuid(n + 91), amount: 50, currency: 'JPY', status: 'pending', extra: [1] },
        ],
      },
      metadata: { order_id: 'ORD-1', nested: { a: [1, 2], b: null }, 注文番号: '値', '10': 'ten' },
    }),
    {
      ...historyItem(n + 6, { user_data: null, merchant_name: null, store_name: null }),
      future_field: { x: 1 },
    },
  ]
}

function chargePayloads(n: number): ChargeItem[] {
  return [
    chargeItem(n),
    chargeItem(n + 1, {
      status: 'pending',
      charged_amount: null,
      charged_currency: null,
      charged_amount_formatted: null,
    }),
    chargeItem(n + 2, { fee_amount: null, fee_currency: null, capture_at: '2026-10-05T00:00:00Z' }),
    chargeItem(n + 3, {
      status: 'failed',
      error: { code: 402, message: 'declined', details: { reason: 'カード' } },
      metadata: { order: 12, tags: ['a'] },
      requested_currency: 'usd',
      charged_currency: 'usd',
    }),
    { ...chargeItem(n + 4, { redirect: { endpoint: 'https://example.com' } }), future_field: null },
  ]
}

/** Rows of each kind, with their payloads as built (another key order) and as a sync stores them. */
function variedRows(): { history: Json[]; charges: Json[] } {
  const history: Json[] = []
  const charges: Json[] = []
  for (let n = 1; n < 400; n += 20) {
    for (const raw of historyPayloads(n)) {
      history.push({ connectionId: CONN, syncedAt: T0, raw: clone(raw) })
      history.push({ connectionId: CONN, syncedAt: T0 + 0.5, raw: clone(historyItemSchema.parse(raw)) })
    }
    for (const raw of chargePayloads(n)) {
      charges.push({ connectionId: CONN, syncedAt: T0, raw: clone(raw) })
      charges.push({ connectionId: CONN, syncedAt: T0, raw: clone(chargeItemSchema.parse(raw)) })
    }
  }
  return { history, charges }
}

/** The history and charge rows of the released backup files kept as fixtures. */
function fixtureRows(): { history: Json[]; charges: Json[] } {
  const out = { history: [] as Json[], charges: [] as Json[] }
  for (const name of ['v2.ndjson', 'v2-varied.ndjson']) {
    let table = ''
    for (const line of readFileSync(join(__dirname, 'backup-formats', name), 'utf8').split('\n')) {
      if (line === '') continue
      const value = JSON.parse(line) as Json
      if (typeof value['table'] === 'string') table = value['table']
      else if (table === 'history' || table === 'charges') out[table].push(value)
    }
  }
  return out
}

const HUGE = 'x'.repeat(200_000)
/** Values every field is set to in turn. */
const WRONG: readonly unknown[] = [
  null,
  0,
  -1,
  1.5,
  2 ** 53,
  -(2 ** 60),
  1e308,
  '',
  ' ',
  'x',
  'JPY',
  'jpy',
  'JP',
  'live',
  'test',
  'refund',
  'charge',
  'successful',
  '2026-10-01T00:00:00Z',
  '2026-10-01T00:00:00.123456789+09:00',
  '2026-13-45T00:00:00Z',
  '2026-10-01T00:00:00',
  '00000000-0000-4000-8000-000000000000',
  '00000000-0000-4000-8000-00000000000G',
  'ABCDEF00-0000-4000-8000-000000000000',
  '山田 太郎 🍣',
  '\u0000\u202e',
  HUGE,
  true,
  false,
  [],
  [1, 'a'],
  [{}],
  [{ refund_id: 'r', amount: 'x' }],
  {},
  { a: 1 },
  { type: 5, brand: 'visa' },
  { refunds: [{ amount: 5, z: 1, id: 'x' }] },
]

/** Every variant of a row: each field of each object level wrong in turn, missing, moved, doubled. */
function* variants(row: Json): Generator<[string, unknown]> {
  yield ['as it is', row]
  const levels: [string, (r: Json) => Json | undefined][] = [
    ['row', (r) => r],
    ['raw', (r) => r['raw'] as Json],
    ['raw.user_data', (r) => (r['raw'] as Json)['user_data'] as Json | undefined],
    ['raw.metadata', (r) => (r['raw'] as Json)['metadata'] as Json | undefined],
    [
      'raw.user_data.refunds.0',
      (r) => ((((r['raw'] as Json)['user_data'] as Json | undefined)?.['refunds'] as Json[]) ?? [])[0],
    ],
  ]
  for (const [level, at] of levels) {
    const target = at(row)
    if (!target || typeof target !== 'object' || Array.isArray(target)) continue
    for (const key of Object.keys(target)) {
      for (const [i, wrong] of WRONG.entries()) {
        const copy = clone(row)
        at(copy)![key] = wrong
        yield [`${level}.${key} = WRONG[${i}]`, copy]
      }
      const missing = clone(row)
      delete at(missing)![key]
      yield [`${level}.${key} missing`, missing]
      // The key moved last (after any unknown key), and an unknown key before it.
      const moved = clone(row)
      const value = at(moved)![key]
      delete at(moved)![key]
      at(moved)![key] = value
      yield [`${level}.${key} moved last`, moved]
    }
    const extraFirst = clone(row)
    const level0 = at(extraFirst)!
    const entries = Object.entries(level0)
    for (const k of Object.keys(level0)) delete level0[k]
    level0['zz_extra'] = { nested: [1] }
    for (const [k, v] of entries) level0[k] = v
    yield [`${level}: an unknown key first`, extraFirst]
    const extraLast = clone(row)
    at(extraLast)!['zz_extra'] = '余分'
    yield [`${level}: an unknown key last`, extraLast]
    const reversed = clone(row)
    const level1 = at(reversed)!
    const all = Object.entries(level1).reverse()
    for (const k of Object.keys(level1)) delete level1[k]
    for (const [k, v] of all) level1[k] = v
    yield [`${level}: keys reversed`, reversed]
    // `__proto__` as JSON.parse makes it: an own key, which zod's output drops.
    const withProto = clone(row)
    Object.defineProperty(at(withProto), '__proto__', {
      value: { polluted: true },
      enumerable: true,
      writable: true,
      configurable: true,
    })
    yield [`${level}: an own __proto__ key`, withProto]
  }
  yield ['raw an array', { ...row, raw: [row['raw']] }]
  yield ['raw a string', { ...row, raw: JSON.stringify(row['raw']) }]
  yield ['the row an array', [row]]
  yield ['the row null', null]
  yield [
    'parsed __proto__ in raw',
    JSON.parse(JSON.stringify(row).replace('"raw":{', '"raw":{"__proto__":{"x":1},')) as unknown,
  ]
}

describe('the fast check of history and charge rows', () => {
  const varied = variedRows()
  const fixtures = fixtureRows()

  for (const table of ['history', 'charges'] as const) {
    it(`takes every ${table} row of each kind the service sends, in either key order, with zod's output`, () => {
      const rows = varied[table]
      expect(rows.length).toBeGreaterThan(100)
      for (const [i, row] of rows.entries()) expect(compare(table, row, `${table} ${i}`)).toBe(true)
    })

    it(`accepts and refuses ${table} rows of the released files exactly as zod does`, () => {
      const rows = fixtures[table]
      expect(rows.length).toBeGreaterThanOrEqual(10)
      let fast = 0
      for (const [i, row] of rows.entries()) if (compare(table, row, `fixture ${table} ${i}`)) fast++
      expect(fast).toBeGreaterThan(0)
    })

    it(`accepts and refuses a hostile corpus of ${table} rows exactly as zod does`, () => {
      // A card charge, a refund, a charge with user_data refunds and odd metadata, an item with nulls and
      // an unknown field (history); a charge, a pending one, a failed one with its error (charges); each
      // in the order a sync stores it, varied.
      const kinds = table === 'history' ? [0, 1, 5, 6] : [0, 1, 3]
      const bases = kinds.map((k) => varied[table][2 * k + 1]!)
      let runs = 0
      let fast = 0
      let zodOnly = 0
      for (const base of bases)
        for (const [label, value] of variants(base)) {
          runs++
          const took = compare(table, value, label)
          if (took) fast++
          else zodOnly++
        }
      // Both paths were exercised: the fast check took the harmless variants, zod the rest.
      expect(runs).toBeGreaterThan(1000)
      expect(fast).toBeGreaterThan(100)
      expect(zodOnly).toBeGreaterThan(500)
    })
  }

  it('keeps a payload in the writer’s key order as read, and gives a copy in the schema’s order otherwise', () => {
    const stored = varied.history[1]!
    expect(fastHistoryRow(stored)?.raw).toBe(stored['raw'])
    const served = varied.history[0]!
    const out = fastHistoryRow(served)
    expect(out?.raw).not.toBe(served['raw'])
    expect(Object.keys(out!.raw)).toStrictEqual(Object.keys(historyItemSchema.parse(served['raw'])))
  })

  it('names the same line and field as zod for a row only zod can judge', () => {
    const row = clone(varied.history[1]!)
    ;(row['raw'] as Json)['amount'] = 1.5
    expect(fastHistoryRow(row)).toBeNull()
    const error = (() => {
      try {
        rowOf({ kind: 'row', table: 'history', value: row, line: 12 })
      } catch (e) {
        return e
      }
      return null
    })()
    expect(error).toBeInstanceOf(BackupError)
    expect((error as BackupError).params).toMatchObject({ table: 'history', line: 12 })
    expect(String((error as BackupError).params['issue'])).toMatch(/^raw\.amount: /)
  })
})
