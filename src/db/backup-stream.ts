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
import { z } from 'zod'
import { chargeItemSchema, historyItemSchema } from '../../electron/shared/payment-api'
import { isValidTimeZone, periodOf } from '../domain/periods'
import { appendAuditEntries, auditEntriesOf, auditRowsOf } from './audit-repository'
import {
  auditSchema,
  BACKUP_FORMAT,
  checkpointSchema,
  countBackupRows,
  connectionSchema,
  importedRowSchema,
  importSchema,
  lockSchema,
  markSchema,
  settingSchema,
  storeSchema,
  type BackupTableName,
  type TableCounts,
} from './backup'
import { chargeRecordOf } from './charge-record'
import { STAGED_TABLE_NAMES, type ClosebookDb } from './database'
import { HistoryWriter } from './history-writer'
import { historyRecordOf, searchDayBounds, searchDayOf } from './history-record'
import { storedHistoryRowOf } from './history-row'
import { markDayOf, ORPHAN_MARK_DAY } from './marks-repository'
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
import type {
  AuditRow,
  ChargeDayRecord,
  ChargePartRecord,
  DayDigestRecord,
  DayTokensRecord,
  MarkDayRecord,
  SettingRecord,
} from './storage-rows'

export const STREAM_BACKUP_VERSION = 2

/** Tables in file order: locks before marks and audit, records before what refers to them. */
export const STREAM_TABLE_ORDER = [
  'connections',
  'stores',
  'locks',
  'history',
  'charges',
  'marks',
  'audit',
  'checkpoints',
  'settings',
  'imports',
  'importedRows',
] as const satisfies readonly BackupTableName[]

/** A version-1 file is one JSON document: read whole, so only up to this many characters. */
export const LEGACY_MAX_CHARS = 256 * 1024 * 1024
/** No row of a version-2 file comes near this; a longer line is not a backup. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024
/** Setting present while a restore is writing; a cache that still has it is incomplete. */
export const RESTORE_MARKER_KEY = 'restoreInProgress'

const PAGE_ROWS = 2_000

/**
 * What one stored row of a grouped table holds (records, marks, changes): a day's digests, a token part,
 * a day's marks or one "mark all" action's audit changes are single rows of thousands. Pages of those
 * tables are sized by this weight, so a page holds about PAGE_ROWS of them whatever the row count: pages
 * of 2,000 rows put the whole day index of a 500k cache in memory at once.
 */
const ROW_WEIGHT: Readonly<Record<string, (row: never) => number>> = {
  dayDigests: (r: DayDigestRecord) => r.records.length,
  dayTokens: (r: DayTokensRecord) => r.keys.length,
  markDays: (r: MarkDayRecord) => r.marks.length,
  chargeDays: (r: ChargeDayRecord) => r.ids.length,
  chargeParts: (r: ChargePartRecord) => r.charges.length,
  audit: (r: AuditRow) => r.changes.length,
}

/** The weight rule of a table or of its staging copy (`staged_<name>`), if its rows are grouped. */
const weightOf = (tableName: string): ((row: never) => number) | undefined =>
  ROW_WEIGHT[tableName.replace(/^staged_/, '')]

/**
 * A table's rows in primary-key order, a page per read: up to `pageRows` rows, or for a grouped table
 * (ROW_WEIGHT) as many rows as hold about `pageRows` items, learnt from the page before (the first read
 * takes one row). Memory holds one page. `keyOf` gives a row's primary key (where paging resumes).
 */
export async function* pagesByKey(
  table: Table,
  pageRows: number,
  keyOf: (row: never) => IndexableType,
): AsyncGenerator<unknown[]> {
  const weigh = weightOf(table.name)
  let limit = weigh ? 1 : pageRows
  let after: IndexableType | undefined
  for (;;) {
    const page: unknown[] =
      after === undefined
        ? await table.orderBy(':id').limit(limit).toArray()
        : await table.where(':id').above(after).limit(limit).toArray()
    if (page.length === 0) return
    yield page
    if (page.length < limit) return
    after = keyOf(page[page.length - 1] as never)
    if (weigh) {
      const items = page.reduce((n: number, row) => n + weigh(row as never), 0)
      limit = Math.max(1, Math.min(pageRows, Math.floor((pageRows * page.length) / Math.max(1, items))))
    }
  }
}

