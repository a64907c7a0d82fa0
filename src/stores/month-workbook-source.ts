/**
 * The month workbook's records from the cache: the month's digests as Month-end loaded them, whole records
 * and charges read a UTC day at a time as the writer takes their rows (at most two days held by the
 * reads), and the few records a sheet names (deposits, audit entries) read by key. Nothing reads the
 * month's whole records at once.
 */
import { appCache } from '../db/cache'
import { byDay, refundRefsInRange } from '../db/month-reads'
import { periodRange } from '../domain/periods'
import type { ChargeDigest, ChargeRecord, HistoryRecord, RecordDigest, RecordKey } from '../domain/records'
import {
  byTimeThenId,
  byTimeThenKey,
  sortedBy,
  type MonthRefund,
  type MonthSource,
} from '../export/month-workbook'
import type { AmountDigest } from '../reconcile/month-summary'

/** Records read at once while looking for a name; each further read takes four times more, up to MAX_BATCH. */
const NAME_BATCH = 16
const MAX_BATCH = 4096

/** `keys` in growing batches (16, 64, … at most MAX_BATCH), until `done()`: a few reads when found early. */
async function inGrowingBatches<K>(
  keys: readonly K[],
  read: (batch: readonly K[]) => Promise<void>,
  done: () => boolean,
): Promise<void> {
  for (let i = 0, n = NAME_BATCH; i < keys.length && !done(); i += n, n = Math.min(n * 4, MAX_BATCH))
    await read(keys.slice(i, i + n))
}

/** The merchant's name as the month's oldest record naming it gives it; null when none does. */
export async function monthMerchantName(
  connectionId: string,
  digests: readonly RecordDigest[],
): Promise<string | null> {
  let name: string | null = null
  await inGrowingBatches(
    digests.map((d) => d.key),
    async (keys) => {
      for (const r of await appCache().history.getMany(connectionId, keys))
        if (name === null && r?.raw.merchant_name) name = r.raw.merchant_name
    },
    () => name !== null,
  )
  return name
}

/**
 * Store names for the workbook: Month-end's (the newest record of the month naming each store), then, for
 * a store no record of the month names, the oldest charge of the month naming it, read in growing batches.
 */
export async function workbookStoreNames(
  connectionId: string,
  digests: readonly RecordDigest[],
  chargeDigests: readonly ChargeDigest[],
  named: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const names = new Map(named)
  const unnamed = new Set([...digests, ...chargeDigests].map((d) => d.storeId).filter((s) => !names.has(s)))
  for (const storeId of unnamed) {
    const charges = chargeDigests.filter((c) => c.storeId === storeId)
    await inGrowingBatches(
      charges,
      async (batch) => {
        const read = await appCache().charges.getMany(
          connectionId,
          batch.map((c) => c.id),
          batch.map((c) => c.createdAt),
        )
        for (const c of read)
          if (c?.raw.store_name && !names.has(storeId)) names.set(storeId, c.raw.store_name)
      },
      () => names.has(storeId),
    )
  }
  return names
}

/** The month's refunds with their charges, in the digests' order: the refund index's keys, no part read. */
async function monthRefunds(
  connectionId: string,
  range: { from: number; to: number },
  digests: readonly AmountDigest[],
): Promise<MonthRefund[]> {
  const chargeOf = new Map<string, string>()
  for (const ref of await refundRefsInRange(appCache().db, connectionId, range.from, range.to))
    chargeOf.set(`refund:${ref.resourceId}`, ref.chargeId)
  const refunds = digests.filter((d) => d.type === 'refund')
  // A refund the index does not give (none expected) is read whole for its charge.
  const unknown = refunds.filter((d) => !chargeOf.has(d.key)).map((d) => d.key)
  for (const r of await appCache().history.getMany(connectionId, unknown))
    if (r) chargeOf.set(r.key, r.chargeId)
  return refunds.flatMap((d) => {
    const chargeId = chargeOf.get(d.key)
    return chargeId === undefined
      ? []
      : [
          {
            key: d.key,
            chargeId,
            storeId: d.storeId,
            createdAt: d.createdAt,
            amount: d.amount,
            currency: d.currency,
            status: d.status,
          },
        ]
  })
}

const defined = <T>(list: readonly (T | undefined)[]): T[] => list.filter((x): x is T => x !== undefined)

/**
 * A month's records from the cache, for the workbook of `digests` and `chargeDigests` (every store, by time
 * then key and by time then id: as Month-end's load gives them, sorted here when they are not).
 */
export async function cacheMonthSource(month: {
  connectionId: string
  period: string
  timeZone: string
  digests: readonly AmountDigest[]
  chargeDigests: readonly ChargeDigest[]
  storeNames: ReadonlyMap<string, string>
}): Promise<MonthSource> {
  const cache = appCache()
  const id = month.connectionId
  const range = periodRange(month.period, month.timeZone)
  const digests = sortedBy(month.digests, byTimeThenKey)
  const chargeDigests = sortedBy(month.chargeDigests, byTimeThenId)
  const storeNames = await workbookStoreNames(id, digests, chargeDigests, month.storeNames)
  const monthKeys = new Set<RecordKey>(digests.map((d) => d.key))
  const chargeTimes = new Map(chargeDigests.map((c) => [c.id, c.createdAt]))
  return {
    digests,
    chargeDigests,
    storeNames,
    history: () => byDay<HistoryRecord>(range.from, range.to, (a, b) => cache.history.inRange(id, a, b)),
    charges: () => byDay<ChargeRecord>(range.from, range.to, (a, b) => cache.charges.inRange(id, a, b)),
    historyByKeys: async (keys) =>
      defined(
        await cache.history.getMany(
          id,
          keys.filter((k) => monthKeys.has(k)),
        ),
      ),
    chargesByIds: async (ids) => {
      const ofMonth = ids.filter((c) => chargeTimes.has(c))
      return defined(
        await cache.charges.getMany(
          id,
          ofMonth,
          ofMonth.map((c) => chargeTimes.get(c)),
        ),
      )
    },
    refunds: () => monthRefunds(id, range, digests),
    storeKeys: (storeId) => new Set(digests.filter((d) => d.storeId === storeId).map((d) => d.key)),
  }
}
