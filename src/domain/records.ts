/**
 * The domain model: what the cache holds and the app reasons about (DESIGN §4); how Dexie groups some of
 * it into rows is src/db/storage-rows.ts. Records keep the API item as it came (`raw`, validated, unknown
 * extra fields kept) plus a few flattened fields that indexes and the ledger need. Times are epoch
 * milliseconds (UTC); months and days are computed in the connection's accounting time zone.
 * Marks, notes and the audit log are separate tables, so a re-sync that replaces a record never
 * touches the accountant's work.
 */
import type { ChargeItem, HistoryItem, HistoryType, Mode } from '../../electron/shared/payment-api'

/** `charge:<resource_id>` or `refund:<resource_id>`: unique within a connection (DESIGN §4 identity). */
export type RecordKey = `${HistoryType}:${string}`

export function recordKeyOf(type: HistoryType, resourceId: string): RecordKey {
  return `${type}:${resourceId}`
}

/** A transaction-history record (charge or refund), keyed by (connectionId, type, resourceId). */
export interface HistoryRecord {
  connectionId: string
  key: RecordKey
  resourceId: string
  type: HistoryType
  /** The charge a refund belongs to; for a charge record, its own id (so charge + refunds share it). */
  chargeId: string
  storeId: string
  createdAt: number
  amount: number
  currency: string
  status: string
  mode: Mode
  brand: string
  cardholderName: string
  cardholderEmail: string
  /** merchant_transaction_id-like order number found in metadata (order_id, order_number, …), if any. */
  orderRef: string | null
  // No search fields: the search tokens are derived from `raw` where they are needed (searchTokensOf).
  // Records written before this change may still carry `searchText` and `searchTokens`; nothing reads them.
  raw: HistoryItem
  /** When this copy was written by sync. */
  syncedAt: number
}

/**
 * What work over a whole filter ("mark all matching") needs of a record: the fields the ledger filters
 * on, its time and its fingerprint. A few hundred bytes, where the record with its API item is several
 * kilobytes: reading 10k records at 500k cached takes most of a second, their digests
 * a few dozen milliseconds.
 */
export interface RecordDigest {
  key: RecordKey
  createdAt: number
  storeId: string
  type: HistoryType
  status: string
  currency: string
  mode: Mode
  brand: string
  fingerprint: string
  /**
   * The record's amount in minor units: what the month's summary sums. Absent on digests written before
   * it was added (a migration's or an older release's); a reader that needs it reads those days' records.
   */
  amount?: number
}

/**
 * What Month-end's summary and cross-check read of a charge-list record: stored beside each charge's id in
 * its day row, so a month's figures are read without its whole charges.
 */
export type ChargeDigest = Pick<
  ChargeRecord,
  | 'id'
  | 'createdAt'
  | 'storeId'
  | 'status'
  | 'chargedAmount'
  | 'chargedCurrency'
  | 'feeAmount'
  | 'feeCurrency'
  | 'mode'
  | 'syncedAt'
>

/** A record as a mark is made on it: identity, time (its period) and the fingerprint of its data. */
export interface MarkTarget {
  connectionId: string
  key: RecordKey
  createdAt: number
  fingerprint: string
}

/** A charge-list record (fees, merchant_transaction_id, capture), keyed by (connectionId, id). */
export interface ChargeRecord {
  connectionId: string
  id: string
  storeId: string
  createdAt: number
  chargedAmount: number
  chargedCurrency: string
  feeAmount: number | null
  feeCurrency: string | null
  status: string
  mode: Mode
  merchantTransactionId: string | null
  raw: ChargeItem
  syncedAt: number
}

/** `unreconciled`: the row carries only a note. A string, not null, so [connectionId+state] indexes it. */
export type MarkState = 'reconciled' | 'unreconciled'

/** IndexedDB cannot index booleans, so indexed flags are stored as 0/1. */
export type IndexedFlag = 0 | 1

/** The accountant's mark on one history record. Absent row = unreconciled with no note. */
export interface MarkRecord {
  connectionId: string
  key: RecordKey
  state: MarkState
  note: string
  /** Fingerprint of the fields the mark was made on (amount, currency, status, refunds). */
  fingerprint: string | null
  /** 1 when sync found the record's current fingerprint differs from the mark's (0/1: indexed). */
  changedSinceReconciled: IndexedFlag
  /** `YYYY-MM` of the record in the accounting time zone, for period locks and month queries. */
  period: string
  updatedAt: number
  updatedBy: string
  /** Link to a matched row of an imported file (order or bank line), when the mark came from a match. */
  matchRef?: string
}

