/**
 * A first sync's day rows, filed in batches. A day's rows describe the whole day (history's digest row,
 * summary and token parts; the charge list's day row): a commit that reached a day read and rewrote them
 * whole, so the work per record grew with the records a day holds (a busy merchant's first sync slowed as
 * it went). A first sync's commits therefore write their records to their parts at once and leave their
 * days' rows to a filing of DEFERRED_RECORDS records at a time, and to the end of the run (HistoryWriter).
 * This module is that bookkeeping, the same for each kind of record (`DeferredKind`: history in
 * deferred-history.ts, the charge list in deferred-charges.ts).
 *
 * What this keeps true, for each kind:
 * - Every day with records not yet filed is listed in a settings row (the kind's `settingKey`) written in
 *   the same transaction as those records, so a crash, a reload or a failed transaction loses nothing: those
 *   days are filed again from their stored records (`refile`) before anything else writes the connection's
 *   records of that kind.
 * - A record already written by this sync, fetched again, is found: the sieve of keys written (never false
 *   for a key written) says which keys may be held.
 * - Until its filing, such a day's records are in the cache (in its parts) but not yet in its day rows.
 */
import Dexie, { type Table } from 'dexie'
import { KeySieve } from './key-sieve'
import type { SettingRecord } from './storage-rows'

/** Records a first sync holds back, per kind, before filing their days' rows. */
export const DEFERRED_RECORDS = 5_000

/** The settings row listing a connection's days whose history rows are not yet filed. */
export const deferredDaysKey = (connectionId: string): string => `deferredDays:${connectionId}`

/** The settings row listing a connection's days whose charge-list rows are not yet filed. */
export const deferredChargeDaysKey = (connectionId: string): string => `deferredChargeDays:${connectionId}`

/** The days a settings row lists (none for a row of another shape). */
export function daysOfSetting(row: SettingRecord | undefined): number[] {
  const value = row?.value
  return Array.isArray(value) ? value.filter((d): d is number => Number.isSafeInteger(d)) : []
}

/** What deferral needs of one kind of record; its filings join the caller's transaction. */
export interface DeferredKind<R> {
  /** The settings row listing a connection's waiting days. */
  settingKey(connectionId: string): string
  /** A record's identity: a record fetched again has the same. */
  keyOf: (record: R) => string
  /** The UTC day the record is filed on. */
  dayOf: (record: R) => number
  /** Whether the connection holds no record of this kind (a first sync may then defer its days). */
  holdsNone(connectionId: string): Promise<boolean>
  /** Files the days of `records`, this writer's since the last filing, in their rows. */
  fileHeld(connectionId: string, records: R[]): Promise<void>
  /** Files `days` again from the records stored on them, from scratch. */
  refile(connectionId: string, days: number[]): Promise<void>
}

/** One connection's records written by a first sync whose days are not yet filed, by day then key. */
export class DeferredDays<R> {
  readonly #sieve = new KeySieve()
  #days = new Map<number, Map<string, R>>()
  #count = 0
  /** The days the settings row lists as written by this writer. */
  #listed = new Set<number>()
  /** A transaction holding some of these records failed: what is held is not what is stored. */
  #lost = false

  constructor(
    private readonly keyOf: (record: R) => string,
    private readonly dayOf: (record: R) => number,
  ) {}

  /** False when `key` was never written by this sync; true when it may have been. */
  mayBeHeld(key: string): boolean {
    return this.#sieve.has(key)
  }

  /** Notes keys this sync wrote and filed at once (not held): a later copy is then looked for. */
  noteFiled(keys: Iterable<string>): void {
    for (const key of keys) this.#sieve.add(key)
  }

  /**
   * Holds `records` (one connection's, just written to their parts). True when the settings row must be
   * written again: a day is new to it, or a failed transaction may have left it short (then the row's
   * days are to be kept beside `listed()`).
   */
  add(records: readonly R[]): boolean {
    let grew = this.#lost
    for (const r of records) {
      const key = this.keyOf(r)
      this.#sieve.add(key)
      const day = this.dayOf(r)
      let keyed = this.#days.get(day)
      if (!keyed) this.#days.set(day, (keyed = new Map<string, R>()))
      if (!keyed.has(key)) this.#count++
      keyed.set(key, r)
      if (!this.#listed.has(day)) {
        this.#listed.add(day)
        grew = true
      }
    }
    return grew
  }

  get count(): number {
    return this.#count
  }

  /** The days listed, for the settings row. */
  listed(): number[] {
    return [...this.#listed].sort((a, b) => a - b)
  }

  get lost(): boolean {
    return this.#lost
  }

  /** Marks what is held as unreliable: the next filing reads the listed days from the cache instead. */
  lose(): void {
    this.#lost = true
  }

  /**
   * Hands over what is held and forgets it (the sieve stays): the records, or null when a failed
   * transaction made them unreliable.
   */
  take(): R[] | null {
    const records = this.#lost ? null : [...this.#days.values()].flatMap((keyed) => [...keyed.values()])
    this.#days = new Map()
    this.#count = 0
    this.#listed = new Set()
    this.#lost = false
    return records
  }
}

/** A failed transaction leaves what `deferred` holds unreliable: its days are then read from the cache. */
function loseOnAbort(deferred: { lose(): void }): void {
  const tx = Dexie.currentTransaction
  if (!tx) return
  tx.on('abort', () => deferred.lose())
  tx.on('error', () => deferred.lose())
}

/**
 * One writer's deferral of one kind of record, per connection: which connections it defers, what it holds
 * of each, and which it has found with no day left to file.
 */
export class Deferral<R> {
  /** Records waiting for their days' filing, per connection this writer defers. */
  readonly #held = new Map<string, DeferredDays<R>>()
  /** Connections found with no day left unfiled: their writes skip the check. */
  readonly #settled = new Set<string>()
  /** Deferred writes per connection, counted: a filing settles a connection only if none came after it. */
  readonly #writes = new Map<string, number>()
  /** Records this writer has filed per connection from what it held (`grows`). */
  readonly #filed = new Map<string, number>()

