/**
 * The payout paths of the sandbox (README.md, "Payouts"): `/me`, `/bank_accounts` (+ `/primary`),
 * `/transfers` and its parts, `/ledgers/{id}`. Lists page like the charge list (limit, cursor, direction;
 * ordered by created time, then id); `total_hits` only on `/transfers` and status changes without a
 * cursor. Answers are plain objects; server.ts sends them with its headers, limits and faults.
 */
import type { FieldError } from './query'
import { DEFAULT_LIMIT, MAX_LIMIT } from './query'
import { formatted, isoFromUs, usFromIso } from './model'
import { hash32 } from './prng'
import {
  flatFeeOf,
  minPayoutOf,
  PAYOUT_DAY_OF_MONTH,
  PERCENT_FEE,
  type PayoutBook,
  type TransferSchedule,
  type SandboxLedger,
  type SandboxStatusChange,
  type SandboxTransfer,
} from './payouts'

export type PayoutRouteKind =
  | 'me'
  | 'bank_accounts'
  | 'bank_account_primary'
  | 'transfers'
  | 'transfer'
  | 'transfer_status_changes'
  | 'transfer_ledgers'
  | 'ledger'

export interface PayoutRoute {
  kind: PayoutRouteKind
  id?: string
  template: string
}

const PATTERNS: [RegExp, PayoutRouteKind, string][] = [
  [/^\/me$/, 'me', '/me'],
  [/^\/bank_accounts$/, 'bank_accounts', '/bank_accounts'],
  [/^\/bank_accounts\/primary$/, 'bank_account_primary', '/bank_accounts/primary'],
  [/^\/transfers$/, 'transfers', '/transfers'],
  [/^\/transfers\/([^/]+)$/, 'transfer', '/transfers/{id}'],
  [/^\/transfers\/([^/]+)\/status_changes$/, 'transfer_status_changes', '/transfers/{id}/status_changes'],
  [/^\/transfers\/([^/]+)\/ledgers$/, 'transfer_ledgers', '/transfers/{id}/ledgers'],
  [/^\/ledgers\/([^/]+)$/, 'ledger', '/ledgers/{id}'],
]

export function matchPayoutRoute(path: string): PayoutRoute | undefined {
  for (const [pattern, kind, template] of PATTERNS) {
    const m = pattern.exec(path)
    if (m)
      return { kind, template, ...(m[1] !== undefined ? { id: decodeURIComponent(m[1]).toLowerCase() } : {}) }
  }
  return undefined
}

export interface BankAccountSpec {
  id: string
  currency: string
  primary: boolean
}

export interface PayoutContext {
  book: PayoutBook
  merchant: { id: string; name: string }
  bankAccounts: BankAccountSpec[]
  createdUs: number
  minTransferPayout: number
  transferSchedule: TransferSchedule
}

export type PayoutAnswer =
  | { status: 200; body: Record<string, unknown>; list?: { items: Record<string, unknown>[] } }
  | { status: 400; errors: FieldError[] }
  | { status: 404 }

interface Keyed {
  id: string
  createdUs: number
}

function pageOf<T extends Keyed>(
  list: readonly T[],
  params: URLSearchParams,
  errors: FieldError[],
): { items: T[]; hasMore: boolean } | undefined {
  const limitText = params.get('limit')
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    errors.push({ field: 'limit', reason: `must be from 1 to ${MAX_LIMIT}` })
  const direction = params.get('cursor_direction') ?? 'desc'
  if (direction !== 'asc' && direction !== 'desc')
    errors.push({ field: 'cursor_direction', reason: 'must be one of asc, desc' })
  const cursor = params.get('cursor')?.toLowerCase()
  let start = direction === 'asc' ? 0 : list.length - 1
  if (cursor !== undefined) {
    const at = list.findIndex((item) => item.id === cursor)
    if (at < 0) errors.push({ field: 'cursor', reason: 'no item with this id in this list' })
    else start = direction === 'asc' ? at + 1 : at - 1
  }
  if (errors.length > 0) return undefined
  const step = direction === 'asc' ? 1 : -1
  const items: T[] = []
  let i = start
  for (; i >= 0 && i < list.length && items.length < limit; i += step) items.push(list[i] as T)
  return { items, hasMore: i >= 0 && i < list.length }
}

