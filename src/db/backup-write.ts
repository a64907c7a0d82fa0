/**
 * Writing a version-2 backup (the format is described in backup-stream.ts): the cache a table at a time, a
 * page of rows per read transaction, as text chunks; and the paging both the writer and the restore use.
 */
import { type IndexableType, type Table } from 'dexie'
import { auditEntriesOf } from './audit-repository'
import { BACKUP_FORMAT, countBackupRows, type BackupTableName } from './backup'
import { BackupError, STREAM_BACKUP_VERSION, STREAM_TABLE_ORDER } from './backup-format'
import type { BackupSignature } from '../../electron/shared/contract/backup'
import { BackupDigest } from './backup-digest'
import { PAYOUT_BACKUP_TABLES } from './backup-payouts'
import { readAhead } from './read-ahead'
import type { ClosebookDb } from './database'
import { hasOlderHistory } from './history-parts'
import { historyConnections, historyRowsOfDays, nextHistoryDay } from './history-part-days'
import type {
  CachedConnection,
  ChargeRecord,
  HistoryRecord,
  ImportedRowRecord,
  ImportRecord,
  PeriodLock,
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
  StoredDayTokensRow,
} from './storage-rows'

export const PAGE_ROWS = 2_000

/**
 * What one stored row of a grouped table holds (records, marks, changes): a day's digests, a token part,
 * a day's marks or one "mark all" action's audit changes are single rows of thousands. Pages of those
 * tables are sized by this weight, so a page holds about PAGE_ROWS of them whatever the row count: pages
 * of 2,000 rows put the whole day index of a 500k cache in memory at once.
 */
const ROW_WEIGHT: Readonly<Record<string, (row: never) => number>> = {
  dayDigests: (r: DayDigestRecord) => r.records.length,
  dayTokens: (r: StoredDayTokensRow) => r.times.length,
  markDays: (r: MarkDayRecord) => r.marks.length,
  chargeDays: (r: ChargeDayRecord) => r.ids.length,
  chargeParts: (r: ChargePartRecord) => r.charges.length,
  audit: (r: AuditRow) => r.changes.length,
}

/** The weight rule of a table, of its staging copy (`staged_<name>`) or its second slot (`alt_<name>`). */
const weightOf = (tableName: string): ((row: never) => number) | undefined =>
  ROW_WEIGHT[tableName.replace(/^(staged|alt)_/, '')]

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

/**
 * History in time order: per connection (in id order), oldest first, ties in key order, a window of whole
 * UTC days per read: its day parts' stored rows and the rows written before them (history-parts.ts),
 * merged; a line needs no field a stored row leaves out, so no record is rebuilt from its `raw`. Each
 * window is as many days as the last one's density says hold about `pageRows` records (at most twice as
 * many days), and starts at the next day holding any, so empty years cost one read. A restore then meets
 * each day's records together and files its day rows as it reads (backup-days.ts). A row the time index
 * lacks (no finite `createdAt`) would be left out: streamBackup's row count refuses that.
 */
export async function* historyPagesByTime(db: ClosebookDb, pageRows: number): AsyncGenerator<unknown[]> {
  for (const connectionId of await historyConnections(db)) {
    const older = await hasOlderHistory(db.history, connectionId)
    let span = 1
    let day = await nextHistoryDay(db, connectionId, 0, older)
    while (day !== null) {
      const end = day + span
      const page = await historyRowsOfDays(db, connectionId, day, end, older)
      if (page.length > 0) {
        yield page
        span = Math.max(1, Math.min(span * 2, Math.floor((span * pageRows) / page.length)))
      }
      day = await nextHistoryDay(db, connectionId, end, older)
    }
  }
}

interface PagedTable {
  /** The cache's table the rows are stored in. */
  store: string
  keyOf: (row: never) => IndexableType
  /** The table's pages, when not in primary-key order (pagesByKey). */
  pages?: (db: ClosebookDb, pageRows: number) => AsyncGenerator<unknown[]>
  /** Stored row → the rows the file holds (marks and audit are stored grouped). */
  rowsOf?: (row: never) => unknown[]
  /** Stored row → the API payloads the file holds, one line each (history and charges). */
  payloadsOf?: (row: never) => readonly ApiPayloadSource[]
}

/** What a history or charge-list line is made of: the record's connection, sync time and API item. */
type ApiPayloadSource = Pick<HistoryRecord | ChargeRecord, 'connectionId' | 'syncedAt' | 'raw'>

/**
 * The line `JSON.stringify({ connectionId, syncedAt, raw })` writes for a record, its head written once
 * per connection: no object built per record, and the same text (a value JSON would leave out or write
 * otherwise takes that path itself).
 */
export class PayloadLines {
  private readonly heads = new Map<string, string>()

