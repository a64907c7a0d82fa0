/**
 * Writes tests/unit/src/db/migrations/cache-vK.json from the released code of schema version K
 * (scripts/capture-released-cache.sh runs it, as a Vitest file, inside an export of that commit).
 * The cache is what that version left on disk: the released v1 cache (cache-v1.json) opened by it
 * (connections c1 and c2, upgraded by its steps), then a connection c3 synced (history and charge list),
 * re-synced and marked through its own sync store and marking code. Each table is read without the app's reading hooks, so
 * the rows are exactly as that version stored them.
 *
 * It imports the modules by path at run time: their names and signatures differ between versions.
 */
import Dexie from 'dexie'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { writeFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import released from './cache-v1.json'

type Row = Record<string, unknown>
type Item = Record<string, unknown>

const at = (iso: string): string => new Date(iso).toISOString()

function charge(id: string, fields: Item): Item {
  return {
    store_id: 's1',
    resource_id: id,
    charge_id: null,
    amount: 1000,
    currency: 'JPY',
    type: 'charge',
    status: 'successful',
    mode: 'live',
    payment_type: 'card',
    metadata: {},
    user_data: {},
    ...fields,
  }
}

/** c3's first sync (two pages), then a re-sync page where a pending charge has completed. */
const FIRST_PAGE: Item[] = [
  charge('ch31', {
    amount: 4800,
    created_on: at('2026-10-03T00:30:00Z'),
    metadata: { order_id: 'ORD-12', note: 'Gift wrap, please' },
    user_data: {
      cardholder_name: 'Taro Suzuki',
      cardholder_email_address: 'taro@example.com',
      brand: 'visa',
    },
  }),
  {
    store_id: 's1',
    resource_id: 'rf31',
    charge_id: 'ch31',
    amount: 300,
    currency: 'JPY',
    type: 'refund',
    status: 'successful',
    created_on: at('2026-10-04T02:00:00Z'),
    mode: 'live',
    payment_type: 'card',
    metadata: {},
    user_data: { refunds: [{ id: 'rf31', amount: 300, currency: 'jpy', status: 'successful' }] },
  },
  charge('ch33', {
    amount: 2500,
    status: 'failed',
    created_on: at('2026-10-31T16:00:00Z'),
    user_data: { cardholder_name: 'Jiro', brand: 'visa' },
  }),
]
const SECOND_PAGE: Item[] = [
  charge('ch32', {
    store_id: 's2',
    amount: 1999,
    currency: 'usd',
    status: 'pending',
    mode: 'test',
    created_on: at('2026-10-05T09:15:00Z'),
    metadata: { orderNumber: 'ORD-100' },
    user_data: { cardholder_name: 'Alice Brown', brand: 'master', last_four: '5454' },
  }),
  charge('ch34', {
    amount: 800,
    payment_type: 'konbini',
    created_on: at('2026-09-30T15:30:00Z'),
    user_data: { customer_name: 'Hanako', brand: 'visa' },
  }),
]
const RESYNC_PAGE: Item[] = [{ ...SECOND_PAGE[0]!, status: 'successful' }]

/** c3's charge list: fees and the shop's transaction ids, one charge still pending when listed. */
const CHARGES: Item[] = [...FIRST_PAGE, ...SECOND_PAGE]
  .filter((item) => item['type'] === 'charge')
  .map((item, i) => ({
    id: item['resource_id'],
    store_id: item['store_id'],
    requested_amount: item['amount'],
    requested_currency: item['currency'],
    charged_amount: item['status'] === 'pending' ? null : item['amount'],
    charged_currency: item['status'] === 'pending' ? null : item['currency'],
    fee_amount: i % 2 === 0 ? 36 + i : null,
    fee_currency: i % 2 === 0 ? item['currency'] : null,
    status: item['status'],
    mode: item['mode'],
    created_on: item['created_on'],
    merchant_transaction_id: i === 0 ? 'ORD-12' : null,
  }))

interface SyncStore {
  savePlan(connectionId: string, plan: Row[]): Promise<void>
  putPage(page: { resource: string; items: Item[] }, checkpoint: Row, syncedAt: number): Promise<unknown>
}
type Planner = (snapshot: unknown) => { puts: Row[]; deletes: string[]; audit: Row[]; refused: unknown[] }
interface Marker {
  planAndApply(connectionId: string, refs: Row[], planner: Planner): Promise<unknown>
}

const src = '../../../../../src'

async function syncC3(db: unknown): Promise<void> {
  const { CacheSyncStore } = (await import(/* @vite-ignore */ `${src}/sync/cache-sync-store`)) as {
    CacheSyncStore: new (db: unknown) => SyncStore
  }
  const store = new CacheSyncStore(db)
  const cp: Row = {
    connectionId: 'c3',
    partitionId: 'initial|all',
    resource: 'transaction_history',
    storeId: null,
    from: 0,
    to: Number.MAX_SAFE_INTEGER,
    cursor: null,
    done: false,
    records: 0,
    requests: 0,
    updatedAt: 1,
  }
  await store.savePlan('c3', [cp])
  await store.putPage({ resource: 'transaction_history', items: FIRST_PAGE }, cp, 10)
  await store.putPage({ resource: 'transaction_history', items: SECOND_PAGE }, { ...cp, done: true }, 20)
  const charges = { ...cp, partitionId: 'initial|charges', resource: 'charges' }
  await store.savePlan('c3', [{ ...cp, done: true }, charges])
  await store.putPage({ resource: 'charges', items: CHARGES }, { ...charges, done: true }, 20)
  await store.savePlan('c3', [{ ...cp, partitionId: 'recheck|all' }])
  await store.putPage(
    { resource: 'transaction_history', items: RESYNC_PAGE },
    { ...cp, partitionId: 'recheck|all', done: true },
    30,
  )
}

/** c3's marks through the version's own marking code: a reconciled record, a note, a changed one. */
async function markC3(db: { history: { get(key: unknown): Promise<Row | undefined> } }): Promise<void> {
  const marking = (await import(/* @vite-ignore */ `${src}/db/marking-service`).catch(() => null)) as {
    MarkingService?: new (db: unknown) => Marker
  } | null
  const repository = (await import(/* @vite-ignore */ `${src}/db/marks-repository`)) as {
    MarksRepository: new (db: unknown) => Marker
  }
  const { fingerprintOf } = (await import(/* @vite-ignore */ `${src}/domain/fingerprint`)) as {
    fingerprintOf: (record: Row) => string
  }
  const marker = marking?.MarkingService ? new marking.MarkingService(db) : new repository.MarksRepository(db)
  const record = async (key: string): Promise<Row> => {
    const found = await db.history.get(['c3', key])
    if (!found) throw new Error(`c3 has no ${key}`)
    return found
  }
  const ch31 = await record('charge:ch31')
  const rf31 = await record('refund:rf31')
  const ch33 = await record('charge:ch33')
  const mark = (r: Row, state: string | null, note: string, fingerprint: string | null, changed: 0 | 1) => ({
    connectionId: 'c3',
    key: r['key'],
    state,
    note,
    fingerprint,
    changedSinceReconciled: changed,
    period: '2026-10',
    updatedAt: 40,
    updatedBy: 'me',
  })
  const puts = [
    mark(ch31, 'reconciled', 'checked against the bank', fingerprintOf(ch31), 0),
    mark(rf31, null, 'ask the shop', null, 0),
    mark(ch33, 'reconciled', '', 'old', 1),
  ]
  const audit = puts.map((m) => ({
    connectionId: 'c3',
    at: 40,
    actor: 'me',
    action: 'mark',
    key: m.key,
    period: m.period,
    before: null,
    after: { state: m.state, note: m.note },
  }))
  const refs = [ch31, rf31, ch33].map((r) => ({ key: r['key'], createdAt: r['createdAt'] }))
  await marker.planAndApply('c3', refs, () => ({ puts, deletes: [], audit, refused: [] }))
}

it('captures the cache this version writes', async () => {
  const version = Number(process.env['CAPTURE_VERSION'])
  const out = process.env['CAPTURE_OUT']
  if (!version || !out) throw new Error('set CAPTURE_VERSION and CAPTURE_OUT')
  const database = (await import(/* @vite-ignore */ `${src}/db/database`)) as Record<string, unknown>
  const ClosebookDb = database['ClosebookDb'] as new (
    name: string,
    deps: object,
  ) => Dexie & {
    history: { get(key: unknown): Promise<Row | undefined> }
  }
  expect(database['CURRENT_VERSION']).toBe(version)
  const deps = { indexedDB: new IDBFactory(), IDBKeyRange }

  const v1 = new Dexie('closebook', deps)
  v1.version(1).stores(database['SCHEMA_V1'] as Record<string, string>)
  await v1.open()
  for (const [table, rows] of Object.entries(released as Record<string, Row[]>))
    await v1.table(table).bulkAdd(rows)
  v1.close()

  const db = new ClosebookDb('closebook', deps)
  await db.open()
  await db.table('connections').add({ id: 'c3', label: 'Second shop' })
  await syncC3(db)
  await markC3(db)
  db.close()

  // Without the app's schema class: no reading hook, every table as stored.
  const raw = new Dexie('closebook', deps)
  await raw.open()
  expect(raw.verno).toBe(version)
  const tables: Record<string, unknown[]> = {}
  for (const table of [...raw.tables].sort((a, b) => a.name.localeCompare(b.name)))
    tables[table.name] = await table.toArray()
  raw.close()
  writeFileSync(out, JSON.stringify(tables, null, 2) + '\n')
})