export type BackupErrorCode =
  | 'not_a_backup'
  | 'unsupported_version'
  | 'legacy_too_large'
  | 'line_too_long'
  | 'invalid_line'
  | 'invalid_row'
  | 'duplicate_key'
  | 'truncated'
  | 'unknown_time_zone'
  | 'mark_contradicts_record'
  | 'mark_after_lock'
  | 'audit_contradicts_record'
  | 'lock_contradicts_audit'
  | 'audit_split_action'
  | 'changed_during_backup'
  | 'restore_interrupted'
  | 'restore_failed'

/** A backup refused (or a backup that could not be made), with a code the UI words and its details. */
export class BackupError extends Error {
  constructor(
    readonly code: BackupErrorCode,
    readonly params: Readonly<Record<string, string | number>> = {},
  ) {
    super(`Backup ${code}: ${JSON.stringify(params)}`)
    this.name = 'BackupError'
  }
}

export interface StreamProgress {
  /** Bytes of the file read (restore) or characters written (backup); records or rows in later phases. */
  done: number
  total: number | null
  /**
   * A restore's phase: reading the file into the staging tables, filing the day rows (records), then
   * switching the staged rows in (rows). Absent: reading.
   */
  phase?: 'read' | 'index' | 'switch'
}

// --- writing --------------------------------------------------------------------------------------

interface PagedTable {
  /** The cache's table the rows are stored in. */
  store: string
  keyOf: (row: never) => IndexableType
  /** Stored row → the rows the file holds (marks and audit are stored grouped). */
  rowsOf?: (row: never) => unknown[]
}

const apiPayload = (r: HistoryRecord | ChargeRecord): unknown[] => [
  { connectionId: r.connectionId, syncedAt: r.syncedAt, raw: r.raw },
]

const isPagedTable = (s: PagedTable | readonly PagedTable[]): s is PagedTable => !Array.isArray(s)

const PAGED_TABLES: Record<BackupTableName, PagedTable | readonly PagedTable[]> = {
  connections: { store: 'connections', keyOf: (r: CachedConnection) => r.id },
  stores: { store: 'stores', keyOf: (r: StoreRecord) => [r.connectionId, r.storeId] },
  locks: { store: 'locks', keyOf: (r: PeriodLock) => [r.connectionId, r.period] },
  history: { store: 'history', keyOf: (r: HistoryRecord) => [r.connectionId, r.key], rowsOf: apiPayload },
  // Charges cached before schema v10, then the day parts (charge-days.ts).
  charges: [
    { store: 'charges', keyOf: (r: ChargeRecord) => [r.connectionId, r.id], rowsOf: apiPayload },
    {
      store: 'chargeParts',
      keyOf: (r: ChargePartRecord) => [r.connectionId, r.day, r.part],
      rowsOf: (r: ChargePartRecord) => r.charges.flatMap(apiPayload),
    },
  ],
  marks: {
    store: 'markDays',
    keyOf: (r: MarkDayRecord) => [r.connectionId, r.day],
    rowsOf: (r: MarkDayRecord) => r.marks,
  },
  audit: { store: 'audit', keyOf: (r: AuditRow) => r.seq ?? 0, rowsOf: auditEntriesOf },
  checkpoints: { store: 'checkpoints', keyOf: (r: SyncCheckpoint) => [r.connectionId, r.partitionId] },
  settings: { store: 'settings', keyOf: (r: SettingRecord) => r.key },
  imports: { store: 'imports', keyOf: (r: ImportRecord) => [r.connectionId, r.id] },
  importedRows: {
    store: 'importedRows',
    keyOf: (r: ImportedRowRecord) => [r.connectionId, r.importId, r.line],
  },
}

/** What changes when anything is written: sync moves checkpoints, every user action adds audit rows. */
async function changeStamp(db: ClosebookDb): Promise<string> {
  return db.transaction('r', db.allTables(), async () => {
    const counts = await Promise.all(db.allTables().map((t) => t.count()))
    const lastAudit = await db.audit.orderBy(':id').lastKey()
    const checkpoints = await db.checkpoints.toArray()
    const connections = await db.connections.toArray()
    const settings = await db.settings.toArray()
    return JSON.stringify([counts, lastAudit, checkpoints.map((c) => c.updatedAt), connections, settings])
  })
}

