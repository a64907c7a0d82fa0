/**
 * A restore's history, written straight into the next generation's day parts (history-parts.ts): the
 * layout a sync leaves, built from scratch in large bulk adds, with no row per record and no read-merge.
 *
 * - A file in time order (what backup-write.ts writes) completes one day after another: each day's
 *   records go into parts from 0, HISTORY_PART_SIZE each, in the order the day's time index reads them.
 * - A file in any other order: what the day filer held and every later record go into parts numbered
 *   from LOOSE_PART (no read to find a day's last part); after the read, each day is packed again from
 *   0 (packRestoredDay), so both orders end in the same parts.
 * - A key given twice is refused: within what one transaction writes, in memory; against what earlier
 *   transactions wrote, through the parts' `keys` index, asked only for the keys a fixed-size sieve
 *   (key-sieve.ts) says may have been written. Memory never holds a set of every key.
 */
import Dexie from 'dexie'
import { periodOf } from '../domain/periods'
import type { HistoryRecord, RecordKey } from '../domain/records'
import { BackupError } from './backup-format'
import type { GenerationTables } from './database'
import { recordsOf } from './history-part-reads'
import { dayPartRowsOf, HISTORY_PART_SIZE, historyPartRowsOf, type PartKey } from './history-parts'
import { byTimeThenKey, searchDayBounds, searchDayOf } from './history-record'
import { KeySieve } from './key-sieve'
import { readInChunks } from './repository-helpers'
import { writeUntracked } from './untracked-writes'

type PartsTable = GenerationTables['historyParts']

/** Part numbers of records filed out of time order: above any part a packed day uses. */
export const LOOSE_PART = 2 ** 30

/** A record's line in the backup file (for the errors that name it). */
export type LineOf = (record: HistoryRecord) => number

/** A record a mark, audit entry or closing names. */
export interface RecordRef {
  connectionId: string
  key: RecordKey
}

const idOf = (r: RecordRef): string => `${r.connectionId}\u0001${r.key}`

/** The keys of `refs` that some part of `parts` holds, as a yes or no per ref (one index read each). */
async function heldIn(parts: PartsTable, refs: readonly RecordRef[]): Promise<(PartKey | undefined)[]> {
  const found = await readInChunks(refs, (chunk) =>
    Promise.all(chunk.map((r) => parts.where('keys').equals([r.connectionId, r.key]).limit(1).primaryKeys())),
  )
  return found.map((k) => k[0])
}

/** One restore's history writes: remembers (in a fixed-size sieve) which keys it wrote. */
export class RestoredHistory {
  readonly #seen = new KeySieve()
  #loose = 0

  /** `partSize`: records per part (HISTORY_PART_SIZE); tests make it small. */
  constructor(readonly partSize: number = HISTORY_PART_SIZE) {}

  /**
   * Files whole days (each complete, none filed before, records in their time index's order) in parts
   * built from scratch. Refuses a key given twice. In a transaction over the parts.
   */
  async fileDays(parts: PartsTable, days: readonly HistoryRecord[][], lineOf: LineOf): Promise<void> {
    await this.#refuseDuplicates(parts, days.flat(), lineOf)
    // Each day's records are one connection's, created on one UTC day, each key once (refused above).
    const rows = days.flatMap((records) => {
      const first = records[0]
      if (!first) return []
      return dayPartRowsOf(first.connectionId, searchDayOf(first.createdAt), records, this.partSize)
    })
    // The next generation's slot, which nothing reads until the switch: untracked-writes.ts.
    await writeUntracked(parts, rows, 'add')
  }

  /**
   * Files records read out of time order in parts of their own, packed with their days after the read
   * (packRestoredDay). Refuses a key given twice. In a transaction over the parts.
   */
  async fileLoose(parts: PartsTable, records: readonly HistoryRecord[], lineOf: LineOf): Promise<void> {
    await this.#refuseDuplicates(parts, records, lineOf)
    const rows = historyPartRowsOf(records, this.partSize).map((p) => ({
      ...p,
      part: LOOSE_PART + this.#loose++,
    }))
    await parts.bulkAdd(rows)
  }

  /**
   * Throws `duplicate_key` naming the earliest line that repeats a key: of the records given, or of a
   * record an earlier call wrote (then checked in `parts`, where the sieve says it may be).
   */
  async #refuseDuplicates(
    parts: PartsTable,
    records: readonly HistoryRecord[],
    lineOf: LineOf,
  ): Promise<void> {
    const ids = new Set<string>()
    let twice = false
    const suspects: HistoryRecord[] = []
    for (const r of records) {
      const id = idOf(r)
      if (ids.has(id)) twice = true
      ids.add(id)
      if (this.#seen.has(id)) suspects.push(r)
    }
    // Lines are compared only where a key does repeat: the records' order is not the file's.
    let repeated = twice ? firstRepeated(records, lineOf) : undefined
    if (suspects.length > 0) {
      const held = await heldIn(parts, suspects)
      for (const [i, r] of suspects.entries())
        if (held[i] !== undefined && (!repeated || lineOf(r) < lineOf(repeated))) repeated = r
    }
    if (repeated)
      throw new BackupError('duplicate_key', { table: 'history', line: lineOf(repeated), key: repeated.key })
    for (const id of ids) this.#seen.add(id)
  }
}

