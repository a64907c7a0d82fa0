/**
 * The renderer's cache (DESIGN §1, §4): the only module that opens IndexedDB. Every schema change is a
 * new version with its own `.upgrade()`, so an existing cache migrates in place and loses nothing.
 */
import Dexie, { type Table, type Transaction } from 'dexie'
import { auditRowsOf } from './audit-repository'
import { DayDigestCollector } from './day-digests'
import { DayTokensCollector } from './day-tokens'
import { orderRefOf, searchTextOf, searchTokensOf } from './history-record'
import { markDayOf, markDayRowsOf } from './marks-repository'
import type { QuarantineRecord } from './quarantine-repository'
import type {
  AuditEntry,
  CachedConnection,
  ChargeRecord,
  HistoryRecord,
  ImportedRowRecord,
  ImportRecord,
  MarkRecord,
  PeriodLock,
  RecordKey,
  StoreRecord,
  SyncCheckpoint,
} from '../domain/records'
import type { AuditRow, DayDigestRecord, DayTokensRecord, MarkDayRecord, SettingRecord } from './storage-rows'

export const DEFAULT_DB_NAME = 'closebook'

export const TABLE_NAMES = [
  'connections',
  'stores',
  'history',
  'charges',
  'markDays',
  'dayDigests',
  'dayTokens',
  'audit',
  'checkpoints',
  'locks',
  'settings',
  'imports',
  'importedRows',
  'quarantine',
] as const
export type TableName = (typeof TABLE_NAMES)[number]

/** Tables as versions 1–5 named them (v6 replaced `marks` by `markDays`). */
type V5TableName = Exclude<TableName, 'markDays' | 'dayDigests' | 'dayTokens' | 'quarantine'> | 'marks'
type V6TableName = Exclude<TableName, 'dayTokens' | 'quarantine'>
type V7TableName = Exclude<TableName, 'quarantine'>
type V2TableName = Exclude<V5TableName, 'imports' | 'importedRows'>

/** Version 1: history without searchText/orderRef; marks with a nullable state and a boolean flag. */
export const SCHEMA_V1: Record<V2TableName, string> = {
  connections: 'id',
  stores: '[connectionId+storeId]',
  history:
    '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
    '[connectionId+status+createdAt], [connectionId+storeId+createdAt], [connectionId+chargeId]',
  charges: '[connectionId+id], [connectionId+createdAt]',
  marks: '[connectionId+key], [connectionId+period]',
  audit: '++seq, [connectionId+at], [connectionId+period], [connectionId+key]',
  checkpoints: '[connectionId+partitionId]',
  locks: '[connectionId+period]',
  settings: 'key',
}

/** Version 2: currency/mode ledger filters and indexable mark state and changed flag. */
export const SCHEMA_V2: Record<V2TableName, string> = {
  ...SCHEMA_V1,
  history:
    '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
    '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
    '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
  marks:
    '[connectionId+key], [connectionId+period], [connectionId+state], [connectionId+changedSinceReconciled]',
}

/** Version 3: imported order and bank files and their rows, for matching. */
export const SCHEMA_V3: Record<V5TableName, string> = {
  ...SCHEMA_V2,
  imports: '[connectionId+id], [connectionId+hash]',
  importedRows: '[connectionId+importId+line], [connectionId+importId], [connectionId+day]',
}

/**
 * Version 4 (current): the ledger's search through a multi-entry index of search tokens. Tokens carry
 * their connection inside the string, since a multi-entry index cannot be compound.
 */
export const SCHEMA_V4: Record<V5TableName, string> = {
  ...SCHEMA_V3,
  history: `${SCHEMA_V3.history}, *searchTokens`,
}

/**
 * Version 5: the same indexes; search tokens are filed by UTC day as well as connection
 * (`${connectionId}\u0001${day}\u0001${token}`), so a search reads the days of its period only.
 */
export const SCHEMA_V5: Record<V5TableName, string> = SCHEMA_V4

/**
 * Version 6: marks grouped by the record's UTC day (`markDays`, replacing `marks`) and the audit
 * log grouped by action, with multi-entry tag indexes for a record's and a period's trail. IndexedDB
 * charges per request: a 10k bulk mark now writes ~30 mark rows and one audit row, not 20k rows. And
 * `dayDigests`: per day, what whole-filter work needs of each record (day-digests.ts).
 */
export const SCHEMA_V6: Record<V6TableName, string> = {
  connections: SCHEMA_V5.connections,
  stores: SCHEMA_V5.stores,
  history: SCHEMA_V5.history,
  charges: SCHEMA_V5.charges,
  markDays: '[connectionId+day], [connectionId+changed]',
  dayDigests: '[connectionId+day]',
  audit: '++seq, [connectionId+at], *keyTags, *periodTags',
  checkpoints: SCHEMA_V5.checkpoints,
  locks: SCHEMA_V5.locks,
  settings: SCHEMA_V5.settings,
  imports: SCHEMA_V5.imports,
  importedRows: SCHEMA_V5.importedRows,
}