  line(r: ApiPayloadSource): string {
    const { connectionId, syncedAt, raw } = r
    if (
      typeof connectionId !== 'string' ||
      typeof syncedAt !== 'number' ||
      typeof raw !== 'object' ||
      raw === null
    )
      return `${JSON.stringify({ connectionId, syncedAt, raw })}\n`
    let head = this.heads.get(connectionId)
    if (head === undefined) {
      head = `{"connectionId":${JSON.stringify(connectionId)},"syncedAt":`
      this.heads.set(connectionId, head)
    }
    return `${head}${JSON.stringify(syncedAt)},"raw":${JSON.stringify(raw)}}\n`
  }
}

const alone = <T>(r: T): readonly T[] => [r]

/** The payout tables are written as stored, paged by their primary key. */
function payoutPagedTables(): Record<(typeof PAYOUT_BACKUP_TABLES)[number], PagedTable> {
  const idKey = (r: { connectionId: string; id: string }): IndexableType => [r.connectionId, r.id]
  return {
    payoutBankAccounts: { store: 'payoutBankAccounts', keyOf: idKey },
    payoutConfig: { store: 'payoutConfig', keyOf: (r: { connectionId: string }) => r.connectionId },
    payoutTransfers: { store: 'payoutTransfers', keyOf: idKey },
    payoutStatusChanges: { store: 'payoutStatusChanges', keyOf: idKey },
    payoutLedgers: { store: 'payoutLedgers', keyOf: idKey },
    ledgerLinks: {
      store: 'ledgerLinks',
      keyOf: (r: { connectionId: string; ledgerId: string }) => [r.connectionId, r.ledgerId],
    },
  }
}

const isPagedTable = (s: PagedTable | readonly PagedTable[]): s is PagedTable => !Array.isArray(s)

const PAGED_TABLES: Record<BackupTableName, PagedTable | readonly PagedTable[]> = {
  connections: { store: 'connections', keyOf: (r: CachedConnection) => r.id },
  stores: { store: 'stores', keyOf: (r: StoreRecord) => [r.connectionId, r.storeId] },
  locks: { store: 'locks', keyOf: (r: PeriodLock) => [r.connectionId, r.period] },
  history: {
    store: 'history',
    keyOf: (r: HistoryRecord) => [r.connectionId, r.key],
    payloadsOf: alone,
    pages: historyPagesByTime,
  },
  // Charges cached before schema v10, then the day parts (charge-days.ts).
  charges: [
    { store: 'charges', keyOf: (r: ChargeRecord) => [r.connectionId, r.id], payloadsOf: alone },
    {
      store: 'chargeParts',
      keyOf: (r: ChargePartRecord) => [r.connectionId, r.day, r.part],
      payloadsOf: (r: ChargePartRecord) => r.charges,
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
  ...payoutPagedTables(),
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
  options: {
    now?: Date
    signal?: AbortSignal
    pageRows?: number
    chunkChars?: number
    /**
     * Signs the digest of everything before the signature line (main, with the keychain's key); the
     * signature is the file's last line. null, or no `sign`: an unsigned backup.
     */
    sign?: (digest: string) => Promise<BackupSignature | null>
  } = {},
): AsyncGenerator<string> {
  const stamp = await changeStamp(db)
  const pageRows = options.pageRows ?? PAGE_ROWS
  const chunkChars = options.chunkChars ?? 256 * 1024
  const digest = options.sign ? new BackupDigest() : null
  let chunk = `${JSON.stringify({ format: BACKUP_FORMAT, version: STREAM_BACKUP_VERSION, exportedAt: (options.now ?? new Date()).toISOString() })}\n`
  let total = 0
  const payloads = new PayloadLines()
  for (const name of STREAM_TABLE_ORDER) {
    const sources = PAGED_TABLES[name]
    const rows = await countBackupRows(db, name)
    chunk += `${JSON.stringify({ table: name, rows })}\n`
    let written = 0
    const specs: readonly PagedTable[] = isPagedTable(sources) ? [sources] : sources
    for (const spec of specs) {
      const table = db.table<unknown, IndexableType>(spec.store)
      // The next page is read while this one is turned into text and handed to the host.
      const pages = readAhead(spec.pages ? spec.pages(db, pageRows) : pagesByKey(table, pageRows, spec.keyOf))
      for await (const page of pages) {
        options.signal?.throwIfAborted()
        for (const stored of page) {
          if (spec.payloadsOf)
            for (const record of spec.payloadsOf(stored as never)) {
              chunk += payloads.line(record)
              written++
            }
          else
            for (const row of spec.rowsOf ? spec.rowsOf(stored as never) : [stored]) {
              chunk += `${JSON.stringify(row)}\n`
              written++
            }
          if (chunk.length >= chunkChars) {
            await digest?.updateText(chunk)
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
  const last = `${chunk}${JSON.stringify({ end: true, rows: total })}\n`
  if (!digest || !options.sign) {
    yield last
    return
  }
  await digest.updateText(last)
  const signature = await options.sign(await digest.hex())
  yield signature ? `${last}${JSON.stringify({ signature })}\n` : last
}
