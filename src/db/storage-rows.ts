/**
 * How the cache stores some of the domain model in Dexie tables: rows that group records by day, the
 * audit log's grouped rows, settings. Repositories read and write these; the rest of the app sees the
 * domain types of src/domain/records.ts.
 */
import type { Mode } from '../../electron/shared/payment-api'
import type {
  AuditAction,
  ChargeRecord,
  IndexedFlag,
  MarkRecord,
  RecordDigest,
  RecordKey,
} from '../domain/records'

/** Storage row (schema v6): the digests of a connection's records of one UTC day, oldest first. */
export interface DayDigestRecord {
  connectionId: string
  day: number
  records: RecordDigest[]
}

/** The fields a field filter tests (history-filter.ts fieldTests), and how many of a day's records share them. */
export interface FieldCombo {
  storeId: string
  type: RecordDigest['type']
  status: string
  currency: string
  mode: RecordDigest['mode']
  brand: string
  n: number
}

/**
 * A day's summary (schema v16, `daySummaries`): how many of a connection's records of one UTC day share
 * each combination of the filter fields, in the order of their first record in the day's digest row.
 * Stored with that digest row, by the same writer (day-digests.ts), so the two always describe the same
 * records; stored in this shape only when a value holds a joiner of the packed one.
 */
export interface DaySummaryRecord {
  connectionId: string
  day: number
  combos: FieldCombo[]
}

/**
 * A `daySummaries` row as the digest writer stores it (day-summaries.ts packedSummaryRowOf): the combos'
 * fields in one string (a combo's six values joined by U+0001, combos joined by U+0002) and their counts,
 * so reading a year of days clones two values a day instead of seven a combination.
 */
export interface PackedDaySummaryRecord {
  connectionId: string
  day: number
  comboText: string
  counts: number[]
}

/** A stored `daySummaries` row: packed, or plain when a value holds a joiner. */
export type StoredDaySummaryRow = DaySummaryRecord | PackedDaySummaryRecord

/**
 * The compact columns of a charge day row (charge-columns.ts): entry `i` of each is a field of charge
 * `ids[i]`, what Month-end's summary and cross-check read of it.
 */
export interface ChargeDayColumns {
  statuses: string[]
  amounts: number[]
  currencies: string[]
  feeAmounts: (number | null)[]
  feeCurrencies: (string | null)[]
  modes: Mode[]
  syncedAts: number[]
}

/**
 * Storage row (schema v10, `chargeDays`): where the charge-list records of one connection × UTC day are:
 * `ids[i]`, created at `times[i]` in store `storeIds[i]`, is held by part `parts[i]` (charge-days.ts).
 * Rows written since the compact columns carry them too; rows written before lack them (same schema).
 */
export interface ChargeDayRecord extends Partial<ChargeDayColumns> {
  connectionId: string
  day: number
  ids: string[]
  times: number[]
  storeIds: string[]
  parts: number[]
}

/** Storage row (schema v10, `chargeParts`): up to CHARGE_PART_SIZE charges of one connection × UTC day. */
export interface ChargePartRecord {
  connectionId: string
  day: number
  part: number
  charges: ChargeRecord[]
  /**
   * Since schema v14: `[connectionId, ledgerId]` of each charge of the part that carries a ledger id, the
   * entries of the multi-entry index that finds a charge by its ledger (ledger-links.ts). Absent on parts
   * written before; their charges' links are rows of `ledgerLinks`.
   */
  ledgerKeys?: [string, string][]
}

/**
 * A `dayTokens` part as the search reads it: the search tokens of up to TOKEN_PART_SIZE records of one
 * connection × UTC day, in no particular order (day-tokens.ts). `texts[i]` holds the tokens of record
 * `keys[i]`, created at `times[i]`, each preceded by a newline; `fields[i]` its store, type and so on.
 * Stored so (schema v7) until the packed rows; rows written before keep this shape and read the same.
 */
