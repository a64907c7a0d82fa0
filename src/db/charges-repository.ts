/**
 * Charge-list records (fees, merchant_transaction_id): written by sync with the same page pattern,
 * stored in day parts (charge-days.ts) and, for charges cached before schema v10, in `charges`.
 */
import type { ClosebookDb } from './database'
import { historyByKeys } from './history-part-reads'
import { chargeDayOf, chargeDaysOf, hasOlderCharges } from './charge-days'
import { dayRowBatches } from './day-digests'
import { HistoryWriter } from './history-writer'
import {
  recordKeyOf,
  type ChargeDigest,
  type ChargeRecord,
  type HistoryRecord,
  type SyncCheckpoint,
} from '../domain/records'
import type { ChargeDayRecord, ChargePartRecord } from './storage-rows'
import { chargeDigestOf, digestsOfRow, isCompact } from './charge-columns'
import { byTimeThenId, connectionBounds, readInChunks } from './repository-helpers'

/**
 * Each charge of `charges` created in [from, to) once, its newest copy (by sync time; the later one listed
 * when equal), oldest first, then by id.
 */
function newestInRange<C extends { id: string; createdAt: number; syncedAt: number }>(
  charges: readonly C[],
  from: number,
  to: number,
): C[] {
  const byId = new Map<string, C>()
  for (const c of charges) {
    const seen = byId.get(c.id)
    if (c.createdAt >= from && c.createdAt < to && (!seen || c.syncedAt >= seen.syncedAt)) byId.set(c.id, c)
  }
  return [...byId.values()].sort(byTimeThenId)
}

/** Day rows per read when a charge's day is unknown (daysOf): about a month of a busy merchant's ids. */
const DAY_ROWS_PER_READ = 31

export class ChargesRepository {
  constructor(private readonly db: ClosebookDb) {}

  /** Stores one page and its checkpoint in one transaction (HistoryWriter.putChargesPage). */
  putPage(
    connectionId: string,
    records: readonly ChargeRecord[],
    checkpoint: SyncCheckpoint,
  ): Promise<number> {
    return new HistoryWriter(this.db).putChargesPage(connectionId, records, checkpoint)
  }

  /**
   * The charge-list records of the charge rows among `rows` (history records), each read on its row's day;
   * charges not cached are left out.
   */
  async ofChargeRows(connectionId: string, rows: readonly HistoryRecord[]): Promise<ChargeRecord[]> {
    const times = new Map(rows.filter((r) => r.type === 'charge').map((r) => [r.chargeId, r.createdAt]))
    const found = await this.getMany(connectionId, [...times.keys()], [...times.values()])
    return found.filter((c): c is ChargeRecord => c !== undefined)
  }

  /** One charge by id; `near`: about when it was created, if the caller knows (getMany). */
  async get(connectionId: string, id: string, near?: number): Promise<ChargeRecord | undefined> {
    return (await this.getMany(connectionId, [id], [near]))[0]
  }

  /**
   * Charges by id, in order (undefined where none is cached). A charge is looked for on its day: from
   * `near[i]` when the caller knows about when it was created (a sync page's own records, a ledger row),
   * else from its history record; the day before and after too (the two lists may date a charge a moment
   * apart across midnight). A charge with neither is looked for in every day row of the connection (ids
   * only, not the charges). Charges cached before schema v10 are read by id.
   */
  async getMany(
    connectionId: string,
    ids: readonly string[],
    near: readonly (number | undefined)[] = [],
  ): Promise<(ChargeRecord | undefined)[]> {
    const { db } = this
    if (ids.length === 0) return []
    return db.transaction(
      'r',
      [db.charges, db.chargeDays, db.chargeParts, ...db.historyRecordTables()],
      async () => {
        const found: (ChargeRecord | undefined)[] = await readInChunks(ids, (chunk) =>
          db.charges.bulkGet(chunk.map((id): [string, string] => [connectionId, id])),
        )
        const missing = ids.flatMap((id, i) => (found[i] ? [] : [id]))
        if (missing.length === 0) return found
        const hinted = new Map<string, number>()
        ids.forEach((id, i) => {
          const at = near[i]
          if (at !== undefined) hinted.set(id, at)
        })
        const unknown = missing.filter((id) => !hinted.has(id))
        // Never an await without a request inside the transaction: it would commit before the reads below.
        const history =
          unknown.length > 0
            ? await historyByKeys(
                db,
                connectionId,
                unknown.map((id) => recordKeyOf('charge', id)),
              )
            : []
        unknown.forEach((id, j) => {
          const at = history[j]?.createdAt
          if (at !== undefined) hinted.set(id, at)
        })
        const days = new Map<string, ReadonlySet<number>>()
        for (const id of missing) {
          const at = hinted.get(id)
          if (at === undefined) continue
          const day = chargeDayOf(at)
          days.set(id, new Set([day - 1, day, day + 1]))
        }
        const undated = new Set(missing.filter((id) => !hinted.has(id)))
        if (undated.size > 0)
          for (const [id, day] of await this.daysOf(connectionId, undated)) days.set(id, new Set([day]))
        const held = await this.held(connectionId, days)
        ids.forEach((id, i) => {
          if (!found[i]) found[i] = held.get(id)
        })
        return found
      },
    )
  }

