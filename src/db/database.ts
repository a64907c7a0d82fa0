/**
 * The renderer's cache (DESIGN §1, §4): the only module that opens IndexedDB. Every schema change is a
 * new version step (migrations/, one frozen file per version, registered here in order), so an existing
 * cache migrates in place and loses nothing; schema.ts states the current schema in full.
 */
import Dexie, { type IndexableType, type Table } from 'dexie'
import { MIGRATIONS, type MigrationProgress, type ReportMigrationProgress } from './migrations'
import {
  LEGACY_HISTORY_STORE,
  LEGACY_HISTORY_TABLE,
  legacyRecordOf,
  settingOldHistoryAside,
} from './migrations/legacy-history'
import type { QuarantineRecord } from './quarantine-repository'
import { historyRecordOfRow, type StoredHistoryRow } from './history-row'
import type { HistoryPartRecord } from './history-parts'
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
  MarkDayRecord,
  SettingRecord,
  StoredDaySummaryRow,
  StoredDayTokensRow,
} from './storage-rows'
import { GENERATION_TABLE_NAMES, TABLE_NAMES, type GenerationTableName, type TableName } from './schema'
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

export {
  CURRENT_SCHEMA,
  CURRENT_VERSION,
  GENERATION_TABLE_NAMES,
  TABLE_NAMES,
  type GenerationTableName,
  type TableName,
} from './schema'
export type { MigrationProgress } from './migrations'

export const DEFAULT_DB_NAME = 'closebook'

/** A version's tables as they exist after its step (a table the step drops is left out). */
function storesOf(version: number): Record<string, string> {
  const step = MIGRATIONS.find((m) => m.version === version)
  if (!step) throw new Error(`no schema version ${version}`)
  return Object.fromEntries(Object.entries(step.stores).filter((e): e is [string, string] => e[1] !== null))
}

/** A history row as schema 1–6 stored it: a whole record, with the search fields those versions kept. */
export type LegacyHistoryRow = HistoryRecord & { searchText?: string; searchTokens?: string[] }

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
export const SCHEMA_V12 = storesOf(12)

/**
 * The small tables a restore replaces, each staged first under `staged_<name>` and copied by its switch
 * (schema v9). The tables it writes in bulk are not staged: it writes them in the next generation's slot.
 */
