/**
 * Reads a period's search token parts into the token cache (token-cache.ts) in the background, newest day
 * first, so a name typed in the period a little later counts from held parts instead of reading them.
 *
 * One warm runs per cache: asking for another period supersedes the one under way, which stops after the
 * read in hand; asking again for the period under way joins it. A warm holds at most the cache's budget
 * (it stops before a read would take what it put past it), and its parts are kept under the cache's own
 * rule: a part read before a write that dropped days is never kept, so a later search is never stale.
 */
import type { ClosebookDb } from './database'
import { searchDayOf } from './history-record'
import { tokenDays } from './history-search'
import { charsOf, dayTokensCacheOf } from './token-cache'

interface Warm {
  period: string
  superseded: boolean
  done: Promise<void>
}

const warming = new WeakMap<ClosebookDb, Warm>()

/**
 * Warms the token parts of `connectionId`'s [from, to), `rowsPerRead` parts a read (one short read at a
 * time, so the ledger's own queries are not kept waiting). Resolves when the warm ends, whether it read
 * the whole period, filled its share of the budget, was superseded, or failed (a warm only saves reads).
 */
export function warmTokenDays(
  db: ClosebookDb,
  connectionId: string,
  from: number,
  to: number,
  rowsPerRead: number,
): Promise<void> {
  const period = `${connectionId}\u0001${from}\u0001${to}`
  const under = warming.get(db)
  if (under && !under.superseded && under.period === period) return under.done
  if (under) under.superseded = true
  const warm: Warm = { period, superseded: false, done: Promise.resolve() }
  warm.done = walk(db, warm, connectionId, from, to, rowsPerRead)
    .catch(() => undefined)
    .finally(() => {
      if (warming.get(db) === warm) warming.delete(db)
    })
  warming.set(db, warm)
  return warm.done
}

/** Stops the warm under way on `db`, if any (the ledger closed, or its period is no longer shown). */
export function stopWarming(db: ClosebookDb): void {
  const under = warming.get(db)
  if (under) under.superseded = true
}

async function walk(
  db: ClosebookDb,
  warm: Warm,
  connectionId: string,
  from: number,
  to: number,
  rowsPerRead: number,
): Promise<void> {
  if (!(to > from)) return
  const cache = dayTokensCacheOf(db)
  const lo = searchDayOf(from)
  let hi = searchDayOf(to - 1)
  let put = 0
  let largestRead = 0
  while (lo <= hi && !warm.superseded && put + largestRead <= cache.budget) {
    const { days, next, read } = await tokenDays(db, cache, connectionId, lo, hi, true, rowsPerRead)
    if (read) {
      const chars = days.reduce((n, d) => n + d.parts.reduce((m, row) => m + charsOf(row), 0), 0)
      put += chars
      largestRead = Math.max(largestRead, chars)
    }
    hi = next
  }
}
