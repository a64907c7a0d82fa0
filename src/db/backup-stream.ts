/**
 * Backups that scale (format version 2): line-delimited JSON, written and read a table at a time, a page
 * of rows at a time, so neither a backup nor a restore ever holds the cache or the file in one string.
 * A 500k-record cache is a file of well over 512 MB: Chromium's longest string, which `JSON.parse(await
 * file.text())` could not get past.
 *
 *   {"format":"closebook-backup","version":2,"exportedAt":"…"}
 *   {"table":"connections","rows":1}
 *   {…one row…}
 *   {"table":"history","rows":500000}
 *   {"connectionId":"…","syncedAt":…,"raw":{…the API's item…}}
 *   …
 *   {"end":true,"rows":<rows in all tables>}
 *   {"signature":{"keyId":"…","mac":"…"}}      (when main could sign it: backup-digest.ts)
 *
 * History and charge rows carry only the API payload: every derived field (amount, key, time, search
 * index, day rows) is derived again on restore, so a file cannot bring fields that disagree with it.
 * History and charges are listed per connection in time order, so the restore files each day (history's
 * day parts and day rows, the charges' day parts) as it reads it.
 * Restore is two passes over the file: the first checks what its lines show on their own or against the
 * small tables (rows, time zones, locks against marks and the audit log), keeping nothing per record; the
 * second writes the records (in day parts, as a sync stores them), their day rows, marks and audit log
 * once, straight into the next generation's slot of those tables (which the cache does not read), and the
 * small tables into staging copies, refusing what contradicts the records written (a record or mark
 * twice, marks and audit entries against their record's period); then one small transaction copies the small tables and makes the next
 * generation the live one, so a refusal or a stop before that leaves the cache as it was. Version-1 files
 * (one JSON document) are still read, up to LEGACY_MAX_CHARS. The pieces: backup-format (constants,
 * errors), backup-write, backup-read (lines and rows), backup-check (pass one), backup-stage (pass two's
 * pages), restore-history (history's day parts), backup-days and backup-filing (days while reading),
 * backup-generation (the slots), backup-refile (the days the read could not file); this file switches the
 * generation.
 */
import Dexie, { type IndexableType, type Table } from 'dexie'
import { appendAuditEntries } from './audit-repository'
import type { BackupTableName } from './backup'
import { BackupError, RESTORE_MARKER_KEY, type StreamProgress } from './backup-format'
import { itemsOf, rowOf, type ReadOptions } from './backup-read'
import { checkLockSnapshots, stagePage, type PageRow, type StageRules } from './backup-stage'
import { stageDayRows } from './backup-refile'
import { PAGE_ROWS, pagesByKey } from './backup-write'
import {
  beginRestore,
  cleanOldGeneration,
  clearRestoreStaging,
  ownsStaging,
  STAGING_OWNER_KEY,
  type NextGeneration,
} from './backup-generation'
import {
  GENERATION_TABLE_NAMES,
  STAGED_TABLE_NAMES,
  TABLE_NAMES,
  type ClosebookDb,
  type GenerationTables,
} from './database'
import { ReadFiling } from './backup-filing'
import { countHistory } from './history-part-reads'
import { RestoredHistory } from './restore-history'
import type { AuditEntry, CachedConnection } from '../domain/records'
import type { SettingRecord } from './storage-rows'

// The format's constants, the writer, the reader and pass one live beside this file; the app imports them
// from here.
export * from './backup-format'
export { checkBackupFile, type BackupCheck } from './backup-check'
export { pagesByKey, streamBackup } from './backup-write'
export { cleanOldGeneration, clearRestoreStaging } from './backup-generation'

/**
 * What a restore knew of its file's origin: its signature's status (`verified` when it matched a key in
 * the keychain) and, when it did not verify, that the user restored it past the warning.
 */
