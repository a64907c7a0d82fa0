/**
 * The charge list's day rows in a first sync's deferral (deferred-days.ts). A first sync's commit writes
 * its charges to new parts of their days at once, numbered after the day's last part, and leaves the day
 * rows (`chargeDays`: which part holds which charge, with the compact columns) to a filing, which appends
 * the waiting charges to their rows in the order of their parts: the rows a commit-by-commit first sync
 * writes (charge-days.ts, `newParts`). A day refiled after a crash is rebuilt from its parts alone.
 */
import { chargeDigestOf } from '../domain/digests'
import type { ChargeDigest, ChargeRecord } from '../domain/records'
import { byDay, emptyDay, hasOlderCharges, chargeDayOf, type ChargeDayTables } from './charge-days'
import { isCompact, setColumns } from './charge-columns'
import { deferredChargeDaysKey, type DeferredKind } from './deferred-days'
import { withLedgerKeys } from './ledger-links'
import { connectionBounds, groupBy } from './repository-helpers'
import type { ChargeDayColumns, ChargeDayRecord, ChargePartRecord } from './storage-rows'

/**
 * A charge written to a part by a deferred commit, which its day row does not list yet: what the row
 * files of it (its digest), and its part's number. Held instead of the whole charge, so a large first
 * sync's waiting charges cost ~200 bytes each.
 */
export interface FiledCharge {
  charge: ChargeDigest
  part: number
}

type DayKey = [string, number]
type CompactRow = ChargeDayRecord & ChargeDayColumns

/** Days read and written together by a filing of held charges. */
const FILING_DAYS = 16

/** Appends (or, for an id it files already, sets) a charge held by part `part` to a day row. */
function fileIn(row: CompactRow, at: Map<string, number>, c: ChargeDigest, part: number): void {
  const j = at.get(c.id) ?? row.ids.length
  at.set(c.id, j)
  row.ids[j] = c.id
  row.times[j] = c.createdAt
  row.storeIds[j] = c.storeId
  row.parts[j] = part
  setColumns(row, j, c)
}

/** A day's row built from its parts, in part order (a charge held twice: the later part's copy). */
function rowOfParts(connectionId: string, day: number, parts: readonly ChargePartRecord[]): ChargeDayRecord {
  const row = emptyDay(connectionId, day)
  const at = new Map<string, number>()
  for (const p of [...parts].sort((a, b) => a.part - b.part))
    for (const c of p.charges) fileIn(row, at, c, p.part)
  return row
}

/** The parts of one day, read whole. */
function partsOfDay(tables: ChargeDayTables, connectionId: string, day: number): Promise<ChargePartRecord[]> {
  return tables.chargeParts
    .where('[connectionId+day+part]')
    .between([connectionId, day], [connectionId, day + 1])
    .toArray()
}

/**
 * The charge list as a kind of deferred record. It keeps, per connection and day, the number the day's
 * next new part takes (read from the day's last part key the first time a day is reached).
 */
export class DeferredCharges implements DeferredKind<FiledCharge> {
  readonly #next = new Map<string, Map<number, number>>()

  constructor(
    private readonly tables: ChargeDayTables & { charges: Parameters<typeof hasOlderCharges>[0] },
    private readonly partSize: number,
  ) {}

  settingKey = deferredChargeDaysKey
  keyOf = (f: FiledCharge): string => f.charge.id
  dayOf = (f: FiledCharge): number => chargeDayOf(f.charge.createdAt)

  async holdsNone(connectionId: string): Promise<boolean> {
    const part = await this.tables.chargeParts
      .where('[connectionId+day+part]')
      .between(...connectionBounds(connectionId))
      .limit(1)
      .primaryKeys()
    return part.length === 0 && !(await hasOlderCharges(this.tables.charges, connectionId))
  }

  /** The number of the day's next new part: after its last part, stored or written by this writer. */
  private async nextPart(connectionId: string, day: number): Promise<number> {
    const days = this.#next.get(connectionId) ?? new Map<number, number>()
    this.#next.set(connectionId, days)
    const known = days.get(day)
    if (known !== undefined) return known
    const last = await this.tables.chargeParts
      .where('[connectionId+day+part]')
      .between([connectionId, day], [connectionId, day + 1])
      .reverse()
      .limit(1)
      .primaryKeys()
    return (last[0]?.[2] ?? -1) + 1
  }

  /** Notes parts written to a day by another path (its last part is `last`): new parts go after it. */
  noteLastPart(connectionId: string, day: number, last: number): void {
    const days = this.#next.get(connectionId)
    if (days && (days.get(day) ?? 0) <= last) days.set(day, last + 1)
  }

  /** Forgets the part numbers of a connection whose deferral is over. */
  forget(connectionId: string): void {
    this.#next.delete(connectionId)
  }

  /**
   * Writes `records` (one connection's, none held already) to new parts of their days, after each day's
   * last part; a later copy of an id in `records` wins. Returns where each went, for the day rows' filing.
   */
  async writeParts(connectionId: string, records: readonly ChargeRecord[]): Promise<FiledCharge[]> {
    const days = byDay(records)
    const filed: FiledCharge[] = []
    const parts: ChargePartRecord[] = []
    for (const [day, charges] of days) {
      let part = await this.nextPart(connectionId, day)
      let open: ChargePartRecord | null = null
      for (const c of charges.values()) {
        if (!open || open.charges.length >= this.partSize) {
          if (open) part++
          open = { connectionId, day, part, charges: [] }
          parts.push(open)
        }
        open.charges.push(c)
        filed.push({ charge: chargeDigestOf(c), part })
      }
      this.#next.get(connectionId)?.set(day, part + 1)
    }
    await this.tables.chargeParts.bulkPut(parts.map(withLedgerKeys))
    return filed
  }

  async fileHeld(connectionId: string, records: FiledCharge[]): Promise<void> {
    const waitingOn = groupBy(records, this.dayOf)
    const days = [...waitingOn.keys()]
    const refile: number[] = []
    // A few days a read and a write: each batch's rows are cloned in a task of their own, so a filing of
    // many charges does not hold the window's thread for the whole of it.
    for (let from = 0; from < days.length; from += FILING_DAYS) {
      const batch = days.slice(from, from + FILING_DAYS)
      const stored = await this.tables.chargeDays.bulkGet(batch.map((d): DayKey => [connectionId, d]))
      const rows: CompactRow[] = []
      batch.forEach((day, i) => {
        const row = stored[i] ?? emptyDay(connectionId, day)
        // A row without the compact columns (or not this writer's) is rebuilt from its parts instead.
        if (!isCompact(row)) return void refile.push(day)
        const at = new Map(row.ids.map((id, j) => [id, j]))
        const waiting = (waitingOn.get(day) ?? []).sort((a, b) => a.part - b.part)
        for (const f of waiting) fileIn(row, at, f.charge, f.part)
        rows.push(row)
      })
      await this.tables.chargeDays.bulkPut(rows)
    }
    if (refile.length > 0) await this.refile(connectionId, refile)
  }

  async refile(connectionId: string, days: number[]): Promise<void> {
    for (const day of days) {
      const parts = await partsOfDay(this.tables, connectionId, day)
      if (parts.length === 0) await this.tables.chargeDays.delete([connectionId, day])
      else await this.tables.chargeDays.put(rowOfParts(connectionId, day, parts))
    }
  }
}
