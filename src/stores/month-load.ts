/**
 * What Month-end shows of one connection's month, read from the cache: the summary, totals, cross-check
 * and checklist come from the month's day digests (a row per UTC day, each record's filter fields,
 * amount and fingerprint) and the charge list's day rows (each charge's compact columns), not from
 * whole records or charges; those are read when a view or an export asks for them (the workbook, the
 * journal) or, for a closed month, for the few records that changed.
 */
import { appCache } from '../db/cache'
import { recordDigestOf } from '../db/day-digests'
import type {
  CachedConnection,
  ChargeDigest,
  ChargeRecord,
  HistoryRecord,
  MarkRecord,
  PeriodLock,
  RecordDigest,
  RecordKey,
} from '../domain/records'
import { periodRange } from '../domain/periods'
import {
  canStillChange,
  changesSinceClose,
  closeChecklist,
  closeFactsProvider,
  countExceptedWithNote,
  shortHash,
  type Availability,
  type ChangesSinceClose,
  type Checklist,
  type QuarantinedItem,
} from '../reconcile/close-checklist'
import { crossCheck, type CrossCheckedRecord, type Difference } from '../reconcile/cross-check'
import {
  summarizeDigests,
  totalsByCurrency,
  type AmountDigest,
  type CurrencyTotal,
  type MonthSummary,
} from '../reconcile/month-summary'
import { loadMonthPayouts, type MonthPayouts } from './month-payouts'

export interface MonthData {
  connection: CachedConnection
  period: string
  /** The digest of every record of the month (accounting zone), oldest first. */
  digests: readonly AmountDigest[]
  /** The month's whole records, oldest first: read on the first call, the same array after. */
  history: () => Promise<HistoryRecord[]>
  /** What the summary and cross-check read of the month's charge-list records, oldest first. */
  chargeDigests: readonly ChargeDigest[]
  /** The month's whole charge-list records, oldest first: read on the first call, the same array after. */
  charges: () => Promise<ChargeRecord[]>
  marks: Map<RecordKey, MarkRecord>
  summary: MonthSummary
  differences: Difference<CrossCheckedRecord, ChargeDigest>[]
  storeNames: Map<string, string>
  locked: boolean
  /** The month's close, when it is closed. */
  lock: PeriodLock | null
  /** Per currency × mode over every store (live first). */
  totals: CurrencyTotal[]
  checklist: Checklist
  /** Quarantined items of the month, when the provider knows them. */
  quarantined: readonly QuarantinedItem[]
  /** Closed month with a snapshot: records added, changed or gone since the close. */
  changes: ChangesSinceClose | null
  /** The records of `changes.added` and `changes.changed` still cached, by key. */
  changedRecords: ReadonlyMap<RecordKey, HistoryRecord>
  /** The month's payouts; null: never synced for this connection. */
  payouts: Availability<MonthPayouts> | null
}

/** Each record of the month with the short hash of its fingerprint: what a close remembers. */
export function snapshotOf(digests: readonly RecordDigest[]): Map<RecordKey, string> {
  return new Map(digests.map((d) => [d.key, shortHash(d.fingerprint)]))
}

const hasAmount = (d: RecordDigest): d is AmountDigest => typeof d.amount === 'number'

/**
 * The month's digests, and its records when they had to be read: digests written before they carried
 * the amount (an older release, a migration) cannot be summed, so that month is read from its records.
 */
async function monthDigests(
  connectionId: string,
  from: number,
  to: number,
): Promise<{ digests: AmountDigest[]; history: HistoryRecord[] | null }> {
  const { history } = appCache()
  const digests = await history.digestsInRange(connectionId, from, to)
  if (digests.every(hasAmount)) return { digests, history: null }
  const records = await history.inRange(connectionId, from, to)
  return { digests: records.map((r) => ({ ...recordDigestOf(r), amount: r.amount })), history: records }
}

/** Reads `read()` once, on the first call. */
function once<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () => {
    pending ??= read().catch((e: unknown) => {
      pending = undefined
      throw e
    })
    return pending
  }
}

/** Records of one store read at once while looking for its name; each further read takes four times more. */
const NAME_BATCH = 16

/**
 * Each store's name as the month's newest record of that store that names it gives it. The newest record
 * of each store is read first; a store whose newest record has no name has its others read newest first,
 * in growing batches, until one names it: a few records, not the store's whole month.
 */