/**
 * The backup as text chunks (≈256 KB each), read a page of rows per transaction. Pages are separate
 * reads, so the backup checks at the end that nothing was written meanwhile (a sync, a mark) and
 * throws `changed_during_backup` if something was: a backup is always one consistent state.
 */
export async function* streamBackup(
  db: ClosebookDb,
  options: { now?: Date; signal?: AbortSignal; pageRows?: number; chunkChars?: number } = {},
): AsyncGenerator<string> {
  const stamp = await changeStamp(db)
  const pageRows = options.pageRows ?? PAGE_ROWS
  const chunkChars = options.chunkChars ?? 256 * 1024
  let chunk = `${JSON.stringify({ format: BACKUP_FORMAT, version: STREAM_BACKUP_VERSION, exportedAt: (options.now ?? new Date()).toISOString() })}\n`
  let total = 0
  for (const name of STREAM_TABLE_ORDER) {
    const sources = PAGED_TABLES[name]
    const rows = await countBackupRows(db, name)
    chunk += `${JSON.stringify({ table: name, rows })}\n`
    let written = 0
    const specs: readonly PagedTable[] = isPagedTable(sources) ? [sources] : sources
    for (const spec of specs) {
      const table = db.table<unknown, IndexableType>(spec.store)
      for await (const page of pagesByKey(table, pageRows, spec.keyOf)) {
        options.signal?.throwIfAborted()
        for (const stored of page) {
          for (const row of spec.rowsOf ? spec.rowsOf(stored as never) : [stored]) {
            chunk += `${JSON.stringify(row)}\n`
            written++
          }
          if (chunk.length >= chunkChars) {
            yield chunk
            chunk = ''
          }
        }
      }
    }
    if (written !== rows) throw new BackupError('changed_during_backup', { table: name })
    total += written
  }
  if ((await changeStamp(db)) !== stamp) throw new BackupError('changed_during_backup', { table: '' })
  yield `${chunk}${JSON.stringify({ end: true, rows: total })}\n`
}

// --- reading --------------------------------------------------------------------------------------

type Item =
  | { kind: 'header'; exportedAt: string; version: number }
  | { kind: 'row'; table: BackupTableName; value: unknown; line: number }

const isGzip = async (file: Blob): Promise<boolean> => {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer())
  return head[0] === 0x1f && head[1] === 0x8b
}

/** The file's text as a stream (gunzipped when it is gzip), counting the file's bytes as they are read. */
async function textStream(file: Blob, onBytes?: (bytes: number) => void): Promise<ReadableStream<string>> {
  let read = 0
  let bytes: ReadableStream<BufferSource> = file.stream().pipeThrough(
    new TransformStream<Uint8Array, BufferSource>({
      transform(chunk, controller) {
        read += chunk.byteLength
        onBytes?.(read)
        controller.enqueue(chunk as Uint8Array<ArrayBuffer>)
      },
    }),
  )
  if (await isGzip(file)) bytes = bytes.pipeThrough(new DecompressionStream('gzip'))
  return bytes.pipeThrough(new TextDecoderStream('utf-8', { fatal: true }))
}

/** Lines of a text stream, never more than MAX_LINE_CHARS held. */
async function* linesOf(stream: ReadableStream<string>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = stream.getReader()
  let rest = ''
  try {
    for (;;) {
      signal?.throwIfAborted()
      const { done, value } = await reader.read()
      if (done) break
      rest += value
      let at = rest.indexOf('\n')
      let from = 0
      while (at >= 0) {
        yield rest.slice(from, at)
        from = at + 1
        at = rest.indexOf('\n', from)
      }
      rest = rest.slice(from)
      if (rest.length > MAX_LINE_CHARS) throw new BackupError('line_too_long', { chars: MAX_LINE_CHARS })
    }
    if (rest.trim() !== '') yield rest
  } catch (error) {
    if (error instanceof TypeError) throw new BackupError('not_a_backup', { reason: 'not UTF-8 text' })
    throw error
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

/** The first line, if it comes within the first MiB of text (a version-1 file has no line break). */
async function firstLine(file: Blob): Promise<string | null> {
  const reader = (await textStream(file)).getReader()
  let text = ''
  try {
    while (text.length < 1024 * 1024) {
      const { done, value } = await reader.read()
      if (done) return text
      text += value
      const at = text.indexOf('\n')
      if (at >= 0) return text.slice(0, at)
    }
    return null
  } catch {
    throw new BackupError('not_a_backup', { reason: 'not UTF-8 text' })
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

function parseLine(text: string, line: number): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new BackupError('invalid_line', { line })
  }
}

const headerSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.number(),
  exportedAt: z.string(),
})
const sectionSchema = z.strictObject({
  table: z.enum(STREAM_TABLE_ORDER),
  rows: z.number().int().nonnegative(),
})
const endSchema = z.strictObject({ end: z.literal(true), rows: z.number().int().nonnegative() })

