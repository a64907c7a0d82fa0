/**
 * Turns a list query (seed §4) into the one URL it is sent to, under the connection's base URL only.
 * The query is validated first (the field at fault is named), the store id is a UUID, path segments are
 * fixed strings, and the result is checked to stay under the base URL: nothing the renderer sends can
 * point a request, and its Authorization header, at another host or path.
 */
import { listQuerySchema, type ListQuery, type Resource } from '../../shared/contract/api'
import { DesktopApiError, fieldIssuesFromZod, invalidArgument } from '../../shared/errors'
import { MAX_PAGE_LIMIT } from '../../shared/payment-api'
import type { LimitKeys } from '../scheduler/rate-limiter'
import type { RequestedWindow } from './page-validation'

export interface BuiltRequest extends Omit<LimitKeys, 'namespace'> {
  resource: Resource
  url: string
  /** History requests send `Content-type: application/json` too (seed §4). */
  jsonContentType: boolean
  /** `GET <path>?<query>`, as shown with a quarantined item: no host, and credentials are headers. */
  display: string
  /** The window the filters ask for; items dated outside it are quarantined. */
  window?: RequestedWindow
  /** Items a page may hold: the `limit` asked for, else the most the service serves. More refuse the page. */
  limit: number
}

/** History: from ≥, to ≤; charges: from ≥, to < (seed §4.1, §4.2). */
function windowOf(query: ListQuery): RequestedWindow | undefined {
  const { from, to } = query.filters ?? {}
  if (from === undefined && to === undefined) return undefined
  return {
    ...(from !== undefined ? { from: Date.parse(from) } : {}),
    ...(to !== undefined ? { to: Date.parse(to) } : {}),
    toInclusive: query.resource === 'transaction_history',
  }
}

/** Query parameters in a fixed order, so the same query is always the same Exact path. */
function queryString(query: ListQuery): string {
  const params: [string, string][] = []
  for (const [key, value] of Object.entries({ ...query.filters, ...query.paging })) {
    if (value !== undefined) params.push([key, String(value)])
  }
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return new URLSearchParams(params).toString()
}

export function validateListQuery(query: unknown): ListQuery {
  const parsed = listQuerySchema.safeParse(query)
  if (!parsed.success) throw invalidArgument('list request', fieldIssuesFromZod(parsed.error))
  return parsed.data
}

export function buildListRequest(baseUrl: string, rawQuery: unknown): BuiltRequest {
  const query = validateListQuery(rawQuery)
  const base = new URL(baseUrl)
  const basePath = base.pathname.replace(/\/+$/, '')
  const resourcePath =
    query.storeId !== undefined
      ? `/stores/${encodeURIComponent(query.storeId.toLowerCase())}/${query.resource}`
      : `/${query.resource}`
  const path = `${basePath}${resourcePath}`
  const search = queryString(query)
  const url = new URL(`${base.origin}${path}${search ? `?${search}` : ''}`)
  if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/`) || url.pathname !== path) {
    throw new DesktopApiError('invalid_argument', "The request would leave the connection's base URL.")
  }
  // Route limits count per resource path, not per resource id (seed §8.2 sets Exact apart as the one that
  // includes ids), so every store's list shares one Route budget: the conservative reading.
  const route = `GET ${basePath}${query.storeId !== undefined ? `/stores/{storeId}/${query.resource}` : resourcePath}`
  const exact = `GET ${path}`
  const window = windowOf(query)
  return {
    resource: query.resource,
    url: url.href,
    route,
    exact: search ? `${exact}?${search}` : exact,
    jsonContentType: query.resource === 'transaction_history',
    display: `GET ${url.pathname}${url.search}`,
    ...(window ? { window } : {}),
    limit: query.paging?.limit ?? MAX_PAGE_LIMIT,
  }
}
