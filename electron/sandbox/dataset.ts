/**
 * The sandbox's data with the indexes that keep a page cheap at 500k records: every list (all stores, and
 * each store) is kept sorted by (created time, id), so a time window is two binary searches, a cursor is one,
 * and a page is a short scan. Counts for `total_hits` are memoized per query until the data changes.
 */
import { ChargeFactory, generateCharges, generateMerchant, type GenerateOptions } from './generator'
import {
  CHARGE_STATUSES,
  DEFAULT_SHAPE,
  REFUND_STATUSES,
  type ChargeStatus,
  type HistoryEntry,
  type RefundStatus,
  type SandboxCharge,
  type SandboxMerchant,
  type SandboxRefund,
  type SandboxShape,
  type SandboxStore,
} from './model'
import { Prng, roll } from './prng'
import {
  applyLateChange,
  assignPayment,
  planLateChanges,
  settleFee,
  type AppliedLateChange,
  type LateChange,
} from './variety'

interface Keyed {
  id: string
  createdUs: number
}

function compareKey(a: Keyed, createdUs: number, id: string): number {
  if (a.createdUs !== createdUs) return a.createdUs < createdUs ? -1 : 1
  return a.id < id ? -1 : a.id > id ? 1 : 0
}

/** Index of the first entry whose key is ≥ (createdUs, id). */
export function lowerBound<T extends Keyed>(list: readonly T[], createdUs: number, id: string): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareKey(list[mid] as T, createdUs, id) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Index of the first entry created at or after `createdUs` (any id). */
function firstAtOrAfter<T extends Keyed>(list: readonly T[], createdUs: number): number {
  return lowerBound(list, createdUs, '')
}

function insertSorted<T extends Keyed>(list: T[], item: T): void {
  const last = list[list.length - 1]
  if (!last || compareKey(last, item.createdUs, item.id) < 0) list.push(item)
  else list.splice(lowerBound(list, item.createdUs, item.id), 0, item)
}

export interface ListWindow {
  /** Inclusive lower bound, µs. */
  fromUs?: number
  /** Upper bound, µs; inclusive unless `toExclusive`. */
  toUs?: number
  toExclusive?: boolean
}

export interface PageRequest<T> {
  list: readonly T[]
  window: ListWindow
  /** Absent: every item in the window matches. */
  match?: (item: T) => boolean
  /** Cache key of the list and of `match` (its parameters), for the memoized count. */
  countKey: string
  limit: number
  direction: 'asc' | 'desc'
  /** The key of the last item seen; the page starts after it. */
  after?: Keyed
}

export interface Page<T> {
  items: T[]
  hasMore: boolean
  totalHits: number
}

export type DataChange =
  | { kind: 'charge'; charge: SandboxCharge }
  | { kind: 'refund'; refund: SandboxRefund }
  | { kind: 'status'; id: string }

export class Dataset {
  readonly merchant: SandboxMerchant
  readonly stores: SandboxStore[]
  readonly charges: SandboxCharge[] = []
  readonly history: HistoryEntry[] = []
  private readonly chargesByStore = new Map<string, SandboxCharge[]>()
  private readonly historyByStore = new Map<string, HistoryEntry[]>()
  private readonly chargeById = new Map<string, SandboxCharge>()
  private readonly historyById = new Map<string, HistoryEntry>()
  private readonly counts = new Map<string, number>()
  private readonly factory: ChargeFactory
  private readonly mutationRng: Prng
  /** Varied shape: payment types of charges added while running (seed shape: none). */
  private readonly varietyRng: Prng | undefined
  readonly shape: SandboxShape
  /** Varied shape: late changes to old records not applied yet, next first (README.md, "Late changes"). */
  readonly lateChanges: LateChange[] = []
  /** Late changes applied so far, in order. */
  readonly appliedLateChanges: AppliedLateChange[] = []
  /**
   * Index lag: a record added while running shows in the lists only up to this long after its
   * `created_on` (a seeded share of it per record), as the real service's search index does. 0: at once.
   */
  indexLagUs = 0
  /** Records added but not in the lists yet, oldest `visibleAtUs` first. */
  private readonly unindexed: { visibleAtUs: number; charge?: SandboxCharge; entry: HistoryEntry }[] = []
  private newestCreatedUs = 0
  /** Bumped on every change: memoized counts are only valid for one version. */
  version = 0

