/**
 * The renderer's cache (DESIGN §1, §4): the only module that opens IndexedDB. Every schema change is a
 * new version step (migrations/, one frozen file per version, registered here in order), so an existing
 * cache migrates in place and loses nothing; schema.ts states the current schema in full.
 */
import Dexie, { type Table } from 'dexie'
import { MIGRATIONS, type MigrationProgress, type ReportMigrationProgress } from './migrations'
import type { QuarantineRecord } from './quarantine-repository'
import { historyRecordOfRow, type StoredHistoryRow } from './history-row'
import type {
  CachedConnection,
  ChargeRecord,
  HistoryRecord,
  ImportedRowRecord,
  ImportRecord,
  PeriodLock,
  RecordKey,
  StoreRecord,
  SyncCheckpoint,
} from '../domain/records'
import type {
  AuditRow,
  ChargeDayRecord,
  ChargePartRecord,
  DayDigestRecord,
  DayTokensRecord,
  MarkDayRecord,
  SettingRecord,
} from './storage-rows'
import { TABLE_NAMES, type TableName } from './schema'
import type { BankAccount, TransferStatusChange } from '../domain/payouts'
import type {
  LedgerLink,
  LedgerRow,
  PayoutConfigRow,
  PayoutQuarantineRow,
  PayoutSyncState,
  TransferRow,
} from './payout-rows'
import type { TeamAuditStored, TeamOutboxRow, TeamRefusedRow, TeamStateRow } from './team-rows'

export { CURRENT_SCHEMA, CURRENT_VERSION, TABLE_NAMES, type TableName } from './schema'
export type { MigrationProgress } from './migrations'

export const DEFAULT_DB_NAME = 'closebook'

/** A version's tables as they exist after its step (a table the step drops is left out). */
function storesOf(version: number): Record<string, string> {
  const step = MIGRATIONS.find((m) => m.version === version)
  if (!step) throw new Error(`no schema version ${version}`)
  return Object.fromEntries(Object.entries(step.stores).filter((e): e is [string, string] => e[1] !== null))
}

/** Older versions' tables, for tests that build a cache as an older app left it. */
export const SCHEMA_V1 = storesOf(1)
export const SCHEMA_V2 = storesOf(2)
export const SCHEMA_V3 = storesOf(3)
export const SCHEMA_V4 = storesOf(4)
export const SCHEMA_V5 = storesOf(5)
export const SCHEMA_V6 = storesOf(6)
export const SCHEMA_V7 = storesOf(7)
export const SCHEMA_V8 = storesOf(8)
export const SCHEMA_V9 = storesOf(9)
export const SCHEMA_V10 = storesOf(10)
export const SCHEMA_V11 = storesOf(11)

/** The tables a restore replaces, each staged first under `staged_<name>` (schema v9). */
export const STAGED_TABLE_NAMES = [
  'connections',
  'stores',
  'history',
  'charges',
  'chargeDays',
  'chargeParts',
  'markDays',
  'dayDigests',
  'dayTokens',
  'audit',
  'checkpoints',
  'locks',
  'settings',
  'imports',
  'importedRows',
  'payoutTransfers',
  'payoutLedgers',
  'payoutStatusChanges',
  'payoutBankAccounts',
  'payoutConfig',
  'ledgerLinks',
] as const satisfies readonly TableName[]
export type StagedTableName = (typeof STAGED_TABLE_NAMES)[number]
export const stagedTableName = (name: StagedTableName): `staged_${StagedTableName}` => `staged_${name}`

/** Lets tests (fake-indexeddb) or a worker supply their own IndexedDB. */
export interface IndexedDbDeps {
  indexedDB: IDBFactory
  IDBKeyRange: typeof IDBKeyRange
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
  /** Written as StoredHistoryRow (history-row.ts), read as whole records through the reading hook. */
  declare history: Table<HistoryRecord, [string, RecordKey], StoredHistoryRow>
  /** Charges cached before schema v10; since then the charge list is in chargeParts (charge-days.ts). */
  declare charges: Table<ChargeRecord, [string, string]>
  declare chargeDays: Table<ChargeDayRecord, [string, number]>
  declare chargeParts: Table<ChargePartRecord, [string, number, number]>
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
  declare payoutTransfers: Table<TransferRow, [string, string]>
  declare payoutLedgers: Table<LedgerRow, [string, string]>
  declare payoutStatusChanges: Table<TransferStatusChange, [string, string]>
  declare payoutBankAccounts: Table<BankAccount, [string, string]>
  declare payoutConfig: Table<PayoutConfigRow, string>
  declare payoutSync: Table<PayoutSyncState, string>
  declare payoutQuarantine: Table<PayoutQuarantineRow, [string, string]>
  declare ledgerLinks: Table<LedgerLink, [string, string]>
  declare teamOutbox: Table<TeamOutboxRow, number>
  declare teamRefused: Table<TeamRefusedRow, number>
  declare teamAudit: Table<TeamAuditStored, [string, number]>
  declare teamState: Table<TeamStateRow, string>

  readonly #factory: Pick<IDBFactory, 'databases'> | undefined

  /** Told how far a migration's pass is while opening an older cache (the shell shows it). */
  onMigrationProgress: ((progress: MigrationProgress) => void) | null = null

  /**
   * `upToVersion`: register only steps 1..upToVersion, to leave a cache as an older version of the app
   * did (tests and the migration bench); the app always opens the current version.
   */
  constructor(name: string = DEFAULT_DB_NAME, deps?: IndexedDbDeps, options: { upToVersion?: number } = {}) {
    super(name, deps ? { indexedDB: deps.indexedDB, IDBKeyRange: deps.IDBKeyRange } : undefined)
    this.#factory = deps?.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB
    const report: ReportMigrationProgress = (p) => this.onMigrationProgress?.(p)
    for (const step of MIGRATIONS.slice(0, options.upToVersion ?? MIGRATIONS.length)) {
      const version = this.version(step.version).stores(step.stores)
      const { upgrade } = step
      // Reported before the step's first request: IndexedDB runs the step's schema changes (dropping an
      // index of 500k records' tokens takes minutes) before that request, with nothing to count.
      if (upgrade)
        version.upgrade((tx) => {
          report({ version: step.version, done: 0, total: 0 })
          return upgrade(tx, report)
        })
    }
    // Rows leave out what `raw` gives back (history-row.ts); every read returns the whole record.
    this.history.hook('reading', (row: StoredHistoryRow | undefined) => row && historyRecordOfRow(row))
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