  /** The day each of `ids` is filed on, from every day row of the connection, newest day first. */
  private async daysOf(connectionId: string, ids: ReadonlySet<string>): Promise<Map<string, number>> {
    const out = new Map<string, number>()
    const days = { lo: 0, hi: Number.MAX_SAFE_INTEGER, desc: true }
    for await (const rows of dayRowBatches(this.db.chargeDays, connectionId, days, () => DAY_ROWS_PER_READ)) {
      for (const row of rows) for (const id of row.ids) if (ids.has(id) && !out.has(id)) out.set(id, row.day)
      if (out.size === ids.size) break
    }
    return out
  }

  /** The charges of `wanted` (id → the days it may be on) that the day parts hold. */
  private async held(
    connectionId: string,
    wanted: ReadonlyMap<string, ReadonlySet<number>>,
  ): Promise<Map<string, ChargeRecord>> {
    const { db } = this
    const dayNumbers = [...new Set([...wanted.values()].flatMap((d) => [...d]))].filter((d) => d >= 0)
    const rows = await db.chargeDays.bulkGet(dayNumbers.map((d): [string, number] => [connectionId, d]))
    const partKeys = new Map<string, [string, number, number]>()
    for (const row of rows)
      row?.ids.forEach((id, i) => {
        if (!wanted.get(id)?.has(row.day)) return
        const part = row.parts[i] as number
        partKeys.set(`${row.day}:${part}`, [connectionId, row.day, part])
      })
    const parts = await db.chargeParts.bulkGet([...partKeys.values()])
    const out = new Map<string, ChargeRecord>()
    for (const part of parts)
      for (const c of part?.charges ?? []) {
        const seen = out.get(c.id)
        if (wanted.has(c.id) && (!seen || c.syncedAt > seen.syncedAt)) out.set(c.id, c)
      }
    return out
  }

  /**
   * Charges created in [from, to), oldest first (then by id): the parts of the range's days, and charges
   * cached before schema v10 through their time index. A charge is returned once (its newest copy).
   */
  async inRange(connectionId: string, from: number, to: number): Promise<ChargeRecord[]> {
    const { db } = this
    return db.transaction('r', db.charges, db.chargeParts, async () => {
      const { lo, hi } = chargeDaysOf(from, to)
      const parts: ChargePartRecord[] =
        lo > hi
          ? []
          : await db.chargeParts
              .where('[connectionId+day+part]')
              .between([connectionId, lo], [connectionId, hi + 1], true, false)
              .toArray()
      const older = await db.charges
        .where('[connectionId+createdAt]')
        .between([connectionId, from], [connectionId, to], true, false)
        .toArray()
      return newestInRange([...older, ...parts.flatMap((p) => p.charges)], from, to)
    })
  }

  /**
   * What Month-end reads of the charges created in [from, to), oldest first (then by id): figure for figure
   * what inRange gives, projected (chargeDigestOf). A day whose row carries the compact columns is read from
   * its row alone; a day whose row lacks them (written before them) from its parts, as are charges cached
   * before schema v10. A charge is returned once (its newest copy).
   */
  async digestsInRange(connectionId: string, from: number, to: number): Promise<ChargeDigest[]> {
    const { db } = this
    return db.transaction('r', db.charges, db.chargeDays, db.chargeParts, async () => {
      const { lo, hi } = chargeDaysOf(from, to)
      const rows =
        lo > hi
          ? []
          : await db.chargeDays
              .where('[connectionId+day]')
              .between([connectionId, lo], [connectionId, hi], true, true)
              .toArray()
      const older = await db.charges
        .where('[connectionId+createdAt]')
        .between([connectionId, from], [connectionId, to], true, false)
        .toArray()
      const byDay = await this.digestsOfDays(connectionId, rows, from, to)
      return newestInRange([...older.map(chargeDigestOf), ...byDay], from, to)
    })
  }

  /** The digests of `rows`' charges created in [from, to), day by day: from the row, or its day's parts. */
  private async digestsOfDays(
    connectionId: string,
    rows: readonly ChargeDayRecord[],
    from: number,
    to: number,
  ): Promise<ChargeDigest[]> {
    const partKeys = rows.flatMap((row) =>
      isCompact(row)
        ? []
        : [...new Set(row.parts)].map((p): [string, number, number] => [connectionId, row.day, p]),
    )
    const parts = partKeys.length > 0 ? await this.db.chargeParts.bulkGet(partKeys) : []
    const partsOf = new Map<number, ChargePartRecord[]>()
    for (const p of parts) if (p) partsOf.set(p.day, [...(partsOf.get(p.day) ?? []), p])
    return rows.flatMap((row) =>
      isCompact(row)
        ? digestsOfRow(row, from, to)
        : (partsOf.get(row.day) ?? [])
            .sort((a, b) => a.part - b.part)
            .flatMap((p) => p.charges.map(chargeDigestOf)),
    )
  }

  /** Whether the connection has any charge cached (a part holds it even before its day row is filed). */
  async any(connectionId: string): Promise<boolean> {
    const { db } = this
    const [older, day] = await Promise.all([
      hasOlderCharges(db.charges, connectionId),
      db.chargeParts
        .where('[connectionId+day+part]')
        .between(...connectionBounds(connectionId))
        .limit(1)
        .primaryKeys(),
    ])
    return older || day.length > 0
  }
}