  constructor(options: GenerateOptions) {
    this.shape = options.shape ?? DEFAULT_SHAPE
    const { merchant, stores } = generateMerchant(options.seed, options.stores)
    this.merchant = merchant
    this.stores = stores
    for (const store of stores) {
      this.chargesByStore.set(store.id, [])
      this.historyByStore.set(store.id, [])
    }
    const { charges, factory } = generateCharges(options, stores)
    this.factory = factory
    this.mutationRng = new Prng(`mutations:${options.seed}`)
    if (this.shape === 'varied') {
      // Its own generators: the seed shape's records above are drawn exactly as before.
      const variety = new Prng(`variety:${options.seed}`)
      for (const charge of charges) assignPayment(charge, variety)
      // One push per change: spreading a plan of a year of a large merchant overflows the call stack.
      for (const change of planLateChanges(charges, new Prng(`late:${options.seed}`)))
        this.lateChanges.push(change)
      this.varietyRng = new Prng(`variety-growth:${options.seed}`)
    }
    const history: HistoryEntry[] = []
    for (const charge of charges) {
      this.indexCharge(charge)
      history.push(chargeEntry(charge))
      for (const refund of charge.refunds) history.push(refundEntry(charge, refund))
    }
    history.sort((a, b) => compareKey(a, b.createdUs, b.id))
    for (const entry of history) this.indexHistory(entry, false)
  }

  hasStore(id: string): boolean {
    return this.chargesByStore.has(id)
  }

  chargeList(storeId?: string): readonly SandboxCharge[] {
    return storeId === undefined ? this.charges : (this.chargesByStore.get(storeId) ?? [])
  }

  historyList(storeId?: string): readonly HistoryEntry[] {
    return storeId === undefined ? this.history : (this.historyByStore.get(storeId) ?? [])
  }

  findCharge(id: string): SandboxCharge | undefined {
    return this.chargeById.get(id)
  }

  findHistory(resourceId: string): HistoryEntry | undefined {
    return this.historyById.get(resourceId)
  }

  page<T extends Keyed>(request: PageRequest<T>): Page<T> {
    const { list, window, match } = request
    const lo = window.fromUs === undefined ? 0 : firstAtOrAfter(list, window.fromUs)
    const hi =
      window.toUs === undefined
        ? list.length
        : firstAtOrAfter(list, window.toExclusive ? window.toUs : window.toUs + 1)
    const items: T[] = []
    let hasMore = false
    if (request.direction === 'asc') {
      let i = request.after ? lowerBound(list, request.after.createdUs, request.after.id) : lo
      if (
        request.after &&
        i < list.length &&
        compareKey(list[i] as T, request.after.createdUs, request.after.id) === 0
      )
        i++
      for (i = Math.max(i, lo); i < hi; i++) {
        const item = list[i] as T
        if (match && !match(item)) continue
        if (items.length === request.limit) {
          hasMore = true
          break
        }
        items.push(item)
      }
    } else {
      let i = request.after ? lowerBound(list, request.after.createdUs, request.after.id) - 1 : hi - 1
      for (i = Math.min(i, hi - 1); i >= lo; i--) {
        const item = list[i] as T
        if (match && !match(item)) continue
        if (items.length === request.limit) {
          hasMore = true
          break
        }
        items.push(item)
      }
    }
    return { items, hasMore, totalHits: this.count(list, lo, hi, match, request.countKey) }
  }

  private count<T>(
    list: readonly T[],
    lo: number,
    hi: number,
    match: ((item: T) => boolean) | undefined,
    key: string,
  ): number {
    if (!match) return Math.max(0, hi - lo)
    const memoKey = `${this.version}|${lo}|${hi}|${key}`
    const known = this.counts.get(memoKey)
    if (known !== undefined) return known
    let n = 0
    for (let i = lo; i < hi; i++) if (match(list[i] as T)) n++
    if (this.counts.size > 10_000) this.counts.clear()
    this.counts.set(memoKey, n)
    return n
  }

  // ---- changes (growth and the control endpoint) ----

