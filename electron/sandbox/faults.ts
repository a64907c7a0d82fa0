/**
 * Fault injection, each kind by its own rate and reproducible by seed: the decision for a request depends
 * on (seed, kind, exact path with query, how many times that exact path was asked before), never on the
 * order concurrent requests arrive in. A retry of the same request rolls again, so faults are transient.
 * Items spoiled by `badItemShare` are chosen by their own id instead, so timing never changes which.
 */
import { roll } from './prng'

export interface FaultOptions {
  /** Added to every response, ms. */
  latencyMs?: number
  /** Plus up to this much more, ms. */
  jitterMs?: number
  /** Share of requests answered 500/502/503. */
  failRate?: number
  /** Share of requests whose connection is reset with no answer. */
  dropRate?: number
  /** Share of 200 answers whose JSON body is cut short. */
  truncateRate?: number
  /** Share of 200 pages with one item that violates the schema. */
  badItemRate?: number
  /**
   * Share of items, chosen by their own id (not by request), each served broken in the first whole 200
   * answer that holds it and whole afterwards: the same items are spoiled whatever the requests' timing.
   */
  badItemShare?: number
  /** Periods of 429s: every `periodMs`, the last `durationMs` refuse every request. */
  storm?: { periodMs: number; durationMs: number }
}

export type FaultDecision =
  | { kind: 'none' }
  | { kind: 'fail'; status: 500 | 502 | 503 }
  | { kind: 'drop' }
  | { kind: 'truncate' }
  | { kind: 'bad-item'; variant: number; index: number }

export class Faults {
  private readonly attempts = new Map<string, number>()
  /** Items chosen by `badItemShare` that a whole answer has already held broken. */
  private readonly spoiled = new Set<string>()

  constructor(
    private readonly seed: number,
    private readonly options: FaultOptions,
    private readonly startedAt: number,
  ) {}

  get enabled(): boolean {
    const o = this.options
    return Boolean(
      o.latencyMs ||
      o.jitterMs ||
      o.failRate ||
      o.dropRate ||
      o.truncateRate ||
      o.badItemRate ||
      o.badItemShare ||
      o.storm,
    )
  }

  /** The attempt number of this exact request (0 for the first time it is asked). */
  attempt(exactKey: string): number {
    const n = this.attempts.get(exactKey) ?? 0
    this.attempts.set(exactKey, n + 1)
    if (this.attempts.size > 200_000) this.attempts.clear()
    return n
  }

  delayMs(exactKey: string, attempt: number): number {
    const base = this.options.latencyMs ?? 0
    const jitter = this.options.jitterMs ?? 0
    return base + (jitter > 0 ? Math.floor(roll(this.seed, 'jitter', exactKey, attempt) * jitter) : 0)
  }

  /** Milliseconds left of the current 429 storm, or 0 when there is none now. */
  stormLeftMs(now: number): number {
    const storm = this.options.storm
    if (!storm || storm.durationMs <= 0) return 0
    const phase = (now - this.startedAt) % storm.periodMs
    const stormStart = storm.periodMs - storm.durationMs
    return phase >= stormStart ? storm.periodMs - phase : 0
  }

  decide(exactKey: string, attempt: number, itemCount: number): FaultDecision {
    const o = this.options
    const r = (kind: string) => roll(this.seed, kind, exactKey, attempt)
    if (o.dropRate && r('drop') < o.dropRate) return { kind: 'drop' }
    if (o.failRate && r('fail') < o.failRate) {
      const statuses = [500, 502, 503] as const
      return { kind: 'fail', status: statuses[Math.floor(r('fail-status') * 3)] ?? 500 }
    }
    if (o.truncateRate && r('truncate') < o.truncateRate) return { kind: 'truncate' }
    if (o.badItemRate && itemCount > 0 && r('bad-item') < o.badItemRate) {
      return {
        kind: 'bad-item',
        variant: Math.floor(r('bad-variant') * BAD_ITEM_VARIANTS.length),
        index: Math.floor(r('bad-index') * itemCount),
      }
    }
    return { kind: 'none' }
  }

  /**
   * Breaks in place each item `badItemShare` chooses that no whole answer has held yet; call only for an
   * answer sent whole. Returns how many it broke.
   */
  spoilChosen(items: Record<string, unknown>[]): number {
    const share = this.options.badItemShare
    if (!share) return 0
    let broken = 0
    for (const item of items) {
      const id = itemIdOf(item)
      if (id === undefined || this.spoiled.has(id) || roll(this.seed, 'bad-id', id) >= share) continue
      this.spoiled.add(id)
      const variant = Math.floor(roll(this.seed, 'bad-id-variant', id) * BAD_ITEM_VARIANTS.length)
      BAD_ITEM_VARIANTS[variant]?.(item)
      broken++
    }
    return broken
  }
}

/** An item's identity across lists: a charge's or payout's `id`, a history record's `resource_id`. */
function itemIdOf(item: Record<string, unknown>): string | undefined {
  if (typeof item['id'] === 'string') return `id:${item['id']}`
  if (typeof item['resource_id'] === 'string') return `resource_id:${item['resource_id']}`
  return undefined
}

/** Ways an item can break the seed's schema: a wrong type, a missing field, a bad value. */
export const BAD_ITEM_VARIANTS: ((item: Record<string, unknown>) => void)[] = [
  (item) => {
    const key = 'amount' in item ? 'amount' : 'charged_amount'
    item[key] = String(item[key]) // amount as a string
  },
  (item) => {
    item['created_on'] = 'yesterday' // not a timestamp
  },
  (item) => {
    delete item['resource_id']
    delete item['id'] // no identity
  },
  (item) => {
    item['mode'] = 'sandbox' // unknown mode
  },
  (item) => {
    const key = 'amount' in item ? 'amount' : 'charged_amount'
    item[key] = 12.5 // amount not an integer
  },
]
