/**
 * How the charge list is stored since schema v10: in parts of up to CHARGE_PART_SIZE charges
 * per connection × UTC day (`chargeParts`), with one row per day saying which part holds which charge
 * and when and in which store it was created (`chargeDays`). IndexedDB's cost is per row far more than
 * per byte (`idb.write_us_per_row` ~114 µs against ~21 µs per index entry), so a first sync writing a
 * part per hundred charges, not a row and an index entry per charge, stops being what sets its pace.
 * A period's charges are the parts of its days; a charge by id is found on its day (a caller's hint, or
 * its history record's time). Charge rows written before v10 stay in the `charges` table, found by id and
 * time as before, and leave it when sync writes them again. The history writer is the only writer. Every
 * part written carries the ledger ids of its charges (`ledgerKeys`, ledger-links.ts).
 */
import type { Table } from 'dexie'
import type { ChargeRecord } from '../domain/records'
import { emptyColumns, fillColumns, isCompact, keepColumns, setColumns } from './charge-columns'
import { searchDayOf } from './history-record'
import { withLedgerKeys } from './ledger-links'
import { connectionBounds } from './repository-helpers'
import type { ChargeDayColumns, ChargeDayRecord, ChargePartRecord } from './storage-rows'

/** Charges per part: a sync page rewrites one part of ~100 charges, and a month is a few hundred parts. */
export const CHARGE_PART_SIZE = 100

type DayKey = [string, number]
type PartKey = [string, number, number]

export interface ChargeDayTables {
  chargeDays: Table<ChargeDayRecord, DayKey>
  chargeParts: Table<ChargePartRecord, PartKey>
}

/** The UTC day a charge is filed under: the same day numbering as the history's day rows. */
export const chargeDayOf = searchDayOf

/** The days whose parts may hold charges created in [from, to) (either end may be infinite). */
export function chargeDaysOf(from: number, to: number): { lo: number; hi: number } {
  return {
    lo: from === -Infinity ? 0 : chargeDayOf(from),
    hi: to === Infinity ? Number.MAX_SAFE_INTEGER : chargeDayOf(to - 1),
  }
}

/** Whether a connection still has charges in `charges`, the table from before schema v10 (one key read). */
export async function hasOlderCharges(
  charges: Table<ChargeRecord, [string, string]>,
  connectionId: string,
): Promise<boolean> {
  const first = await charges
    .where('[connectionId+id]')
    .between(...connectionBounds(connectionId))
    .limit(1)
    .primaryKeys()
  return first.length > 0
}

/** `records` by day, then id (a later copy of an id wins). */
export function byDay(records: readonly ChargeRecord[]): Map<number, Map<string, ChargeRecord>> {
  const days = new Map<number, Map<string, ChargeRecord>>()
  for (const r of records) {
    const day = chargeDayOf(r.createdAt)
    let charges = days.get(day)
    if (!charges) days.set(day, (charges = new Map<string, ChargeRecord>()))
    charges.set(r.id, r)
  }
  return days
}

/** The day's last part number, -1 for none (a loop: a busy day's array is too long to spread). */
export function lastPartOf(row: ChargeDayRecord): number {
  let last = -1
  for (const p of row.parts) if (p > last) last = p
  return last
}

/** A day row filing no charge yet, with its (empty) compact columns. */
export const emptyDay = (connectionId: string, day: number): ChargeDayRecord & ChargeDayColumns => ({
  connectionId,
  day,
  ids: [],
  times: [],
  storeIds: [],
  parts: [],
  ...emptyColumns(),
})

/** Appends `charges` to a day from part `first` on, filling `open` (the day's last part) first. */
function append(
  row: ChargeDayRecord,
  charges: readonly ChargeRecord[],
  first: number,
  partSize: number,
  open: ChargePartRecord | null,
): ChargePartRecord[] {
  const written: ChargePartRecord[] = []
  const compact = isCompact(row)
  let part = open
  for (const c of charges) {
    if (!part || part.charges.length >= partSize) {
      const number = part ? part.part + 1 : first
      part = { connectionId: row.connectionId, day: row.day, part: number, charges: [] }
      written.push(part)
    } else if (part === open && written.length === 0) written.push(part)
    part.charges.push(c)
    if (compact) setColumns(row, row.ids.length, c)
    row.ids.push(c.id)
    row.times.push(c.createdAt)
    row.storeIds.push(c.storeId)
    row.parts.push(part.part)
  }
  return written
}

/** The rows of `records` (one connection's whole days) built from scratch: a restore's empty tables. */
export function chargeDayRowsOf(
  connectionId: string,
  records: readonly ChargeRecord[],
  partSize = CHARGE_PART_SIZE,
): { chargeDays: ChargeDayRecord[]; chargeParts: ChargePartRecord[] } {
  const chargeDays: ChargeDayRecord[] = []
  const chargeParts: ChargePartRecord[] = []
  for (const [day, charges] of byDay(records)) {
    const row = emptyDay(connectionId, day)
    chargeParts.push(...append(row, [...charges.values()], 0, partSize, null))
    chargeDays.push(row)
  }
  return { chargeDays, chargeParts: chargeParts.map(withLedgerKeys) }
}

