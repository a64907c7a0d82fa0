/**
 * The month-end close checklist: what must be true before a month is closed, computed from
 * facts about the month. Pure: the Month-end store gathers the facts, the view shows the items, and the
 * close refuses (unless the accountant acknowledges the open items with a note) while any item blocks.
 *
 * Two facts belong to other parts of the app (re-verify month, quarantine of invalid items). They come
 * through `CloseFactsProvider`; until a real provider is registered, the default says "not available"
 * and the checklist shows that item as not checked — never as passed.
 */
import type { HistoryRecord, MarkRecord, RecordKey } from '../domain/records'
import type { CurrencyTotal } from './month-summary'
import type { RollForward } from './payouts/rollforward'

/** A fact another module owns: its value, or "this version cannot tell". */
export type Availability<T> = { available: true; value: T } | { available: false }

/** An API item kept out of the cache because its accounting core was invalid (DESIGN §4). */
export interface QuarantinedItem {
  resource: 'transaction_history' | 'charges'
  /** The item's id when it could be read. */
  itemId: string | null
  /** Why it was refused, in English (the workbook's language). */
  reason: string
  /** When sync met it (epoch ms). */
  seenAt: number
}

/** Facts about a month that other modules own; the integrator registers the real functions. */
export interface CloseFactsProvider {
  /** When the month was last fully re-read ("re-verify month"); null when never. */
  lastVerified(connectionId: string, period: string): Promise<Availability<number | null>>
  /** Items of the month (or of unknown date) held in quarantine. */
  quarantined(connectionId: string, period: string): Promise<Availability<readonly QuarantinedItem[]>>
}

export const UNAVAILABLE_CLOSE_FACTS: CloseFactsProvider = {
  lastVerified: () => Promise.resolve({ available: false }),
  quarantined: () => Promise.resolve({ available: false }),
}

let provider: CloseFactsProvider = UNAVAILABLE_CLOSE_FACTS

/** Registers the functions that know when a month was verified and what is quarantined. */
export function setCloseFactsProvider(next: CloseFactsProvider): void {
  provider = next
}

export function closeFactsProvider(): CloseFactsProvider {
  return provider
}

/** Statuses after which a record no longer changes (a refund is a new record, not a change). */
const FINAL_STATUSES: ReadonlySet<string> = new Set([
  'successful',
  'failed',
  'error',
  'canceled',
  'cancelled',
])

/** pending, awaiting, authorized and any status the API may add: the record can still change. */
export function canStillChange(status: string): boolean {
  return !FINAL_STATUSES.has(status.trim().toLowerCase())
}

export interface CloseFacts {
  /** End of the month in the accounting zone (exclusive), epoch ms. */
  periodEnd: number
  /** When the last sync of the connection finished; null when none has. */
  lastSyncedAt: number | null
  /** Partitions of an interrupted sync still to fetch (0 when the last sync ran to the end). */
  unfinishedPartitions: number
  lastVerified: Availability<number | null>
  quarantined: Availability<readonly QuarantinedItem[]>
  /** Records of the month with a status that can still change. */
  stillChanging: number
  changedSinceReconciled: number
  /** Per currency × mode: counts and signed sums not yet reconciled. */
  totals: readonly CurrencyTotal[]
  /** Counted records not reconciled but explained by a note ("excepted"). */
  exceptedWithNote: number
  /** Cross-check differences between history and charge list. */
  differences: number
  /** Records of the month not counted because of their status (failed, pending, …). */
  otherStatus: number
  /**
   * The month's payout roll-forward; absent: the caller does not know payouts (no line), unavailable: the
   * connection cannot read them (the line says so, never passed).
   */
  payouts?: Availability<RollForward>
}

/** `ok`: passes; `blocked`: must be fixed or acknowledged; `warning`: worth a look; `unavailable`: not checked. */
export type CheckState = 'ok' | 'blocked' | 'warning' | 'unavailable'

export type CheckId =
  | 'synced'
  | 'verified'
  | 'quarantine'
  | 'stillChanging'
  | 'changed'
  | 'unreconciled'
  | 'exceptions'
  | 'payouts'

/** Per currency, why the roll-forward does not tie (nonzero figures only are worth a word). */
export interface PayoutTieFigures {
  currency: string
  /** Opening − the closing carried from last month's close. */
  openingDifference: number
  /** opening + activity − closing: 0 when the month adds up. */
  control: number
  /** The closing that no open item explains. */
  unexplained: number
}

export interface CheckItem {
  id: CheckId
  state: CheckState
  /** The figures the item's message names (counts, times); absent ones are not known. */
  count?: number
  at?: number | null
  /** `unreconciled` only: per currency × mode, count and signed amount not reconciled (nonzero only). */
  perCurrency?: { currency: string; mode: string; count: number; amount: number }[]
  /** `payouts` only: the currencies whose roll-forward does not tie. */
  payouts?: PayoutTieFigures[]
}