/** The record of the earliest line whose key an earlier line of `records` already gave. */
function firstRepeated(records: readonly HistoryRecord[], lineOf: LineOf): HistoryRecord | undefined {
  const ids = new Set<string>()
  for (const r of [...records].sort((a, b) => lineOf(a) - lineOf(b))) {
    const id = idOf(r)
    if (ids.has(id)) return r
    ids.add(id)
  }
  return undefined
}

/**
 * Packs one day of a connection's restored parts again from part 0, records in their time index's order
 * (the parts a file in time order gets), and returns its records for its day rows. In a transaction over
 * the parts.
 */
export async function packRestoredDay(
  parts: PartsTable,
  connectionId: string,
  day: number,
  partSize: number,
): Promise<HistoryRecord[]> {
  const range = () =>
    parts.where('[connectionId+day+part]').between([connectionId, day], [connectionId, day + 1])
  const records = (await range().toArray()).flatMap(recordsOf).sort(byTimeThenKey)
  await range().delete()
  await parts.bulkAdd(historyPartRowsOf(records, partSize))
  return records
}

/** The UTC days holding a connection's restored parts, oldest first (one key read per day). */
export async function* restoredDays(
  parts: PartsTable,
  connectionId: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<number> {
  for (let from = -Infinity; ;) {
    signal?.throwIfAborted()
    const [next] = await parts
      .where('[connectionId+day+part]')
      .between([connectionId, from], [connectionId, Dexie.maxKey])
      .limit(1)
      .primaryKeys()
    if (!next) return
    yield next[1]
    from = next[1] + 1
  }
}

/** Whether every ref names a restored record: the index of the first that does not, or -1. */
export async function firstMissing(parts: PartsTable, refs: readonly RecordRef[]): Promise<number> {
  if (refs.length === 0) return -1
  return (await heldIn(parts, refs)).findIndex((k) => k === undefined)
}

/**
 * The one period every record created on UTC `day` has in some zone (UTC−12 to UTC+14), or null when
 * records of that day can have two (a day within a zone's reach of a month's start).
 */
export function periodOfDay(day: number): string | null {
  const [from, to] = searchDayBounds(day)
  const first = periodOf(from, 'Etc/GMT+12')
  return periodOf(to - 1, 'Etc/GMT-14') === first ? first : null
}

/** What a restore knows of a restored record a mark or an audit entry names. */
export interface StagedRecord {
  /** The UTC day of its creation (its part's day; the day of its mark row). */
  day: number
  /** Its creation time, where `needsTime` asked for it. */
  createdAt?: number
}

/**
 * The restored records of `refs` (undefined where the file has none): each one's day from the parts'
 * `keys` index, and where `needsTime(ref, day)` its creation time, from its day's digest row (filed with
 * the day) or, for a day not filed yet, from its part. In a transaction over the parts and digests.
 */
export async function stagedRecords<R extends RecordRef>(
  next: Pick<GenerationTables, 'historyParts' | 'dayDigests'>,
  refs: readonly R[],
  needsTime: (ref: R, day: number) => boolean,
): Promise<(StagedRecord | undefined)[]> {
  if (refs.length === 0) return []
  const holders = await heldIn(next.historyParts, refs)
  const out = holders.map((k): StagedRecord | undefined => (k ? { day: k[1] } : undefined))
  // The refs whose time is wanted, by record (several refs can name one record), and their days.
  const timed = new Map<string, StagedRecord[]>()
  const days = new Map<string, [string, number]>()
  refs.forEach((ref, i) => {
    const at = out[i]
    if (!at || !needsTime(ref, at.day)) return
    const id = idOf(ref)
    const same = timed.get(id)
    if (same) same.push(at)
    else timed.set(id, [at])
    days.set(`${ref.connectionId}\u0001${at.day}`, [ref.connectionId, at.day])
  })
  if (timed.size === 0) return out
  /** Notes the times of the wanted records among a digest row's or a part's. */
  const note = (held: {
    connectionId: string
    records: readonly { key: RecordKey; createdAt: number }[]
  }) => {
    for (const r of held.records)
      for (const at of timed.get(`${held.connectionId}\u0001${r.key}`) ?? []) at.createdAt = r.createdAt
  }
  const digests = await readInChunks([...days.values()], (keys) => next.dayDigests.bulkGet(keys))
  for (const row of digests) if (row) note(row)
  // Only the parts holding a wanted record its day's digests did not list (a day not filed yet).
  const partKeys = new Map<string, PartKey>()
  refs.forEach((ref, i) => {
    const k = holders[i]
    const wanted = timed.get(idOf(ref))
    if (k && wanted?.some((at) => at.createdAt === undefined))
      partKeys.set(`${k[0]}\u0001${k[1]}\u0001${k[2]}`, k)
  })
  if (partKeys.size === 0) return out
  const parts = await readInChunks([...partKeys.values()], (keys) => next.historyParts.bulkGet(keys))
  for (const part of parts) if (part) note({ connectionId: part.connectionId, records: part.rows })
  return out
}
