/** What the ledger scroll suite hands the fill page on the app's origin, and what it gets back. */
export interface LedgerFillArgs {
  connectionId: string
  records: number
}

export interface LedgerFillResult {
  /** The connection's history records once filled (the demo's and the filled ones). */
  cached: number
  fillMs: number
}
