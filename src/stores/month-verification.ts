/**
 * "Verify month" as the cache keeps it: per connection and month, when it was last verified, what changed
 * then, and a digest of the month (src/db/recency.ts) to tell whether anything changed since.
 */
import { z } from 'zod'
import { appCache } from '../db/cache'
import { monthDigest, monthVerificationKey, type MonthVerification } from '../db/recency'
import type { HistoryRecord, RecordKey } from '../domain/records'
import { periodRange } from '../domain/periods'

export type { MonthVerification } from '../db/recency'

const verificationSchema: z.ZodType<MonthVerification | null> = z
  .object({
    at: z.number(),
    changedKeys: z.array(z.string()),
    changedCount: z.number().int().nonnegative(),
    digest: z.string(),
  })
  .nullable()

/** Changed keys listed by name in the result; the count says how many in all. */
export const LISTED = 10

/** The month's instants in the connection's accounting time zone (UTC when the connection is gone). */
export async function monthWindow(
  connectionId: string,
  period: string,
): Promise<{ from: number; to: number; timeZone: string }> {
  const cached = await appCache().connections.get(connectionId)
  const timeZone = cached?.timeZone ?? 'UTC'
  return { ...periodRange(period, timeZone), timeZone }
}

export interface VerificationState {
  last: MonthVerification | null
  /** Whether the month's records differ from when it was verified; null when never verified. */
  changedSince: boolean | null
  /** The first LISTED records the verification changed (charge-list entries are not records). */
  changedRecords: HistoryRecord[]
  /** The accounting time zone, once read (only when the month was verified). */
  timeZone: string | null
}

export async function readMonthVerification(
  connectionId: string,
  period: string,
): Promise<VerificationState> {
  const cache = appCache()
  const last = await cache.settings.get(monthVerificationKey(connectionId, period), verificationSchema, null)
  if (!last) return { last, changedSince: null, changedRecords: [], timeZone: null }
  const { from, to, timeZone } = await monthWindow(connectionId, period)
  const changedSince = (await monthDigest(cache.db, connectionId, from, to)).digest !== last.digest
  const keys = last.changedKeys.filter((k) => !k.startsWith('charge-list:')).slice(0, LISTED) as RecordKey[]
  const found = await cache.history.getMany(connectionId, keys)
  return {
    last,
    changedSince,
    changedRecords: found.filter((r): r is HistoryRecord => r !== undefined),
    timeZone,
  }
}

/** Remembers a finished verification of the month `window` covers, with the month's digest as it is now. */
export async function recordMonthVerification(
  connectionId: string,
  period: string,
  window: { from: number; to: number },
  changed: readonly string[],
): Promise<void> {
  const cache = appCache()
  const changedKeys = [...new Set(changed)]
  const verification: MonthVerification = {
    at: Date.now(),
    changedKeys: changedKeys.slice(0, 200),
    changedCount: changedKeys.length,
    digest: (await monthDigest(cache.db, connectionId, window.from, window.to)).digest,
  }
  await cache.settings.set(monthVerificationKey(connectionId, period), verification)
}