  /** Adds a new charge created at `atUs` (at least 1 µs after everything else), maybe in a given store. */
  addCharge(atUs: number, options: { storeId?: string; status?: ChargeStatus } = {}): SandboxCharge {
    const createdUs = Math.max(atUs, this.newestUs() + 1)
    const charge = this.factory.charge(createdUs, createdUs, options.storeId)
    charge.refunds = [] // refunds of new charges come later, through addRefund
    if (this.varietyRng) assignPayment(charge, this.varietyRng)
    if (options.status) {
      charge.status = options.status
      settleFee(charge)
    }
    this.publish(chargeEntry(charge), charge)
    return charge
  }

  /** Refunds part or all of a charge (what is left of it when `amount` is absent). */
  addRefund(
    chargeId: string,
    atUs: number,
    options: { amount?: number; status?: RefundStatus } = {},
  ): SandboxRefund {
    const charge = this.chargeById.get(chargeId)
    if (!charge) throw new SandboxInputError('chargeId', 'no such charge')
    const refunded = charge.refunds.filter((r) => r.status !== 'failed').reduce((s, r) => s + r.amount, 0)
    const left = charge.chargedAmount - refunded
    const amount = options.amount ?? left
    if (!Number.isInteger(amount) || amount < 1 || amount > left)
      throw new SandboxInputError('amount', `must be an integer from 1 to ${left} (what is left to refund)`)
    const createdUs = Math.max(atUs, this.newestUs() + 1)
    const refund = this.factory.refund(charge, amount, createdUs, options.status ?? 'successful')
    charge.refunds.push(refund)
    this.publish(refundEntry(charge, refund))
    return refund
  }

  /** Puts a new record in the lists now, or queues it until the index lag has passed. */
  private publish(entry: HistoryEntry, charge?: SandboxCharge): void {
    this.newestCreatedUs = entry.createdUs
    // Known by id at once (the control endpoint may refund or change it); listed when indexed.
    if (charge) this.chargeById.set(charge.id, charge)
    this.historyById.set(entry.id, entry)
    const lag = this.indexLagUs > 0 ? Math.floor(roll('index-lag', entry.id) * this.indexLagUs) : 0
    if (lag === 0) return this.indexNow(entry, charge)
    const visibleAtUs = entry.createdUs + lag
    let i = this.unindexed.length
    while (i > 0 && (this.unindexed[i - 1]?.visibleAtUs ?? 0) > visibleAtUs) i--
    this.unindexed.splice(i, 0, { visibleAtUs, entry, ...(charge ? { charge } : {}) })
  }

  private indexNow(entry: HistoryEntry, charge?: SandboxCharge): void {
    if (charge) this.indexCharge(charge)
    this.indexHistory(entry, true)
    this.version++
  }

  /** Lists the records whose index lag has passed by `nowUs`; returns how many. */
  flushIndex(nowUs: number): number {
    let n = 0
    while ((this.unindexed[0]?.visibleAtUs ?? Infinity) <= nowUs) {
      const next = this.unindexed.shift()
      if (!next) break
      this.indexNow(next.entry, next.charge)
      n++
    }
    return n
  }

  /** Records added but not listed yet (index lag). */
  get unindexedCount(): number {
    return this.unindexed.length
  }

  /**
   * Changes the status of a charge or a refund in place (a late capture, a failed refund …); `atUs`, when
   * given, is the time of the change (the varied shape's `updated_on`).
   */
  setStatus(id: string, status: string, atUs?: number): void {
    const charge = this.chargeById.get(id)
    if (charge) {
      if (!(CHARGE_STATUS_SET as Set<string>).has(status))
        throw new SandboxInputError('status', 'not a charge status')
      charge.status = status as ChargeStatus
      if (atUs !== undefined) charge.updatedUs = atUs
      // Seed shape: the fee stays as generated (its output is frozen); varied: it follows the status.
      if (this.shape === 'varied') settleFee(charge)
      const bank = charge.payment?.bankTransfer
      if (bank && status === 'successful' && bank.status !== 'exact' && bank.status !== 'exceeded') {
        bank.status = 'exact'
        bank.latestDepositUs = atUs ?? charge.createdUs
      }
    } else {
      const entry = this.historyById.get(id)
      if (!entry || entry.kind !== 'refund') throw new SandboxInputError('id', 'no such charge or refund')
      if (!(REFUND_STATUS_SET as Set<string>).has(status))
        throw new SandboxInputError('status', 'not a refund status')
      entry.refund.status = status as RefundStatus
      if (atUs !== undefined) entry.refund.updatedUs = atUs
    }
    this.version++
  }

