/**
 * Day summaries of the day digests: for each connection × UTC day, how many records share each
 * combination of the filter fields (store, type, status, currency, mode, brand). They are stored beside
 * the digests (`daySummaries`, written with them: day-digests.ts) and kept in memory per cache once read.
 * A count over whole days adds up the combinations its field tests pass instead of reading and decoding
 * every digest of the period; only the days its range cuts (and days of a cache written before the
 * stored summaries, which have none) are read from their digests.
 *
 * A day's summary is dropped when its digest row is written (either generation slot), and all of them
 * when the live generation moves, from this window or another (table-changes.ts); a summary built from
 * a read that a write may have overtaken is never kept: a count never answers from stale rows.
 */
import type { RecordDigest } from '../domain/records'
import type { ClosebookDb } from './database'
import type { RangeSet } from 'dexie'
import type {
  DaySummaryRecord,
  FieldCombo,
  PackedDaySummaryRecord,
  StoredDaySummaryRow,
} from './storage-rows'
import { watchTableKeys, watchTables } from './table-changes'

export type { FieldCombo } from './storage-rows'

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

const VALUE_JOIN = '\u0001'
const COMBO_JOIN = '\u0002'
const comboValues = (c: FieldCombo): string[] => [c.storeId, c.type, c.status, c.currency, c.mode, c.brand]

/** The stored row of a day's summary: packed, or plain when one of its values holds a joiner. */
export function packedSummaryRowOf(row: DaySummaryRecord): StoredDaySummaryRow {
  const { connectionId, day, combos } = row
  const values = combos.map(comboValues)
  if (
    combos.length === 0 ||
    values.some((v) => v.some((x) => x.includes(VALUE_JOIN) || x.includes(COMBO_JOIN)))
  )
    return row
  return {
    connectionId,
    day,
    comboText: values.map((v) => v.join(VALUE_JOIN)).join(COMBO_JOIN),
    counts: combos.map((c) => c.n),
  }
}

const isPacked = (row: StoredDaySummaryRow): row is PackedDaySummaryRecord => 'comboText' in row

/** A stored summary's combinations, whichever shape it was stored in. */
export function combosOfRow(row: StoredDaySummaryRow): FieldCombo[] {
  if (!isPacked(row)) return row.combos
  const combos = row.comboText.split(COMBO_JOIN).map((text, i): FieldCombo => {
    const [storeId = '', type, status = '', currency = '', mode, brand = ''] = text.split(VALUE_JOIN)
    return {
      storeId,
      type: type as FieldCombo['type'],
      status,
      currency,
      mode: mode as FieldCombo['mode'],
      brand,
      n: row.counts[i] ?? 0,
    }
  })
  if (combos.length !== row.counts.length)
    throw new Error(
      `day summary ${row.connectionId} ${row.day} does not unpack to ${row.counts.length} combinations`,
    )
  return combos
}

/** The summaries of one cache (ClosebookDb), by connection and day. */
export class DaySummaries {
  readonly #days = new Map<string, Map<number, readonly FieldCombo[]>>()
  /** Raised by every write that drops the summaries: a build that began before it is not kept. */
  #version = 0
  #stops: (() => void)[] = []

  constructor(private readonly db: ClosebookDb) {}

  /** What a build hands back to `put`: the summaries' version when its read began. */
  begin(): number {
    // Listens from the first use on, so a cache nobody counts on costs nothing.
    if (this.#stops.length === 0)
      this.#stops = [
        watchTableKeys(this.db, 'dayDigests', (written) => this.drop(written)),
        // A restore's switch: every day row may differ in the slot that becomes live.
        watchTables(this.db, ['liveGeneration'], () => this.clear()),
      ]
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

  /** Drops the summaries of the day rows written (keys `[connectionId, day]`); builds under way are not kept. */
  drop(written: readonly RangeSet[] | 'all'): void {
    if (written === 'all') return this.clear()
    this.#version++
    for (const [connectionId, days] of this.#days)
      for (const day of days.keys())
        if (written.some((range) => range.hasKey([connectionId, day]))) days.delete(day)
  }

  /** Drops every summary; builds under way are not kept. */
  clear(): void {
    this.#version++
    this.#days.clear()
  }

  /** Stops listening for writes and drops the summaries. */
  close(): void {
    for (const stop of this.#stops) stop()
    this.#stops = []
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
