/**
 * Pass two's pages: each page of checked rows (all of one table) written in one transaction, history (in
 * day parts, restore-history.ts), marks and the audit log straight into the next generation's slot (the
 * cache does not read it until the switch), the small tables into their staging copies; refused for what
 * contradicts the records written before it (a record or mark twice, a period that is not the record's, a
 * mark, audit entry or closing about a record the file lacks).
 */
import type { Table } from 'dexie'
import { auditRowsOf } from './audit-repository'
import { contradiction } from './backup-check'
import { BackupError } from './backup-format'
import { NO_FILING, type PageFiling } from './backup-filing'
import type { Row } from './backup-read'
import type { ClosebookDb, GenerationTables } from './database'
import { HistoryWriter } from './history-writer'
import { ORPHAN_MARK_DAY } from './marks-repository'
import {
  firstMissing,
  periodOfDay,
  stagedRecords,
  type RestoredHistory,
  type StagedRecord,
} from './restore-history'
import type {
  AuditEntry,
  ChargeRecord,
  HistoryRecord,
  MarkRecord,
  PeriodLock,
  RecordKey,
} from '../domain/records'
import type { AuditRow, MarkDayRecord } from './storage-rows'

export type HistoryTable = Table<HistoryRecord, [string, RecordKey]>
export type ChargeTable = Table<ChargeRecord, [string, string]>

/** Each connection's time zone, by id: pass two checks periods in it (connections come first in a file). */
type Zones = ReadonlyMap<string, string>

/**
 * What pass two holds rows to: periods in their connection's zone and, unless the file's signature
 * verified (a cache whose synced copy was cleared keeps its marks, so a genuine backup can have them),
 * no mark, audit entry or closing that names a record the file does not hold.
 */
export interface StageRules {
  zones: Zones
  acceptOrphans: boolean
  /** The next generation's slot the restore writes (and reads back its records from). */
  next: GenerationTables
  /** The restore's history writes into the slot's parts. */
  history: RestoredHistory
}

/** Snapshot keys checked per index pass: memory holds their lookups, not a month's. */
const SNAPSHOT_CHUNK = 2_000

/** Refuses a closing whose snapshot lists a record the file does not hold (unless the file is trusted). */
export async function checkLockSnapshots(db: ClosebookDb, rules: StageRules): Promise<void> {
  if (rules.acceptOrphans) return
  const locks = (await db.staged('locks').toArray()) as PeriodLock[]
  for (const lock of locks) {
    const keys = Object.keys(lock.snapshot ?? {}) as RecordKey[]
    for (let i = 0; i < keys.length; i += SNAPSHOT_CHUNK) {
      const chunk = keys.slice(i, i + SNAPSHOT_CHUNK)
      const refs = chunk.map((key) => ({ connectionId: lock.connectionId, key }))
      const missing = await firstMissing(rules.next.historyParts, refs)
      if (missing >= 0)
        throw new BackupError('lock_without_record', { period: lock.period, key: chunk[missing] ?? '' })
    }
  }
}

/** A checked row with its line in the file (for the errors that name it). */
export type PageRow = Row & { line: number }

/**
 * The period a restored record has in its connection's zone when it contradicts `period`, else null
 * (also when the file has no such record): from the record's day alone where every record of that day
 * has one period (stagedRecords asks for the time of the others).
 */
function contradictionOf(
  at: StagedRecord | undefined,
  zone: string | undefined,
  period: string,
): string | null {
  if (!at) return null
  if (at.createdAt !== undefined) return contradiction(at.createdAt, zone, period)
  const only = periodOfDay(at.day)
  return only === null || only === period ? null : only
}

/** Whether a record on UTC `day` needs its time to check `period` against it (its day does not tell). */
const needsTime = (period: string | null, day: number): boolean =>
  period !== null && periodOfDay(day) === null

/**
 * Adds marks to their staged day rows, merging with rows an earlier page wrote; refuses a mark twice,
 * a mark whose period its record (staged before marks) contradicts and, unless the backup is trusted,
 * a mark for a record the file does not hold. In a transaction.
 */
