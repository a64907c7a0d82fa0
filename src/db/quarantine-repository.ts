/**
 * Items that sync set aside (schema v8, `quarantine`): an item whose accounting core was invalid, or that
 * was dated outside the window its request asked for, is kept here with its payload, the reason and the
 * request it came from, instead of stalling its page (DESIGN §4). It stays until a later answer for the
 * same item validates: a sync page that brings it, or "fetch again". While any is placed in a month, that
 * month is not complete (`quarantineCountForMonth`).
 */
import type { QuarantinedItem } from '../../electron/shared/contract/api'
import { periodRange } from '../domain/periods'
import type { ClosebookDb } from './database'
import type { SyncResource } from '../domain/records'
import { connectionBounds } from './repository-helpers'

export interface QuarantineRecord {
  connectionId: string
  /** One row per item: `resource|type|itemId`, or `resource|#hash` of the payload when it has no id. */
  id: string
  resource: SyncResource
  itemId: string | null
  itemType: string | null
  storeId: string | null
  kind: QuarantinedItem['kind']
  reason: string
  issues: { path: string; message: string }[]
  /** `GET <path>?<query>` that returned it (no host, no credentials). */
  request: string
  /**
   * Where the item lies in time, epoch ms: its own created_on when valid (from = to), else the window its
   * request asked for (either end null when open). An item placed nowhere counts for every month.
   */
  from: number | null
  to: number | null
  createdOn: string | null
  raw: unknown
  firstSeenAt: number
  lastSeenAt: number
}

/** FNV-1a over the payload's JSON: a stable name for an item without a readable id. */
function payloadHash(raw: unknown): string {
  let text: string
  try {
    text = JSON.stringify(raw) ?? ''
  } catch {
    text = String(raw)
  }
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, '0')
}

/** The row id of an item: the same item seen again (the next sync, a re-fetch) replaces its row. */
export function quarantineIdOf(item: {
  resource: SyncResource
  itemType: string | null
  itemId: string | null
  raw: unknown
}): string {
  return item.itemId !== null
    ? `${item.resource}|${item.itemType ?? ''}|${item.itemId.toLowerCase()}`
    : `${item.resource}|#${payloadHash(item.raw)}`
}

/** The row id a stored record would have had if it had been quarantined. */
export function quarantineIdOfRecord(
  resource: SyncResource,
  itemType: string | null,
  itemId: string,
): string {
  return `${resource}|${itemType ?? ''}|${itemId.toLowerCase()}`
}

function epoch(iso: string | null): number | null {
  if (iso === null) return null
  const ms = Date.parse(iso)
  return Number.isFinite(ms) ? ms : null
}

export function quarantineRecordOf(
  connectionId: string,
  item: QuarantinedItem,
  at: number,
): QuarantineRecord {
  const created = epoch(item.createdOn)
  return {
    connectionId,
    id: quarantineIdOf(item),
    resource: item.resource,
    itemId: item.itemId,
    itemType: item.itemType,
    storeId: item.storeId,
    kind: item.kind,
    reason: item.reason,
    issues: item.issues,
    request: item.request,
    from: created ?? epoch(item.requestedFrom),
    to: created ?? epoch(item.requestedTo),
    createdOn: item.createdOn,
    raw: item.raw,
    firstSeenAt: at,
    lastSeenAt: at,
  }
}

/** Does the item's place in time [from, to] meet [rangeFrom, rangeTo)? Open ends meet everything. */
function overlaps(row: Pick<QuarantineRecord, 'from' | 'to'>, rangeFrom: number, rangeTo: number): boolean {
  return (row.from === null || row.from < rangeTo) && (row.to === null || row.to >= rangeFrom)
}

export class QuarantineRepository {
  constructor(private readonly db: ClosebookDb) {}

  /** Every quarantined item of a connection, newest first (a connection has few; no index is needed). */
  async list(connectionId: string): Promise<QuarantineRecord[]> {
    const rows = await this.db.quarantine
      .where('[connectionId+id]')
      .between(...connectionBounds(connectionId))
      .toArray()
    return rows.sort((a, b) => b.lastSeenAt - a.lastSeenAt || (a.id < b.id ? -1 : 1))
  }

  async count(connectionId: string): Promise<number> {
    return this.db.quarantine
      .where('[connectionId+id]')
      .between(...connectionBounds(connectionId))
      .count()
  }

  async get(connectionId: string, id: string): Promise<QuarantineRecord | undefined> {
    return this.db.quarantine.get([connectionId, id])
  }

  /**
   * Files the items of one page, keeping when each was first seen. Runs inside the caller's transaction
   * when there is one (the page's records and checkpoint go in the same one).
   */
  async putMany(connectionId: string, items: QuarantinedItem[], at: number): Promise<void> {
    if (items.length === 0) return
    const rows = items.map((item) => quarantineRecordOf(connectionId, item, at))
    const old = await this.db.quarantine.bulkGet(rows.map((r): [string, string] => [connectionId, r.id]))
    rows.forEach((row, i) => {
      const before = old[i]
      if (before) row.firstSeenAt = before.firstSeenAt
    })
    await this.db.quarantine.bulkPut(rows)
  }

  /** Releases the rows of items that now validated; returns how many there were. */
  async release(connectionId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0
    const keys = ids.map((id): [string, string] => [connectionId, id])
    const found = (await this.db.quarantine.bulkGet(keys)).filter((r) => r !== undefined).length
    if (found > 0) await this.db.quarantine.bulkDelete(keys)
    return found
  }

  /** Items whose place in time meets [from, to), epoch ms; items placed nowhere count everywhere. */
  async inRange(connectionId: string, from: number, to: number): Promise<QuarantineRecord[]> {
    return (await this.list(connectionId)).filter((r) => overlaps(r, from, to))
  }

  /**
   * Quarantined items that may belong to `month` (`YYYY-MM`, in the connection's accounting time zone,
   * read from the cache unless the caller knows it; UTC when the cache does not know the connection):
   * while there is one, the month is not complete and cannot be closed clean.
   */
  async inMonth(connectionId: string, month: string, timeZone?: string): Promise<QuarantineRecord[]> {
    const zone = timeZone ?? (await this.db.connections.get(connectionId))?.timeZone ?? 'UTC'
    const range = periodRange(month, zone)
    return this.inRange(connectionId, range.from, range.to)
  }

  async countForMonth(connectionId: string, month: string, timeZone?: string): Promise<number> {
    return (await this.inMonth(connectionId, month, timeZone)).length
  }
}

/**
 * How many quarantined items may belong to `month` (`QuarantineRepository.inMonth`). The month-end close
 * calls this: more than zero means the month is not complete.
 */
export async function quarantineCountForMonth(
  db: ClosebookDb,
  connectionId: string,
  month: string,
): Promise<number> {
  return new QuarantineRepository(db).countForMonth(connectionId, month)
}