/**
 * Version 7: the search reads `dayTokens` (day-tokens.ts), a row of tokens per connection × day
 * part, instead of the `searchTokens` multi-entry index, which is dropped: a page of a search costs a few
 * requests instead of one per day and term plus a random read per index entry, and ingest no longer
 * writes an index entry per token.
 */
export const SCHEMA_V7: Record<V7TableName, string> = {
  ...SCHEMA_V6,
  history: SCHEMA_V3.history,
  dayTokens: '[connectionId+day+part]',
}

/**
 * Version 8 (current): `quarantine`, the items sync set aside because their accounting core was invalid
 * or they were dated outside the window asked for (quarantine-repository.ts). A new empty table: opening
 * a v7 cache converts nothing.
 */
export const SCHEMA_V8: Record<TableName, string> = {
  ...SCHEMA_V7,
  quarantine: '[connectionId+id]',
}

/** The tables a restore replaces, each staged first under `staged_<name>` (schema v9). */
export const STAGED_TABLE_NAMES = [
  'connections',
  'stores',
  'history',
  'charges',
  'markDays',
  'dayDigests',
  'dayTokens',
  'audit',
  'checkpoints',
  'locks',
  'settings',
  'imports',
  'importedRows',
] as const satisfies readonly TableName[]
export type StagedTableName = (typeof STAGED_TABLE_NAMES)[number]
export const stagedTableName = (name: StagedTableName): string => `staged_${name}`

/**
 * Version 9 ("restore staging", issue 19): a staging copy of each table a restore writes, keyed like the
 * real one, with no other index but history's time (the restore files day rows a day at a time). A
 * restore fills them and then swaps them into the real tables in one transaction (backup-stream.ts), so a
 * restore that stops half-way leaves the cache as it was. New empty tables: opening a v8 cache converts
 * nothing.
 */
export const SCHEMA_V9: Record<string, string> = {
  ...SCHEMA_V8,
  ...Object.fromEntries(
    STAGED_TABLE_NAMES.map((name) => [
      stagedTableName(name),
      name === 'history'
        ? '[connectionId+key], [connectionId+createdAt]'
        : name === 'audit'
          ? 'seq'
          : (SCHEMA_V8[name].split(',')[0] ?? ''),
    ]),
  ),
}

export const CURRENT_VERSION = 9

/** Shapes as older versions stored them; only the migrations and their tests need these. */
/** An audit row as versions 1–5 stored it: one per change. */
export type AuditEntryV5 = Omit<AuditEntry, 'part'>
export type HistoryRecordV1 = Omit<HistoryRecord, 'searchText' | 'orderRef' | 'searchTokens'>
/** Shape as versions 2 and 3 stored it (version 4 stored searchTokens without the day). */
export type HistoryRecordV3 = Omit<HistoryRecord, 'searchTokens'>
export type MarkRecordV1 = Omit<MarkRecord, 'state' | 'changedSinceReconciled'> & {
  state: 'reconciled' | null
  changedSinceReconciled: boolean
}

/** Lets tests (fake-indexeddb) or a worker supply their own IndexedDB. */
export interface IndexedDbDeps {
  indexedDB: IDBFactory
  IDBKeyRange: typeof IDBKeyRange
}

export async function upgradeV1ToV2(tx: Transaction): Promise<void> {
  await tx
    .table<HistoryRecord | HistoryRecordV1>('history')
    .toCollection()
    .modify((row: HistoryRecord | HistoryRecordV1) => {
      const r = row as HistoryRecord
      r.searchText = searchTextOf(r.raw)
      r.orderRef = orderRefOf(r.raw)
    })
  await tx
    .table<MarkRecord | MarkRecordV1>('marks')
    .toCollection()
    .modify((row: MarkRecord | MarkRecordV1) => {
      const m = row as unknown as { state: string | null; changedSinceReconciled: boolean | number }
      m.state = m.state === 'reconciled' ? 'reconciled' : 'unreconciled'
      m.changedSinceReconciled = m.changedSinceReconciled === true || m.changedSinceReconciled === 1 ? 1 : 0
    })
}

/** Fills (v3 → v4) or re-files by day (v4 → v5) every record's search tokens. */
export async function recomputeSearchTokens(tx: Transaction): Promise<void> {
  await tx
    .table<HistoryRecord | HistoryRecordV3>('history')
    .toCollection()
    .modify((row: HistoryRecord | HistoryRecordV3) => {
      const r = row as HistoryRecord
      r.searchTokens = searchTokensOf(r.connectionId, r.createdAt, r.raw)
    })
}

/**
 * v5 → v6: the marks move into day rows (by their record's UTC day; a mark whose record is not cached is
 * kept under ORPHAN_MARK_DAY), each audit row becomes a row of one change, keeping its sequence number,
 * and every record's digest is filed by day. History is read once, by cursor: the records never all sit
 * in memory, only their digests and the marked ones' days.
 */
