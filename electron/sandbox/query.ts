/**
 * The list operations' query parameters (seed §4.1, §4.2, paging as the service's SDK sends it), parsed
 * into an index window plus a predicate. Every problem is reported with the parameter it is about, all at
 * once. Parameters the seed does not list are ignored, as a web API does with unknown query keys.
 */
import type { ListWindow } from './dataset'
import { usFromIso, type HistoryEntry, type SandboxCharge } from './model'
import { isCardLike, servedMetadata } from './variety'

export interface FieldError {
  field: string
  reason: string
}

export interface Paging {
  limit: number
  cursor?: string
  direction: 'asc' | 'desc'
}

export interface ParsedQuery<T> {
  window: ListWindow
  match?: (item: T) => boolean
  /** The filter parameters in a canonical form (memo key of counts). */
  key: string
  paging: Paging
}

export type ParseResult<T> = { ok: true; query: ParsedQuery<T> } | { ok: false; errors: FieldError[] }

export const DEFAULT_LIMIT = 10
export const MAX_LIMIT = 100

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

class Reader {
  readonly errors: FieldError[] = []
  constructor(private readonly params: URLSearchParams) {}

  has(name: string): boolean {
    return this.params.has(name)
  }

  string(name: string, max = 200): string | undefined {
    const values = this.params.getAll(name)
    if (values.length === 0) return undefined
    if (values.length > 1) return this.fail(name, 'given more than once')
    const value = values[0] as string
    if (value.length === 0) return this.fail(name, 'must not be empty')
    if (value.length > max) return this.fail(name, `must be at most ${max} characters`)
    return value
  }

  oneOf<V extends string>(name: string, allowed: readonly V[]): V | undefined {
    const value = this.string(name)
    if (value === undefined) return undefined
    if (!(allowed as readonly string[]).includes(value))
      return this.fail(name, `must be one of ${allowed.join(', ')}`)
    return value as V
  }

  timestamp(name: string): number | undefined {
    const value = this.string(name, 64)
    if (value === undefined) return undefined
    const us = usFromIso(value)
    return us === undefined ? this.fail(name, 'must be an ISO-8601 timestamp, e.g. 2026-10-01T00:00:00Z') : us
  }

  integer(name: string, min: number, max: number): number | undefined {
    const value = this.string(name, 20)
    if (value === undefined) return undefined
    if (!/^-?\d+$/.test(value)) return this.fail(name, 'must be a whole number')
    const n = Number(value)
    if (n < min || n > max) return this.fail(name, `must be from ${min} to ${max}`)
    return n
  }

  uuid(name: string): string | undefined {
    const value = this.string(name, 64)
    if (value === undefined) return undefined
    return UUID.test(value) ? value.toLowerCase() : this.fail(name, 'must be a UUID')
  }

  fail(field: string, reason: string): undefined {
    this.errors.push({ field, reason })
    return undefined
  }
}