/** The charges the parts of `row` hold, by id (`parts`: the parts read, by `day:part`). */
function heldOn(
  day: number,
  row: ChargeDayRecord,
  parts: ReadonlyMap<string, ChargePartRecord>,
): Map<string, ChargeRecord> {
  const held = new Map<string, ChargeRecord>()
  for (const number of new Set(row.parts))
    for (const c of parts.get(`${day}:${number}`)?.charges ?? []) held.set(c.id, c)
  return held
}

/**
 * Files one day's `charges` in its row and the parts read (`parts`, by `day:part`): each replaced where it
 * stands, the rest appended (to new parts after the last one with `newParts`); the row's compact columns
 * kept in step (or filled, for a row written before them). Returns the parts it changed.
 */
function fileDay(
  row: ChargeDayRecord,
  charges: ReadonlyMap<string, ChargeRecord>,
  parts: ReadonlyMap<string, ChargePartRecord>,
  partSize: number,
  newParts: boolean,
): ChargePartRecord[] {
  const { day } = row
  const written: ChargePartRecord[] = []
  const compact = isCompact(row)
  const fresh = new Map(charges)
  row.ids.forEach((id, j) => {
    const c = fresh.get(id)
    if (!c) return
    const part = parts.get(`${day}:${row.parts[j] as number}`)
    const at = part ? part.charges.findIndex((p) => p.id === id) : -1
    if (!part || at < 0) return // filed but not held: appended again below
    part.charges[at] = c
    row.times[j] = c.createdAt
    row.storeIds[j] = c.storeId
    if (compact) setColumns(row, j, c)
    written.push(part)
    fresh.delete(id)
  })
  // A charge the row files but its part does not hold (a part lost): filed again, once.
  const stale = new Set(row.ids.filter((id) => fresh.has(id)))
  if (stale.size > 0) {
    const keep = row.ids.map((id) => !stale.has(id))
    row.ids = row.ids.filter((_, j) => keep[j])
    row.times = row.times.filter((_, j) => keep[j])
    row.storeIds = row.storeIds.filter((_, j) => keep[j])
    row.parts = row.parts.filter((_, j) => keep[j])
    keepColumns(row, keep)
  }
  if (!compact) fillColumns(row, heldOn(day, row, parts))
  const last = lastPartOf(row)
  return [
    ...written,
    ...append(
      row,
      [...fresh.values()],
      last + 1,
      partSize,
      newParts ? null : (parts.get(`${day}:${last}`) ?? null),
    ),
  ]
}

/**
 * Files `records` (one connection's): a charge already on its day is replaced where it stands, a new one
 * appended to the day's last part (new parts when it is full). Reads each day's row, the last part and
 * the parts holding replaced charges; writes only what changed. Keeps each row's compact columns
 * (charge-columns.ts) in step, and gives them to a row written before them from all its day's parts. In a
 * transaction over both tables.
 *
 * `newParts` (a first sync, whose commits each bring a run of charges of a day): the rest go to new parts
 * after the day's last one, so a part written by an earlier commit is neither read nor written again.
 * Returns the day rows written.
 */
export async function putChargeDays(
  tables: ChargeDayTables,
  connectionId: string,
  records: readonly ChargeRecord[],
  partSize = CHARGE_PART_SIZE,
  newParts = false,
): Promise<ChargeDayRecord[]> {
  const days = [...byDay(records)]
  const stored = await tables.chargeDays.bulkGet(days.map(([day]): DayKey => [connectionId, day]))
  const rows = days.map(([day], i) => stored[i] ?? emptyDay(connectionId, day))
  // The parts to read: the last of each day, and those holding a charge this write replaces; every part
  // of a day whose row lacks the compact columns, which are filled from them.
  const wanted = new Map<string, PartKey>()
  const want = (day: number, part: number) => wanted.set(`${day}:${part}`, [connectionId, day, part])
  days.forEach(([day, charges], i) => {
    const row = rows[i] as ChargeDayRecord
    if (!isCompact(row)) for (const part of new Set(row.parts)) want(day, part)
    if (row.parts.length > 0 && !newParts) want(day, lastPartOf(row))
    row.ids.forEach((id, j) => {
      if (charges.has(id)) want(day, row.parts[j] as number)
    })
  })
  const read = await tables.chargeParts.bulkGet([...wanted.values()])
  const parts = new Map<string, ChargePartRecord>()
  for (const p of read) if (p) parts.set(`${p.day}:${p.part}`, p)
  const written = new Set<ChargePartRecord>()
  days.forEach(([, charges], i) => {
    for (const p of fileDay(rows[i] as ChargeDayRecord, charges, parts, partSize, newParts)) written.add(p)
  })
  await tables.chargeParts.bulkPut([...written].map(withLedgerKeys))
  await tables.chargeDays.bulkPut(rows)
  return rows
}