  constructor(
    private readonly settings: Table<SettingRecord, string>,
    private readonly kind: DeferredKind<R>,
    /** Records held back before a filing (DEFERRED_RECORDS). */
    private readonly limit: number,
    /**
     * A filing waits for at least as many records as the earlier filings of the connection filed: each
     * filing rewrites the whole rows of the days it reaches, so with batches that double, the rows written
     * per record stay bounded however large the sync (with a fixed batch they grow with it), for a lag of
     * up to half the records synced.
     */
    private readonly grows = false,
  ) {}

  /** Whether this writer already defers the connection (known without a request). */
  isDeferring(connectionId: string): boolean {
    return this.#held.has(connectionId)
  }

  /**
   * Whether a first sync's records of `connectionId` wait for their days' filing: only when this writer
   * began deferring them on a connection with none, so its sieve knows every key that can be held.
   */
  async begins(connectionId: string): Promise<boolean> {
    if (this.#held.has(connectionId)) return true
    if (!(await this.kind.holdsNone(connectionId))) return false
    this.#held.set(connectionId, new DeferredDays(this.kind.keyOf, this.kind.dayOf))
    return true
  }

  /** Whether a record of `key` may have been written by this writer's deferral of the connection. */
  mayBeHeld(connectionId: string, key: string): boolean {
    return this.#held.get(connectionId)?.mayBeHeld(key) ?? false
  }

  /** Notes records of a deferred connection written and filed at once, so a later copy is looked for. */
  noteFiled(connectionId: string, keys: Iterable<string>): void {
    this.#held.get(connectionId)?.noteFiled(keys)
  }

  /** Whether the connection is known to have no day waiting. */
  isSettled(connectionId: string): boolean {
    return this.#settled.has(connectionId)
  }

  /** Deferral is over for the connection (a write of another sync): its sieve is let go. */
  end(connectionId: string): void {
    this.#held.delete(connectionId)
    this.#filed.delete(connectionId)
  }

  /**
   * Holds records of a deferred connection just written to their parts in the caller's transaction, lists
   * their days in the settings row in it, and files the days once `limit` records wait.
   */
  async hold(connectionId: string, records: readonly R[]): Promise<void> {
    const held = this.#held.get(connectionId)
    if (!held) throw new Error(`No first sync is deferred for connection ${connectionId}.`)
    this.#settled.delete(connectionId)
    this.#writes.set(connectionId, (this.#writes.get(connectionId) ?? 0) + 1)
    loseOnAbort(held)
    const key = this.kind.settingKey(connectionId)
    const kept = held.lost ? daysOfSetting(await this.settings.get(key)) : []
    if (held.add(records))
      await this.settings.put({ key, value: [...new Set([...kept, ...held.listed()])].sort((a, b) => a - b) })
    const batch = this.grows ? Math.max(this.limit, this.#filed.get(connectionId) ?? 0) : this.limit
    if (held.count >= batch) await this.file(connectionId)
  }

  /**
   * Files the days the connection's first sync left unfiled: from the records this writer holds for them,
   * or, for days listed by a run that ended in a crash or a failed transaction, from the records stored on
   * them. In the caller's transaction, which must include the settings and the kind's tables.
   */
  async file(connectionId: string): Promise<void> {
    if (this.#settled.has(connectionId)) return
    const tx = Dexie.currentTransaction
    if (!tx) throw new Error('A filing of deferred days runs in a transaction.')
    const writes = this.#writes.get(connectionId)
    const deferred = this.#held.get(connectionId)
    if (deferred) loseOnAbort(deferred)
    const key = this.kind.settingKey(connectionId)
    const listed = daysOfSetting(await this.settings.get(key))
    // What is held is taken even when no day is listed (the connection's synced data cleared since).
    const records = deferred?.take()
    if (listed.length > 0) {
      const filed = new Set<number>()
      if (records && records.length > 0) {
        await this.kind.fileHeld(connectionId, records)
        this.#filed.set(connectionId, (this.#filed.get(connectionId) ?? 0) + records.length)
        for (const r of records) filed.add(this.kind.dayOf(r))
      }
      const rest = listed.filter((d) => !filed.has(d))
      if (rest.length > 0) await this.kind.refile(connectionId, rest)
      await this.settings.delete(key)
    }
    // Settled once this transaction has committed: a failed one leaves the days listed.
    tx.on('complete', () => {
      if (this.#writes.get(connectionId) === writes) this.#settled.add(connectionId)
    })
  }

  /** The connections whose settings rows list days waiting (a first sync stopped before its end). */
  async stopped(): Promise<string[]> {
    const prefix = this.kind.settingKey('')
    const keys = await this.settings.where('key').startsWith(prefix).primaryKeys()
    return keys.map((k) => String(k).slice(prefix.length))
  }
}