export async function monthStoreNames(
  connectionId: string,
  digests: readonly RecordDigest[],
): Promise<Map<string, string>> {
  const keysByStore = new Map<string, RecordKey[]>()
  for (let i = digests.length - 1; i >= 0; i--) {
    const d = digests[i] as RecordDigest
    const keys = keysByStore.get(d.storeId)
    if (keys) keys.push(d.key)
    else keysByStore.set(d.storeId, [d.key])
  }
  const names = new Map<string, string>()
  const nameFrom = async (keys: readonly RecordKey[]): Promise<void> => {
    for (const r of await appCache().history.getMany(connectionId, keys))
      if (r?.raw.store_name && !names.has(r.storeId)) names.set(r.storeId, r.raw.store_name)
  }
  await nameFrom([...keysByStore.values()].map((keys) => keys[0] as RecordKey))
  const unnamed = [...keysByStore].filter(([storeId]) => !names.has(storeId))
  // Newest first within a store and a batch: the first name found is the newest.
  for (const [storeId, keys] of unnamed)
    for (let i = 1, n = NAME_BATCH; i < keys.length && !names.has(storeId); i += n, n *= 4)
      await nameFrom(keys.slice(i, i + n))
  return names
}

/** History charges as the cross-check reads them (a digest's key is `charge:<resource id>`). */
export function crossCheckedCharges(digests: readonly AmountDigest[]): CrossCheckedRecord[] {
  const prefix = 'charge:'
  return digests
    .filter((d) => d.type === 'charge')
    .map((d) => ({
      type: d.type,
      resourceId: d.key.slice(prefix.length),
      amount: d.amount,
      currency: d.currency,
      status: d.status,
    }))
}

/** The checklist's facts beyond the month's figures: sync state, verification, quarantine, payouts. */
async function checklistOf(
  connection: CachedConnection,
  period: string,
  month: {
    digests: readonly AmountDigest[]
    marks: ReadonlyMap<RecordKey, MarkRecord>
    summary: MonthSummary
    totals: CurrencyTotal[]
    differences: number
  },
): Promise<{
  checklist: Checklist
  quarantined: readonly QuarantinedItem[]
  payouts: Availability<MonthPayouts> | null
}> {
  const cache = appCache()
  const { id } = connection
  const range = periodRange(period, connection.timeZone)
  const facts = closeFactsProvider()
  const [lastVerified, quarantined, checkpoints, fresh, payouts] = await Promise.all([
    facts.lastVerified(id, period),
    facts.quarantined(id, period),
    cache.checkpoints.list(id),
    cache.connections.get(id),
    loadMonthPayouts(connection, period),
  ])
  const inPeriod = (t: number) => t >= range.from && t < range.to
  const { rows } = month.summary
  const checklist = closeChecklist({
    periodEnd: range.to,
    lastSyncedAt: (fresh ?? connection).lastSyncedAt,
    unfinishedPartitions: checkpoints.filter((c) => !c.done).length,
    lastVerified,
    quarantined,
    stillChanging: month.digests.filter((d) => inPeriod(d.createdAt) && canStillChange(d.status)).length,
    changedSinceReconciled: rows.reduce((s, r) => s + r.changedSinceReconciledCount, 0),
    totals: month.totals,
    exceptedWithNote: countExceptedWithNote(month.digests, month.marks, inPeriod),
    differences: month.differences,
    otherStatus: rows.reduce((s, r) => s + r.otherStatusCount, 0),
    ...(payouts
      ? {
          payouts: payouts.available
            ? { available: true, value: payouts.value.rollForward }
            : { available: false },
        }
      : {}),
  })
  return { checklist, quarantined: quarantined.available ? quarantined.value : [], payouts }
}

/** Everything the month's summary and checklist are built from, read once from the cache. */
export async function loadMonth(connection: CachedConnection, period: string): Promise<MonthData> {
  const cache = appCache()
  const id = connection.id
  const range = periodRange(period, connection.timeZone)
  // The charge list's digests are read while the history's digests and then their marks are.
  const [{ read, marks }, charges] = await Promise.all([
    monthDigests(id, range.from, range.to).then(async (read) => ({
      read,
      marks: await cache.marks.mapOf(id, read.digests),
    })),
    cache.charges.digestsInRange(id, range.from, range.to),
  ])
  const { digests } = read
  const summary = summarizeDigests({ digests, charges, marks, timeZone: connection.timeZone, period })
  const differences = crossCheck(crossCheckedCharges(digests), charges)
  const totals = totalsByCurrency(summary.rows)
  const [lock, storeNames, checks] = await Promise.all([
    cache.locks.get(id, period),
    monthStoreNames(id, digests),
    checklistOf(connection, period, { digests, marks, summary, totals, differences: differences.length }),
  ])
  const changes = lock?.snapshot ? changesSinceClose(lock.snapshot, snapshotOf(digests)) : null
  const changedKeys = changes ? [...changes.added, ...changes.changed] : []
  const changedRecords = new Map(
    (await cache.history.getMany(id, changedKeys)).flatMap((r) => (r ? [[r.key, r] as const] : [])),
  )
  const history = read.history
  return {
    connection,
    period,
    digests,
    history: once(async () => history ?? (await cache.history.inRange(id, range.from, range.to))),
    chargeDigests: charges,
    charges: once(() => cache.charges.inRange(id, range.from, range.to)),
    marks,
    summary,
    differences,
    storeNames,
    locked: lock !== undefined,
    lock: lock ?? null,
    totals,
    ...checks,
    changes,
    changedRecords,
  }
}