export interface DayTokensRecord {
  connectionId: string
  day: number
  part: number
  keys: RecordKey[]
  times: number[]
  texts: string[]
  /** The fields a search may be narrowed by: record i's TOKEN_ROW_FIELDS at i × 6 to i × 6 + 5. */
  fields: string[]
}

/**
 * A `dayTokens` part as the history writer stores it now (day-tokens.ts packedTokenRowOf): the same
 * columns, the keys and texts each joined into one string and the fields as their distinct combinations,
 * so reading a part clones a few values instead of one per key, text and field (about 4,600 for a full
 * part, where that per-value cost set the search count's pace). Same key, same table: no schema step.
 */
export interface PackedDayTokensRecord {
  connectionId: string
  day: number
  part: number
  times: number[]
  /** The keys, joined by a newline (a record key never holds one). */
  keyText: string
  /** The texts, joined by two newlines (a text never holds two in a row: no token is empty). */
  text: string
  /** The distinct combinations of the records' fields: each one's values joined by U+0001, joined by U+0002. */
  fieldCombos: string
  /** Per record, the number of its combination in `fieldCombos`, as one UTF-16 code unit. */
  fieldIndex: string
}

/**
 * A `dayTokens` part as the history writer stores it now (marked-tokens.ts): each record's tokens once per
 * value with its word starts marked, Latin-1 tokens and the others in two strings (a byte a character
 * for the first), the keys left out where each is implied by the record's type and first token. Same
 * key, same table: no schema step; the packed and plain shapes read the same.
 */
export interface MarkedDayTokensRecord {
  connectionId: string
  day: number
  part: number
  times: number[]
  /** Per record its Latin-1 tokens, each after a newline, word starts after U+0001; records U+0002-joined. */
  latin: string
  /** The same for the tokens holding a character above U+00FF. */
  wide: string
  /**
   * The UUID tokens (uuid-tokens.ts), 16 Latin-1 characters each, every record's one after another;
   * absent in parts written before them, or when no record has one.
   */
  ids?: string
  /** Per record, its number of UUID slots times two, plus one when the first is its first token. */
  idCounts?: string
  /** The keys, joined by a newline; absent where every key is the record's type, ':' and first token. */
  keyText?: string
  /** Per field (TOKEN_ROW_FIELDS), its distinct values joined by U+0001; the fields joined by U+0002. */
  fieldValues: string
  /** Per record, the number of each of its field values in `fieldValues`: six UTF-16 code units. */
  fieldIndex: string
}

/** A stored `dayTokens` row, whichever shape wrote it. */
export type StoredDayTokensRow = DayTokensRecord | PackedDayTokensRecord | MarkedDayTokensRecord

/**
 * Storage row of the marks (schema v6): a connection's marks on the records of one UTC day. A bulk mark
 * of 10k records in a month writes ~30 rows, not 10k: IndexedDB's cost is per request, not per byte.
 * Day −1 (ORPHAN_MARK_DAY) holds marks whose record is not cached (kept, so a backup loses nothing).
 */
export interface MarkDayRecord {
  connectionId: string
  day: number
  marks: MarkRecord[]
  /** 1 when one of the day's reconciled marks has changed since reconciled (0/1: indexed). */
  changed: IndexedFlag
}

/** One record's (or one period's) change within an audit row. */
export interface AuditChange {
  key: RecordKey | null
  period: string | null
  before: unknown
  after: unknown
}

/**
 * Storage row of the audit log (schema v6): one action — who, when, what, why — and every change it made.
 * The tags (`${connectionId}\u0001${key or period}`) feed multi-entry indexes, so a record's or a
 * period's trail is read through an index; a multi-entry index cannot be compound, hence the prefix.
 */
export interface AuditRow {
  seq?: number
  connectionId: string
  at: number
  actor: string
  action: AuditAction
  reason?: string
  changes: AuditChange[]
  keyTags: string[]
  periodTags: string[]
}

export interface SettingRecord {
  key: string
  value: unknown
}
