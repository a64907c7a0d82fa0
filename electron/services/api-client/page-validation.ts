/**
 * A list page, validated the way DESIGN §4 asks: the envelope strictly (a broken one refuses the page
 * whole), then each item on its own against its accounting core. A bad item, or one dated outside the
 * window the request asked for, is quarantined with its payload, the fields at fault and the request it
 * came from; the good ones go on, and the page still says where the next page starts.
 */
import type { z } from 'zod'
import type { QuarantinedItem, Resource } from '../../shared/contract/api'
import {
  chargeItemSchema,
  historyItemSchema,
  isoTimestampSchema,
  rawListEnvelopeSchema,
  uuidSchema,
  type ChargeItem,
  type HistoryItem,
} from '../../shared/payment-api'
import { recordParsed } from '../../shared/parsed-items'
import { capItemText, MAX_STORED_ITEM } from '../../shared/stored-text'
import { formatPath } from './failures'

/** The time window a list request asked for, as epoch ms (the history list's `to` is inclusive). */
export interface RequestedWindow {
  from?: number
  to?: number
  toInclusive: boolean
}

/** What the items are checked against, besides their schema. */
export interface PageSource {
  /** `GET <path>?<query>`: shown with a quarantined item; never a host or a credential. */
  request: string
  window?: RequestedWindow
}

export type ValidatedPage =
  | {
      resource: 'transaction_history'
      items: HistoryItem[]
      hasMore: boolean
      totalHits?: number
      quarantined: QuarantinedItem[]
      cursorAfter?: string
    }
  | {
      resource: 'charges'
      items: ChargeItem[]
      hasMore: boolean
      totalHits?: number
      quarantined: QuarantinedItem[]
      cursorAfter?: string
    }

/** A quarantined payload larger than this is kept as its size only: an item is a few kilobytes. */
export const MAX_QUARANTINED_PAYLOAD = 256 * 1024

function field(item: unknown, name: string): unknown {
  return typeof item === 'object' && item !== null && !Array.isArray(item)
    ? (item as Record<string, unknown>)[name]
    : undefined
}

function readableText(value: unknown, max = 100): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null
}

function isUuid(value: unknown): value is string {
  return uuidSchema.safeParse(value).success
}

/** Top-level fields of the accounting core: too long, they quarantine the item; they are never cut. */
const CORE_FIELDS: Record<Resource, ReadonlySet<string>> = {
  transaction_history: new Set([
    'store_id',
    'resource_id',
    'charge_id',
    'currency',
    'type',
    'status',
    'created_on',
    'mode',
  ]),
  charges: new Set([
    'id',
    'store_id',
    'requested_currency',
    'charged_currency',
    'fee_currency',
    'status',
    'created_on',
    'mode',
  ]),
}

/** The id the service pages by: `resource_id` for history, `id` for charges (real-service.md). */
export function pagingIdOf(resource: Resource, item: unknown): unknown {
  return field(item, resource === 'charges' ? 'id' : 'resource_id')
}

export function keptPayload(item: unknown): unknown {
  let size: number
  try {
    size = JSON.stringify(item).length
  } catch {
    return { unreadable: true }
  }
  return size > MAX_QUARANTINED_PAYLOAD ? { omitted: 'payload too large', size } : item
}

export function describe(issues: { path: string; message: string }[]): string {
  const list = issues
    .slice(0, 5)
    .map((i) => `${i.path}: ${i.message}`)
    .join('; ')
  return issues.length > 5 ? `${list} (and ${issues.length - 5} more)` : list
}

export function issuesOf(error: z.core.$ZodError): { path: string; message: string }[] {
  return error.issues.slice(0, 20).map((issue) => ({
    path: formatPath(issue.path),
    message: issue.message.replace(/^Invalid input: /, ''),
  }))
}

function outsideWindow(createdOn: string, window: RequestedWindow | undefined): string | null {
  if (!window) return null
  const at = Date.parse(createdOn)
  if (window.from !== undefined && at < window.from)
    return `created_on: before the requested window (from ${new Date(window.from).toISOString()})`
  if (window.to !== undefined && (window.toInclusive ? at > window.to : at >= window.to))
    return `created_on: after the requested window (to ${new Date(window.to).toISOString()}${
      window.toInclusive ? ', inclusive' : ''
    })`
  return null
}

