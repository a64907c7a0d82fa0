/**
 * Version 2 (frozen): currency/mode ledger filters, and indexable mark state and changed flag. The upgrade
 * fills each record's `searchText` and `orderRef` from its API item and turns v1's nullable mark state and
 * boolean flag into indexable values. Row shaping below is this step's own copy, as it was at version 2.
 */
import type { Transaction } from 'dexie'
import { forEachPage, type MigrationStep, type ReportMigrationProgress } from './step'

/** The part of a stored record this step reads and writes. */
interface HistoryRowV2 {
  connectionId: string
  key: string
  raw: {
    resource_id: string
    charge_id?: string | null
    metadata?: Record<string, unknown> | null
    user_data?: Record<string, unknown> | null
  }
  searchText?: string
  orderRef?: string | null
}

interface MarkRowV1 {
  connectionId: string
  key: string
  state: string | null
  changedSinceReconciled: boolean | number
}

const ORDER_KEYS = [
  'orderid',
  'ordernumber',
  'orderno',
  'orderref',
  'orderreference',
  'merchanttransactionid',
  'order',
]

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[\s_-]/g, '')
}

function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim()
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  return null
}

export function orderRefOf(raw: HistoryRowV2['raw']): string | null {
  const byKey = new Map<string, unknown>()
  for (const [k, v] of Object.entries(raw.metadata ?? {})) byKey.set(normalizeKey(k), v)
  for (const key of ORDER_KEYS) {
    const text = scalarText(byKey.get(key))
    if (text !== null) return text
  }
  return null
}

function collectValues(value: unknown, out: string[], depth: number): void {
  const text = scalarText(value)
  if (text !== null) out.push(text)
  else if (depth < 3 && value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) collectValues(v, out, depth + 1)
  }
}

function userText(u: Record<string, unknown>, ...keys: string[]): string {
  for (const k of keys) {
    const v = u[k]
    if (typeof v === 'string') return v
  }
  return ''
}

function searchTextOf(raw: HistoryRowV2['raw']): string {
  const parts: string[] = [raw.resource_id]
  if (raw.charge_id) parts.push(raw.charge_id)
  collectValues(raw.metadata, parts, 0)
  const user = raw.user_data ?? {}
  parts.push(userText(user, 'cardholder_name', 'customer_name'), userText(user, 'cardholder_email_address'))
  const lastFour = scalarText(user['last_four'])
  if (lastFour !== null) parts.push(lastFour)
  return parts
    .filter((p) => p !== '')
    .join('\n')
    .toLowerCase()
}

async function upgrade(tx: Transaction, report: ReportMigrationProgress): Promise<void> {
  await forEachPage<HistoryRowV2>(
    tx,
    'history',
    (r) => [r.connectionId, r.key],
    async (rows) => {
      for (const r of rows) {
        r.searchText = searchTextOf(r.raw)
        r.orderRef = orderRefOf(r.raw)
      }
      await tx.table<HistoryRowV2>('history').bulkPut(rows)
    },
    (done, total) => report({ version: 2, done, total }),
  )
  await tx
    .table<MarkRowV1>('marks')
    .toCollection()
    .modify((m: MarkRowV1) => {
      m.state = m.state === 'reconciled' ? 'reconciled' : 'unreconciled'
      m.changedSinceReconciled = m.changedSinceReconciled === true || m.changedSinceReconciled === 1 ? 1 : 0
    })
}

export const v2: MigrationStep = {
  version: 2,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
    charges: '[connectionId+id], [connectionId+createdAt]',
    marks:
      '[connectionId+key], [connectionId+period], [connectionId+state], [connectionId+changedSinceReconciled]',
    audit: '++seq, [connectionId+at], [connectionId+period], [connectionId+key]',
    checkpoints: '[connectionId+partitionId]',
    locks: '[connectionId+period]',
    settings: 'key',
  },
  upgrade,
}