function transferItem(t: SandboxTransfer, ctx: PayoutContext, listRow: boolean): Record<string, unknown> {
  return {
    id: t.id,
    merchant_id: ctx.merchant.id,
    bank_account_id: t.bankAccountId,
    amount: t.amount,
    currency: t.currency,
    amount_formatted: formatted(t.amount, t.currency),
    status: t.status,
    error_code: t.errorCode,
    error_text: t.errorText,
    metadata: { ...t.metadata },
    note: t.note,
    started_by: 'system',
    from: t.from,
    to: t.to,
    created_on: isoFromUs(t.createdUs),
    ...(listRow ? { merchant_name: ctx.merchant.name } : {}),
  }
}

function statusChangeItem(c: SandboxStatusChange, ctx: PayoutContext): Record<string, unknown> {
  return {
    id: c.id,
    merchant_id: ctx.merchant.id,
    transfer_id: c.transferId,
    old_status: c.oldStatus,
    new_status: c.newStatus,
    ...(c.reason !== null ? { reason: c.reason } : {}),
    created_on: isoFromUs(c.createdUs),
  }
}

/** Both spellings of the flat fee occur (java/php `flat_fee_amount`, node `flat_fee`): a hash of the id picks. */
export function ledgerItem(l: SandboxLedger, ctx: PayoutContext): Record<string, unknown> {
  const flatKey = hash32(`flat|${l.id}`) % 2 === 0 ? 'flat_fee_amount' : 'flat_fee'
  return {
    id: l.id,
    merchant_id: ctx.merchant.id,
    ...(l.storeId !== null ? { store_id: l.storeId } : {}),
    ...(l.transferId !== null ? { transfer_id: l.transferId } : {}),
    amount: l.amount,
    currency: l.currency,
    amount_formatted: formatted(l.amount, l.currency),
    percent_fee: l.percentFee,
    [flatKey]: l.flatFee,
    flat_fee_currency: l.currency,
    flat_fee_formatted: formatted(l.flatFee, l.currency),
    exchange_rate: l.exchangeRate,
    origin: l.origin,
    ...(l.note !== null ? { note: l.note } : {}),
    created_on: isoFromUs(l.createdUs),
  }
}

function bankAccountItem(b: BankAccountSpec, ctx: PayoutContext): Record<string, unknown> {
  const lastFour = String(hash32(b.id) % 10_000).padStart(4, '0')
  return {
    id: b.id,
    holder_name: ctx.merchant.name,
    bank_name: b.currency === 'JPY' ? 'Sandbox Bank' : 'Sandbox International Bank',
    branch_name: b.currency === 'JPY' ? 'Head Office' : 'Foreign Currency',
    country: b.currency === 'JPY' ? 'JP' : 'US',
    currency: b.currency,
    account_number: `XXXXXX${lastFour}`,
    last_four: lastFour,
    primary: b.primary,
    status: 'verified',
    account_type: b.currency === 'JPY' ? 'savings' : 'checking',
    created_on: isoFromUs(ctx.createdUs),
  }
}

function meItem(ctx: PayoutContext): Record<string, unknown> {
  return {
    id: ctx.merchant.id,
    name: ctx.merchant.name,
    percent_fee: PERCENT_FEE,
    card_brand_percent_fees: {
      visa: PERCENT_FEE,
      mastercard: PERCENT_FEE,
      jcb: PERCENT_FEE,
      amex: PERCENT_FEE,
    },
    flat_fees: [
      { amount: flatFeeOf('JPY'), currency: 'JPY' },
      { amount: flatFeeOf('USD'), currency: 'USD' },
      { amount: flatFeeOf('EUR'), currency: 'EUR' },
    ],
    min_transfer_payout: { amount: minPayoutOf('JPY', ctx.minTransferPayout), currency: 'JPY' },
    transfer_schedule: transferScheduleItem(ctx.transferSchedule),
  }
}

/** `/me`'s `transfer_schedule`, in the real service's fields (univapay-node's TransferScheduleItem). */
function transferScheduleItem(schedule: TransferSchedule): Record<string, unknown> {
  if (schedule === 'weekly')
    return {
      wait_period: 'P4D',
      period: 'weekly',
      full_period_required: false,
      day_of_week: 'friday',
      week_of_month: null,
      day_of_month: null,
      weekly_closing_day: 'sunday',
      weekly_payout_day: 'friday',
    }
  return {
    wait_period: 'P14D',
    period: 'monthly',
    full_period_required: false,
    day_of_week: null,
    week_of_month: null,
    day_of_month: PAYOUT_DAY_OF_MONTH,
    weekly_closing_day: null,
    weekly_payout_day: null,
  }
}

