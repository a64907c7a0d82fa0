/**
 * A corpus of hostile payment-service answers, served over a real socket to main's gateway through the
 * contract. Each either fails with a specific `malformed_response` that names what is wrong (a broken
 * envelope or body), has its bad item quarantined with the field at fault named, or is accepted and
 * stored as inert text. A refused page writes nothing: the partition's checkpoint stays.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DesktopApi } from '../../../electron/shared/contract'
import { DesktopApiError } from '../../../electron/shared/errors'
import { ClosebookDb } from '../../../src/db/database'
import { CacheSyncStore } from '../../../src/sync/cache-sync-store'
import { SyncEngine } from '../../../src/sync/sync-engine'
import { startHostileService, type HostileService } from './hostile-server'
import { allHistory, countHistory } from '../../../src/db/history-part-reads'

const STORE = '7d8e3f10-2b4c-4d5e-8f60-718293a4b5c6'
const item = (over: Record<string, unknown> = {}, i = 0): Record<string, unknown> => ({
  store_id: STORE,
  resource_id: `0a1b2c3d-4e5f-4a6b-8c7d-${String(i).padStart(12, '0')}`,
  charge_id: null,
  amount: 1200,
  currency: 'JPY',
  amount_formatted: 1200,
  type: 'charge',
  status: 'successful',
  metadata: { order_number: 'ORD-1' },
  created_on: '2026-10-15T03:00:00.000000Z',
  mode: 'live',
  merchant_name: 'Hostile K.K.',
  store_name: 'Store',
  payment_type: 'card',
  user_data: {
    type: 'charge',
    cardholder_name: 'Yamada',
    cardholder_email_address: 'y@example.jp',
    brand: 'visa',
    gateway: 'test',
    service_provider: 'test',
    refunds: [],
  },
  bank_transfer_payment_status: null,
  bank_transfer_latest_deposit_date: null,
  ...over,
})
const page = (items: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ items, has_more: false, total_hits: items.length, ...extra })
/** The JSON text with raw bytes (invalid UTF-8) put between the two letters of `marker`'s string. */
function withBytesInside(json: string, marker: string, bytes: number[]): Buffer {
  const at = json.indexOf(marker) + 2
  return Buffer.concat([Buffer.from(json.slice(0, at)), Buffer.from(bytes), Buffer.from(json.slice(at))])
}
let nested: unknown = 'bottom'
for (let i = 0; i < 2000; i++) nested = { deeper: nested }

/**
 * [name, body (string or bytes), expected: refused with a message pattern, its one item quarantined with a
 * reason pattern, or 'accepted']
 */
type Expected = RegExp | 'accepted' | { quarantined: RegExp }
const CORPUS: [string, string | Buffer, Expected][] = [
  ['items not an array', JSON.stringify({ items: {}, has_more: false }), /items/],
  ['has_more missing', JSON.stringify({ items: [] }), /has_more/],
  ['total_hits negative (read as unknown)', page([item()], { total_hits: -1 }), 'accepted'],
  ['amount as a string', page([item({ amount: '1200' })]), { quarantined: /^amount: / }],
  ['amount a fraction', page([item({ amount: 12.5 })]), { quarantined: /^amount: / }],
  ['created_on not a timestamp', page([item({ created_on: 'yesterday' })]), { quarantined: /^created_on: / }],
  ['resource_id missing', page([item({ resource_id: undefined })]), { quarantined: /^resource_id: / }],
  ['unknown mode', page([item({ mode: 'sandbox' })]), { quarantined: /^mode: / }],
  ['user_data missing', page([item({ user_data: undefined })]), 'accepted'],
  ['store id not a UUID', page([item({ store_id: '../../etc' })]), { quarantined: /^store_id: / }],
  ['body is null', 'null', /malformed|expected/i],
  ['body is an array', '[]', /malformed|expected/i],
  ['body is empty', '', /not valid JSON/],
  ['HTML instead of JSON', '<html><script>alert(1)</script></html>', /not valid JSON/],
  ['JSON cut short', page([item()]).slice(0, 200), /not valid JSON/],
  [
    'a page over 16 MB',
    page([item({ metadata: { blob: 'x'.repeat(17 * 1024 * 1024) } })]),
    /larger than 16 MB/,
  ],
  [
    'a 10 MB string in metadata',
    page([item({ metadata: { blob: 'y'.repeat(10 * 1024 * 1024) } })]),
    'accepted',
  ],
  ['deeply nested metadata', page([item({ metadata: { nested } })]), /nested more than 64 levels/],
  [
    'non-UTF-8 bytes in a name',
    withBytesInside(page([item({ store_name: 'AB' })]), '"AB"', [0xff, 0xfe]),
    'accepted',
  ],
  [
    'script and HTML in names',
    page([
      item({
        user_data: { ...(item()['user_data'] as object), cardholder_name: '<img src=x onerror=alert(1)>' },
        store_name: '<script>alert(1)</script>',
      }),
    ]),
    'accepted',
  ],
  [
    'formula prefixes in metadata',
    page([
      item({
        metadata: { a: '=HYPERLINK("http://x")', b: '+1', c: '-1', d: '@SUM(A1)', e: '\tx', f: '\rx' },
      }),
    ]),
    'accepted',
  ],
  [
    'RTL and zero-width characters',
    page([
      item({
        user_data: { ...(item()['user_data'] as object), cardholder_name: 'abc\u202Egnp.exe\u200B\u2066' },
      }),
    ]),
    'accepted',
  ],
  [
    'unknown extra fields',
    page([item({ surprise: { nested: [1, 2, 3] } })], { next_cursor: 'x' }),
    'accepted',
  ],
]

