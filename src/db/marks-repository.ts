/**
 * The accountant's marks: storage and reads. Every change of a mark goes through the marking service
 * (marking-service.ts), which plans and writes it with its audit row in one transaction; the only other
 * writers are sync's changed-since-reconciled flag (`flagChangedMarks`, not the accountant's work, not
 * audited) and restoring a backup.
 *
 * Marks are stored by the record's UTC day (MarkDayRecord): IndexedDB's cost here is per request, about
 * a quarter of a millisecond, so 10k marks written one row each took seconds; grouped by day, a 10k
 * bulk mark over a month reads and writes ~30 rows. Callers name records by key and time (MarkRef).
 */
import type { Table } from 'dexie'
import type { ClosebookDb } from './database'
import { searchDayOf } from './history-record'
import type { MarkRecord, MarkRef, RecordKey } from '../domain/records'
import type { MarkDayRecord } from './storage-rows'
import { connectionBounds } from './repository-helpers'

/** Where marks whose record is not in the cache are kept (a backup of marks alone, a migration). */
export const ORPHAN_MARK_DAY = -1

/** The day row a record's mark lives in. */
export function markDayOf(createdAt: number): number {
  return searchDayOf(createdAt)
}

export class PeriodLockedError extends Error {
  constructor(
    readonly connectionId: string,
    readonly period: string,
  ) {
    super(`Period ${period} is closed: reopen it before changing its marks`)
    this.name = 'PeriodLockedError'
  }
}

export type DayKey = [string, number]

/** True when the row holds a reconciled mark changed since reconciled (the row's indexed flag). */
function hasChanged(marks: readonly MarkRecord[]): boolean {
  return marks.some((m) => m.state === 'reconciled' && m.changedSinceReconciled === 1)
}

/** Day rows of `marks`, filed by `dayOf` (ORPHAN_MARK_DAY when it returns undefined). */
export function markDayRowsOf(
  marks: readonly MarkRecord[],
  dayOf: (mark: MarkRecord) => number | undefined,
): MarkDayRecord[] {
  const rows = new Map<string, MarkDayRecord>()
  for (const m of marks) {
    const day = dayOf(m) ?? ORPHAN_MARK_DAY
    const id = `${m.connectionId}\u0001${day}`
    let row = rows.get(id)
    if (!row) rows.set(id, (row = { connectionId: m.connectionId, day, marks: [], changed: 0 }))
    row.marks.push(m)
  }
  for (const row of rows.values()) row.changed = hasChanged(row.marks) ? 1 : 0
  return [...rows.values()]
}

/** Stores the rows (replacing each day's row), or deletes a row left with no mark. In a transaction. */
export async function putMarkDays(
  table: Table<MarkDayRecord, DayKey>,
  rows: readonly MarkDayRecord[],
): Promise<void> {
  const empty = rows.filter((r) => r.marks.length === 0)
  const full = rows.filter((r) => r.marks.length > 0)
  for (const r of full) r.changed = hasChanged(r.marks) ? 1 : 0
  if (empty.length > 0) await table.bulkDelete(empty.map((r): DayKey => [r.connectionId, r.day]))
  if (full.length > 0) await table.bulkPut(full)
}

/** The day rows a set of records' marks live in, read once each; `rows` keeps them for rewriting. */
export class DayRows {
  readonly rows = new Map<number, MarkDayRecord>()
  readonly dayOfKey = new Map<RecordKey, number>()

  constructor(
    readonly connectionId: string,
    refs: readonly MarkRef[],
  ) {
    for (const r of refs) this.dayOfKey.set(r.key, markDayOf(r.createdAt))
  }

  /** Reads the records' day rows, and the orphan row: a mark filed there before its record came. */
  async read(table: Table<MarkDayRecord, DayKey>): Promise<void> {
    const days = [...new Set([...this.dayOfKey.values(), ORPHAN_MARK_DAY])].filter((d) => !this.rows.has(d))
    const found = await table.bulkGet(days.map((d): DayKey => [this.connectionId, d]))
    days.forEach((day, i) => this.keep(day, found[i]))
  }