/** The items of a version-2 file, checking sections, their row counts and the end line. */
async function* streamItems(
  file: Blob,
  options: { signal?: AbortSignal; onBytes?: (bytes: number) => void },
): AsyncGenerator<Item> {
  let line = 0
  let section: { table: BackupTableName; rows: number; seen: number } | null = null
  let order = 0
  let total = 0
  let ended = false
  const closeSection = (): void => {
    if (section && section.seen !== section.rows)
      throw new BackupError('truncated', {
        table: section.table,
        expected: section.rows,
        found: section.seen,
      })
  }
  for await (const text of linesOf(await textStream(file, options.onBytes), options.signal)) {
    line++
    if (text.trim() === '') continue
    if (ended) throw new BackupError('invalid_line', { line })
    const value = parseLine(text, line)
    if (line === 1) {
      const head = headerSchema.safeParse(value)
      if (!head.success) throw new BackupError('not_a_backup', { reason: 'no Closebook header' })
      if (head.data.version !== STREAM_BACKUP_VERSION)
        throw new BackupError('unsupported_version', { version: head.data.version })
      yield { kind: 'header', exportedAt: head.data.exportedAt, version: head.data.version }
      continue
    }
    if (typeof value === 'object' && value !== null && 'table' in value) {
      const next = sectionSchema.safeParse(value)
      if (!next.success) throw new BackupError('invalid_line', { line })
      closeSection()
      const at = STREAM_TABLE_ORDER.indexOf(next.data.table)
      if (at < order) throw new BackupError('invalid_line', { line })
      order = at + 1
      section = { table: next.data.table, rows: next.data.rows, seen: 0 }
      continue
    }
    if (typeof value === 'object' && value !== null && 'end' in value) {
      const end = endSchema.safeParse(value)
      closeSection()
      if (!end.success || end.data.rows !== total) throw new BackupError('truncated', { table: '', line })
      ended = true
      continue
    }
    if (!section) throw new BackupError('invalid_line', { line })
    section.seen++
    total++
    if (section.seen > section.rows)
      throw new BackupError('truncated', {
        table: section.table,
        expected: section.rows,
        found: section.seen,
      })
    yield { kind: 'row', table: section.table, value, line }
  }
  if (line === 0) throw new BackupError('not_a_backup', { reason: 'empty file' })
  if (!ended) {
    closeSection()
    throw new BackupError('truncated', { table: section?.table ?? '', line })
  }
}

/** A version-1 file: one JSON document, read whole (they were only ever made for small caches). */
async function* legacyItems(file: Blob, options: { signal?: AbortSignal }): AsyncGenerator<Item> {
  let text = ''
  for await (const part of linesOfWhole(await textStream(file), options.signal)) {
    text += part
    if (text.length > LEGACY_MAX_CHARS) throw new BackupError('legacy_too_large', { max: LEGACY_MAX_CHARS })
  }
  let doc: unknown
  try {
    doc = JSON.parse(text) as unknown
  } catch {
    throw new BackupError('not_a_backup', { reason: 'not JSON' })
  }
  text = ''
  const head = headerSchema.safeParse(doc)
  if (!head.success) throw new BackupError('not_a_backup', { reason: 'no Closebook header' })
  if (head.data.version !== 1) throw new BackupError('unsupported_version', { version: head.data.version })
  const tables = (doc as { tables?: unknown }).tables
  if (typeof tables !== 'object' || tables === null)
    throw new BackupError('invalid_row', { table: 'tables', line: 1, issue: 'missing' })
  yield { kind: 'header', exportedAt: head.data.exportedAt, version: 1 }
  for (const table of STREAM_TABLE_ORDER) {
    const rows = (tables as Record<string, unknown>)[table]
    // Imports came later: older backups have none.
    if (rows === undefined && (table === 'imports' || table === 'importedRows')) continue
    if (!Array.isArray(rows))
      throw new BackupError('invalid_row', { table, line: 1, issue: 'expected a list' })
    for (const [i, value] of rows.entries()) yield { kind: 'row', table, value, line: i + 1 }
  }
}

