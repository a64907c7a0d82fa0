/**
 * The four list operations' pages: which list a path names, its query checked, the cursor found in that
 * list, one page of items as the shape serves them, and the page's body (`total_hits`, `next_cursor` as
 * README.md says for each shape).
 */
import type { Dataset, Page } from './dataset'
import type { HistoryEntry, SandboxCharge } from './model'
import { parseChargeQuery, parseHistoryQuery, type FieldError, type ParseResult } from './query'
import { chargeItem, historyItem } from './serialize'
import type { SandboxContext } from './server-context'

export interface RouteMatch {
  resource: 'transaction_history' | 'charges'
  storeId?: string
  template: string
}

const STORE_PATH = /^\/stores\/([^/]+)\/(transaction_history|charges)$/

export function matchRoute(path: string): RouteMatch | undefined {
  if (path === '/transaction_history' || path === '/charges')
    return { resource: path.slice(1) as RouteMatch['resource'], template: path }
  const m = STORE_PATH.exec(path)
  if (!m) return undefined
  return {
    resource: m[2] as RouteMatch['resource'],
    storeId: decodeURIComponent(m[1] as string),
    template: `/stores/{storeId}/${m[2]}`,
  }
}

export type ListPage =
  | { ok: true; items: Record<string, unknown>[]; body: Record<string, unknown> }
  | { ok: false; errors: FieldError[] }

/** How one list is read: its query, its items, how a cursor is found in it, what its cursor names. */
interface ListReader<T extends { id: string; createdUs: number; storeId: string }> {
  parse: (params: URLSearchParams) => ParseResult<T>
  list: (storeId: string | undefined) => readonly T[]
  find: (cursor: string) => T | undefined
  /** The memo key's prefix of the list's counts. */
  countPrefix: string
  /** What the cursor names, in the 400's reason. */
  what: string
}

/** One page of a list, or the 400's fields: the cursor must name an item of this list (and store). */
function readPage<T extends { id: string; createdUs: number; storeId: string }>(
  ctx: SandboxContext,
  reader: ListReader<T>,
  params: URLSearchParams,
  storeId: string | undefined,
): { ok: true; page: Page<T> } | { ok: false; errors: FieldError[] } {
  const parsed = reader.parse(params)
  if (!parsed.ok) return { ok: false, errors: parsed.errors }
  const { query } = parsed
  let after: T | undefined
  if (query.paging.cursor) {
    after = reader.find(query.paging.cursor)
    if (!after || (storeId && after.storeId !== storeId))
      return {
        ok: false,
        errors: [{ field: 'cursor', reason: `no ${reader.what} with this id in this list` }],
      }
  }
  const page = ctx.data.page({
    list: reader.list(storeId),
    window: query.window,
    ...(query.match ? { match: query.match } : {}),
    countKey: `${reader.countPrefix}|${storeId ?? '*'}|${query.key}`,
    limit: query.paging.limit,
    direction: query.paging.direction,
    ...(after ? { after } : {}),
  })
  return { ok: true, page }
}

const historyReader = (data: Dataset): ListReader<HistoryEntry> => ({
  parse: parseHistoryQuery,
  list: (id) => data.historyList(id),
  find: (cursor) => data.findHistory(cursor),
  countPrefix: 'h',
  what: 'record',
})

const chargeReader = (data: Dataset): ListReader<SandboxCharge> => ({
  parse: parseChargeQuery,
  list: (id) => data.chargeList(id),
  find: (cursor) => data.findCharge(cursor),
  countPrefix: 'c',
  what: 'charge',
})

/** One page of the list `route` names, for one store (lower-case id) or all; errors: a 400's fields. */
export function listPage(
  ctx: SandboxContext,
  route: RouteMatch,
  params: URLSearchParams,
  storeId: string | undefined,
): ListPage {
  const { data, names, shape } = ctx
  let items: Record<string, unknown>[]
  let hasMore: boolean
  let totalHits: number
  let nextCursor: string | undefined
  if (route.resource === 'transaction_history') {
    const read = readPage(ctx, historyReader(data), params, storeId)
    if (!read.ok) return read
    const { page } = read
    items = page.items.map((e) => historyItem(e, names, shape))
    const last = page.items[page.items.length - 1]
    if (shape === 'varied' && page.hasMore && last) nextCursor = last.id
    hasMore = page.hasMore
    totalHits = page.totalHits
  } else {
    const read = readPage(ctx, chargeReader(data), params, storeId)
    if (!read.ok) return read
    const { page } = read
    items = page.items.map((c) => ctx.withLedgerId(chargeItem(c, names, shape), c))
    hasMore = page.hasMore
    totalHits = page.totalHits
  }

  // Varied: `total_hits` only when no cursor is given (node SDK `CRUDAOSItemsResponse`).
  const body =
    shape === 'seed'
      ? { items, has_more: hasMore, total_hits: totalHits }
      : {
          items,
          has_more: hasMore,
          ...(params.has('cursor') ? {} : { total_hits: totalHits }),
          ...(nextCursor ? { next_cursor: nextCursor } : {}),
        }
  return { ok: true, items, body }
}