export interface Checklist {
  items: CheckItem[]
  /** Items that block a plain close. */
  blocking: number
}

export function closeChecklist(f: CloseFacts): Checklist {
  const items: CheckItem[] = []
  const syncedAfterEnd = f.lastSyncedAt !== null && f.lastSyncedAt >= f.periodEnd
  items.push({
    id: 'synced',
    state: syncedAfterEnd && f.unfinishedPartitions === 0 ? 'ok' : 'blocked',
    at: f.lastSyncedAt,
    count: f.unfinishedPartitions,
  })
  // A month is verified for closing when it was fully re-read after it ended: late changes are then in.
  if (!f.lastVerified.available) items.push({ id: 'verified', state: 'unavailable' })
  else {
    const at = f.lastVerified.value
    items.push({ id: 'verified', state: at !== null && at >= f.periodEnd ? 'ok' : 'blocked', at })
  }
  if (!f.quarantined.available) items.push({ id: 'quarantine', state: 'unavailable' })
  else {
    const count = f.quarantined.value.length
    items.push({ id: 'quarantine', state: count === 0 ? 'ok' : 'blocked', count })
  }
  items.push({ id: 'stillChanging', state: f.stillChanging === 0 ? 'ok' : 'warning', count: f.stillChanging })
  items.push({
    id: 'changed',
    state: f.changedSinceReconciled === 0 ? 'ok' : 'blocked',
    count: f.changedSinceReconciled,
  })
  const perCurrency = f.totals
    .filter((t) => t.unreconciledCount > 0)
    .map((t) => ({
      currency: t.currency,
      mode: t.mode,
      count: t.unreconciledCount,
      amount: t.unreconciledSum,
    }))
  const unreconciled = perCurrency.reduce((s, x) => s + x.count, 0)
  // Every counted record is reconciled, or left open with a note that says why (excepted).
  const unexplained = Math.max(0, unreconciled - f.exceptedWithNote)
  items.push({
    id: 'unreconciled',
    state: unexplained === 0 ? 'ok' : 'blocked',
    count: unexplained,
    perCurrency,
  })
  const exceptions = f.differences + f.otherStatus
  items.push({ id: 'exceptions', state: exceptions === 0 ? 'ok' : 'warning', count: exceptions })
  if (f.payouts) items.push(payoutCheck(f.payouts))
  return { items, blocking: items.filter((i) => i.state === 'blocked').length }
}

/**
 * The roll-forward ties: every currency's opening is last month's closing as carried, its control is 0
 * and nothing of its closing is unexplained.
 */
export function payoutCheck(payouts: Availability<RollForward>): CheckItem {
  if (!payouts.available) return { id: 'payouts', state: 'unavailable' }
  const failing = payouts.value.currencies
    .filter((c) => !c.ties)
    .map((c) => ({
      currency: c.currency,
      openingDifference: c.openingDifference,
      control: c.control,
      unexplained: c.unexplained,
    }))
  return {
    id: 'payouts',
    state: failing.length === 0 ? 'ok' : 'blocked',
    count: failing.length,
    payouts: failing,
  }
}

/** Counted (successful) records not reconciled whose mark carries a note: the accountant's exception. */
export function countExceptedWithNote(
  history: readonly Pick<HistoryRecord, 'key' | 'createdAt' | 'status'>[],
  marks: ReadonlyMap<RecordKey, MarkRecord>,
  inPeriod: (t: number) => boolean,
): number {
  let n = 0
  for (const r of history) {
    if (!inPeriod(r.createdAt) || r.status.trim().toLowerCase() !== 'successful') continue
    const mark = marks.get(r.key)
    if (mark && mark.state !== 'reconciled' && mark.note && mark.note.trim() !== '') n++
  }
  return n
}

/** A fingerprint per record of the month, kept with the close so a reopen can say what changed. */
export type CloseSnapshot = Record<RecordKey, string>

export interface ChangesSinceClose {
  added: RecordKey[]
  changed: RecordKey[]
  removed: RecordKey[]
}

/** Records added, changed (amount, currency, status, refunds) or gone since the snapshot was taken. */
export function changesSinceClose(
  snapshot: Readonly<Record<string, string>>,
  now: ReadonlyMap<RecordKey, string>,
): ChangesSinceClose {
  const added: RecordKey[] = []
  const changed: RecordKey[] = []
  for (const [key, fingerprint] of now) {
    const before = snapshot[key]
    if (before === undefined) added.push(key)
    else if (before !== fingerprint) changed.push(key)
  }
  const removed = (Object.keys(snapshot) as RecordKey[]).filter((k) => !now.has(k))
  return { added: added.sort(), changed: changed.sort(), removed: removed.sort() }
}

/** FNV-1a, 32 bits, as 8 hex digits: a close's snapshot stays small (a month of 40k records ≈ 1 MB). */
export function shortHash(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, '0')
}
