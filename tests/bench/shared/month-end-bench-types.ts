/** What Node and the page of the month-end and ledger export benchmark (browser/month-end-entry.ts) exchange. */
export interface MonthEndFillArgs {
  /** History records to fill (the year); their charges go in too. */
  records: number
  charges: number
  period: string
  timeZone: string
}

export interface MonthEndFillResult {
  cached: number
  charges: number
  marks: number
  fillMs: number
  userAgent: string
}

/** loadMonth, as the view's store calls it: each timed run, ms, of `loads` calls (a first one untimed). */
export interface MonthEndRuns {
  runs: number[]
  loads: number
}

export interface MonthEndPhases {
  /** The month's records and charges read. */
  history: number
  charges: number
  marks: number
  checklistItems: number
  /** The same steps as loadMonth takes them, timed one by one after the runs, ms. */
  phasesMs: Record<string, number>
}

export interface ExportRunResult {
  /** Records the ledger filter matched (the export's rows). */
  rows: number
  ms: number
  /** Of which waiting for the host to take the chunks (here through the bench's bridge to Node). */
  hostMs: number
  /**
   * Of which reading the records' pages (HistoryRepository.queryPage, inRange) and their marks
   * (MarksRepository.pageReader), ms; the reads overlap the writing.
   */
  readRecordsMs: number
  readMarksMs: number
  fileName: string | null
}

export type MonthEndRunResult = MonthEndRuns &
  MonthEndPhases & {
    /** CPU seconds Chromium's processes spent in the `loads` calls of loadMonth (/proc). */
    cpuS: number
  }

/**
 * Where the workbook's rows go: 'http', main's export handlers in Node through the web host's transport (the
 * page's `POST /api/call/export:*`, JSON each way); 'bridge', the same handlers through Playwright's page
 * bridge (JSON over the DevTools protocol, far slower than either host's transport); 'hostless', nowhere
 * (the page counts them: its own work alone).
 */
export type WorkbookHost = 'http' | 'bridge' | 'hostless'

/** Month-end's workbook of the month (all stores), as the view's Export button runs it. */
export interface WorkbookRunResult {
  ms: number
  /** Of which waiting for the host (main's export handlers in Node) to take the chunks. */
  hostMs: number
  /** Rows the host wrote. */
  rows: number
  fileName: string | null
}