export const STAGED_TABLE_NAMES = [
  'connections',
  'stores',
  'charges',
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

/** The generation row (schema v13): which slot is live, and whether the other one still waits to be emptied. */
export interface LiveGenerationRow {
  id: 'live'
  /** Increased by each restore's switch; its parity is the slot the cache reads. */
  generation: number
  /** The previous generation's slot still holds its rows: emptied after the switch, in the background. */
  cleanup: boolean
}

const GENERATION_ROW_ID = 'live'
const isGenerationTable = (name: string): name is GenerationTableName =>
  (GENERATION_TABLE_NAMES as readonly string[]).includes(name)

/** The stored name of a generation table's slot for `generation`: the table itself or `alt_<table>`. */
export function slotTableName(name: GenerationTableName, generation: number): string {
  return generation % 2 === 1 ? `alt_${name}` : name
}

/** A generation table per name, of one slot. */
export interface GenerationTables {
  /** Written as StoredHistoryRow (history-row.ts), read as whole records through the reading hook. */
  history: Table<HistoryRecord, [string, RecordKey], StoredHistoryRow>
  /** History since schema v15, in day parts (history-parts.ts). */
  historyParts: Table<HistoryPartRecord, [string, number, number]>
  chargeDays: Table<ChargeDayRecord, [string, number]>
  chargeParts: Table<ChargePartRecord, [string, number, number]>
  markDays: Table<MarkDayRecord, [string, number]>
  dayDigests: Table<DayDigestRecord, [string, number]>
  /** Read through partHits or tokenColumnsOf (token-rows.ts): marked, packed or, older, plain. */
  dayTokens: Table<StoredDayTokensRow, [string, number, number]>
  daySummaries: Table<StoredDaySummaryRow, [string, number]>
  audit: Table<AuditRow, number>
}

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
  /** Charges cached before schema v10; since then the charge list is in chargeParts (charge-days.ts). */
  declare charges: Table<ChargeRecord, [string, string]>
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

  declare liveGeneration: Table<LiveGenerationRow, string>
  /**
   * History rows of a schema-6-or-older cache waiting to be filed in day parts (legacy-move.ts), read as
   * records through the reading hook (migrations/legacy-history.ts) by every read of history.
   */
  declare legacyHistory: Table<HistoryRecord, [string, RecordKey], LegacyHistoryRow>

  /**
   * The tables a whole history record is read from: day parts, the rows from before them and the rows an
   * older cache set aside (history-part-reads.ts). A read's transaction includes them all.
   */
  historyRecordTables(): Table[] {
    const tables: (Table | undefined)[] = [this.history, this.historyParts, this.legacyHistory]
    return tables.filter((t): t is Table => t !== undefined)
  }

  // The generation tables are read through the live generation's slot (schema v13).
  /** Written as StoredHistoryRow (history-row.ts), read as whole records through the reading hook. */
  get history(): GenerationTables['history'] {
    return this.live('history')
  }
  get historyParts(): GenerationTables['historyParts'] {
    return this.live('historyParts')
  }
  get chargeDays(): GenerationTables['chargeDays'] {
    return this.live('chargeDays')
  }
  get chargeParts(): GenerationTables['chargeParts'] {
    return this.live('chargeParts')
  }
  get markDays(): GenerationTables['markDays'] {
    return this.live('markDays')
  }
  get dayDigests(): GenerationTables['dayDigests'] {
    return this.live('dayDigests')
  }
  get dayTokens(): GenerationTables['dayTokens'] {
    return this.live('dayTokens')
  }
  get daySummaries(): GenerationTables['daySummaries'] {
    return this.live('daySummaries')
  }
  get audit(): GenerationTables['audit'] {
    return this.live('audit')
  }

  readonly #factory: Pick<IDBFactory, 'databases'> | undefined
  /**
   * The live generation as this connection knows it: read when the cache opens, moved by a switch here or
   * (through `#channel`) in another tab. A plain field: Dexie may look tables up before fields are set.
   */
  private generation: number | undefined = 0
  readonly #channel: BroadcastChannel | null

  /** Told how far a migration's pass is while opening an older cache (the shell shows it). */
  onMigrationProgress: ((progress: MigrationProgress) => void) | null = null

  /**
   * `upToVersion`: register only steps 1..upToVersion, to leave a cache as an older version of the app
   * did (tests and the migration bench); the app always opens the current version.
   */
  constructor(name: string = DEFAULT_DB_NAME, deps?: IndexedDbDeps, options: { upToVersion?: number } = {}) {
    const current = options.upToVersion === undefined || options.upToVersion >= MIGRATIONS.length
    super(name, openerDeps(deps, current))
    this.#factory = deps?.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB
    const report: ReportMigrationProgress = (p) => this.onMigrationProgress?.(p)
    for (const step of MIGRATIONS.slice(0, options.upToVersion ?? MIGRATIONS.length)) {
      // Opening at the current version, a schema-6-or-older cache's history is renamed to the legacy store
      // before the steps run (legacy-history.ts): every step declares that store, so Dexie keeps it as it
      // is between steps instead of dropping it (a drop costs as much per index entry as the index drop
      // the rename avoids). Built for an older version (tests, the bench), the steps are as released.
      const stores = current ? { ...step.stores, [LEGACY_HISTORY_TABLE]: LEGACY_HISTORY_STORE } : step.stores
      const version = this.version(step.version).stores(stores)
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
    const whole = (row: StoredHistoryRow | undefined): HistoryRecord | undefined =>
      row && historyRecordOfRow(row)
    this.history.hook('reading', whole)
    if (this.hasTable(LEGACY_HISTORY_TABLE))
      this.legacyHistory.hook('reading', (row: LegacyHistoryRow | undefined) => row && legacyRecordOf(row))
    if (this.hasTable(slotTableName('history', 1)))
      super.table(slotTableName('history', 1)).hook('reading', whole)
    this.on('ready', (vip) => this.#loadGeneration(vip), true)
    this.#channel = openChannel(name, (generation) => (this.generation = generation))
  }

  /** Whether this connection's schema has `name` (an older version's may not). */
  private hasTable(name: string): boolean {
    return this.tables.some((t) => t.name === name)
  }

  async #loadGeneration(vip: Dexie): Promise<void> {
    if (!this.hasTable('liveGeneration')) return
    const row = (await vip.table('liveGeneration').get(GENERATION_ROW_ID)) as LiveGenerationRow | undefined
    this.generation = row?.generation ?? 0
  }

  /** A generation table by name reads the live generation's slot; every other name is the table itself. */
  override table<T = unknown, TKey = IndexableType, TInsert = T>(name: string): Table<T, TKey, TInsert> {
    return super.table(isGenerationTable(name) ? slotTableName(name, this.generation ?? 0) : name)
  }

  /** `name`'s slot of the live generation. */
  live(name: GenerationTableName): Table {
    return super.table(slotTableName(name, this.generation ?? 0))
  }

  /** Every generation table in the slot of `generation` (a restore writes the next one's). */
  generationTables(generation: number): GenerationTables {
    const slot = (name: GenerationTableName): Table => super.table(slotTableName(name, generation))
    return Object.fromEntries(GENERATION_TABLE_NAMES.map((n) => [n, slot(n)])) as unknown as GenerationTables
  }

  /** The generation tables of `generation`'s slot, as a list (transaction scopes, emptying a slot). */
  slotTables(generation: number): Table[] {
    return GENERATION_TABLE_NAMES.map((n) => super.table(slotTableName(n, generation)))
  }

  /** Both slots of every generation table: the scope of a transaction that may read or empty either. */
  bothSlots(): Table[] {
    return [...this.slotTables(0), ...this.slotTables(1)]
  }

  /** The stored generation row (in the caller's transaction, if any): the truth other tabs also see. */
  async storedGeneration(): Promise<LiveGenerationRow> {
    const row = await this.liveGeneration.get(GENERATION_ROW_ID)
    return row ?? { id: GENERATION_ROW_ID, generation: 0, cleanup: false }
  }

  /** After a switch committed: this connection and the other tabs' read `generation` from now on. */
  adoptGeneration(generation: number): void {
    this.generation = generation
    this.#channel?.postMessage(generation)
  }

  /** The schema version on disk, before this connection opens (and migrates) it; null: none yet. */
  async storedVersion(): Promise<number | null> {
    return this.#factory ? storedCacheVersion(this.#factory, this.name) : null
  }

  /** All tables (generation tables in the live slot), in TABLE_NAMES order, for whole-cache transactions. */
  allTables(): Table[] {
    return TABLE_NAMES.map((n) => this.table(n))
  }

  /** allTables() and the set-aside history rows: a whole-cache read that counts or reads every record. */
  allRecordTables(): Table[] {
    return [...new Set([...this.allTables(), ...this.historyRecordTables()])]
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

/**
 * What Dexie opens the cache with: at the current version, a factory that sets an old cache's history aside
 * in the version change (legacy-history.ts); undefined leaves Dexie the runtime's own IndexedDB.
 */
function openerDeps(deps: IndexedDbDeps | undefined, current: boolean): IndexedDbDeps | undefined {
  const runtime = globalThis as { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange }
  const base =
    deps ??
    (runtime.indexedDB && runtime.IDBKeyRange
      ? { indexedDB: runtime.indexedDB, IDBKeyRange: runtime.IDBKeyRange }
      : undefined)
  if (!base || !current) return base
  return { indexedDB: settingOldHistoryAside(base.indexedDB), IDBKeyRange: base.IDBKeyRange }
}

/**
 * The channel on which a switch tells the other tabs of the same cache its new generation; null where the
 * runtime has none. It never keeps a process alive (Node).
 */
function openChannel(name: string, onGeneration: (generation: number) => void): BroadcastChannel | null {
  if (typeof BroadcastChannel === 'undefined') return null
  const channel = new BroadcastChannel(`closebook-generation:${name}`)
  channel.onmessage = (e: MessageEvent<unknown>) => {
    if (typeof e.data === 'number' && Number.isSafeInteger(e.data)) onGeneration(e.data)
  }
  ;(channel as { unref?: () => void }).unref?.()
  return channel
}
