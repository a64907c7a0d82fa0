/**
 * Day summaries of the day digests, kept in memory per cache: for each connection × UTC day, how many
 * records share each combination of the filter fields (store, type, status, currency, mode, brand). A
 * count over whole days adds up the combinations its field tests pass instead of reading and decoding
 * every digest of the period; only the days its range cuts (and days not yet summarised) are read.
 *
 * A summary is dropped whenever the day digests (either generation slot) or the live generation are
 * written, from this window or another (table-changes.ts), and a summary built from a read that a write
 * may have overtaken is never kept: a count never answers from stale rows.
 */
import type { RecordDigest } from '../domain/records'
import type { ClosebookDb } from './database'
import { watchTables, type WatchedInput } from './table-changes'

/** The writes that drop the summaries: the digests (either slot), and a restore's switch of the live slot. */
const WATCHED: readonly WatchedInput[] = ['dayDigests', 'liveGeneration']

/** The fields a field filter tests (history-filter.ts fieldTests), and how many of a day's records share them. */
export interface FieldCombo {
  storeId: string
  type: RecordDigest['type']
  status: string
  currency: string
  mode: RecordDigest['mode']
  brand: string
  n: number
}

/** How many of `records` share each combination of the filter fields. */
export function summaryOf(records: readonly RecordDigest[]): FieldCombo[] {
  const combos = new Map<string, FieldCombo>()
  for (const d of records) {
    const id = `${d.storeId}\u0001${d.type}\u0001${d.status}\u0001${d.currency}\u0001${d.mode}\u0001${d.brand}`
    const combo = combos.get(id)
    if (combo) combo.n++
    else
      combos.set(id, {
        storeId: d.storeId,
        type: d.type,
        status: d.status,
        currency: d.currency,
        mode: d.mode,
        brand: d.brand,
        n: 1,
      })
  }
  return [...combos.values()]
}

/** The summaries of one cache (ClosebookDb), by connection and day. */
export class DaySummaries {
  readonly #days = new Map<string, Map<number, readonly FieldCombo[]>>()
  /** Raised by every write that drops the summaries: a build that began before it is not kept. */
  #version = 0
  #stop: (() => void) | null = null

  constructor(private readonly db: ClosebookDb) {}

  /** What a build hands back to `put`: the summaries' version when its read began. */
  begin(): number {
    // Listens from the first use on, so a cache nobody counts on costs nothing.
    this.#stop ??= watchTables(this.db, WATCHED, () => this.clear())
    return this.#version
  }

  get(connectionId: string, day: number): readonly FieldCombo[] | undefined {
    return this.#days.get(connectionId)?.get(day)
  }

  /** Keeps a day's summary, unless a write dropped the summaries since `version` (begin) was taken. */
  put(version: number, connectionId: string, day: number, combos: readonly FieldCombo[]): void {
    if (version !== this.#version) return
    let days = this.#days.get(connectionId)
    if (!days) this.#days.set(connectionId, (days = new Map<number, readonly FieldCombo[]>()))
    days.set(day, combos)
  }

  /** Drops every summary (a write to the digests); builds under way are not kept. */
  clear(): void {
    this.#version++
    this.#days.clear()
  }

  /** Stops listening for writes and drops the summaries. */
  close(): void {
    this.#stop?.()
    this.#stop = null
    this.clear()
  }
}

const byDb = new WeakMap<ClosebookDb, DaySummaries>()

/** The one summary cache of `db`: every repository on the same cache shares it (and its one listener). */
export function daySummariesOf(db: ClosebookDb): DaySummaries {
  let summaries = byDb.get(db)
  if (!summaries) byDb.set(db, (summaries = new DaySummaries(db)))
  return summaries
}
