/**
 * Bounds on one partition's paging, so that no answer of the service can keep a sync going forever:
 *
 * - a cursor the partition has already been sent from is never asked for again (a server whose cursor
 *   cycles between ids, or stays put, is stopped at the first repeat);
 * - a partition asks for at most as many pages as its window can hold records, and the records it has
 *   received may never outnumber what the span between the oldest and newest of them can hold (see
 *   `recordsSpanCanHold`): a service that sends fresh ids at one timestamp forever is stopped after a few
 *   thousand records, whatever the window;
 * - a page that says there is more but brings nothing, or more records than the window's own
 *   `total_hits`, stops it too.
 *
 * Each stop names its reason and numbers, so the sync panel says in the display language what happened;
 * what was stored before stays stored, and the checkpoint stays at the last good page.
 */
import { MAX_PLAUSIBLE_TOTAL } from '../../electron/shared/payment-api'
import type { SyncCheckpoint } from '../domain/records'
import { endAfter, isOpenEnd, PAGE_LIMIT } from './plan'

/**
 * Records one second of a window can hold, at most: 20 times the service's charge-creation limit (3,000
 * a minute, seed §8.1), which leaves room for refunds and for bursts. A real window is far sparser.
 */
export const MAX_RECORDS_PER_SECOND = 1_000
/** Records allowed beyond the rate, so that a burst at one instant is never mistaken for a loop. */
export const BURST_SLACK_RECORDS = 10 * PAGE_LIMIT
/** An open window ends at the service's present: the local clock plus a day, for a clock that is behind. */
export const OPEN_END_SLACK_MS = 24 * 3_600_000

/** How many records [from, to] can hold at most (whole seconds, both ends counted, plus the burst slack). */
export function recordsSpanCanHold(from: number, to: number): number {
  const seconds = Math.max(0, Math.ceil((to - from) / 1000)) + 1
  return seconds * MAX_RECORDS_PER_SECOND + BURST_SLACK_RECORDS
}

/** The window's end as far as records can exist: an open end is the local present plus the slack. */
export function effectiveEnd(cp: Pick<SyncCheckpoint, 'to'>, now: number): number {
  return isOpenEnd(cp.to) ? endAfter(now) + OPEN_END_SLACK_MS : cp.to
}

/** Pages a window may take at most: every record it can hold, a full page at a time, and one more. */
export function maxPagesOf(cp: Pick<SyncCheckpoint, 'from' | 'to'>, now: number, limit = PAGE_LIMIT): number {
  return Math.ceil(recordsSpanCanHold(cp.from, effectiveEnd(cp, now)) / limit) + 1
}

/**
 * `total_hits` when it can be a count of this window's records, else undefined (unknown): negative, not a
 * whole number, beyond any merchant's history, or more than the window can hold.
 */
export function plausibleTotal(
  totalHits: number | undefined,
  cp: Pick<SyncCheckpoint, 'from' | 'to'>,
  now: number,
): number | undefined {
  if (totalHits === undefined || !Number.isSafeInteger(totalHits) || totalHits < 0) return undefined
  if (totalHits > MAX_PLAUSIBLE_TOTAL) return undefined
  return totalHits > recordsSpanCanHold(cp.from, effectiveEnd(cp, now)) ? undefined : totalHits
}

export type PagingStopReason =
  'empty_page' | 'cursor_stuck' | 'cursor_repeated' | 'more_than_total' | 'too_many_pages' | 'too_dense'

export interface PagingStop {
  reason: PagingStopReason
  /** The numbers the message names (i18n parameters). */
  params: Record<string, number>
  /** English, for logs and the error's details. */
  message: string
}

/** What the guard needs to know of a page the service answered. */
export interface PageSeen {
  hasMore: boolean
  /** Items received, stored or quarantined. */
  received: number
  /** The oldest and newest `created_on` among the page's valid items (epoch ms); NaN when none. */
  oldestCreated: number
  newestCreated: number
  totalHits: number | undefined
  /** Where the next page would start. */
  cursor: string | null
}

/**
 * Records received and the span of their dates. A partition keeps its own; the partitions of one list
 * and store (a partition and the parts split from it) also share one, since their windows lie in the
 * same range: a service that looks dense enough to be split then stops after a few thousand records in
 * all, not that many per part.
 */