  /**
   * Reads the records' day rows, taking the orphan row as given (read once by the caller). Where the
   * records' days fill at least half of the days from their first to their last, one request reads that
   * whole range of day rows (the key range is inclusive at both ends); else each day is read by its key.
   */
  async readSpan(table: Table<MarkDayRecord, DayKey>, orphans: MarkDayRecord | undefined): Promise<void> {
    this.keep(ORPHAN_MARK_DAY, orphans)
    const days = [...new Set(this.dayOfKey.values())].filter((d) => !this.rows.has(d))
    if (days.length === 0) return
    const lo = Math.min(...days)
    const hi = Math.max(...days)
    if (days.length * 2 < hi - lo + 1) {
      const found = await table.bulkGet(days.map((d): DayKey => [this.connectionId, d]))
      days.forEach((day, i) => this.keep(day, found[i]))
      return
    }
    const found = await table
      .where('[connectionId+day]')
      .between([this.connectionId, lo], [this.connectionId, hi], true, true)
      .toArray()
    for (const row of found) this.keep(row.day, row)
    for (const day of days) this.keep(day, undefined)
  }

  /** Files a day's row as read (undefined: the day has no row yet), unless the day is filed already. */
  private keep(day: number, row: MarkDayRecord | undefined): void {
    if (this.rows.has(day)) return
    this.rows.set(day, row ?? { connectionId: this.connectionId, day, marks: [], changed: 0 })
  }

  /** The current mark of every named record that has one (from its day row, else the orphan row). */
  marks(): Map<RecordKey, MarkRecord> {
    const out = new Map<RecordKey, MarkRecord>()
    for (const m of this.rows.get(ORPHAN_MARK_DAY)?.marks ?? [])
      if (this.dayOfKey.has(m.key)) out.set(m.key, m)
    for (const row of this.rows.values())
      for (const m of row.marks) if (this.dayOfKey.get(m.key) === row.day) out.set(m.key, m)
    return out
  }

  /** Named records whose mark is still in the orphan row. */
  orphans(): MarkRecord[] {
    return (this.rows.get(ORPHAN_MARK_DAY)?.marks ?? []).filter((m) => this.dayOfKey.has(m.key))
  }

  /**
   * Applies puts and deletes to the rows and returns the rows that changed. A touched record's mark
   * leaves the orphan row: it lives in its record's day row from now on.
   */
  change(puts: readonly MarkRecord[], deletes: readonly RecordKey[]): MarkDayRecord[] {
    const byDay = new Map<number, Map<RecordKey, MarkRecord | undefined>>()
    const at = (key: RecordKey): Map<RecordKey, MarkRecord | undefined> => {
      const day = this.dayOfKey.get(key)
      if (day === undefined) throw new Error(`mark plan: ${key} was not among the records read`)
      let changes = byDay.get(day)
      if (!changes) byDay.set(day, (changes = new Map<RecordKey, MarkRecord | undefined>()))
      return changes
    }
    for (const k of deletes) at(k).set(k, undefined)
    for (const m of puts) at(m.key).set(m.key, m)
    const touched = new Set([...deletes, ...puts.map((m) => m.key)])
    const orphanRow = this.rows.get(ORPHAN_MARK_DAY)
    if (orphanRow && orphanRow.marks.some((m) => touched.has(m.key)) && !byDay.has(ORPHAN_MARK_DAY))
      byDay.set(ORPHAN_MARK_DAY, new Map())
    const changed: MarkDayRecord[] = []
    for (const [day, changes] of byDay) {
      const row = this.rows.get(day) as MarkDayRecord
      const leaving = day === ORPHAN_MARK_DAY ? touched : changes
      const kept = row.marks.filter((m) => !leaving.has(m.key))
      for (const m of changes.values()) if (m) kept.push(m)
      changed.push({ ...row, marks: kept })
    }
    return changed
  }
}

/**
 * Sync's side (HistoryRepository.putPage): raises the changed-since-reconciled flag of the reconciled
 * marks whose record's fingerprint no longer matches, and returns their keys. Only the flag changes: the
 * note, state and fingerprint stay the accountant's. In a transaction that includes `table`.
 */
