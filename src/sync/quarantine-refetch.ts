/**
 * "Fetch again" for a quarantined item: one list request that can only return that item (history: a
 * search by its id; charges, whose list has no id filter: the one second it was created in, or the window
 * its request asked for), then the item is stored and released if it now validates, or its row updated
 * with the new reason if it still does not. An item without a readable id is fetched again by repeating
 * the request it came from: when that page holds no unreadable item like it any more, its items are
 * stored and the row released.
 */
import { listPageArgsSchema, type ListPageArgs } from '../../electron/shared/contract/api'
import { uuidSchema } from '../../electron/shared/payment-api'
import { quarantineIdOf, type QuarantineRecord } from '../db/quarantine-repository'
import type { CacheSyncStore } from './cache-sync-store'
import type { SyncApiPort } from './sync-engine'

export type RefetchOutcome =
  | { outcome: 'released' }
  | { outcome: 'still_quarantined'; reason: string }
  /** The service did not return the item (deleted, or outside what one request can find). */
  | { outcome: 'not_found' }
  /** The item has no readable id (or, for a charge, no time): there is nothing to ask for. */
  | { outcome: 'no_id' }

const asUuid = (value: string | null | undefined): string | undefined =>
  value != null && uuidSchema.safeParse(value).success ? value.toLowerCase() : undefined

/** The store the item came from: its own store_id, else the store path of its request. */
function storeOf(row: QuarantineRecord): string | undefined {
  return asUuid(row.storeId) ?? asUuid(/\/stores\/([0-9A-Fa-f-]{36})\//.exec(row.request)?.[1])
}

/** The single request that finds the item again; null when there is none. */
export function refetchQuery(row: QuarantineRecord): Omit<ListPageArgs, 'connectionId'> | null {
  const itemId = asUuid(row.itemId)
  if (!itemId) return null
  const storeId = storeOf(row)
  const common = { priority: 'interactive' as const, ...(storeId ? { storeId } : {}) }
  if (row.resource === 'transaction_history')
    return { resource: 'transaction_history', ...common, filters: { search: itemId }, paging: { limit: 100 } }
  const created = row.createdOn === null ? Number.NaN : Date.parse(row.createdOn)
  const from = Number.isFinite(created) ? Math.floor(created / 1000) * 1000 : row.from
  const to = Number.isFinite(created) ? Math.floor(created / 1000) * 1000 + 1000 : row.to
  if (from === null || to === null || !(from < to)) return null
  return {
    resource: 'charges',
    ...common,
    filters: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
    paging: { limit: 100, cursor_direction: 'asc' },
  }
}

const HISTORY_FILTERS = ['from', 'to', 'search', 'type', 'status', 'mode'] as const
const CHARGE_FILTERS = [
  'from',
  'to',
  'mode',
  'currency',
  'email',
  'metadata',
  'transaction_token_id',
] as const

/** The list request a quarantined item came from, read back from its `GET <path>?<query>`. */
export function sourceQuery(row: QuarantineRecord): ListPageArgs | null {
  const match = /^GET (\S+)$/.exec(row.request)
  if (!match?.[1]) return null
  const url = new URL(match[1], 'http://source.invalid')
  const path = /(?:\/stores\/([0-9A-Fa-f-]{36}))?\/(transaction_history|charges)$/.exec(url.pathname)
  if (!path) return null
  const q = url.searchParams
  const pick = (keys: readonly string[]) =>
    Object.fromEntries(keys.flatMap((k) => (q.has(k) ? [[k, q.get(k) as string]] : [])))
  const limit = Number(q.get('limit') ?? '100')
  const direction = q.get('cursor_direction')
  const paging = {
    limit: Number.isInteger(limit) && limit > 0 ? Math.min(limit, 100) : 100,
    ...(q.has('cursor') ? { cursor: q.get('cursor') as string } : {}),
    ...(direction === 'asc' || direction === 'desc' ? { cursor_direction: direction } : {}),
  }
  const parsed = listPageArgsSchema.safeParse({
    connectionId: row.connectionId,
    resource: path[2],
    priority: 'interactive',
    ...(path[1] ? { storeId: path[1].toLowerCase() } : {}),
    filters: pick(path[2] === 'charges' ? CHARGE_FILTERS : HISTORY_FILTERS),
    paging,
  })
  return parsed.success ? parsed.data : null
}

/** An item without an id: the page it came from, asked for again. */
async function refetchSourcePage(
  api: Pick<SyncApiPort, 'listPage'>,
  store: CacheSyncStore,
  row: QuarantineRecord,
  now: () => number,
): Promise<RefetchOutcome> {
  const query = sourceQuery(row)
  if (!query) return { outcome: 'no_id' }
  const page = await api.listPage(query)
  const same = (page.quarantined ?? []).find((q) => quarantineIdOf(q) === row.id)
  if (same) {
    await store.quarantine.putMany(row.connectionId, [same], now())
    return { outcome: 'still_quarantined', reason: same.reason }
  }
  // The page is whole again: whatever the unreadable item was, it is among these (or gone).
  await store.putRefetched(
    row.connectionId,
    page.resource === 'charges'
      ? { resource: 'charges', items: page.items }
      : { resource: 'transaction_history', items: page.items },
    row.id,
    now(),
  )
  return { outcome: 'released' }
}

export async function fetchQuarantinedAgain(
  api: Pick<SyncApiPort, 'listPage'>,
  store: CacheSyncStore,
  row: QuarantineRecord,
  now: () => number = Date.now,
): Promise<RefetchOutcome> {
  const query = refetchQuery(row)
  if (!query) return refetchSourcePage(api, store, row, now)
  const page = await api.listPage({ ...query, connectionId: row.connectionId })
  const itemId = (row.itemId ?? '').toLowerCase()
  const sameType = (type: string) => row.itemType === null || row.itemType === type
  if (page.resource === 'transaction_history') {
    const items = page.items.filter((i) => i.resource_id.toLowerCase() === itemId && sameType(i.type))
    if (items.length > 0) {
      await store.putRefetched(row.connectionId, { resource: page.resource, items }, row.id, now())
      return { outcome: 'released' }
    }
  } else {
    const items = page.items.filter((i) => i.id.toLowerCase() === itemId)
    if (items.length > 0) {
      await store.putRefetched(row.connectionId, { resource: page.resource, items }, row.id, now())
      return { outcome: 'released' }
    }
  }
  const again = (page.quarantined ?? []).filter(
    (q) => q.itemId?.toLowerCase() === itemId && (q.itemType === null || sameType(q.itemType)),
  )
  const first = again[0]
  if (first) {
    await store.quarantine.putMany(row.connectionId, [first], now())
    return { outcome: 'still_quarantined', reason: first.reason }
  }
  return { outcome: 'not_found' }
}