export interface RestoreVerification {
  status: 'verified' | 'unsigned' | 'unknown_key' | 'mismatch' | 'unavailable'
  warned: boolean
}

/** Test hooks: a fault injected at a named point of pass two, as a crash or a failing disk would. */
export interface RestoreFaults {
  /** Called before each staged page (`rows` rows) is written; throwing stops the restore there. */
  beforeStagePage?: (table: BackupTableName, page: number, rows: number) => void
  /** Called after each day's rows are filed in the next generation (`table`: the first it wrote). */
  afterIndexDay?: (table: string) => void
  /**
   * Called inside the switch transaction after each table is copied, and with `liveGeneration` once the
   * live generation is moved; throwing aborts the switch.
   */
  afterSwitchTable?: (table: string) => void
  /** Called after the switch committed, before the old generation is emptied. */
  afterSwitch?: () => void
}

/** A row's primary key as `table` keys it (every staged table has an inbound key). */
function primaryKeyOf(table: Table, row: unknown): IndexableType {
  const path = table.schema.primKey.keyPath
  if (path === undefined || row === null || typeof row !== 'object')
    throw new Error(`${table.name}: no primary key`)
  const at = (p: string): IndexableType => Dexie.getByKeyPath(row, p) as IndexableType
  return Array.isArray(path) ? (path.map(at) as IndexableType) : at(path)
}

/** The tables a switch replaces by copying their staging: every table but the generation tables. */
const COPIED_TABLE_NAMES = TABLE_NAMES.filter(
  (name) => !(GENERATION_TABLE_NAMES as readonly string[]).includes(name),
)

/**
 * Makes the restored generation the live one in ONE small transaction: the small tables cleared and
 * their staging copied in, the restore's audit entries added to the new generation, the staging emptied
 * and the live generation moved. IndexedDB commits all of it or none: a crash or error here leaves the
 * cache as it was before the restore. No record is copied: they were written in the next generation.
 */
async function switchIn(
  db: ClosebookDb,
  owner: string,
  next: NextGeneration,
  audit: readonly AuditEntry[],
  pageRows: number,
  options: RestoreOptions,
  onRows: (done: number, total: number, phase?: 'commit') => void,
): Promise<void> {
  const { faults, signal } = options
  const live = COPIED_TABLE_NAMES.map((n) => db.table(n))
  const scope = [...live, ...db.stagedTables(), db.liveGeneration, next.tables.audit]
  await db.transaction('rw', scope, async () => {
    if (!(await ownsStaging(db, owner)))
      throw new BackupError('restore_failed', { reason: 'another restore started' })
    if ((await db.storedGeneration()).generation !== next.generation - 1)
      throw new BackupError('restore_failed', { reason: 'another restore switched' })
    // The staged charges are the file's rows; the cache holds them as the next generation's day parts.
    const copied = STAGED_TABLE_NAMES.filter((name) => name !== 'charges')
    const total = (await Promise.all(copied.map((n) => db.staged(n).count()))).reduce((a, b) => a + b, 0)
    let done = 0
    onRows(done, total)
    await Promise.all(live.map((t) => t.clear()))
    for (const name of copied) {
      const from = db.staged(name)
      const to = db.table(name)
      for await (const page of pagesByKey(from, pageRows, (row) => primaryKeyOf(from, row))) {
        // Cancel aborts the transaction: IndexedDB rolls every copied row back.
        signal?.throwIfAborted()
        await to.bulkPut(page)
        onRows((done += page.length), total)
      }
      faults?.afterSwitchTable?.(name)
    }
    onRows(total, total, 'commit')
    await appendAuditEntries(next.tables.audit, audit)
    await db.settings.bulkDelete([RESTORE_MARKER_KEY, STAGING_OWNER_KEY])
    await Promise.all(db.stagedTables().map((t) => t.clear()))
    // The old generation's slot is emptied after the commit, in the background (cleanOldGeneration).
    await db.liveGeneration.put({ id: 'live', generation: next.generation, cleanup: true })
    faults?.afterSwitchTable?.('liveGeneration')
  })
}