function paging(r: Reader): Paging {
  const limit = r.integer('limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT
  const cursor = r.uuid('cursor')
  const direction = r.oneOf('cursor_direction', ['asc', 'desc'] as const) ?? 'desc'
  return { limit, direction, ...(cursor ? { cursor } : {}) }
}

function all<T>(tests: ((item: T) => boolean)[]): ((item: T) => boolean) | undefined {
  if (tests.length === 0) return undefined
  return (item) => tests.every((t) => t(item))
}

function metadataText(metadata: Record<string, string | number>): string {
  return Object.entries(metadata)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')
    .toLowerCase()
}

/** Seed §4.1; `from` and `to` both inclusive. */
export function parseHistoryQuery(params: URLSearchParams): ParseResult<HistoryEntry> {
  const r = new Reader(params)
  const fromUs = r.timestamp('from')
  const toUs = r.timestamp('to')
  const search = r.string('search')
  const type = r.oneOf('type', ['charge', 'refund'] as const)
  const status = r.string('status', 64)
  const mode = r.oneOf('mode', ['live', 'test'] as const)
  const page = paging(r)
  if (fromUs !== undefined && toUs !== undefined && fromUs > toUs) r.fail('to', 'must not be before from')
  if (r.errors.length > 0) return { ok: false, errors: r.errors }
  const tests: ((e: HistoryEntry) => boolean)[] = []
  if (type) tests.push((e) => e.kind === type)
  if (status) tests.push((e) => (e.kind === 'refund' ? e.refund.status : e.charge.status) === status)
  if (mode) tests.push((e) => e.charge.mode === mode)
  if (search) {
    const needle = search.toLowerCase()
    tests.push((e) => {
      const c = e.charge
      return (
        c.id.includes(needle) ||
        (e.kind === 'refund' && e.refund.id.includes(needle)) ||
        metadataText(e.kind === 'refund' ? e.refund.metadata : servedMetadata(c)).includes(needle) ||
        c.card.name.toLowerCase().includes(needle) ||
        c.card.email.toLowerCase().includes(needle) ||
        c.card.lastFour === search
      )
    })
  }
  return {
    ok: true,
    query: {
      window: { ...(fromUs !== undefined ? { fromUs } : {}), ...(toUs !== undefined ? { toUs } : {}) },
      ...(tests.length > 0 ? { match: all(tests) } : {}),
      key: JSON.stringify([type, status, mode, search]),
      paging: page,
    },
  }
}

const CARD_GROUP = ['last_four', 'name', 'exp_month', 'exp_year'] as const

/** Seed §4.2; `from` inclusive, `to` exclusive ("before"), `amount_from`/`amount_to` strict. */
export function parseChargeQuery(params: URLSearchParams): ParseResult<SandboxCharge> {
  const r = new Reader(params)
  const given = CARD_GROUP.filter((k) => params.has(k))
  if (given.length > 0 && given.length < CARD_GROUP.length) {
    for (const missing of CARD_GROUP.filter((k) => !params.has(k)))
      r.fail(missing, `required when any of ${CARD_GROUP.join(', ')} is given (given: ${given.join(', ')})`)
  }
  const lastFourText = r.string('last_four', 4)
  if (lastFourText !== undefined && !/^\d{4}$/.test(lastFourText)) r.fail('last_four', 'must be 4 digits')
  const lastFour = lastFourText !== undefined && /^\d{4}$/.test(lastFourText) ? lastFourText : undefined
  const name = r.string('name')
  const expMonth = r.integer('exp_month', 1, 12)
  const expYearRaw = r.integer('exp_year', 0, 2100)
  const expYear = expYearRaw !== undefined && expYearRaw < 100 ? 2000 + expYearRaw : expYearRaw
  const fromUs = r.timestamp('from')
  const toUs = r.timestamp('to')
  const email = r.string('email', 320)
  const phoneText = r.string('phone', 24)
  if (phoneText !== undefined && !/^\+?\d{4,20}$/.test(phoneText))
    r.fail('phone', 'must be a telephone number of digits')
  const amountFrom = r.integer('amount_from', 0, Number.MAX_SAFE_INTEGER)
  const amountTo = r.integer('amount_to', 0, Number.MAX_SAFE_INTEGER)
  const currencyText = r.string('currency', 3)
  if (currencyText !== undefined && !/^[A-Za-z]{3}$/.test(currencyText))
    r.fail('currency', 'must be an ISO-4217 code')
  const mode = r.oneOf('mode', ['live', 'test'] as const)
  const metadata = r.string('metadata')
  const tokenId = r.uuid('transaction_token_id')
  const page = paging(r)
  if (fromUs !== undefined && toUs !== undefined && fromUs > toUs) r.fail('to', 'must not be before from')
  if (r.errors.length > 0) return { ok: false, errors: r.errors }

  const tests: ((c: SandboxCharge) => boolean)[] = []
  if (lastFour !== undefined && name !== undefined && expMonth !== undefined && expYear !== undefined) {
    const wanted = name.toLowerCase()
    tests.push(
      (c) =>
        isCardLike(c) && // a konbini or QR payment has no card to match
        c.card.lastFour === lastFour &&
        c.card.name.toLowerCase() === wanted &&
        c.card.expMonth === expMonth &&
        c.card.expYear === expYear,
    )
  }
  if (email) {
    const wanted = email.toLowerCase()
    tests.push((c) => c.card.email.toLowerCase() === wanted)
  }
  if (phoneText) {
    const digits = phoneText.replace(/^\+/, '')
    tests.push((c) => c.card.phone === digits)
  }
  if (amountFrom !== undefined) tests.push((c) => c.chargedAmount > amountFrom)
  if (amountTo !== undefined) tests.push((c) => c.chargedAmount < amountTo)
  if (currencyText) {
    const code = currencyText.toUpperCase()
    tests.push((c) => c.requestedCurrency === code || c.chargedCurrency === code)
  }
  if (mode) tests.push((c) => c.mode === mode)
  if (metadata) {
    const needle = metadata.toLowerCase()
    tests.push((c) => metadataText(servedMetadata(c)).includes(needle))
  }
  if (tokenId) tests.push((c) => c.transactionTokenId === tokenId)
  return {
    ok: true,
    query: {
      window: {
        ...(fromUs !== undefined ? { fromUs } : {}),
        ...(toUs !== undefined ? { toUs, toExclusive: true } : {}),
      },
      ...(tests.length > 0 ? { match: all(tests) } : {}),
      key: JSON.stringify([
        lastFour,
        name,
        expMonth,
        expYear,
        email,
        phoneText,
        amountFrom,
        amountTo,
        currencyText,
        mode,
        metadata,
        tokenId,
      ]),
      paging: page,
    },
  }
}
