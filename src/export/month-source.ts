/**
 * Where a month workbook's records come from. The plan holds only the month's digests (a record's filter
 * fields, amount and fingerprint; a charge's compact columns) and asks the source for whole records in
 * bounded batches as each sheet is written, so the whole month is never held at once. `arrayMonthSource`
 * serves records already in memory (tests, the bench's generated month); the app's source reads the cache
 * a day at a time (the Month-end store).
 */
import { chargeDigestOf, recordDigestOf } from '../domain/digests'
import { periodRange } from '../domain/periods'
import type { ChargeDigest, ChargeRecord, HistoryRecord, RecordKey } from '../domain/records'
import type { AmountDigest } from '../reconcile/month-summary'

/** A refund as the Charges sheet's net to date reads it. */
export type MonthRefund = Pick<
  HistoryRecord,
  'key' | 'chargeId' | 'storeId' | 'createdAt' | 'amount' | 'currency' | 'status'
>

/** Records handed out a batch at a time, as they are read (or from memory). */
export type Batches<T> = AsyncIterable<readonly T[]> | Iterable<readonly T[]>

export interface MonthSource {
  /** The digest of every record of the period (every store), by time then key. */
  digests: readonly AmountDigest[]
  /** The digest of every charge-list record of the period (every store), by time then id. */
  chargeDigests: readonly ChargeDigest[]
  /** Store names by id, for every store of the period's records and charges that any of them names. */
  storeNames: ReadonlyMap<string, string>
  /** The period's records (every store), by time then key, a bounded batch at a time. */
  history: () => Batches<HistoryRecord>
  /** The period's charge-list records (every store), by time then id, a bounded batch at a time. */
  charges: () => Batches<ChargeRecord>
  /** The source's records among `keys` (others left out), in any order. */
  historyByKeys: (keys: readonly RecordKey[]) => Promise<HistoryRecord[]>
  /** The source's charge-list records among `ids` (others left out), in any order. */
  chargesByIds: (ids: readonly string[]) => Promise<ChargeRecord[]>
  /** The refunds a charge's net to date counts (every store), in the order it adds them. */
  refunds: () => Promise<readonly MonthRefund[]>
  /** The keys of one store's records that an Audit sheet of that store may name. */
  storeKeys: (storeId: string) => ReadonlySet<RecordKey>
}

/** Records in memory handed out this many at a time, as the cache's source hands out a day. */
export const ARRAY_BATCH = 2000

export const byTimeThenKey = (a: { createdAt: number; key: string }, b: { createdAt: number; key: string }) =>
  a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

export const byTimeThenId = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** `list` sorted by `order`, itself when it already is (a month's digests usually are). */
export function sortedBy<T>(list: readonly T[], order: (a: T, b: T) => number): readonly T[] {
  for (let i = 1; i < list.length; i++)
    if (order(list[i - 1] as T, list[i] as T) > 0) return [...list].sort(order)
  return list
}

export const refundOf = (r: HistoryRecord): MonthRefund => ({
  key: r.key,
  chargeId: r.chargeId,
  storeId: r.storeId,
  createdAt: r.createdAt,
  amount: r.amount,
  currency: r.currency,
  status: r.status,
})

function* batchesOf<T>(list: readonly T[]): Generator<readonly T[]> {
  for (let i = 0; i < list.length; i += ARRAY_BATCH) yield list.slice(i, i + ARRAY_BATCH)
}

/**
 * Records in memory as a month's source: `history` and `charges` of any period (the period's are picked),
 * `storeNames` first, then the first record, then the first charge naming a store. Deposits, the Audit
 * sheet and net to date read records of any period given.
 */
export function arrayMonthSource(input: {
  period: string
  timeZone: string
  history: readonly HistoryRecord[]
  charges: readonly ChargeRecord[]
  storeNames?: ReadonlyMap<string, string>
}): MonthSource {
  const range = periodRange(input.period, input.timeZone)
  const inPeriod = (t: number): boolean => t >= range.from && t < range.to
  const history = input.history.filter((r) => inPeriod(r.createdAt)).sort(byTimeThenKey)
  const charges = input.charges.filter((c) => inPeriod(c.createdAt)).sort(byTimeThenId)
  const storeNames = new Map(input.storeNames ?? [])
  // store_name may be missing (real-service.md): a record without one leaves the gap to the others.
  for (const r of input.history)
    if (!storeNames.has(r.storeId) && r.raw.store_name) storeNames.set(r.storeId, r.raw.store_name)
  for (const c of input.charges)
    if (!storeNames.has(c.storeId) && c.raw.store_name) storeNames.set(c.storeId, c.raw.store_name)
  const byKey = new Map(input.history.map((r) => [r.key, r]))
  const byId = new Map(input.charges.map((c) => [c.id, c]))
  return {
    digests: history.map(recordDigestOf),
    chargeDigests: charges.map(chargeDigestOf),
    storeNames,
    history: () => batchesOf(history),
    charges: () => batchesOf(charges),
    historyByKeys: (keys) => Promise.resolve(keys.flatMap((k) => byKey.get(k) ?? [])),
    chargesByIds: (ids) => Promise.resolve(ids.flatMap((id) => byId.get(id) ?? [])),
    refunds: () => Promise.resolve(input.history.filter((r) => r.type === 'refund').map(refundOf)),
    storeKeys: (storeId) => new Set(input.history.filter((r) => r.storeId === storeId).map((r) => r.key)),
  }
}
