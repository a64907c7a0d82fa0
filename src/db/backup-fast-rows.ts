/**
 * A hand-written check of the history and charge rows a backup holds, beside their zod schemas
 * (backup-read.ts, payment-api.ts): it accepts a row only where the schema accepts it, and gives the
 * schema's output, key for key in the same order (known keys in the schema's order, then unknown keys as
 * read). A payload already in that order (the writer's, as a sync stored the schema's output) is kept as
 * read with no copy. Anything else (a field of the wrong type, a tolerant field the schema would drop, a
 * missing field, a refinement's refusal, `__proto__`) gets null, and the caller asks zod, which accepts or
 * refuses it with its own message. So this check changes how long a row takes, never what is accepted,
 * refused or stored.
 */
import type { ChargeItem, HistoryItem } from '../../electron/shared/payment-api'

/** A row's fields the restore keeps, as the row schema's output gives them. */
export interface FastRow<T> {
  connectionId: string
  syncedAt: number
  raw: T
}

/** A field's value is not what the schema accepts as it is. */
const FAIL = Symbol('fail')
/** A field's output: the value itself, a copy in the schema's key order, or FAIL. */
type Parse = (value: unknown) => unknown

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/
const CURRENCY = /^[A-Za-z]{3}$/

const when =
  (test: (v: unknown) => boolean): Parse =>
  (v) =>
    test(v) ? v : FAIL
const isUuid = (v: unknown): boolean => typeof v === 'string' && UUID.test(v)
const isCurrency = (v: unknown): boolean => typeof v === 'string' && CURRENCY.test(v)
const isInt = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v)
const uuid = when(isUuid)
const time = when((v) => typeof v === 'string' && ISO.test(v) && !Number.isNaN(Date.parse(v)))
const currency = when(isCurrency)
const int = when(isInt)
const text = when((v) => typeof v === 'string' && v.length > 0)
const mode = when((v) => v === 'live' || v === 'test')
const historyType = when((v) => v === 'charge' || v === 'refund')
const anything: Parse = (v) => v
const nullable =
  (parse: Parse): Parse =>
  (v) =>
    v === null ? v : parse(v)
/** A tolerant field the schema keeps as it is: null, or a value of its type (any other value it drops). */
const kept = (type: 'string' | 'number' | 'boolean'): Parse =>
  when((v) => v === null || (typeof v === type && (type !== 'number' || Number.isFinite(v))))

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype

/** An object whose every key the schema copies as it is (a record of unknowns, an empty loose object). */
const open = when((v) => {
  if (!isPlainObject(v)) return false
  for (const key in v) if (key === '__proto__') return false
  return true
})

interface Shape {
  /** The known keys in the schema's order (its output's key order), each with its parse. */
  readonly fields: readonly { key: string; parse: Parse }[]
  readonly at: ReadonlyMap<string, number>
  /** Bits of the keys that must be present. */
  readonly required: number
}

const shapeOf = (fields: readonly [string, Parse, 'required'?][]): Shape => ({
  fields: fields.map(([key, parse]) => ({ key, parse })),
  at: new Map(fields.map(([key], at) => [key, at])),
  required: fields.reduce((bits, [, , req], at) => (req ? bits | (1 << at) : bits), 0),
})

/**
 * A loose object's output: `v` itself when every known key is valid and in the schema's order before
 * every unknown key, else a copy in the output's order (known keys, then unknown ones as read). FAIL for
 * anything not a plain object, a key the schema would refuse or drop, `__proto__` (the output drops it),
 * or a required key missing.
 */
function looseOutput(v: unknown, shape: Shape): unknown {
  if (!isPlainObject(v)) return FAIL
  let last = -1
  let unknown = false
  let inOrder = true
  let present = 0
  let outputs: Map<number, unknown> | null = null
  for (const key in v) {
    const at = shape.at.get(key)
    if (at === undefined) {
      if (key === '__proto__') return FAIL
      unknown = true
      continue
    }
    if (unknown || at < last) inOrder = false
    last = at
    const value = v[key]
    const out = shape.fields[at]!.parse(value)
    if (out === FAIL) return FAIL
    if (out !== value) (outputs ??= new Map()).set(at, out)
    present |= 1 << at
  }
  if ((present & shape.required) !== shape.required) return FAIL
  if (inOrder && outputs === null) return v
  const copy: Record<string, unknown> = {}
  shape.fields.forEach(({ key }, at) => {
    if (present & (1 << at)) copy[key] = outputs?.has(at) ? outputs.get(at) : v[key]
  })
  for (const key in v) if (!shape.at.has(key)) copy[key] = v[key]
  return copy
}

const loose =
  (shape: Shape): Parse =>
  (v) =>
    looseOutput(v, shape)