  /**
   * Applies up to `count` queued late changes at `atUs`, next first; a change whose record moved on
   * meanwhile is dropped. Returns what was applied.
   */
  applyLateChanges(count: number, atUs: number): AppliedLateChange[] {
    const done: AppliedLateChange[] = []
    const find = {
      charge: (id: string) => this.chargeById.get(id),
      refund: (id: string) => {
        const entry = this.historyById.get(id)
        return entry?.kind === 'refund' ? entry.refund : undefined
      },
    }
    while (done.length < count) {
      const change = this.lateChanges.shift()
      if (!change) break
      const result = applyLateChange(change, atUs, find)
      if (!result) continue
      if (result.followUp) this.lateChanges.push(result.followUp)
      done.push(result.applied)
      this.appliedLateChanges.push(result.applied)
    }
    if (done.length > 0) this.version++
    return done
  }

  /** One random change of the kinds a live merchant produces, for `--growth-per-minute`. */
  grow(atUs: number): DataChange {
    const rng = this.mutationRng
    const roll = rng.next()
    if (roll < 0.1 && this.charges.length > 0) {
      const recent = this.charges.slice(-200).filter((c) => c.status === 'successful')
      const target = recent.length > 0 ? rng.pick(recent) : undefined
      const refunded = target?.refunds.reduce((s, r) => s + r.amount, 0) ?? 0
      if (target && refunded < target.chargedAmount) {
        const left = target.chargedAmount - refunded
        return {
          kind: 'refund',
          refund: this.addRefund(target.id, atUs, {
            amount: rng.chance(0.5) ? left : Math.max(1, Math.floor(left / 2)),
          }),
        }
      }
    }
    if (roll < 0.15) {
      const pending = this.charges
        .slice(-500)
        .filter(
          (c) =>
            c.status === 'pending' ||
            c.status === 'authorized' ||
            (this.shape === 'varied' && c.status === 'awaiting'),
        )
      if (pending.length > 0) {
        const target = rng.pick(pending)
        this.setStatus(target.id, 'successful', this.shape === 'varied' ? atUs : undefined)
        return { kind: 'status', id: target.id }
      }
    }
    return { kind: 'charge', charge: this.addCharge(atUs) }
  }

  private newestUs(): number {
    const lastHistory = this.history[this.history.length - 1]
    return Math.max(lastHistory ? lastHistory.createdUs : 0, this.newestCreatedUs)
  }

  private indexCharge(charge: SandboxCharge): void {
    insertSorted(this.charges, charge)
    insertSorted(this.chargesByStore.get(charge.storeId) as SandboxCharge[], charge)
    this.chargeById.set(charge.id, charge)
  }

  private indexHistory(entry: HistoryEntry, sorted: boolean): void {
    if (sorted) {
      insertSorted(this.history, entry)
      insertSorted(this.historyByStore.get(entry.storeId) as HistoryEntry[], entry)
    } else {
      this.history.push(entry)
      ;(this.historyByStore.get(entry.storeId) as HistoryEntry[]).push(entry)
    }
    this.historyById.set(entry.id, entry)
  }
}

const CHARGE_STATUS_SET: ReadonlySet<string> = new Set(CHARGE_STATUSES)
const REFUND_STATUS_SET: ReadonlySet<string> = new Set(REFUND_STATUSES)

function chargeEntry(charge: SandboxCharge): HistoryEntry {
  return { kind: 'charge', id: charge.id, createdUs: charge.createdUs, storeId: charge.storeId, charge }
}

function refundEntry(charge: SandboxCharge, refund: SandboxRefund): HistoryEntry {
  return {
    kind: 'refund',
    id: refund.id,
    createdUs: refund.createdUs,
    storeId: charge.storeId,
    charge,
    refund,
  }
}

/** A bad value given to the control API or the embedding code, naming the field. */
export class SandboxInputError extends Error {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`)
  }
}
