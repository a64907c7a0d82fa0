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
 *
 * History and charge rows carry only the API payload: every derived field (amount, key, time, search
 * index, day rows) is derived again on restore, so a file cannot bring fields that disagree with it.
 * Restore is two passes over the file: the first checks what its lines show on their own or against the
 * small tables (rows, time zones, locks against marks and the audit log), keeping nothing per record; the
 * second writes the rows into staging tables, refusing what contradicts the staged records (a record or
 * mark twice, marks and audit entries against their record's period), then switches the staging in with
 * one transaction, so a refusal or a stop before that leaves the cache as it was. Version-1 files (one
 * JSON document) are still read, up to LEGACY_MAX_CHARS.
 */
import Dexie, { type IndexableType, type Table } from 'dexie'
import { appendAuditEntries, auditRowsOf } from './audit-repository'
import type { BackupTableName } from './backup'
import { contradiction } from './backup-check'
import { BackupError, RESTORE_MARKER_KEY, type StreamProgress } from './backup-format'
import { itemsOf, rowOf, type ReadOptions, type Row } from './backup-read'
import { PAGE_ROWS, pagesByKey } from './backup-write'
import { STAGED_TABLE_NAMES, type ClosebookDb } from './database'
import { HistoryWriter } from './history-writer'
import { searchDayBounds, searchDayOf } from './history-record'
import { storedHistoryRowOf } from './history-row'
import { markDayOf, ORPHAN_MARK_DAY } from './marks-repository'
import type {
  AuditEntry,
  CachedConnection,
  ChargeRecord,
  HistoryRecord,
  MarkRecord,
  PeriodLock,
  RecordKey,
} from '../domain/records'
import type { AuditRow, MarkDayRecord, SettingRecord } from './storage-rows'

// The format's constants, the writer, the reader and pass one live beside this file; the app imports them
// from here.
export * from './backup-format'
export { checkBackupFile, type BackupCheck } from './backup-check'
export { pagesByKey, streamBackup } from './backup-write'

// --- writing back ---------------------------------------------------------------------------------

type HistoryTable = Table<HistoryRecord, [string, RecordKey]>
type ChargeTable = Table<ChargeRecord, [string, string]>

/** Each connection's time zone, by id: pass two checks periods in it (connections come first in a file). */
type Zones = ReadonlyMap<string, string>

/**
 * What pass two holds rows to: periods in their connection's zone and, unless the file's signature
 * verified (a cache whose synced copy was cleared keeps its marks, so a genuine backup can have them),
 * no mark, audit entry or closing that names a record the file does not hold.
 */
interface StageRules {
  zones: Zones
  acceptOrphans: boolean
}

/** Refuses a closing whose snapshot lists a record the file does not hold (unless the file is trusted). */
async function checkLockSnapshots(db: ClosebookDb, rules: StageRules): Promise<void> {
  if (rules.acceptOrphans) return
  const locks = (await db.staged('locks').toArray()) as PeriodLock[]
  for (const lock of locks) {
    const keys = Object.keys(lock.snapshot ?? {}) as RecordKey[]
    const times = await stagedTimes(
      db,
      keys.map((key) => ({ connectionId: lock.connectionId, key })),
    )
    const missing = times.findIndex((t) => t === undefined)
    if (missing >= 0)
      throw new BackupError('lock_without_record', { period: lock.period, key: keys[missing] ?? '' })
  }
}

/** A checked row with its line in the file (for the errors that name it). */
type PageRow = Row & { line: number }

/** The staged records (createdAt) of `refs`, in order; undefined where the file has no such record. */
async function stagedTimes(
  db: ClosebookDb,
  refs: readonly { connectionId: string; key: RecordKey }[],
): Promise<(number | undefined)[]> {
  const history = db.staged('history') as HistoryTable
  const records = await history.bulkGet(refs.map((r): [string, RecordKey] => [r.connectionId, r.key]))
  return records.map((r) => r?.createdAt)
}

/**
 * Adds history to the staging, refusing a record the file holds twice (in this page or an earlier one:
 * the staged table is the index, so no pass keeps one in memory). In a transaction.
 */
async function stageHistory(db: ClosebookDb, rows: readonly PageRow[]): Promise<void> {
  const records = rows.map((r) => r.record as HistoryRecord)
  try {
    await db.staged('history').bulkAdd(records)
  } catch (error) {
    const failed = error instanceof Dexie.BulkError ? Object.keys(error.failuresByPos).map(Number) : []
    const at = failed.length > 0 ? Math.min(...failed) : -1
    const row = rows[at]
    if (!row) throw error
    throw new BackupError('duplicate_key', { table: 'history', line: row.line, key: records[at]?.key ?? '' })
  }
}

/**
 * Adds marks to their staged day rows, merging with rows an earlier page wrote; refuses a mark twice,
 * a mark whose period its record (staged before marks) contradicts and, unless the backup is trusted,
 * a mark for a record the file does not hold. In a transaction.
 */
async function stageMarks(db: ClosebookDb, rows: readonly PageRow[], rules: StageRules): Promise<void> {
  const marks = rows.map((r) => r.record as MarkRecord)
  // The day of each mark's record, from the staged history (records come before marks in the file).
  const times = await stagedTimes(db, marks)
  const byRow = new Map<string, { connectionId: string; day: number; marks: MarkRecord[]; lines: number[] }>()
  for (const [i, mark] of marks.entries()) {
    const at = times[i]
    if (at === undefined && !rules.acceptOrphans)
      throw new BackupError('mark_without_record', { key: mark.key, line: rows[i]?.line ?? 0 })
    const actual = contradiction(at, rules.zones.get(mark.connectionId), mark.period)
    if (actual !== null)
      throw new BackupError('mark_contradicts_record', { key: mark.key, period: mark.period, actual })
    const day = at === undefined ? ORPHAN_MARK_DAY : markDayOf(at)
    const id = `${mark.connectionId}\u0001${day}`
    let row = byRow.get(id)
    if (!row) byRow.set(id, (row = { connectionId: mark.connectionId, day, marks: [], lines: [] }))
    row.marks.push(mark)
    row.lines.push(rows[i]?.line ?? 0)
  }
  const table = db.staged('markDays') as Table<MarkDayRecord, [string, number]>
  const groups = [...byRow.values()]
  const stored = await table.bulkGet(groups.map((g): [string, number] => [g.connectionId, g.day]))
  const merged = groups.map((g, i): MarkDayRecord => {
    const all = [...(stored[i]?.marks ?? [])]
    // A record's marks are all in its day's row: a key seen there already is the file's second mark.
    const keys = new Set(all.map((m) => m.key))
    for (const [j, mark] of g.marks.entries()) {
      if (keys.has(mark.key))
        throw new BackupError('duplicate_key', { table: 'marks', line: g.lines[j] ?? 0, key: mark.key })
      keys.add(mark.key)
      all.push(mark)
    }
    const changed = all.some((m) => m.state === 'reconciled' && m.changedSinceReconciled === 1) ? 1 : 0
    return { connectionId: g.connectionId, day: g.day, marks: all, changed }
  })
  await table.bulkPut(merged)
}

/**
 * Refuses an audit entry whose period its record (staged before the audit log) contradicts and, unless
 * the backup is trusted, one about a record the file does not hold.
 */
async function checkAuditRecords(db: ClosebookDb, entries: readonly AuditEntry[], rules: StageRules) {
  const about = entries.filter((e): e is AuditEntry & { key: RecordKey } => e.key !== null)
  const times = await stagedTimes(db, about)
  for (const [i, e] of about.entries()) {
    if (times[i] === undefined && !rules.acceptOrphans)
      throw new BackupError('audit_without_record', { seq: e.seq ?? 0, key: e.key })
    if (e.period === null) continue
    const actual = contradiction(times[i], rules.zones.get(e.connectionId), e.period)
    if (actual !== null)
      throw new BackupError('audit_contradicts_record', {
        seq: e.seq ?? 0,
        key: e.key,
        period: e.period,
        actual,
      })
  }
}

/** One action's audit entries as the cache stores them: a row per action, keeping its sequence. */
function auditRowsBySeq(entries: readonly AuditEntry[]): AuditRow[] {
  const rows: AuditRow[] = []
  let group: AuditEntry[] = []
  const close = (): void => {
    if (group.length === 0) return
    group.sort((a, b) => (a.part ?? 0) - (b.part ?? 0))
    for (const row of auditRowsOf(group)) rows.push({ ...row, seq: group[0]?.seq ?? 0 })
    group = []
  }
  for (const e of entries) {
    if (group.length > 0 && group[0]?.seq !== e.seq) close()
    group.push(e)
  }
  close()
  return rows
}

/** Writes one page of checked rows (all of one table) into the staging tables. */
async function stagePage(db: ClosebookDb, rows: readonly PageRow[], rules: StageRules): Promise<void> {
  const table = rows[0]?.table
  if (!table) return
  await db.transaction('rw', db.stagedTables(), async () => {
    if (table === 'history') await stageHistory(db, rows)
    else if (table === 'marks') await stageMarks(db, rows, rules)
    else if (table === 'audit') {
      const entries = rows.map((r) => r.record as AuditEntry)
      await checkAuditRecords(db, entries, rules)
      await db.staged('audit').bulkPut(auditRowsBySeq(entries))
    } else await db.staged(table).bulkPut(rows.map((r) => r.record))
  })
}

/**
 * Files the staged history's day rows (digests, search tokens) and the staged charges' day rows and
 * parts a day at a time, reading the records through their time index: memory holds one day's records,
 * whatever the file's order. Writing them a page at a time instead, as the file comes (key order: every
 * page touches every day), rewrote every day row once per page: the whole index in memory, and
 * quadratic time.
 */
async function stageDayRows(
  db: ClosebookDb,
  connectionIds: { history: Iterable<string>; charges: Iterable<string> },
  signal: AbortSignal | undefined,
  onRecords: (done: number) => void,
): Promise<void> {
  let done = 0
  const fileDays = async <R extends { createdAt: number }, K>(
    source: Table<R, K>,
    ids: Iterable<string>,
    targets: Table[],
    file: (records: R[]) => Promise<void>,
  ): Promise<void> => {
    for (const connectionId of ids)
      for await (const records of stagedDays(source, connectionId, signal)) {
        await db.transaction('rw', targets, () => file(records))
        onRecords((done += records.length))
      }
  }
  // The history writer owns the day rows, staged ones included.
  const writer = new HistoryWriter(db)
  const history = { dayDigests: db.staged('dayDigests'), dayTokens: db.staged('dayTokens') }
  await fileDays(db.staged('history') as HistoryTable, connectionIds.history, Object.values(history), (r) =>
    writer.fileFreshDays(r, history),
  )
  // The staged charges are filed in their day parts, which is how the cache holds them (charge-days.ts).
  const charges = { chargeDays: db.staged('chargeDays'), chargeParts: db.staged('chargeParts') }
  await fileDays(db.staged('charges') as ChargeTable, connectionIds.charges, Object.values(charges), (r) =>
    writer.fileFreshCharges(r, charges),
  )
}

/** A staged table's records of one connection a UTC day at a time, oldest first, through its time index. */
async function* stagedDays<R extends { createdAt: number }, K>(
  table: Table<R, K>,
  connectionId: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<R[]> {
  const byTime = (from: number, to: number) =>
    table.where('[connectionId+createdAt]').between([connectionId, from], [connectionId, to], true, false)
  for (let from = -Infinity; ;) {
    signal?.throwIfAborted()
    const next = await byTime(from, Infinity).first()
    if (!next) return
    const to = searchDayBounds(searchDayOf(next.createdAt))[1]
    yield await byTime(from, to).toArray()
    from = to
  }
}

/**
 * The staged settings row naming the restore that owns the staging: two restores at once (two tabs)
 * would share the staging tables, so the switch checks the owner is still its own.
 */
const STAGING_OWNER_KEY = 'restoreStagingOwner'

/** Empties the staging tables (a restore that stopped, or one just switched in). */
export async function clearRestoreStaging(db: ClosebookDb): Promise<void> {
  await db.transaction('rw', db.stagedTables(), async () => {
    await Promise.all(db.stagedTables().map((t) => t.clear()))
  })
}

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
  /** Called inside the switch transaction after each table is copied; throwing aborts the switch. */
  afterSwitchTable?: (table: string) => void
}

/** A row's primary key as `table` keys it (every staged table has an inbound key). */
function primaryKeyOf(table: Table, row: unknown): IndexableType {
  const path = table.schema.primKey.keyPath
  if (path === undefined || row === null || typeof row !== 'object')
    throw new Error(`${table.name}: no primary key`)
  const at = (p: string): IndexableType => Dexie.getByKeyPath(row, p) as IndexableType
  return Array.isArray(path) ? (path.map(at) as IndexableType) : at(path)
}

/**
 * Moves the staged tables into the real ones in ONE transaction: clear, copy page by page, add the
 * restore's audit entries, empty the staging. IndexedDB commits all of it or none: a crash or error
 * here leaves the cache as it was before the restore.
 */
async function switchIn(
  db: ClosebookDb,
  owner: string,
  audit: readonly AuditEntry[],
  pageRows: number,
  faults: RestoreFaults | undefined,
  signal: AbortSignal | undefined,
  onRows: (done: number, total: number, phase?: 'commit') => void,
): Promise<void> {
  await db.transaction('rw', [...db.allTables(), ...db.stagedTables()], async () => {
    const staged = (await db.staged('settings').get(STAGING_OWNER_KEY)) as SettingRecord | undefined
    if (staged?.value !== owner)
      throw new BackupError('restore_failed', { reason: 'another restore started' })
    // The staged charges are the file's rows; the cache holds them as the staged day parts.
    const copied = STAGED_TABLE_NAMES.filter((name) => name !== 'charges')
    const total = (await Promise.all(copied.map((n) => db.staged(n).count()))).reduce((a, b) => a + b, 0)
    let done = 0
    onRows(done, total)
    await Promise.all(db.allTables().map((t) => t.clear()))
    for (const name of copied) {
      const from = db.staged(name)
      const to = db.table(name)
      for await (const page of pagesByKey(from, pageRows, (row) => primaryKeyOf(from, row))) {
        // Cancel aborts the transaction: IndexedDB rolls every copied row back.
        signal?.throwIfAborted()
        // History is stored as the writer stores it: lean rows (history-row.ts).
        await to.bulkPut(name === 'history' ? (page as HistoryRecord[]).map(storedHistoryRowOf) : page)
        onRows((done += page.length), total)
      }
      faults?.afterSwitchTable?.(name)
    }
    // Every row is copied; what remains is IndexedDB writing them out as the transaction commits, which
    // for a large cache takes longer than the copying did: said as such, not as a frozen 100 %.
    onRows(total, total, 'commit')
    await appendAuditEntries(db.audit, audit)
    await db.settings.bulkDelete([RESTORE_MARKER_KEY, STAGING_OWNER_KEY])
    await Promise.all(db.stagedTables().map((t) => t.clear()))
  })
}

/**
 * Pass two, all or nothing: writes the file's rows into the staging tables (history and charges derived
 * again from their payloads, day rows filed a day at a time), then switches them in with one transaction
 * (switchIn). Until that transaction commits the cache is untouched: Cancel, an error, a closed tab or a
 * crash leaves it as it was (a stopped restore's staging is emptied by the next restore or by
 * `clearRestoreStaging`). Call only after `checkBackupFile` accepted the same file.
 */
export async function restoreBackupFile(
  db: ClosebookDb,
  file: Blob,
  options: {
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
  } = {},
): Promise<void> {
  const pageRows = options.pageRows ?? PAGE_ROWS
  const signal = options.signal
  const onBytes = (done: number): void => options.onProgress?.({ done, total: file.size })
  const owner = `${Date.now()}-${Math.random().toString(36).slice(2)}`
  await clearRestoreStaging(db)
  await db.staged('settings').put({ key: STAGING_OWNER_KEY, value: owner })
  try {
    const items = await itemsOf(file, { signal, onBytes, inflateLimits: options.inflateLimits })
    const connections: CachedConnection[] = []
    // The connections whose records get day rows (stageDayRows).
    const connectionIds = { history: new Set<string>(), charges: new Set<string>() }
    const zones = new Map<string, string>()
    const rules: StageRules = { zones, acceptOrphans: options.verification?.status === 'verified' }
    let exportedAt = ''
    let page: PageRow[] = []
    let pages = 0
    let pageTable: BackupTableName | null = null
    let lastSeq: number | null = null
    const flush = async (): Promise<void> => {
      const rows = page
      page = []
      if (rows.length === 0 || !pageTable) return
      options.faults?.beforeStagePage?.(pageTable, pages++, rows.length)
      await stagePage(db, rows, rules)
    }
    for await (const item of items) {
      if (item.kind === 'header') {
        exportedAt = item.exportedAt
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
        connections.push(c)
        zones.set(c.id, c.timeZone)
      }
      if (row.table === 'history' || row.table === 'charges')
        connectionIds[row.table].add(row.record.connectionId)
      // A page never splits one audit action: its entries go in one row.
      const seq = row.table === 'audit' ? ((row.record as AuditEntry).seq ?? 0) : null
      if (row.table !== pageTable || (page.length >= pageRows && (seq === null || seq !== lastSeq)))
        await flush()
      pageTable = row.table
      lastSeq = seq
      page.push({ ...row, line: item.line })
    }
    await flush()
    await db.transaction('r', db.stagedTables(), () => checkLockSnapshots(db, rules))
    const records = (await db.staged('history').count()) + (await db.staged('charges').count())
    await stageDayRows(db, connectionIds, signal, (done) =>
      options.onProgress?.({ done, total: records, phase: 'index' }),
    )
    signal?.throwIfAborted()
    const at = options.at ?? Date.now()
    const actor = options.actor
    const audit: AuditEntry[] =
      actor === undefined
        ? []
        : connections.map((c) => ({
            connectionId: c.id,
            at,
            actor,
            action: 'restore' as const,
            key: null,
            period: null,
            before: null,
            after: options.verification ? { exportedAt, ...options.verification } : { exportedAt },
          }))
    await switchIn(db, owner, audit, pageRows, options.faults, signal, (done, total, phase) =>
      options.onProgress?.({ done, total, phase: phase ?? 'switch' }),
    )
  } catch (error) {
    // The cache was not touched; the staging is thrown away (unless another restore owns it now).
    const staged = (await db
      .staged('settings')
      .get(STAGING_OWNER_KEY)
      .catch(() => undefined)) as SettingRecord | undefined
    if (staged?.value === owner) await clearRestoreStaging(db).catch(() => undefined)
    if (signal?.aborted) throw signal.reason
    if (error instanceof BackupError) throw error
    throw new BackupError('restore_failed', {
      reason: error instanceof Error ? error.message.slice(0, 200) : '',
    })
  }
}

/** Throws `restore_interrupted` when a restore started writing and never finished. */
export async function assertRestoreComplete(db: ClosebookDb): Promise<void> {
  const marker = await db.settings.get(RESTORE_MARKER_KEY)
  if (marker) throw new BackupError('restore_interrupted')
}