export class SpanTally {
  received = 0
  private oldest = Number.POSITIVE_INFINITY
  private newest = Number.NEGATIVE_INFINITY

  add(page: Pick<PageSeen, 'received' | 'oldestCreated' | 'newestCreated'>): void {
    this.received += page.received
    if (Number.isFinite(page.oldestCreated)) this.oldest = Math.min(this.oldest, page.oldestCreated)
    if (Number.isFinite(page.newestCreated)) this.newest = Math.max(this.newest, page.newestCreated)
  }

  /**
   * Records the span between the oldest and newest dates seen can hold (those set aside count too, at
   * no time of their own), the newest bounded by `end`.
   */
  canHold(end: number): number {
    const newest = Math.min(this.newest, end)
    const oldest = Math.min(this.oldest, newest)
    return Number.isFinite(newest) ? recordsSpanCanHold(oldest, newest) : recordsSpanCanHold(0, 0)
  }
}

/** The guard of one partition for one run; kept across the times the partition gives its worker back. */
export class PagingGuard {
  private readonly cursors = new Set<string>()
  private pages = 0
  private readonly own = new SpanTally()
  private expected: number | undefined
  private readonly maxPages: number

  constructor(
    private readonly cp: Pick<SyncCheckpoint, 'from' | 'to' | 'cursor'>,
    private readonly now: number,
    private readonly shared = new SpanTally(),
    limit = PAGE_LIMIT,
  ) {
    this.maxPages = maxPagesOf(cp, now, limit)
    if (cp.cursor !== null) this.cursors.add(cp.cursor)
  }

  /** The page's `total_hits` as this partition trusts it (see `plausibleTotal`). */
  total(totalHits: number | undefined): number | undefined {
    return plausibleTotal(totalHits, this.cp, this.now)
  }

  /**
   * Checks a page before it is stored: null to store it and go on, or why the partition stops. A page
   * that ends the partition (`hasMore` false) is always stored.
   */
  check(page: PageSeen, askedFrom: string | null): PagingStop | null {
    const first = this.pages === 0 && askedFrom === null
    this.pages++
    this.own.add(page)
    this.shared.add(page)
    const total = this.total(page.totalHits)
    if (first && total !== undefined) this.expected = total
    if (!page.hasMore) return null
    if (page.received === 0) return stop('empty_page', {})
    if (page.cursor === null || page.cursor === askedFrom) return stop('cursor_stuck', {})
    if (this.cursors.has(page.cursor)) return stop('cursor_repeated', { pages: this.pages })
    this.cursors.add(page.cursor)
    const received = this.own.received
    // After a split, later pages hold only the narrowed window: never more than the first page's total.
    if (this.expected !== undefined && received > this.expected)
      return stop('more_than_total', { received, expected: this.expected })
    if (this.pages >= this.maxPages) return stop('too_many_pages', { pages: this.pages })
    const end = effectiveEnd(this.cp, this.now)
    for (const tally of [this.own, this.shared]) {
      const canHold = tally.canHold(end)
      if (tally.received > canHold) return stop('too_dense', { received: tally.received, canHold })
    }
    return null
  }
}

const MESSAGES: Record<PagingStopReason, (p: Record<string, number>) => string> = {
  empty_page: () => 'The service said there was more but sent an empty page.',
  cursor_stuck: () =>
    'The service sent a page that does not move on (its cursor stayed where it was); this part stopped ' +
    'instead of asking for the same page again.',
  cursor_repeated: (p) =>
    `The service sent a cursor it had already sent in this part (after ${p['pages']} pages), so its pages ` +
    'would go round in circles; this part stopped instead of paging on.',
  more_than_total: (p) =>
    `The service has sent ${p['received']} records for a window it said holds ${p['expected']}, and still ` +
    'says there are more; this part stopped instead of paging on.',
  too_many_pages: (p) =>
    `The service has sent ${p['pages']} pages, more than this part's period can hold, and still says there ` +
    'are more; this part stopped instead of paging on.',
  too_dense: (p) =>
    `The service has sent ${p['received']} records dated within a span that can hold at most ` +
    `${p['canHold']}, and still says there are more; this part stopped instead of paging on.`,
}

function stop(reason: PagingStopReason, params: Record<string, number>): PagingStop {
  return { reason, params, message: MESSAGES[reason](params) }
}