/**
 * What locates a record's mark: its key and its time. Marks are stored by the record's UTC day, so a
 * caller names the records it asks about (a HistoryRecord is one).
 */
export interface MarkRef {
  key: RecordKey
  createdAt: number
}

export type AuditAction =
  'mark' | 'unmark' | 'note' | 'reconfirm' | 'close-period' | 'reopen-period' | 'restore'

/**
 * One change as the audit log reports it. Append-only: entries are only ever added. Stored grouped: the
 * changes of one action (a bulk mark of 10k records) share one row (AuditRow), and `seq` is that row's,
 * `part` the change's place in it.
 */
export interface AuditEntry {
  seq?: number
  /** Position within its stored row (0 for an action of one change). */
  part?: number
  connectionId: string
  at: number
  actor: string
  action: AuditAction
  /** The record, or null for period actions. */
  key: RecordKey | null
  period: string | null
  before: unknown
  after: unknown
  reason?: string
}

export interface PeriodLock {
  connectionId: string
  /** `YYYY-MM` in the accounting time zone. */
  period: string
  lockedAt: number
  lockedBy: string
  /** The closer's note; absent on locks made before it, or when none was given. */
  note?: string
  /**
   * A short hash of each record's fingerprint at the close (key → hash), so a reopen can say what
   * changed since: not indexed, so no schema step; absent on older locks.
   */
  snapshot?: Record<string, string>
  /** The payout roll-forward as the month closed (next month's opening is checked against it). */
  payoutClose?: PayoutCloseRecord
}

/**
 * What a close keeps of the month's payout roll-forward: per currency its closing, and for every transfer
 * paid by the month's end the part of the closing its ledgers leave (Σ ledgers − amount, 0 when they tie),
 * which lets the next month's roll-forward skip the ledgers of those transfers and still add up the same.
 */
export interface PayoutCloseRecord {
  closing: Record<string, number>
  paidDifferences: Record<string, number>
  /**
   * Transfers in a repayment (repaying, or repaid: failed, canceled, blank), lower-case: the next month
   * reads them in full, since which ledgers a transfer holds depends on reading both sides.
   */
  readInFull?: string[]
}

export type SyncResource = 'transaction_history' | 'charges'

/** Resume point of one partition (resource × store × time window). */
export interface SyncCheckpoint {
  connectionId: string
  partitionId: string
  resource: SyncResource
  storeId: string | null
  /** Inclusive window in epoch ms. */
  from: number
  to: number
  /** Id of the last item stored (resource_id for history, id for charges); null before the first page. */
  cursor: string | null
  done: boolean
  records: number
  requests: number
  updatedAt: number
}

/** Per connection: what the cache knows of it (no secrets: the registry with credentials is in main). */
export interface CachedConnection {
  id: string
  label: string
  baseUrl: string
  timeZone: string
  storeIds: string[]
  isDemo: boolean
  lastSyncedAt: number | null
  /** Newest created_on seen per resource: incremental sync starts here (minus the look-back). */
  highWater: Partial<Record<SyncResource, number>>
}

export interface StoreRecord {
  connectionId: string
  storeId: string
  storeName: string
  merchantName: string
  /** createdAt of the record the names came from (the newest seen); absent in rows kept before it was. */
  seenAt?: number
}

export type ImportSource = 'orders' | 'bank'

/** One imported file (the merchant's order export or a bank statement), remembered by its hash. */
export interface ImportRecord {
  connectionId: string
  id: string
  source: ImportSource
  fileName: string
  /** SHA-256 of the file's bytes: the same file imported again is recognised and adds nothing. */
  hash: string
  importedAt: number
  rowCount: number
  profileName: string
  encoding: string
}

/** One row of an imported file, as the mapping profile read it. Amounts in minor units; refunds negative. */
export interface ImportedRowRecord {
  connectionId: string
  importId: string
  line: number
  source: ImportSource
  orderNumber: string | null
  at: number
  day: string
  amount: number
  currency: string
  customer: string | null
  description: string | null
  /** The records an accepted match linked this row to (empty: not matched yet). */
  matchedKeys: RecordKey[]
  /** Not indexed (no schema change): every file line of a grouped order. */
  lines?: number[]
  /** The order's payment method as the file names it. */
  paymentMethod?: string
  /** Refunded on the order (minor units, positive). */
  refunded?: number
  /** A grouped order's line sum when it differs from `amount` (minor units). */
  linesTotal?: number
  /** The order's shipping and fee columns (minor units, positive). */
  shipping?: number
  fee?: number
}
