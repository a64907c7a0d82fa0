/**
 * The search token parts of the days a search read, kept in memory per cache (ClosebookDb) up to a budget,
 * the least recently used days dropped first: the next search of the same period (a name typed on, the
 * count after the first page) reads only the days it has not read, where reading the parts is nearly all
 * of a count's work.
 *
 * A day is dropped when a write touches one of its parts or its key range (a part added), in either
 * generation slot, and every day when the live generation moves, from this window or another
 * (table-changes.ts); parts read before a write that dropped days are never kept: a search never answers
 * from stale parts.
 */
import { RangeSet, rangesOverlap } from 'dexie'
import type { ClosebookDb } from './database'
import type { StoredDayTokensRow } from './storage-rows'
import { watchTableKeys, watchTables } from './table-changes'

/** Characters held at most (about two months of 170k records in the marked layout). */
export const TOKEN_CACHE_CHARS = 32 * 1024 * 1024

interface HeldDay {
  connectionId: string
  day: number
  parts: readonly StoredDayTokensRow[]
  chars: number
}

/** About how many characters a part holds in memory (its strings, and 4 for each number or array entry). */
export function charsOf(row: StoredDayTokensRow): number {
  let n = 64
  for (const value of Object.values(row) as unknown[]) {
    if (typeof value === 'string') n += value.length
    else if (Array.isArray(value))
      for (const v of value as unknown[]) n += typeof v === 'string' ? v.length + 4 : 4
  }
  return n
}

const idOf = (connectionId: string, day: number): string => `${connectionId}\u0001${day}`

export class DayTokensCache {
  /** In use order: the first is the least recently used. */
  readonly #days = new Map<string, HeldDay>()
  #chars = 0
  /** Raised by every write that drops days: a read that began before it is not kept. */
  #version = 0
  #stops: (() => void)[] = []

  constructor(
    private readonly db: ClosebookDb,
    /** Characters held at most. */
    readonly budget = TOKEN_CACHE_CHARS,
  ) {}

  /** What a read hands back to `put`: the version when it began. */
  begin(): number {
    // Listens from the first use on, so a cache nobody searches costs nothing.
    if (this.#stops.length === 0)
      this.#stops = [
        watchTableKeys(this.db, 'dayTokens', (written) => this.drop(written)),
        // A restore's switch: every part may differ in the slot that becomes live.
        watchTables(this.db, ['liveGeneration'], () => this.clear()),
      ]
    return this.#version
  }

  /** The held day of [lo, hi] of the connection nearest its start (its end when `fromEnd`), if any. */
  nearest(connectionId: string, lo: number, hi: number, fromEnd: boolean): number | undefined {
    let found: number | undefined
    for (const { connectionId: c, day } of this.#days.values())
      if (c === connectionId && day >= lo && day <= hi)
        if (found === undefined || (fromEnd ? day > found : day < found)) found = day
    return found
  }

  /** A day's parts, when held (it becomes the most recently used). */
  get(connectionId: string, day: number): readonly StoredDayTokensRow[] | undefined {
    const id = idOf(connectionId, day)
    const held = this.#days.get(id)
    if (!held) return undefined
    this.#days.delete(id)
    this.#days.set(id, held)
    return held.parts
  }

  /** Keeps a day's parts (all of them), unless a write dropped days since `version` (begin) was taken. */
  put(version: number, connectionId: string, day: number, parts: readonly StoredDayTokensRow[]): void {
    if (version !== this.#version) return
    const id = idOf(connectionId, day)
    this.#remove(id)
    const chars = parts.reduce((n, row) => n + charsOf(row), 0)
    if (chars > this.budget) return
    this.#days.set(id, { connectionId, day, parts, chars })
    this.#chars += chars
    for (const [oldest] of this.#days) {
      if (this.#chars <= this.budget) break
      this.#remove(oldest)
    }
  }

  /** Drops the days whose parts' keys (`[connectionId, day, part]`) were written; reads under way are not kept. */
  drop(written: readonly RangeSet[] | 'all'): void {
    if (written === 'all') return this.clear()
    this.#version++
    for (const [id, { connectionId, day }] of this.#days) {
      // Every key of the day: [c, d] sorts before its parts and [c, d + 1] after them.
      const span = new RangeSet([connectionId, day], [connectionId, day + 1])
      if (written.some((range) => rangesOverlap(range, span))) this.#remove(id)
    }
  }

  /** Drops every day; reads under way are not kept. */
  clear(): void {
    this.#version++
    this.#days.clear()
    this.#chars = 0
  }

  /** Stops listening for writes and drops every day. */
  close(): void {
    for (const stop of this.#stops) stop()
    this.#stops = []
    this.clear()
  }

  /** Characters held (charsOf), for tests and benches. */
  get chars(): number {
    return this.#chars
  }

  #remove(id: string): void {
    const held = this.#days.get(id)
    if (!held) return
    this.#days.delete(id)
    this.#chars -= held.chars
  }
}

const byDb = new WeakMap<ClosebookDb, DayTokensCache>()

/** The one token cache of `db`: every repository on the same cache shares it (and its one listener). */
export function dayTokensCacheOf(db: ClosebookDb): DayTokensCache {
  let cache = byDb.get(db)
  if (!cache) byDb.set(db, (cache = new DayTokensCache(db)))
  return cache
}