function quarantine(
  resource: Resource,
  item: unknown,
  source: PageSource,
  kind: QuarantinedItem['kind'],
  issues: { path: string; message: string }[],
): QuarantinedItem {
  const created = field(item, 'created_on')
  const window = source.window
  return {
    resource,
    itemId: readableText(pagingIdOf(resource, item)),
    itemType: resource === 'transaction_history' ? readableText(field(item, 'type'), 32) : null,
    storeId: readableText(field(item, 'store_id')),
    createdOn: isoTimestampSchema.safeParse(created).success ? (created as string) : null,
    kind,
    reason: describe(issues),
    issues,
    request: source.request,
    requestedFrom: window?.from !== undefined ? new Date(window.from).toISOString() : null,
    requestedTo: window?.to !== undefined ? new Date(window.to).toISOString() : null,
    raw: keptPayload(item),
  }
}

/**
 * The page, or the envelope's zod error when the envelope itself is broken (items not a list, has_more
 * missing…): then nothing of it can be trusted, not even where it ends.
 */
export function validatePage(
  resource: Resource,
  json: unknown,
  source: PageSource,
): { ok: true; page: ValidatedPage } | { ok: false; error: z.core.$ZodError } {
  const envelope = rawListEnvelopeSchema.safeParse(json)
  if (!envelope.success) return { ok: false, error: envelope.error }
  const { items: rawItems, has_more: hasMore, total_hits: totalHits, next_cursor: nextCursor } = envelope.data
  const quarantined: QuarantinedItem[] = []
  const schema = resource === 'charges' ? chargeItemSchema : historyItemSchema
  const good: (HistoryItem | ChargeItem)[] = []
  for (const raw of rawItems) {
    // Free text is cut to what is stored before anything else reads the item (stored-text.ts).
    const capped = capItemText(raw, CORE_FIELDS[resource])
    const item = capped.item
    if (capped.tooLong.length > 0) {
      quarantined.push(quarantine(resource, item, source, 'invalid', capped.tooLong))
      continue
    }
    if (capped.size > MAX_STORED_ITEM) {
      const issue = {
        path: '(item)',
        message: `about ${capped.size} characters once its text is cut, more than the ${MAX_STORED_ITEM} kept`,
      }
      quarantined.push(quarantine(resource, item, source, 'invalid', [issue]))
      continue
    }
    const parsed = schema.safeParse(item)
    if (!parsed.success) {
      quarantined.push(quarantine(resource, item, source, 'invalid', issuesOf(parsed.error)))
      continue
    }
    const outside = outsideWindow(parsed.data.created_on, source.window)
    if (outside) {
      const [path = 'created_on', message = outside] = outside.split(/: (.*)/s)
      quarantined.push(quarantine(resource, item, source, 'outside_window', [{ path, message }]))
      continue
    }
    good.push(parsed.data)
  }
  // The cursor is the last item's id whatever became of the item, so a quarantined item is passed, not
  // fetched again and again; the service's own next_cursor wins when it sends a usable one.
  let cursorAfter: string | undefined = isUuid(nextCursor) ? nextCursor : undefined
  for (let i = rawItems.length - 1; cursorAfter === undefined && i >= 0; i--) {
    const id = pagingIdOf(resource, rawItems[i])
    if (isUuid(id)) cursorAfter = id
  }
  const meta = {
    hasMore,
    ...(totalHits !== undefined ? { totalHits } : {}),
    quarantined,
    ...(cursorAfter !== undefined ? { cursorAfter } : {}),
  }
  // Every item of `good` is its schema's output: the result check need not parse them again.
  recordParsed(good)
  return {
    ok: true,
    page:
      resource === 'charges'
        ? { resource, items: good as ChargeItem[], ...meta }
        : { resource, items: good as HistoryItem[], ...meta },
  }
}
