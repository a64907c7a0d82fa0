/** What the migration bench's page (browser/migration-entry.ts) and its Node side pass each other. */
export interface MigrationBenchArgs {
  /** History records `__items` serves, oldest first. */
  records: number
  /** One record in `markEvery` carries a mark (as the accountant left it at version 5). */
  markEvery: number
}

export interface MigrationStepTiming {
  /** The version opened to (its step converts the cache of the version before). */
  version: number
  /** Time for open() to resolve: the step's upgrade and the schema change, committed. */
  ms: number
  /**
   * From open() to the pass's first report (after it counted the table): the schema changes queued
   * before it in the upgrade transaction (dropping an index) have run by then. Null: no pass.
   */
  firstReportMs: number | null
  /** From open() to the pass's last report; the rest is writing the derived rows and the commit. */
  passEndMs: number | null
  /** Progress reports the step sent during the open. */
  reports: number
}

/** A version-5 cache opened straight at the current version, and its set-aside history moved. */
export interface SetAsideTiming {
  /** open() at the current version: the version change that sets history aside, committed. */
  openMs: number
  /** Chromium's CPU seconds (all its processes) during that open. */
  openCpuS: number
  /** Records set aside. */
  setAside: number
  /** Filing every set-aside record's day (digests, summaries, tokens, marks), and its CPU seconds. */
  fileMs: number
  fileCpuS: number
  /** The background move of every set-aside record into day parts, and its CPU seconds. */
  moveMs: number
  moveCpuS: number
  batches: number
  /** Record keys in day parts after the move, and rows left set aside (0). */
  inParts: number
  left: number
}

export interface MigrationBenchResult {
  setAside: SetAsideTiming
  cached: number
  marks: number
  /** Time filling the v5 cache (not measured: it only sets the scene). */
  fillMs: number
  steps: MigrationStepTiming[]
  /** Rows the current cache holds after the last step: derived tables the migrations filled. */
  dayDigests: number
  dayTokens: number
  markDays: number
  userAgent: string
}