const refundShape = shapeOf([
  ['refund_id', kept('string')],
  ['id', kept('string')],
  ['amount', kept('number')],
  ['currency', kept('string')],
  ['amount_formatted', anything],
  ['reason', anything],
  ['status', kept('string')],
])

/** A list of loose objects: the list itself when each is its own output, else a list of the outputs. */
const listOf =
  (shape: Shape): Parse =>
  (v) => {
    if (!Array.isArray(v)) return FAIL
    const list = v as unknown[]
    let outputs: unknown[] | null = null
    for (let i = 0; i < list.length; i++) {
      const item = list[i]
      const out = looseOutput(item, shape)
      if (out === FAIL) return FAIL
      if (out !== item) (outputs ??= list.slice())[i] = out
    }
    return outputs ?? list
  }

const userDataShape = shapeOf([
  ['type', kept('string')],
  ['cardholder_name', kept('string')],
  ['cardholder_email_address', kept('string')],
  ['cardholder_phone_number', kept('string')],
  ['customer_name', kept('string')],
  ['brand', kept('string')],
  ['card_brand', kept('string')],
  ['convenience_store', kept('string')],
  ['gateway', kept('string')],
  ['service_provider', kept('string')],
  ['reason', anything],
  ['refunds', nullable(listOf(refundShape))],
])

const historyShape = shapeOf([
  ['store_id', uuid, 'required'],
  ['resource_id', uuid, 'required'],
  ['charge_id', nullable(uuid), 'required'],
  ['amount', int, 'required'],
  ['currency', currency, 'required'],
  ['type', historyType, 'required'],
  ['status', text, 'required'],
  ['created_on', time, 'required'],
  ['mode', mode, 'required'],
  ['payment_type', text, 'required'],
  ['amount_formatted', kept('number')],
  ['metadata', nullable(open)],
  ['merchant_name', kept('string')],
  ['store_name', kept('string')],
  ['user_data', nullable(loose(userDataShape))],
  ['bank_transfer_payment_status', kept('string')],
  ['bank_transfer_latest_deposit_date', kept('string')],
])

const chargeShape = shapeOf([
  ['id', uuid, 'required'],
  ['store_id', uuid, 'required'],
  ['requested_amount', int, 'required'],
  ['requested_currency', currency, 'required'],
  ['charged_amount', nullable(int), 'required'],
  ['charged_currency', nullable(currency), 'required'],
  ['fee_amount', nullable(int)],
  ['fee_currency', nullable(currency)],
  ['status', text, 'required'],
  ['mode', mode, 'required'],
  ['created_on', time, 'required'],
  ['transaction_token_id', kept('string')],
  ['transaction_token_type', kept('string')],
  ['subscription_id', kept('string')],
  ['merchant_transaction_id', kept('string')],
  ['requested_amount_formatted', kept('number')],
  ['charged_amount_formatted', kept('number')],
  ['fee_amount_formatted', kept('number')],
  ['only_direct_currency', kept('boolean')],
  ['capture_at', kept('string')],
  ['descriptor', kept('string')],
  ['descriptor_phone_number', kept('string')],
  ['error', nullable(open)],
  ['metadata', nullable(open)],
  ['redirect', nullable(open)],
  ['merchant_name', kept('string')],
  ['store_name', kept('string')],
])

/** The row's own fields (connectionId, syncedAt) and its payload's output, or null. */
function rowOf<T>(value: unknown, raw: (v: unknown) => unknown): FastRow<T> | null {
  if (!isPlainObject(value)) return null
  const { connectionId, syncedAt } = value
  if (typeof connectionId !== 'string' || connectionId.length === 0) return null
  if (typeof syncedAt !== 'number' || !Number.isFinite(syncedAt)) return null
  const out = raw(value['raw'])
  return out === FAIL ? null : { connectionId, syncedAt, raw: out as T }
}

/** A history row as its schema's output, or null where only zod can say (see the file's head). */
export const fastHistoryRow = (value: unknown): FastRow<HistoryItem> | null =>
  rowOf(value, (v) => {
    const raw = looseOutput(v, historyShape)
    // The schema's refinement: a refund names its charge.
    if (raw === FAIL) return FAIL
    const item = raw as HistoryItem
    return item.type === 'refund' && item.charge_id === null ? FAIL : raw
  })

/** A charge row as its schema's output, or null where only zod can say (see the file's head). */
export const fastChargeRow = (value: unknown): FastRow<ChargeItem> | null =>
  rowOf(value, (v) => {
    const raw = looseOutput(v, chargeShape)
    if (raw === FAIL) return FAIL
    // The schema's refinement: a successful charge says what it charged.
    const c = raw as ChargeItem
    return c.status !== 'successful' || (c.charged_amount !== null && c.charged_currency !== null)
      ? raw
      : FAIL
  })