async function* linesOfWhole(stream: ReadableStream<string>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = stream.getReader()
  try {
    for (;;) {
      signal?.throwIfAborted()
      const { done, value } = await reader.read()
      if (done) return
      yield value
    }
  } catch (error) {
    if (error instanceof TypeError) throw new BackupError('not_a_backup', { reason: 'not UTF-8 text' })
    throw error
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

async function itemsOf(
  file: Blob,
  options: { signal?: AbortSignal; onBytes?: (bytes: number) => void },
): Promise<AsyncGenerator<Item>> {
  const first = await firstLine(file)
  if (first !== null && first.trim() !== '') {
    let head: unknown
    try {
      head = JSON.parse(first) as unknown
    } catch {
      head = null
    }
    const parsed = headerSchema.safeParse(head)
    if (parsed.success && parsed.data.version !== 1) return streamItems(file, options)
  }
  if (file.size > LEGACY_MAX_CHARS * 4) throw new BackupError('legacy_too_large', { max: LEGACY_MAX_CHARS })
  return legacyItems(file, options)
}

// --- checking rows --------------------------------------------------------------------------------

const historyRowSchema = z.object({
  connectionId: z.string().min(1),
  syncedAt: z.number().finite(),
  raw: historyItemSchema,
})
const chargeRowSchema = z.object({
  connectionId: z.string().min(1),
  syncedAt: z.number().finite(),
  raw: chargeItemSchema,
})

const ROW_SCHEMAS = {
  connections: connectionSchema,
  stores: storeSchema,
  locks: lockSchema,
  history: historyRowSchema,
  charges: chargeRowSchema,
  marks: markSchema,
  audit: auditSchema,
  checkpoints: checkpointSchema,
  settings: settingSchema,
  imports: importSchema,
  importedRows: importedRowSchema,
} satisfies Record<BackupTableName, z.ZodType>

type Row =
  | { table: 'history'; record: HistoryRecord }
  | { table: 'charges'; record: ChargeRecord }
  | { table: Exclude<BackupTableName, 'history' | 'charges'>; record: unknown }

/** A checked row; history and charges rebuilt from their API payload, whatever else the line says. */
function rowOf(item: Extract<Item, { kind: 'row' }>): Row {
  const parsed = ROW_SCHEMAS[item.table].safeParse(item.value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new BackupError('invalid_row', {
      table: item.table,
      line: item.line,
      issue: `${(issue?.path ?? []).join('.')}: ${issue?.message ?? ''}`.slice(0, 200),
    })
  }
  if (item.table === 'history') {
    const r = parsed.data as z.infer<typeof historyRowSchema>
    const record = historyRecordOf(r.connectionId, r.raw, r.syncedAt)
    if (!Number.isFinite(record.createdAt))
      throw new BackupError('invalid_row', { table: 'history', line: item.line, issue: 'raw.created_on' })
    return { table: 'history', record }
  }
  if (item.table === 'charges') {
    const r = parsed.data as z.infer<typeof chargeRowSchema>
    const record = chargeRecordOf(r.connectionId, r.raw, r.syncedAt)
    if (!Number.isFinite(record.createdAt))
      throw new BackupError('invalid_row', { table: 'charges', line: item.line, issue: 'raw.created_on' })
    return { table: 'charges', record }
  }
  return { table: item.table, record: parsed.data }
}

const SMALL_KEY: Partial<Record<BackupTableName, (r: never) => string>> = {
  connections: (r: CachedConnection) => r.id,
  stores: (r: { connectionId: string; storeId: string }) => `${r.connectionId}\u0001${r.storeId}`,
  locks: (r: PeriodLock) => `${r.connectionId}\u0001${r.period}`,
  checkpoints: (r: { connectionId: string; partitionId: string }) =>
    `${r.connectionId}\u0001${r.partitionId}`,
  settings: (r: { key: string }) => r.key,
  imports: (r: { connectionId: string; id: string }) => `${r.connectionId}\u0001${r.id}`,
}

export interface BackupCheck {
  exportedAt: string
  version: number
  counts: TableCounts
}

/**
 * The period a record has in its connection's zone when it contradicts `period`, else null (also when
 * the record is not in the file). A connection's zone can be changed after marks were made, so a period
 * the record has in some zone (UTC−12 to UTC+14) is accepted; one no zone gives it contradicts it.
 */
function contradiction(
  createdAt: number | undefined,
  zone: string | undefined,
  period: string,
): string | null {
  if (createdAt === undefined) return null
  const possible = [periodOf(createdAt, 'Etc/GMT+12'), periodOf(createdAt, 'Etc/GMT-14')]
  if (possible.includes(period)) return null
  return zone === undefined ? (possible[0] ?? '') : periodOf(createdAt, zone)
}

/**
 * Pass one: reads the whole file and refuses it for the first problem its lines show on their own or
 * against the small tables (format, rows, time zones, closed months against marks and the audit log).
 * It holds the keys of the small tables and one audit action, never anything per record: what refers to
 * records (a record twice, marks and audit entries against their record's period) is checked by pass two
 * against the staged copy on disk, so memory does not grow with the cache. Charges and imported rows are
 * not checked for duplicates: restore writes them by key.
 */
export async function checkBackupFile(
  file: Blob,
  options: { signal?: AbortSignal; onProgress?: (p: StreamProgress) => void } = {},
): Promise<BackupCheck> {
  const onBytes = (done: number): void => options.onProgress?.({ done, total: file.size })
  const items = await itemsOf(file, { signal: options.signal, onBytes })
  const counts = Object.fromEntries(STREAM_TABLE_ORDER.map((t) => [t, 0])) as TableCounts
  const locks = new Map<string, PeriodLock>()
  const seen = new Map<BackupTableName, Set<string>>()
  // The last close/reopen of each (connection, period), by audit sequence.
  const lockActions = new Map<string, { seq: number; action: string }>()
  // The audit action being read (its entries are consecutive) and the parts seen of it.
  let head: { seq: number; entry: AuditEntry; parts: Set<number> } | null = null
  const seqsDone = new Set<number>()
  let header: { exportedAt: string; version: number } | null = null

  for await (const item of items) {
    if (item.kind === 'header') {
      header = item
      continue
    }
    const row = rowOf(item)
    counts[item.table]++
    const keyOf = SMALL_KEY[item.table] as ((r: unknown) => string) | undefined
    if (keyOf) {
      let keys = seen.get(item.table)
      if (!keys) seen.set(item.table, (keys = new Set()))
      const key = keyOf(row.record)
      if (keys.has(key)) throw new BackupError('duplicate_key', { table: item.table, line: item.line, key })
      keys.add(key)
    }
    switch (row.table) {
      case 'connections': {
        const c = row.record as CachedConnection
        if (!isValidTimeZone(c.timeZone))
          throw new BackupError('unknown_time_zone', {
            connection: c.label || c.id,
            zone: c.timeZone.slice(0, 64),
          })
        break
      }
      case 'locks': {
        const l = row.record as PeriodLock
        locks.set(`${l.connectionId}\u0001${l.period}`, l)
        break
      }
      case 'marks': {
        const m = row.record as MarkRecord
        const lock = locks.get(`${m.connectionId}\u0001${m.period}`)
        if (lock && m.updatedAt > lock.lockedAt)
          throw new BackupError('mark_after_lock', { key: m.key, period: m.period })
        break
      }
      case 'audit': {
        const e = row.record as AuditEntry
        const seq = e.seq ?? 0
        // One action's entries are consecutive in the file, as the cache stores them in one row.
        if (head && head.seq === seq) {
          if (auditRowsOf([head.entry, e]).length > 1)
            throw new BackupError('audit_split_action', { seq, line: item.line })
        } else {
          if (seqsDone.has(seq)) throw new BackupError('audit_split_action', { seq, line: item.line })
          if (head) seqsDone.add(head.seq)
          head = { seq, entry: e, parts: new Set() }
        }
        const part = e.part ?? 0
        if (head.parts.has(part))
          throw new BackupError('duplicate_key', { table: 'audit', line: item.line, key: `${seq}.${part}` })
        head.parts.add(part)
        if ((e.action === 'close-period' || e.action === 'reopen-period') && e.period !== null) {
          const id = `${e.connectionId}\u0001${e.period}`
          const last = lockActions.get(id)
          if (!last || last.seq <= seq) lockActions.set(id, { seq, action: e.action })
        }
        break
      }
      default:
        break
    }
  }
  if (!header) throw new BackupError('not_a_backup', { reason: 'no Closebook header' })
  // A closed month has its closing in the audit log, and a month last reopened is not closed.
  for (const [id, lock] of locks) {
    const last = lockActions.get(id)
    if (last?.action !== 'close-period')
      throw new BackupError('lock_contradicts_audit', { period: lock.period, action: last?.action ?? 'none' })
  }
  for (const [id, last] of lockActions) {
    if (last.action === 'close-period' && !locks.has(id))
      throw new BackupError('lock_contradicts_audit', {
        period: id.split('\u0001')[1] ?? '',
        action: last.action,
      })
  }
  return { exportedAt: header.exportedAt, version: header.version, counts }
}

// --- writing back ---------------------------------------------------------------------------------

type HistoryTable = Table<HistoryRecord, [string, RecordKey]>
type ChargeTable = Table<ChargeRecord, [string, string]>

/** Each connection's time zone, by id: pass two checks periods in it (connections come first in a file). */
type Zones = ReadonlyMap<string, string>

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
 * Adds marks to their staged day rows, merging with rows an earlier page wrote; refuses a mark twice
 * and a mark whose period its record (staged before marks) contradicts. In a transaction.
 */
async function stageMarks(db: ClosebookDb, rows: readonly PageRow[], zones: Zones): Promise<void> {
  const marks = rows.map((r) => r.record as MarkRecord)
  // The day of each mark's record, from the staged history (records come before marks in the file).
  const times = await stagedTimes(db, marks)
  const byRow = new Map<string, { connectionId: string; day: number; marks: MarkRecord[]; lines: number[] }>()
  for (const [i, mark] of marks.entries()) {
    const at = times[i]
    const actual = contradiction(at, zones.get(mark.connectionId), mark.period)
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

/** Refuses an audit entry whose period its record (staged before the audit log) contradicts. */
async function checkAuditRecords(db: ClosebookDb, entries: readonly AuditEntry[], zones: Zones) {
  const about = entries.filter(
    (e): e is AuditEntry & { key: RecordKey; period: string } => e.key !== null && e.period !== null,
  )
  const times = await stagedTimes(db, about)
  for (const [i, e] of about.entries()) {
    const actual = contradiction(times[i], zones.get(e.connectionId), e.period)
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
async function stagePage(db: ClosebookDb, rows: readonly PageRow[], zones: Zones): Promise<void> {
  const table = rows[0]?.table
  if (!table) return
  await db.transaction('rw', db.stagedTables(), async () => {
    if (table === 'history') await stageHistory(db, rows)
    else if (table === 'marks') await stageMarks(db, rows, zones)
    else if (table === 'audit') {
      const entries = rows.map((r) => r.record as AuditEntry)
      await checkAuditRecords(db, entries, zones)
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
  onRows: (done: number, total: number) => void,
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
  } = {},
): Promise<void> {
  const pageRows = options.pageRows ?? PAGE_ROWS
  const signal = options.signal
  const onBytes = (done: number): void => options.onProgress?.({ done, total: file.size })
  const owner = `${Date.now()}-${Math.random().toString(36).slice(2)}`
  await clearRestoreStaging(db)
  await db.staged('settings').put({ key: STAGING_OWNER_KEY, value: owner })
  try {
    const items = await itemsOf(file, { signal, onBytes })
    const connections: CachedConnection[] = []
    // The connections whose records get day rows (stageDayRows).
    const connectionIds = { history: new Set<string>(), charges: new Set<string>() }
    const zones = new Map<string, string>()
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
      await stagePage(db, rows, zones)
    }
    for await (const item of items) {
      if (item.kind === 'header') {
        exportedAt = item.exportedAt
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
            after: { exportedAt },
          }))
    await switchIn(db, owner, audit, pageRows, options.faults, signal, (done, total) =>
      options.onProgress?.({ done, total, phase: 'switch' }),
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
