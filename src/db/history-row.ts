/**
 * How a history record is stored. Six of its fields are read straight from the API item (`itemFieldsOf`:
 * type, charge id, store, currency, status, mode), and the stored row leaves each out where reading it
 * back from `raw` gives the same value. IndexedDB adds an index entry only for a row that has the indexed
 * field, so the indexes of schema v3–v9 on those fields get no entry from such a row: a first sync writes
 * 2 index entries for most records instead of 8, where the IndexedDB backend, not the API, set the pace.
 * The indexes stay declared because dropping them from a 500k-record cache takes ~49 s in one
 * upgrade step with nothing to show progress on; rows written before keep every field and entry, and
 * read the same.
 *
 * Three are kept on purpose where they make small, sparse indexes:
 * - `type` and `chargeId` on refunds: sync reads the window's refunds ([connectionId+type+createdAt]), a
 *   charge's refunds are found by its id ([connectionId+chargeId]; the charge itself by its key);
 * - `status` on records whose status can still change: the re-check reads them
 *   ([connectionId+status+createdAt], recency.ts).
 * The ledger filters on the others through the day digests and token rows, which carry them all; the
 * store list is kept by the history writer.
 */
import type { HistoryRecord } from '../domain/records'
import { isChangeableStatus } from '../domain/statuses'
import { itemFieldsOf, type ItemField } from './history-record'

/** A record as the `history` table holds it: any of the item's own fields may be left out. */
export type StoredHistoryRow = Omit<HistoryRecord, ItemField> & Partial<Pick<HistoryRecord, ItemField>>

/** Whether the stored row keeps `field`'s value even though `raw` gives it back (a sparse index's entry). */
function indexedOnPurpose(field: ItemField, record: HistoryRecord): boolean {
  if (field === 'type' || field === 'chargeId') return record.type === 'refund'
  if (field === 'status') return isChangeableStatus(record.status)
  return false
}

const ITEM_FIELDS: readonly ItemField[] = ['type', 'chargeId', 'storeId', 'currency', 'status', 'mode']

const isItemField = (key: string): key is ItemField => (ITEM_FIELDS as readonly string[]).includes(key)

/**
 * The row the writer stores for `record` (history-writer.ts; a restore's switch-in): its fields in the
 * record's order, less those left out. Built field by field, not copied and then deleted from: an object
 * that lost a property is a slower one to clone into IndexedDB, and sync clones every row it writes.
 */
export function storedHistoryRowOf(record: HistoryRecord): StoredHistoryRow {
  const fromItem = itemFieldsOf(record.raw)
  const row: Record<string, unknown> = {}
  for (const key of Object.keys(record)) {
    const value = record[key as keyof HistoryRecord]
    if (isItemField(key) && value === fromItem[key] && !indexedOnPurpose(key, record)) continue
    row[key] = value
  }
  return row as StoredHistoryRow
}

/**
 * The record a stored row holds, whichever version wrote it: the fields a row left out are read back
 * from `raw`, in the record's usual field order (a backup writes them in that order). Registered as the
 * table's reading hook (database.ts), so every read of `history` returns whole records.
 */
export function historyRecordOfRow(row: StoredHistoryRow): HistoryRecord {
  if (
    row.type !== undefined &&
    row.chargeId !== undefined &&
    row.storeId !== undefined &&
    row.currency !== undefined &&
    row.status !== undefined &&
    row.mode !== undefined
  )
    return row as HistoryRecord
  const item = itemFieldsOf(row.raw)
  return {
    connectionId: row.connectionId,
    key: row.key,
    resourceId: row.resourceId,
    type: row.type ?? item.type,
    chargeId: row.chargeId ?? item.chargeId,
    storeId: row.storeId ?? item.storeId,
    createdAt: row.createdAt,
    amount: row.amount,
    currency: row.currency ?? item.currency,
    status: row.status ?? item.status,
    mode: row.mode ?? item.mode,
    brand: row.brand,
    cardholderName: row.cardholderName,
    cardholderEmail: row.cardholderEmail,
    orderRef: row.orderRef,
    raw: row.raw,
    syncedAt: row.syncedAt,
  }
}
