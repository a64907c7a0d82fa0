/**
 * Runs in Chromium (real IndexedDB, plain, no Dexie): history day parts of 512 rows as the history writer
 * stores them (storedHistoryRowOf of the sandbox's items), in one of three layouts — `raw` as the API item's
 * object (today); `raw` kept as its JSON text beside every derived field; or the part as one array per
 * derived field with an array of the records' JSON texts (`columns`) — written with `put` and read
 * back with `getAll`, with or without parsing each row's text. Node times each phase by Chromium's CPU.
 */
import type { HistoryItem } from '../../../electron/shared/payment-api'
import { historyRecordOf } from '../../../src/db/history-record'
import { storedHistoryRowOf } from '../../../src/db/history-row'
import type { RawLayout, RawTextPhase, RawTextPrepared } from '../shared/raw-text-types'

const CONNECTION = 'bench-connection'
const PART = 512

let parts: object[] = []

/** A stored part as read back: rows (`object`, `text`), or columns and texts (`columns`). */
interface StoredPart {
  rows?: { rawJson?: string; raw?: unknown; amount: number }[]
  cols?: { amount: number[] }
  rawJson?: string[]
}
let db: IDBDatabase | null = null

function open(): Promise<IDBDatabase> {
  const req = indexedDB.open(`raw-text-bench-${Date.now()}`, 1)
  req.onupgradeneeded = () => {
    const store = req.result.createObjectStore('parts', { keyPath: ['connectionId', 'day', 'part'] })
    store.createIndex('keys', 'keys', { multiEntry: true })
  }
  return new Promise((res, rej) => {
    req.onsuccess = () => res(req.result)
    req.onerror = () => rej(req.error ?? new Error('open failed'))
  })
}

const done = (tx: IDBTransaction): Promise<void> =>
  new Promise((res, rej) => {
    tx.oncomplete = () => res()
    tx.onerror = () => rej(tx.error ?? new Error('transaction failed'))
  })

async function prepare(layout: RawLayout): Promise<RawTextPrepared> {
  const feed = (window as unknown as { __items: () => Promise<string> }).__items
  const items = JSON.parse(await feed()) as HistoryItem[]
  const now = Date.now()
  const started = performance.now()
  const records = items.map((i) => historyRecordOf(CONNECTION, i, now))
  const rows = records.map((record) => {
    if (layout === 'object') return storedHistoryRowOf(record)
    const { raw, ...derived } = record
    return { ...derived, rawJson: JSON.stringify(raw) }
  })
  parts = []
  for (let i = 0; i < rows.length; i += PART) {
    const slice = rows.slice(i, i + PART)
    const head = { connectionId: CONNECTION, day: 20000 + i / PART, part: 0 }
    const keys = slice.map((r) => [CONNECTION, r.key])
    if (layout !== 'columns') parts.push({ ...head, rows: slice, keys })
    else {
      // One array per derived field, entry j of each being record j; `raw` as an array of JSON texts.
      const cols: Record<string, unknown[]> = {}
      for (const r of slice as Record<string, unknown>[])
        for (const [k, v] of Object.entries(r))
          if (k !== 'rawJson' && k !== 'connectionId') (cols[k] ??= []).push(v)
      parts.push({ ...head, cols, rawJson: slice.map((r) => (r as { rawJson: string }).rawJson), keys })
    }
  }
  const buildMs = performance.now() - started
  db = await open()
  return { rows: rows.length, parts: parts.length, jsonChars: JSON.stringify(parts).length, buildMs }
}

/** Every part written, ten parts to a transaction (a sync commit's weight). */
async function put(): Promise<RawTextPhase> {
  if (!db) throw new Error('not prepared')
  const started = performance.now()
  let rows = 0
  for (let i = 0; i < parts.length; i += 10) {
    const tx = db.transaction('parts', 'readwrite')
    const store = tx.objectStore('parts')
    for (const p of parts.slice(i, i + 10)) {
      store.put(p)
      rows += (p as StoredPart).rawJson?.length ?? (p as StoredPart).rows?.length ?? 0
    }
    await done(tx)
  }
  return { ms: performance.now() - started, rows }
}

/** Every stored part, ten at a time with `getAll` (a read transaction each). */
async function* storedParts(): AsyncGenerator<StoredPart[]> {
  if (!db) throw new Error('not prepared')
  const first = 20000
  for (let day = first; day < first + parts.length; day += 10) {
    const req = db
      .transaction('parts', 'readonly')
      .objectStore('parts')
      .getAll(IDBKeyRange.bound([CONNECTION, day, 0], [CONNECTION, day + 10, 0], false, true))
    yield await new Promise<StoredPart[]>((res, rej) => {
      req.onsuccess = () => res(req.result as StoredPart[])
      req.onerror = () => rej(req.error ?? new Error('read failed'))
    })
  }
}

/** Every part read back, each row's amount taken; `parse`: each row's `rawJson` parsed too. */
async function read(parse: boolean): Promise<RawTextPhase> {
  const started = performance.now()
  let rows = 0
  let sink = 0
  for await (const got of storedParts())
    for (const p of got)
      if (p.cols) {
        for (let j = 0; j < p.cols.amount.length; j++) {
          rows++
          sink += p.cols.amount[j] ?? 0
          if (parse) sink += (JSON.parse(p.rawJson?.[j] ?? '') as HistoryItem).amount
        }
      } else
        for (const r of p.rows ?? []) {
          rows++
          sink += r.amount
          if (parse && r.rawJson !== undefined) sink += (JSON.parse(r.rawJson) as HistoryItem).amount
        }
  if (sink === -1) console.log(sink)
  return { ms: performance.now() - started, rows }
}

/** The stored rows' JSON text for a backup line: stringify each row's `raw` (object) or take it (text). */
async function readAsText(): Promise<RawTextPhase> {
  const started = performance.now()
  let rows = 0
  let chars = 0
  for await (const got of storedParts())
    for (const p of got)
      if (p.rawJson) {
        for (const text of p.rawJson) {
          rows++
          chars += text.length
        }
      } else
        for (const r of p.rows ?? []) {
          rows++
          chars += (r.rawJson ?? JSON.stringify(r.raw)).length
        }
  if (chars === -1) console.log(chars)
  return { ms: performance.now() - started, rows }
}

Object.assign(window, {
  __bench: () => Promise.resolve(null),
  __prepare: prepare,
  __put: put,
  __read: read,
  __readAsText: readAsText,
})