export async function groupMarksAndAudit(tx: Transaction): Promise<void> {
  const marks = await tx.table<MarkRecord>('marks').toArray()
  const recordId = (r: { connectionId: string; key: RecordKey }): string => `${r.connectionId}\u0001${r.key}`
  const markById = new Map(marks.map((m) => [recordId(m), m]))
  // One pass over history gives both the digests and the day of every marked record.
  const dayOf = new Map<MarkRecord, number>()
  const digests = new DayDigestCollector()
  await tx.table<HistoryRecord, [string, RecordKey]>('history').each((r) => {
    digests.add(r)
    const mark = markById.get(recordId(r))
    if (mark) dayOf.set(mark, markDayOf(r.createdAt))
  })
  await tx.table<DayDigestRecord>('dayDigests').bulkAdd(digests.rows())
  await tx.table<MarkDayRecord>('markDays').bulkAdd(markDayRowsOf(marks, (m) => dayOf.get(m)))
  await tx
    .table<AuditRow | AuditEntryV5>('audit')
    .toCollection()
    .modify((old: AuditRow | AuditEntryV5, ref: { value: AuditRow | AuditEntryV5 }) => {
      if ('changes' in old) return
      const [row] = auditRowsOf([old])
      if (row) ref.value = old.seq === undefined ? row : { ...row, seq: old.seq }
    })
}

/** v6 → v7: every record's tokens filed in its day's parts, in one cursor pass over history. */
export async function fileSearchTokens(tx: Transaction): Promise<void> {
  const tokens = new DayTokensCollector()
  await tx.table<HistoryRecord, [string, RecordKey]>('history').each((r) => tokens.add(r))
  await tx.table<DayTokensRecord>('dayTokens').bulkAdd(tokens.rows())
}

/**
 * The schema version of the cache stored under `name`, or null when there is none: what opening it will
 * migrate from. Dexie stores version × 10 (plus a step when it adjusts an index on its own).
 */
export async function storedCacheVersion(
  factory: Pick<IDBFactory, 'databases'> = indexedDB,
  name: string = DEFAULT_DB_NAME,
): Promise<number | null> {
  const found = (await factory.databases()).find((d) => d.name === name)
  return found?.version === undefined ? null : Math.floor(found.version / 10)
}

export class ClosebookDb extends Dexie {
  // `declare`: Dexie creates the tables in version().stores(); a class field would overwrite them.
  declare connections: Table<CachedConnection, string>
  declare stores: Table<StoreRecord, [string, string]>
  declare history: Table<HistoryRecord, [string, RecordKey]>
  declare charges: Table<ChargeRecord, [string, string]>
  declare markDays: Table<MarkDayRecord, [string, number]>
  declare dayDigests: Table<DayDigestRecord, [string, number]>
  declare dayTokens: Table<DayTokensRecord, [string, number, number]>
  declare audit: Table<AuditRow, number>
  declare checkpoints: Table<SyncCheckpoint, [string, string]>
  declare locks: Table<PeriodLock, [string, string]>
  declare settings: Table<SettingRecord, string>
  declare imports: Table<ImportRecord, [string, string]>
  declare importedRows: Table<ImportedRowRecord, [string, string, number]>
  declare quarantine: Table<QuarantineRecord, [string, string]>

  readonly #factory: Pick<IDBFactory, 'databases'> | undefined

  constructor(name: string = DEFAULT_DB_NAME, deps?: IndexedDbDeps) {
    super(name, deps ? { indexedDB: deps.indexedDB, IDBKeyRange: deps.IDBKeyRange } : undefined)
    this.#factory = deps?.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB
    this.version(1).stores(SCHEMA_V1)
    this.version(2).stores(SCHEMA_V2).upgrade(upgradeV1ToV2)
    this.version(3).stores(SCHEMA_V3) // new tables only: nothing to convert
    // Version 4's tokens are replaced at version 5: opening a v3 cache computes them once, in v5's form.
    this.version(4).stores(SCHEMA_V4)
    this.version(5).stores(SCHEMA_V5).upgrade(recomputeSearchTokens)
    // `marks` is dropped after the upgrade has moved its rows into `markDays`.
    this.version(6)
      .stores({ ...SCHEMA_V6, marks: null })
      .upgrade(groupMarksAndAudit)
    this.version(7).stores(SCHEMA_V7).upgrade(fileSearchTokens)
    this.version(8).stores(SCHEMA_V8) // new empty table: nothing to convert
    this.version(9).stores(SCHEMA_V9) // restore staging: new empty tables, nothing to convert
  }

  /** The schema version on disk, before this connection opens (and migrates) it; null: none yet. */
  async storedVersion(): Promise<number | null> {
    return this.#factory ? storedCacheVersion(this.#factory, this.name) : null
  }

  /** All tables, in TABLE_NAMES order, for whole-cache transactions (backup, restore). */
  allTables(): Table[] {
    return TABLE_NAMES.map((n) => this.table(n))
  }

  /** A restore's staging copy of `name` (empty outside a restore). */
  staged(name: StagedTableName): Table {
    return this.table(stagedTableName(name))
  }

  /** Every staging table, in STAGED_TABLE_NAMES order. */
  stagedTables(): Table[] {
    return STAGED_TABLE_NAMES.map((n) => this.staged(n))
  }
}
