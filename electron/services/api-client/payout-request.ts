/**
 * Payout requests (real-service.md, "Payouts"): the one URL each query is sent to, under the connection's
 * base URL only (ids are UUIDs, path segments fixed strings), its rate-limit keys, and the answer
 * validated like a list page: the envelope strictly, each item against its accounting core, bad items set
 * aside with their reason. A single item (`/transfers/{id}`, `/ledgers/{id}`, `/me`) is a page of one.
 * Bank account numbers are masked here, so a full number never leaves main.
 */
import type { z } from 'zod'
import type { PayoutQuarantined } from '../../shared/contract/payouts'
import { DesktopApiError, fieldIssuesFromZod, invalidArgument } from '../../shared/errors'
import { rawListEnvelopeSchema, uuidSchema } from '../../shared/payment-api'
import {
  maskAccountNumber,
  payoutItemSchemas,
  payoutQuerySchema,
  SINGLE_PAYOUT_KINDS,
  type PayoutKind,
  type PayoutQuery,
} from '../../shared/payouts-api'
import { MAX_PAGE_LIMIT } from '../../shared/payment-api'
import type { LimitKeys } from '../scheduler/rate-limiter'
import { describe, issuesOf, keptPayload } from './page-validation'

export interface BuiltPayoutRequest extends Omit<LimitKeys, 'namespace'> {
  kind: PayoutKind
  url: string
  jsonContentType: false
  /** Items a list page may hold: the `limit` asked for, else the most the service serves. More refuse it. */
  limit: number
  /** `GET <path>?<query>`: no host, and credentials are headers. */
  display: string
}

export interface ValidatedPayoutPage {
  kind: PayoutKind
  items: Record<string, unknown>[]
  hasMore: boolean
  totalHits?: number
  quarantined: PayoutQuarantined[]
  cursorAfter?: string
}

export function validatePayoutQuery(query: unknown): PayoutQuery {
  const parsed = payoutQuerySchema.safeParse(query)
  if (!parsed.success) throw invalidArgument('payout request', fieldIssuesFromZod(parsed.error))
  return parsed.data
}

/** The path under the base URL and its Route template (per resource path, ids as `{id}`). */
function pathOf(query: PayoutQuery): { path: string; template: string } {
  const id = (value: string) => encodeURIComponent(value.toLowerCase())
  switch (query.kind) {
    case 'transfers':
      return { path: '/transfers', template: '/transfers' }
    case 'transfer':
      return { path: `/transfers/${id(query.transferId)}`, template: '/transfers/{id}' }
    case 'transfer_status_changes':
      return {
        path: `/transfers/${id(query.transferId)}/status_changes`,
        template: '/transfers/{id}/status_changes',
      }
    case 'transfer_ledgers':
      return { path: `/transfers/${id(query.transferId)}/ledgers`, template: '/transfers/{id}/ledgers' }
    case 'ledger':
      return { path: `/ledgers/${id(query.ledgerId)}`, template: '/ledgers/{id}' }
    case 'bank_accounts':
      return { path: '/bank_accounts', template: '/bank_accounts' }
    case 'me':
      return { path: '/me', template: '/me' }
  }
}

function searchOf(query: PayoutQuery): string {
  const values: Record<string, unknown> = {
    ...('filters' in query ? query.filters : {}),
    ...('paging' in query ? query.paging : {}),
  }
  const params = Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]): [string, string] => [k, String(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return new URLSearchParams(params).toString()
}

export function buildPayoutRequest(baseUrl: string, rawQuery: unknown): BuiltPayoutRequest {
  const query = validatePayoutQuery(rawQuery)
  const base = new URL(baseUrl)
  const basePath = base.pathname.replace(/\/+$/, '')
  const { path: resourcePath, template } = pathOf(query)
  const path = `${basePath}${resourcePath}`
  const search = searchOf(query)
  const url = new URL(`${base.origin}${path}${search ? `?${search}` : ''}`)
  if (url.origin !== base.origin || url.pathname !== path)
    throw new DesktopApiError('invalid_argument', "The request would leave the connection's base URL.")
  return {
    kind: query.kind,
    url: url.href,
    route: `GET ${basePath}${template}`,
    exact: `GET ${path}${search ? `?${search}` : ''}`,
    jsonContentType: false,
    limit: ('paging' in query ? query.paging?.limit : undefined) ?? MAX_PAGE_LIMIT,
    display: `GET ${url.pathname}${url.search}`,
  }
}

function idOf(item: unknown): string | null {
  if (typeof item !== 'object' || item === null) return null
  const id = (item as Record<string, unknown>)['id']
  return typeof id === 'string' && id.length > 0 && id.length <= 100 ? id : null
}

function masked(kind: PayoutKind, item: Record<string, unknown>): Record<string, unknown> {
  if (kind !== 'bank_accounts' || typeof item['account_number'] !== 'string') return item
  return { ...item, account_number: maskAccountNumber(item['account_number']) }
}

/** The page, or the envelope's zod error when the envelope itself is broken. */
export function validatePayoutPage(
  request: Pick<BuiltPayoutRequest, 'kind' | 'display'>,
  json: unknown,
): { ok: true; value: ValidatedPayoutPage } | { ok: false; error: z.core.$ZodError } {
  const { kind } = request
  let rawItems: unknown[]
  let hasMore = false
  let totalHits: number | undefined
  if (SINGLE_PAYOUT_KINDS.has(kind)) {
    rawItems = [json]
  } else {
    const envelope = rawListEnvelopeSchema.safeParse(json)
    if (!envelope.success) return { ok: false, error: envelope.error }
    rawItems = envelope.data.items
    hasMore = envelope.data.has_more
    totalHits = envelope.data.total_hits
  }
  const schema = payoutItemSchemas[kind]
  const items: Record<string, unknown>[] = []
  const quarantined: PayoutQuarantined[] = []
  for (const raw of rawItems) {
    const parsed = schema.safeParse(raw)
    if (parsed.success) {
      items.push(masked(kind, parsed.data))
      continue
    }
    const issues = issuesOf(parsed.error)
    quarantined.push({
      kind,
      itemId: idOf(raw),
      reason: describe(issues),
      issues,
      request: request.display,
      raw:
        typeof raw === 'object' && raw !== null
          ? keptPayload(masked(kind, raw as Record<string, unknown>))
          : raw,
    })
  }
  let cursorAfter: string | undefined
  for (let i = rawItems.length - 1; cursorAfter === undefined && i >= 0; i--) {
    const id = idOf(rawItems[i])
    if (id !== null && uuidSchema.safeParse(id).success) cursorAfter = id
  }
  return {
    ok: true,
    value: {
      kind,
      items,
      hasMore,
      ...(totalHits !== undefined ? { totalHits } : {}),
      quarantined,
      ...(cursorAfter !== undefined ? { cursorAfter } : {}),
    },
  }
}