/** Ledger filters: `from`/`to` (ISO-8601 or epoch ms, both inclusive), `min`/`max` amount, `currency`, `all`. */
function ledgerFilter(params: URLSearchParams, errors: FieldError[]): (l: SandboxLedger) => boolean {
  const time = (name: string): number | undefined => {
    const v = params.get(name)
    if (v === null) return undefined
    const us = /^\d+$/.test(v) ? Number(v) * 1000 : usFromIso(v)
    if (us === undefined) errors.push({ field: name, reason: 'must be epoch milliseconds or ISO-8601' })
    return us
  }
  const int = (name: string): number | undefined => {
    const v = params.get(name)
    if (v === null) return undefined
    if (!/^-?\d+$/.test(v)) errors.push({ field: name, reason: 'must be a whole number' })
    return Number(v)
  }
  const fromUs = time('from')
  const toUs = time('to')
  const min = int('min')
  const max = int('max')
  const currency = params.get('currency')?.toUpperCase()
  const all = params.get('all')
  if (all !== null && all !== 'true' && all !== 'false')
    errors.push({ field: 'all', reason: 'must be true or false' })
  return (l) =>
    (fromUs === undefined || l.createdUs >= fromUs) &&
    (toUs === undefined || l.createdUs <= toUs) &&
    (min === undefined || l.amount >= min) &&
    (max === undefined || l.amount <= max) &&
    (currency === undefined || l.currency === currency)
}

export function answerPayout(route: PayoutRoute, params: URLSearchParams, ctx: PayoutContext): PayoutAnswer {
  const errors: FieldError[] = []
  const { book } = ctx
  const withTotal = (page: { items: Record<string, unknown>[]; hasMore: boolean }, total: number) => ({
    status: 200 as const,
    body: {
      items: page.items,
      has_more: page.hasMore,
      ...(params.has('cursor') ? {} : { total_hits: total }),
    },
    list: { items: page.items },
  })
  switch (route.kind) {
    case 'me':
      return { status: 200, body: meItem(ctx) }
    case 'bank_accounts': {
      const items = ctx.bankAccounts.map((b) => bankAccountItem(b, ctx))
      return { status: 200, body: { items, has_more: false }, list: { items } }
    }
    case 'bank_account_primary': {
      const primary = ctx.bankAccounts.find((b) => b.primary)
      return primary ? { status: 200, body: bankAccountItem(primary, ctx) } : { status: 404 }
    }
    case 'transfers': {
      const currency = params.get('currency')?.toUpperCase()
      const status = params.get('status')
      const startedBy = params.get('started_by')
      const list = book.transfers.filter(
        (t) =>
          (currency === undefined || t.currency === currency) &&
          (status === null || t.status === status) &&
          (startedBy === null || startedBy === 'system'),
      )
      const page = pageOf(list, params, errors)
      if (!page) return { status: 400, errors }
      return withTotal(
        { items: page.items.map((t) => transferItem(t, ctx, true)), hasMore: page.hasMore },
        list.length,
      )
    }
    case 'transfer': {
      const t = book.transferById.get(route.id ?? '')
      return t ? { status: 200, body: transferItem(t, ctx, false) } : { status: 404 }
    }
    case 'transfer_status_changes': {
      const t = book.transferById.get(route.id ?? '')
      if (!t) return { status: 404 }
      const page = pageOf(t.changes, params, errors)
      if (!page) return { status: 400, errors }
      return withTotal(
        { items: page.items.map((c) => statusChangeItem(c, ctx)), hasMore: page.hasMore },
        t.changes.length,
      )
    }
    case 'transfer_ledgers': {
      const t = book.transferById.get(route.id ?? '')
      if (!t) return { status: 404 }
      const match = ledgerFilter(params, errors)
      const list = book.ledgers.filter((l) => l.transferId === t.id && match(l))
      const page = pageOf(list, params, errors)
      if (!page) return { status: 400, errors }
      const items = page.items.map((l) => ledgerItem(l, ctx))
      // Ledger lists carry no total_hits (node SDK `CRUDItemsResponse`).
      return { status: 200, body: { items, has_more: page.hasMore }, list: { items } }
    }
    case 'ledger': {
      const l = book.ledgerById.get(route.id ?? '')
      return l ? { status: 200, body: ledgerItem(l, ctx) } : { status: 404 }
    }
  }
}