/** How a restore runs: who restores, Cancel, progress, test hooks, and what the check found. */
export interface RestoreOptions {
  actor?: string
  at?: number
  signal?: AbortSignal
  onProgress?: (p: StreamProgress) => void
  pageRows?: number
  faults?: RestoreFaults
  inflateLimits?: ReadOptions['inflateLimits']
  /** What the file's signature said, and whether the user was warned: kept in the restore's audit entry. */
  verification?: RestoreVerification
  /** The digest `checkBackupFile` reported: a file that reads differently now is refused. */
  expectDigest?: string
  /** Records per history part (HISTORY_PART_SIZE); tests make it small. */
  historyPartSize?: number
}

/** What reading the file into the staging tables learnt: its connections and when it was made. */
interface StagedFile {
  connections: CachedConnection[]
  /** The connections whose records get day rows (stageDayRows). */
  connectionIds: { history: Set<string>; charges: Set<string> }
  exportedAt: string
  /** The history's day rows were filed while reading (a file in time order: backup-days.ts). */
  historyDaysFiled: boolean
  /** The charges were filed in their day parts while reading (none staged). */
  chargeDaysFiled: boolean
}

/**
 * Reads the whole file into the next generation and the staging tables, a page of one table per
 * transaction, checking each page.
 */
async function stageFile(
  db: ClosebookDb,
  file: Blob,
  next: GenerationTables,
  options: RestoreOptions,
): Promise<StagedFile> {
  const pageRows = options.pageRows ?? PAGE_ROWS
  const onBytes = (done: number): void => options.onProgress?.({ done, total: file.size })
  const items = await itemsOf(file, { signal: options.signal, onBytes, inflateLimits: options.inflateLimits })
  const staged: StagedFile = {
    connections: [],
    connectionIds: { history: new Set<string>(), charges: new Set<string>() },
    exportedAt: '',
    historyDaysFiled: false,
    chargeDaysFiled: false,
  }
  const zones = new Map<string, string>()
  const rules: StageRules = {
    zones,
    acceptOrphans: options.verification?.status === 'verified',
    next,
    history: new RestoredHistory(options.historyPartSize),
  }
  let page: PageRow[] = []
  let pages = 0
  let pageTable: BackupTableName | null = null
  let lastSeq: number | null = null
  const filing = new ReadFiling()
  /** `ending`: the page is its table's last (the day being read is then complete). */
  const flush = async (ending: boolean): Promise<void> => {
    const rows = page
    page = []
    if (rows.length === 0 || !pageTable) return
    const filed = await filing.take(db, next, pageTable, ending)
    options.faults?.beforeStagePage?.(pageTable, pages++, rows.length)
    await stagePage(db, rows, rules, filed)
  }
  for await (const item of items) {
    if (item.kind === 'header') {
      staged.exportedAt = item.exportedAt
      continue
    }
    // The file read now must be the file the check read (and whose signature it checked).
    if (item.kind === 'trailer') {
      if (options.expectDigest !== undefined && item.digest !== options.expectDigest)
        throw new BackupError('changed_since_check')
      continue
    }
    const row = rowOf(item)
    const settingKey = row.table === 'settings' ? (row.record as SettingRecord).key : null
    if (settingKey === RESTORE_MARKER_KEY || settingKey === STAGING_OWNER_KEY) continue
    if (row.table === 'connections') {
      const c = row.record as CachedConnection
      staged.connections.push(c)
      zones.set(c.id, c.timeZone)
    }
    if (row.table === 'history' || row.table === 'charges')
      staged.connectionIds[row.table].add(row.record.connectionId)
    filing.add(row, item.line)
    // A page never splits one audit action: its entries go in one row.
    const seq = row.table === 'audit' ? ((row.record as AuditEntry).seq ?? 0) : null
    if (row.table !== pageTable) await flush(true)
    else if (page.length >= pageRows && (seq === null || seq !== lastSeq)) await flush(false)
    pageTable = row.table
    lastSeq = seq
    page.push({ ...row, line: item.line })
  }
  await flush(true)
  await db.transaction('r', [...db.stagedTables(), next.historyParts], () => checkLockSnapshots(db, rules))
  staged.historyDaysFiled = filing.historyFiled
  staged.chargeDaysFiled = filing.chargesFiled
  return staged
}