let hostile: HostileService
let body: string | Buffer = ''
let api: DesktopApi
let connectionId = ''

beforeAll(async () => {
  hostile = await startHostileService()
  hostile.setHandler((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end(body)
  })
  api = hostile.api
  connectionId = hostile.connectionId
})

afterAll(async () => {
  await hostile.close()
})

describe(`hostile input corpus (${CORPUS.length} answers)`, () => {
  it.each(CORPUS)(
    '%s',
    async (_name, answer, expected) => {
      body = answer
      const call = api.api.listPage({
        connectionId,
        resource: 'transaction_history',
        storeId: STORE,
        paging: { limit: 100 },
      })
      if (expected === 'accepted') {
        const result = await call
        expect(result.items.length).toBeGreaterThan(0)
        return
      }
      if (!(expected instanceof RegExp)) {
        const result = await call
        expect(result.items).toEqual([])
        expect(result.quarantined?.map((q) => q.reason)).toEqual([
          expect.stringMatching(expected.quarantined),
        ])
        return
      }
      const error = await call.then(
        () => null,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(DesktopApiError)
      expect((error as DesktopApiError).code).toBe('malformed_response')
      const detail = JSON.stringify((error as DesktopApiError).toShape())
      expect(detail).toMatch(expected)
      expect(detail.length).toBeLessThan(4000) // a summary, never the body echoed back
    },
    60_000,
  )

  it('a sync meeting a broken page stores nothing of it and keeps its checkpoint; a bad item is quarantined; hostile text is stored as text', async () => {
    const db = new ClosebookDb(`hostile-${process.pid}`, { indexedDB, IDBKeyRange })
    const store = new CacheSyncStore(db)
    await store.connections.put({
      id: connectionId,
      label: 'Hostile',
      baseUrl: 'http://127.0.0.1',
      timeZone: 'Asia/Tokyo',
      storeIds: [STORE],
      isDemo: true,
      lastSyncedAt: null,
      highWater: {},
    })
    const request = {
      scope: { connectionId, storeIds: [STORE], resources: ['transaction_history' as const] },
      since: Date.parse('2026-10-01T00:00:00Z'),
      lookbackMs: 0,
      coveredUntil: {},
    }
    body = JSON.stringify({ items: [item()], has_more: 'perhaps' })
    const bad = await new SyncEngine({
      api: { listPage: (a) => api.api.listPage(a), cancelJob: () => Promise.resolve() },
      store,
    }).run(request)
    expect(bad.state).toBe('partial')
    expect(bad.partitions.some((p) => p.error?.code === 'malformed_response')).toBe(true)
    expect(await countHistory(db)).toBe(0)
    expect((await store.loadPlan(connectionId)).every((cp) => cp.cursor === null && cp.records === 0)).toBe(
      true,
    )

    body = page([item({ amount: 'lots' }, 1), item({}, 2)])
    const quarantining = await new SyncEngine({
      api: { listPage: (a) => api.api.listPage(a), cancelJob: () => Promise.resolve() },
      store,
    }).run(request)
    expect(quarantining.state).toBe('done')
    // The look-back window reads the page again: the run meets the bad item twice, the table holds it once.
    expect(quarantining.quarantined).toBeGreaterThanOrEqual(1)
    expect(await countHistory(db)).toBe(1)
    expect((await store.quarantine.list(connectionId)).map((q) => [q.itemId, q.reason])).toEqual([
      [item({}, 1)['resource_id'], 'amount: expected number, received string'],
    ])

    body = page([item({ store_name: '<script>alert(1)</script>', metadata: { note: '=1+1' } })])
    const good = await new SyncEngine({
      api: { listPage: (a) => api.api.listPage(a), cancelJob: () => Promise.resolve() },
      store,
    }).run(request)
    expect(good.state).toBe('done')
    const stored = await allHistory(db)
    expect(
      stored.some(
        (r) => r.raw.store_name === '<script>alert(1)</script>' && r.raw.metadata?.['note'] === '=1+1',
      ),
    ).toBe(true)
    db.close()
    await db.delete()
  }, 60_000)
})