async function stageMarks(rows: readonly PageRow[], rules: StageRules): Promise<void> {
  const marks = rows.map((r) => r.record as MarkRecord)
  // Each mark's record, from the restored history (records come before marks in the file).
  const staged = await stagedRecords(rules.next, marks, (m, day) => needsTime(m.period, day))
  const byRow = new Map<string, { connectionId: string; day: number; marks: MarkRecord[]; lines: number[] }>()
  for (const [i, mark] of marks.entries()) {
    const at = staged[i]
    if (at === undefined && !rules.acceptOrphans)
      throw new BackupError('mark_without_record', { key: mark.key, line: rows[i]?.line ?? 0 })
    const actual = contradictionOf(at, rules.zones.get(mark.connectionId), mark.period)
    if (actual !== null)
      throw new BackupError('mark_contradicts_record', { key: mark.key, period: mark.period, actual })
    // A record's mark row is its UTC day's (markDayOf), the day of the part holding it.
    const day = at === undefined ? ORPHAN_MARK_DAY : at.day
    const id = `${mark.connectionId}\u0001${day}`
    let row = byRow.get(id)
    if (!row) byRow.set(id, (row = { connectionId: mark.connectionId, day, marks: [], lines: [] }))
    row.marks.push(mark)
    row.lines.push(rows[i]?.line ?? 0)
  }
  const table = rules.next.markDays
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
async function checkAuditRecords(entries: readonly AuditEntry[], rules: StageRules) {
  const about = entries.filter((e): e is AuditEntry & { key: RecordKey } => e.key !== null)
  const staged = await stagedRecords(rules.next, about, (e, day) => needsTime(e.period, day))
  for (const [i, e] of about.entries()) {
    if (staged[i] === undefined && !rules.acceptOrphans)
      throw new BackupError('audit_without_record', { seq: e.seq ?? 0, key: e.key })
    if (e.period === null) continue
    const actual = contradictionOf(staged[i], rules.zones.get(e.connectionId), e.period)
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

/**
 * History as `filing` gives it (backup-filing.ts): whole days in parts built from scratch, records read
 * out of time order in parts of their own. A key given twice is refused. In a transaction.
 */
async function stageHistory(history: RestoredHistory, next: GenerationTables, filing: PageFiling) {
  if (filing.history.length > 0) await history.fileDays(next.historyParts, filing.history, filing.lineOf)
  if (filing.looseHistory.length > 0)
    await history.fileLoose(next.historyParts, filing.looseHistory, filing.lineOf)
}

/**
 * Writes one page of checked rows (all of one table) into the next generation or the staging tables, and
 * in the same transaction what `filing` says it completes (backup-filing.ts): a history page writes the
 * history days the file completed (the page's records wait in the filer until their day is complete), in
 * their parts and day rows, or, for a file not in time order, the records as they come; whole charge
 * days, in their day parts. A charges page stages only `filing.stagedCharges` (those of a file not in time
 * order).
 */
export async function stagePage(
  db: ClosebookDb,
  rows: readonly PageRow[],
  rules: StageRules,
  filing: PageFiling = NO_FILING,
): Promise<void> {
  const table = rows[0]?.table
  if (!table) return
  const { next } = rules
  const dayRows = { dayDigests: next.dayDigests, daySummaries: next.daySummaries, dayTokens: next.dayTokens }
  const chargeRows = { chargeDays: next.chargeDays, chargeParts: next.chargeParts }
  const scope = [
    ...db.stagedTables(),
    next.historyParts,
    next.markDays,
    next.audit,
    ...Object.values(dayRows),
    ...Object.values(chargeRows),
  ]
  const writer = new HistoryWriter(db)
  await db.transaction('rw', scope, async () => {
    if (table === 'history') await stageHistory(rules.history, next, filing)
    else if (table === 'marks') await stageMarks(rows, rules)
    else if (table === 'audit') {
      const entries = rows.map((r) => r.record as AuditEntry)
      await checkAuditRecords(entries, rules)
      await next.audit.bulkPut(auditRowsBySeq(entries))
    } else if (table === 'charges') {
      // The staging copy, which the index pass files; the cache's charges are written by the history writer.
      if (filing.stagedCharges.length > 0) await db.staged(table).bulkPut(filing.stagedCharges)
    } else await db.staged(table).bulkPut(rows.map((r) => r.record))
    if (filing.history.length > 0) await writer.fileFreshDays(filing.history.flat(), dayRows)
    if (filing.charges.length > 0) await writer.fileFreshCharges(filing.charges.flat(), chargeRows)
  })
}