/** The restore's audit entries: one per restored connection, with what the signature said. */
function restoreAuditOf(staged: StagedFile, options: RestoreOptions): AuditEntry[] {
  const actor = options.actor
  if (actor === undefined) return []
  const at = options.at ?? Date.now()
  const { exportedAt } = staged
  return staged.connections.map((c) => ({
    connectionId: c.id,
    at,
    actor,
    action: 'restore' as const,
    key: null,
    period: null,
    before: null,
    after: options.verification ? { exportedAt, ...options.verification } : { exportedAt },
  }))
}

/** What a finished restore leaves running: the old generation's cleanup (it never rejects). */
export interface RestoreResult {
  cleanup: Promise<boolean>
}

/**
 * Pass two, all or nothing: writes the file's records, day rows, marks and audit log into the next
 * generation (history and charges derived again from their payloads, day rows filed a day at a time) and
 * the small tables into staging, then switches with one small transaction (switchIn). Until that
 * transaction commits the cache reads only the old generation: Cancel, an error, a closed tab or a crash
 * leaves it answering as before (what a stopped restore wrote is emptied by the next restore). The old
 * generation is emptied after the switch, in the background. Call only after `checkBackupFile` accepted
 * the same file.
 */
export async function restoreBackupFile(
  db: ClosebookDb,
  file: Blob,
  options: RestoreOptions = {},
): Promise<RestoreResult> {
  const signal = options.signal
  const owner = `${Date.now()}-${Math.random().toString(36).slice(2)}`
  const next = await beginRestore(db, owner)
  try {
    const staged = await stageFile(db, file, next.tables, options)
    const { tables } = next
    const ids = {
      ...staged.connectionIds,
      history: staged.historyDaysFiled ? [] : staged.connectionIds.history,
      charges: staged.chargeDaysFiled ? [] : staged.connectionIds.charges,
    }
    const records =
      (staged.historyDaysFiled ? 0 : await countHistory(tables)) + (await db.staged('charges').count())
    await stageDayRows(db, tables, ids, options, (done) =>
      options.onProgress?.({ done, total: records, phase: 'index' }),
    )
    signal?.throwIfAborted()
    const audit = restoreAuditOf(staged, options)
    const pageRows = options.pageRows ?? PAGE_ROWS
    await switchIn(db, owner, next, audit, pageRows, options, (done, total, phase) =>
      options.onProgress?.({ done, total, phase: phase ?? 'switch' }),
    )
  } catch (error) {
    // The cache was not touched; the staging is thrown away (unless another restore owns it now).
    const ours = await ownsStaging(db, owner).catch(() => false)
    if (ours) await clearRestoreStaging(db).catch(() => undefined)
    if (signal?.aborted) throw signal.reason
    if (error instanceof BackupError) throw error
    throw new BackupError('restore_failed', {
      reason: error instanceof Error ? error.message.slice(0, 200) : '',
    })
  }
  db.adoptGeneration(next.generation)
  options.faults?.afterSwitch?.()
  return { cleanup: cleanOldGeneration(db) }
}

/** Throws `restore_interrupted` when a restore started writing and never finished. */
export async function assertRestoreComplete(db: ClosebookDb): Promise<void> {
  const marker = await db.settings.get(RESTORE_MARKER_KEY)
  if (marker) throw new BackupError('restore_interrupted')
}
