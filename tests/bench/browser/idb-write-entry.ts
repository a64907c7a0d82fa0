/**
 * Runs in Chromium (real IndexedDB, a fresh profile per layout): writes one e2e sync's worth of history
 * and charge records (historyRecordOf / chargeRecordOf of the sandbox's items) as the sync's group commits
 * do (transactions of 800 records) into two plain IndexedDB stores under one index layout (no Dexie: its
 * cost is not the question), timed to the last commit. Layouts differ in their secondary indexes or in how `raw` is stored, nothing else.
 */
import type { ChargeItem, HistoryItem } from '../../../electron/shared/payment-api'
import { chargeRecordOf } from '../../../src/db/charge-record'
import { historyRecordOf } from '../../../src/db/history-record'
import { CURRENT_SCHEMA } from '../../../src/db/schema'
import type { IdbWriteArgs, IdbWriteResult } from '../shared/idb-write-types'

const CONNECTION = 'bench-connection'

/** Each layout: the history and charges tables' Dexie schema, and the stored row of a record. */
const LAYOUTS: Record<
  string,
  { history: string; charges: string; raw: 'object' | 'string' | 'none'; chargesPerRow?: number }
> = {
  /** Today's schema (src/db/schema.ts). */
  current: { history: CURRENT_SCHEMA.history, charges: CURRENT_SCHEMA.charges, raw: 'object' },
  /** History without its five equality indexes (type, status, store, currency, mode + time). */
  fewerIndexes: {
    history: '[connectionId+key], [connectionId+createdAt], [connectionId+chargeId]',
    charges: CURRENT_SCHEMA.charges,
    raw: 'object',
  },
  /** Primary keys only: what the rows themselves cost. */
  primaryOnly: { history: '[connectionId+key]', charges: '[connectionId+id]', raw: 'object' },
  /** Today's indexes, the API payload stored as JSON text (one string to clone, not an object tree). */
  rawAsText: { history: CURRENT_SCHEMA.history, charges: CURRENT_SCHEMA.charges, raw: 'string' },
  /** Today's indexes, no API payload at all: what the payload's bytes cost. */
  noRaw: { history: CURRENT_SCHEMA.history, charges: CURRENT_SCHEMA.charges, raw: 'none' },
  /**
   * Today's history; charge-list records filed 100 to a row by time (as day parts would be), keyed by
   * connection, time of the first and part: what writing the charge list as rows of records would save.
   */
  chargesGrouped: {
    history: CURRENT_SCHEMA.history,
    charges: '[connectionId+createdAt+part]',
    raw: 'object',
    chargesPerRow: 100,
  },
}

/** A Dexie schema string's key paths: '[a+b]' → ['a', 'b'], 'a' → 'a'; the first is the primary key. */
const keyPaths = (schema: string): (string | string[])[] =>
  schema.split(',').map((part) => {
    const p = part.trim()
    return p.startsWith('[') ? p.slice(1, -1).split('+') : p
  })

/** A fresh database with the given stores (Dexie's schema syntax), in plain IndexedDB. */
function openStores(stores: Record<string, string>): Promise<IDBDatabase> {
  const open = indexedDB.open(`idb-write-bench-${Date.now()}`, 1)
  open.onupgradeneeded = () => {
    for (const [name, schema] of Object.entries(stores)) {
      const [primary, ...indexes] = keyPaths(schema)
      const store = open.result.createObjectStore(name, { keyPath: primary ?? null })
      for (const path of indexes) store.createIndex(Array.isArray(path) ? `[${path.join('+')}]` : path, path)
    }
  }
  return new Promise((res, rej) => {
    open.onsuccess = () => res(open.result)
    open.onerror = () => rej(open.error ?? new Error('open failed'))
  })
}

type Feed = (kind: 'history' | 'charges') => Promise<string>

async function run(args: IdbWriteArgs): Promise<IdbWriteResult> {
  const layout = LAYOUTS[args.layout]
  if (!layout) throw new Error(`unknown layout ${args.layout}`)
  const feed = (window as unknown as { __items: Feed }).__items
  const now = Date.now()
  const shape = (r: { raw: unknown }): object =>
    layout.raw === 'object' ? r : { ...r, raw: layout.raw === 'string' ? JSON.stringify(r.raw) : null }
  const history = (JSON.parse(await feed('history')) as HistoryItem[]).map((i) =>
    shape(historyRecordOf(CONNECTION, i, now)),
  )
  const chargeRecords = (JSON.parse(await feed('charges')) as ChargeItem[]).map((i) =>
    chargeRecordOf(CONNECTION, i, now),
  )
  // Each stored charge row with the position of its first record: a transaction writes the rows that
  // start among its records, so a grouped layout gets the same share of each transaction.
  const per = layout.chargesPerRow
  let charges: { at: number; row: object }[]
  if (per) {
    chargeRecords.sort((a, b) => a.createdAt - b.createdAt)
    charges = []
    for (let at = 0; at < chargeRecords.length; at += per) {
      const records = chargeRecords.slice(at, at + per)
      charges.push({
        at,
        row: { connectionId: CONNECTION, createdAt: records[0]?.createdAt ?? 0, part: at, records },
      })
    }
  } else charges = chargeRecords.map((r, at) => ({ at, row: shape(r) }))
  const db = await openStores({ history: layout.history, charges: layout.charges })
  const started = performance.now()
  let next = 0 // the first charge row not written yet (rows are in `at` order)
  for (let i = 0; i < Math.max(history.length, chargeRecords.length); i += 400) {
    const tx = db.transaction(['history', 'charges'], 'readwrite')
    const [h, c] = [tx.objectStore('history'), tx.objectStore('charges')]
    for (const row of history.slice(i, i + 400)) h.put(row)
    for (; next < charges.length && (charges[next]?.at ?? Infinity) < i + 400; next++)
      c.put(charges[next]?.row)
    await new Promise<void>((res, rej) => {
      tx.oncomplete = () => res()
      tx.onerror = () => rej(tx.error ?? new Error('write failed'))
    })
  }
  const ms = performance.now() - started
  const indexes = (schema: string) => schema.split(',').length - 1
  db.close()
  return {
    layout: args.layout,
    ms: Math.round(ms),
    rows: history.length + charges.length,
    indexEntries: history.length * indexes(layout.history) + charges.length * indexes(layout.charges),
  }
}

;(window as unknown as { __bench: typeof run }).__bench = run
