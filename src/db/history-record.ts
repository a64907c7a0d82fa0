/**
 * Derives a HistoryRecord's flattened fields from the API item. Pure: used by sync when it stores a
 * page and by the v1→v2 migration to fill fields older caches lack.
 */
import type { HistoryItem } from '../../electron/shared/payment-api'
import { recordKeyOf, type HistoryRecord } from './records'

/** Metadata keys (compared without case, `_`, `-` or spaces) that hold the merchant's order number. */
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

/** The order number found in metadata, by key priority; null when there is none. */
export function orderRefOf(raw: HistoryItem): string | null {
  const byKey = new Map<string, unknown>()
  for (const [k, v] of Object.entries(raw.metadata)) byKey.set(normalizeKey(k), v)
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

/**
 * What the ledger's search matches, as the API's own `search` does (seed §3): charge and refund ids,
 * metadata values, cardholder name and e-mail, last four digits when the item carries them.
 */
export function searchTextOf(raw: HistoryItem): string {
  const parts: string[] = [raw.resource_id]
  if (raw.charge_id) parts.push(raw.charge_id)
  collectValues(raw.metadata, parts, 0)
  parts.push(raw.user_data.cardholder_name, raw.user_data.cardholder_email_address)
  const lastFour = scalarText((raw.user_data as Record<string, unknown>)['last_four'])
  if (lastFour !== null) parts.push(lastFour)
  // A newline separator keeps a search term from matching across two fields.
  return parts
    .filter((p) => p !== '')
    .join('\n')
    .toLowerCase()
}

/** Does a record match a free-text search? Every whitespace-separated term must occur. */
export function matchesSearch(searchText: string, search: string): boolean {
  const terms = search.toLowerCase().split(/\s+/).filter(Boolean)
  return terms.every((t) => searchText.includes(t))
}

export function historyRecordOf(connectionId: string, raw: HistoryItem, syncedAt: number): HistoryRecord {
  return {
    connectionId,
    key: recordKeyOf(raw.type, raw.resource_id),
    resourceId: raw.resource_id,
    type: raw.type,
    chargeId: raw.type === 'charge' ? raw.resource_id : (raw.charge_id ?? raw.resource_id),
    storeId: raw.store_id,
    createdAt: Date.parse(raw.created_on),
    amount: raw.amount,
    currency: raw.currency.toUpperCase(),
    status: raw.status,
    mode: raw.mode,
    brand: raw.user_data.brand,
    cardholderName: raw.user_data.cardholder_name,
    cardholderEmail: raw.user_data.cardholder_email_address,
    orderRef: orderRefOf(raw),
    searchText: searchTextOf(raw),
    raw,
    syncedAt,
  }
}
