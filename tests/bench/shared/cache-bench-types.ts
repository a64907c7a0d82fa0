/**
 * What the cache bench's page (browser/cache-entry.ts, web project) and its Node side (cache-bench.ts)
 * pass each other through page.evaluate: shared/ is in both TypeScript projects, so one definition serves.
 */
export interface CacheBenchArgs {
  /** History records `__items` serves, oldest first. */
  records: number
  /** How many of them are written in pages of 100 and timed for the ingest rate. */
  ingestRecords: number
  storeId: string
  /** A cardholder name that occurs in `month`. */
  searchTerm: string
  /** `YYYY-MM` used by the month-scoped ledger measurements. */
  month: string
  timeZone: string
  repeats: number
}

export interface Timing {
  /** Median of the repeats, ms. */
  ms: number
  runs: number[]
  rows: number
  total: number
  /** The background count after the rows were shown, ms (last run). */
  countMs: number
}

export interface CacheBenchResult {
  cached: number
  ingestMs: number
  ingested: number
  /** Time writing the rest in larger pages (cache-entry's CHUNK). */
  fillMs: number
  /** Time spent waiting for items from Node (not part of the ingest rate). */
  feedMs: number
  firstRows: Timing
  filterRefunds: Timing
  filterStore: Timing
  searchMonth: Timing
  searchAll: Timing
  /** Each filter's count timed alone, after the reads (Node samples CPU per stage around it). */
  counts: { what: string; total: number; ms: number }[]
  mark: {
    ms: number
    records: number
    readMs: number
    planMs: number
    applyMs: number
    puts: number
    /** Day rows of marks the bulk mark wrote. */
    dayRows: number
    /** The same marks put one row each into an object store with no index, raw IndexedDB, one transaction. */
    floorMs: number
  }
  userAgent: string
}