export async function flagChangedMarks<R extends MarkRef>(
  table: Table<MarkDayRecord, DayKey>,
  connectionId: string,
  records: readonly R[],
  fingerprintOf: (record: R) => string,
): Promise<RecordKey[]> {
  const rows = new DayRows(connectionId, records)
  await rows.read(table)
  const marks = rows.marks()
  if (marks.size === 0) return []
  const flagged: MarkRecord[] = []
  for (const record of records) {
    const mark = marks.get(record.key)
    if (mark?.state !== 'reconciled' || mark.changedSinceReconciled === 1) continue
    if (mark.fingerprint !== fingerprintOf(record)) flagged.push({ ...mark, changedSinceReconciled: 1 })
  }
  // Marks kept as orphans (restored or migrated before their record was cached) join their day row now.
  const flaggedKeys = new Set(flagged.map((m) => m.key))
  const adopted = rows.orphans().filter((m) => !flaggedKeys.has(m.key))
  if (flagged.length + adopted.length > 0) await putMarkDays(table, rows.change([...flagged, ...adopted], []))
  return flagged.map((m) => m.key)
}

export class MarksRepository {
  constructor(private readonly db: ClosebookDb) {}

  async get(connectionId: string, ref: MarkRef): Promise<MarkRecord | undefined> {
    return (await this.getMany(connectionId, [ref]))[0]
  }

  /** The marks of the records, in their order (undefined: no mark). One read per distinct day. */
  async getMany(connectionId: string, refs: readonly MarkRef[]): Promise<(MarkRecord | undefined)[]> {
    const marks = await this.mapOf(connectionId, refs)
    return refs.map((r) => marks.get(r.key))
  }

  /**
   * The marks of the records that have one, by key: getMany's marks (a record's day row first, else the
   * orphan row), read once per distinct day. Each record is looked up among its own day's marks, so a
   * month of records costs no map of its keys, only one of its marks.
   */
  async mapOf(connectionId: string, refs: readonly MarkRef[]): Promise<Map<RecordKey, MarkRecord>> {
    const days = new Set<number>([ORPHAN_MARK_DAY])
    for (const r of refs) days.add(markDayOf(r.createdAt))
    const rows = await this.db.markDays.bulkGet([...days].map((d): DayKey => [connectionId, d]))
    const byDay = new Map<number, Map<RecordKey, MarkRecord>>()
    for (const row of rows)
      if (row && row.marks.length > 0) byDay.set(row.day, new Map(row.marks.map((m) => [m.key, m])))
    const orphans = byDay.get(ORPHAN_MARK_DAY)
    const out = new Map<RecordKey, MarkRecord>()
    for (const r of refs) {
      const mark = byDay.get(markDayOf(r.createdAt))?.get(r.key) ?? orphans?.get(r.key)
      if (mark) out.set(r.key, mark)
    }
    return out
  }

  /**
   * The marks of a long run of pages of records (an export): per page, one read of the pages' day rows
   * (readSpan), and the orphan row read once for the whole run. The same marks as getMany gives for each
   * page, with far fewer requests when a page holds thousands of records of a few days.
   */
  pageReader(connectionId: string): (refs: readonly MarkRef[]) => Promise<Map<RecordKey, MarkRecord>> {
    let orphans: Promise<MarkDayRecord | undefined> | null = null
    return async (refs) => {
      orphans ??= this.db.markDays.get([connectionId, ORPHAN_MARK_DAY])
      const rows = new DayRows(connectionId, refs)
      await rows.readSpan(this.db.markDays, await orphans)
      return rows.marks()
    }
  }

  /** Reconciled marks whose record changed at a later sync (read through the day rows' flag). */
  async listChangedSinceReconciled(connectionId: string): Promise<MarkRecord[]> {
    const rows = await this.db.markDays.where('[connectionId+changed]').equals([connectionId, 1]).toArray()
    return rows.flatMap((r) =>
      r.marks.filter((m) => m.state === 'reconciled' && m.changedSinceReconciled === 1),
    )
  }

  /**
   * Every mark on records of the UTC days that [from, to) touches (so possibly a few records outside it:
   * callers test their records' times). Orphans (no cached record) are not included.
   */
  async overlapping(connectionId: string, from: number, to: number): Promise<MarkRecord[]> {
    if (!(to > from)) return []
    const rows = await this.db.markDays
      .where('[connectionId+day]')
      .between([connectionId, markDayOf(from)], [connectionId, markDayOf(to - 1)], true, true)
      .toArray()
    return rows.flatMap((r) => r.marks)
  }

  /** All of a connection's marks, orphans included. */
  async all(connectionId: string): Promise<MarkRecord[]> {
    const rows = await this.db.markDays
      .where('[connectionId+day]')
      .between(...connectionBounds(connectionId))
      .toArray()
    return rows.flatMap((r) => r.marks)
  }
}
