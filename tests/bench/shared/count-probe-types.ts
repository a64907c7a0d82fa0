/** What the count probe's page (browser/count-entry.ts) and its Node side (count-probe.ts) pass each other. */
export interface CountProbeArgs {
  /** History records `__items` serves, oldest first. */
  records: number
  storeId: string
  /** A cardholder name that occurs in `month`. */
  searchTerm: string
  /** `YYYY-MM`: the month the counts are of. */
  month: string
  timeZone: string
  /** Cold-then-warm rounds of every count. */
  rounds: number
}

export interface CountProbeResult {
  cached: number
  counts: { name: string; total: number; ms: number }[]
}
