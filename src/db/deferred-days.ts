/**
 * A first sync's day rows, filed in batches. A day's digest row (and its summary) is one row for the whole
 * day, and its token parts are read whole to file more records; a commit that reached a day read and
 * rewrote them all, so the work per record grew with the records a day holds (a busy merchant's first sync
 * slowed as it went). A first sync's history commits therefore go to their parts at once and leave their
 * days' digests, summaries and tokens to a filing of DEFERRED_RECORDS records at a time, and to the end of
 * the run (HistoryWriter).
 *
 * What this keeps true:
 * - Every day with records not yet filed is listed in a settings row (`deferredDaysKey`) written in the same
 *   transaction as those records, so a crash, a reload or a failed transaction loses nothing: those days are
 *   filed again from their stored records (`refileDays`) before anything else writes the connection's history.
 * - A record already written by this sync, fetched again, is replaced where it stands: the sieve of keys
 *   written (never false for a key written) says which keys to look up in the parts' key index.
 * - Until its filing, such a day's records are in the cache (a read by key, a day's parts) but not yet in
 *   its digests, summaries or search tokens.
 */
import type { Table } from 'dexie'
import type { HistoryRecord, RecordKey } from '../domain/records'
import { dayDigestRowsOf, putDigestRows, type DigestTables } from './day-digests'
import { dayPartsRange, dayTokenRowsOf, TOKEN_PART_SIZE } from './day-tokens'
import { searchDayOf } from './history-record'
import { historyInRange } from './history-part-reads'
import type { HistoryTables } from './history-parts'
import { KeySieve } from './key-sieve'
import type { SettingRecord, StoredDayTokensRow } from './storage-rows'

/** History records a first sync holds back before filing their days' rows. */
export const DEFERRED_RECORDS = 5_000

const DAY_MS = 86_400_000

/** The settings row listing a connection's days whose rows are not yet filed. */
export const deferredDaysKey = (connectionId: string): string => `deferredDays:${connectionId}`

/** The days a settings row lists (none for a row of another shape). */
export function daysOfSetting(row: SettingRecord | undefined): number[] {
  const value = row?.value
  return Array.isArray(value) ? value.filter((d): d is number => Number.isSafeInteger(d)) : []
}

/** One connection's records written by a first sync whose days are not yet filed, by day then key. */
export class DeferredDays {
  readonly #sieve = new KeySieve()
  #days = new Map<number, Map<RecordKey, HistoryRecord>>()
  #count = 0
  /** The days the settings row lists as written by this writer. */
  #listed = new Set<number>()
  /** A transaction holding some of these records failed: what is held is not what is stored. */
  #lost = false

  /** False when `key` was never written by this sync; true when it may have been. */
  mayBeHeld(key: RecordKey): boolean {
    return this.#sieve.has(key)
  }

  /**
   * Holds `records` (one connection's, just written to their parts). True when the settings row must be
   * written again: a day is new to it, or a failed transaction may have left it short (then the row's
   * days are to be kept beside `listed()`).
   */
  add(records: readonly HistoryRecord[]): boolean {
    let grew = this.#lost
    for (const r of records) {
      this.#sieve.add(r.key)
      const day = searchDayOf(r.createdAt)
      let keyed = this.#days.get(day)
      if (!keyed) this.#days.set(day, (keyed = new Map<RecordKey, HistoryRecord>()))
      if (!keyed.has(r.key)) this.#count++
      keyed.set(r.key, r)
      if (!this.#listed.has(day)) {
        this.#listed.add(day)
        grew = true
      }
    }
    return grew
  }

  get count(): number {
    return this.#count
  }

  /** The days listed, for the settings row. */
  listed(): number[] {
    return [...this.#listed].sort((a, b) => a - b)
  }

  get lost(): boolean {
    return this.#lost
  }

  /** Marks what is held as unreliable: the next filing reads the listed days from the cache instead. */
  lose(): void {
    this.#lost = true
  }

  /**
   * Hands over what is held and forgets it (the sieve stays): the records, or null when a failed
   * transaction made them unreliable.
   */
  take(): HistoryRecord[] | null {
    const records = this.#lost ? null : [...this.#days.values()].flatMap((keyed) => [...keyed.values()])
    this.#days = new Map()
    this.#count = 0
    this.#listed = new Set()
    this.#lost = false
    return records
  }
}

/** The tables a refiling reads and writes. */
export type RefileTables = HistoryTables & DigestTables & { dayTokens: Table<StoredDayTokensRow> }

/**
 * Files `days` of a connection again from the records stored on them, in time order: digest row, summary
 * and token parts built from scratch (a day with no record loses its rows). In a transaction over the tables.
 */
export async function refileDays(
  tables: RefileTables,
  connectionId: string,
  days: readonly number[],
  tokenPartSize = TOKEN_PART_SIZE,
): Promise<void> {
  for (const day of days) {
    // Day 0 also files records without a usable time (searchDayOf).
    const from = day === 0 ? -Infinity : day * DAY_MS
    const records = await historyInRange(tables, connectionId, from, (day + 1) * DAY_MS)
    await fileDayRows(tables, connectionId, day, records, tokenPartSize)
  }
}

/**
 * Files one day of a connection from `records`, every record stored on it: digest row, summary and token
 * parts built from scratch (no record: the day loses its rows). In a transaction over the tables.
 */
export async function fileDayRows(
  tables: Omit<RefileTables, keyof HistoryTables>,
  connectionId: string,
  day: number,
  records: readonly HistoryRecord[],
  tokenPartSize = TOKEN_PART_SIZE,
): Promise<void> {
  await tables.dayTokens
    .where('[connectionId+day+part]')
    .between(...dayPartsRange(connectionId, day))
    .delete()
  if (records.length === 0) {
    await tables.dayDigests.delete([connectionId, day])
    await tables.daySummaries.delete([connectionId, day])
    return
  }
  await putDigestRows(tables, dayDigestRowsOf(records))
  await tables.dayTokens.bulkPut(dayTokenRowsOf(records, tokenPartSize))
}
