/**
 * The four list operations' pages: which list a path names, its query checked, the cursor found in that
 * list, one page of items as the shape serves them, and the page's body (`total_hits`, `next_cursor` as
 * README.md says for each shape).
 */
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
    const parsed: ParseResult<HistoryEntry> = parseHistoryQuery(params)
    if (!parsed.ok) return { ok: false, errors: parsed.errors }
    const { query } = parsed
    let after: HistoryEntry | undefined
    if (query.paging.cursor) {
      after = data.findHistory(query.paging.cursor)
      if (!after || (storeId && after.storeId !== storeId))
        return { ok: false, errors: [{ field: 'cursor', reason: 'no record with this id in this list' }] }
    }
    const page = data.page({
      list: data.historyList(storeId),
      window: query.window,
      ...(query.match ? { match: query.match } : {}),
      countKey: `h|${storeId ?? '*'}|${query.key}`,
      limit: query.paging.limit,
      direction: query.paging.direction,
      ...(after ? { after } : {}),
    })
    items = page.items.map((e) => historyItem(e, names, shape))
    const last = page.items[page.items.length - 1]
    if (shape === 'varied' && page.hasMore && last) nextCursor = last.id
    hasMore = page.hasMore
    totalHits = page.totalHits
  } else {
    const parsed: ParseResult<SandboxCharge> = parseChargeQuery(params)
    if (!parsed.ok) return { ok: false, errors: parsed.errors }
    const { query } = parsed
    let after: SandboxCharge | undefined
    if (query.paging.cursor) {
      after = data.findCharge(query.paging.cursor)
      if (!after || (storeId && after.storeId !== storeId))
        return { ok: false, errors: [{ field: 'cursor', reason: 'no charge with this id in this list' }] }
    }
    const page = data.page({
      list: data.chargeList(storeId),
      window: query.window,
      ...(query.match ? { match: query.match } : {}),
      countKey: `c|${storeId ?? '*'}|${query.key}`,
      limit: query.paging.limit,
      direction: query.paging.direction,
      ...(after ? { after } : {}),
    })
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
