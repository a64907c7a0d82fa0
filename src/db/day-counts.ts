/**
 * How many records a filter matches on each day, from one walk of its day digests (the ledger's count):
 * with it, a page deep in a result starts at the day that holds its first row instead of walking every
 * day before it. A page of row 500,000 in a million-row result reads a day or two of digests, not half
 * of them.
 */
export interface DayCounts {
  /** Days holding a match, ascending, each with its number of matches. */
  readonly days: readonly { day: number; n: number }[]
  readonly total: number
}

/**
 * The day where the row at `offset` (in `order`) lies, and how many matches the days before it (in that
 * order) hold. Past the end: the last day, with every match skipped but that day's.
 */
export function dayOfOffset(
  counts: DayCounts,
  offset: number,
  order: 'asc' | 'desc',
): { day: number; skipped: number } | null {
  const { days } = counts
  if (days.length === 0) return null
  let skipped = 0
  for (let k = 0; k < days.length; k++) {
    const at = days[order === 'asc' ? k : days.length - 1 - k]!
    if (skipped + at.n > offset || k === days.length - 1) return { day: at.day, skipped }
    skipped += at.n
  }
  return null
}
