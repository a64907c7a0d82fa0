/**
 * Derives a HistoryRecord's flattened fields from the API item. Pure: used by sync when it stores a
 * page and by restore (the migrations keep their own frozen copies: src/db/migrations).
 */
import { userDataFacts, type HistoryItem } from '../../electron/shared/payment-api'
import { recordKeyOf, type HistoryRecord, type RecordKey } from '../domain/records'

/** Metadata keys (compared without case, `_`, `-` or spaces) that hold the merchant's order number. */
const ORDER_KEYS = [
  'orderid',
  'ordernumber',
  'orderno',
  'orderref',
  'orderreference',
  'merchanttransactionid',
  'order',
]

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[\s_-]/g, '')
}

function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim()
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  return null
}

/** The order number found in metadata, by key priority; null when there is none. */
export function orderRefOf(raw: HistoryItem): string | null {
  const byKey = new Map<string, unknown>()
  for (const [k, v] of Object.entries(raw.metadata ?? {})) byKey.set(normalizeKey(k), v)
  for (const key of ORDER_KEYS) {
    const text = scalarText(byKey.get(key))
    if (text !== null) return text
  }
  return null
}

function collectValues(value: unknown, out: string[], depth: number): void {
  const text = scalarText(value)
  if (text !== null) out.push(text)
  else if (depth < 3 && value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) collectValues(v, out, depth + 1)
  }
}

/** Separates the connection, the day and the token in a scoped token (tokenPrefix). */
export const TOKEN_SCOPE_SEPARATOR = '\u0001'
/** Longer tokens and terms are compared on their first MAX_TOKEN_LENGTH characters only. */
export const MAX_TOKEN_LENGTH = 48
/** Bounds the tokens of one record; ids, name, e-mail and last four come before metadata. */
export const MAX_TOKENS = 48

const DAY_MS = 86_400_000

/** The UTC day number a record's tokens are filed under (days since 1970-01-01; 0 for earlier or invalid times). */
export function searchDayOf(createdAt: number): number {
  return Number.isFinite(createdAt) ? Math.max(0, Math.floor(createdAt / DAY_MS)) : 0
}

/**
 * The lowest `createdAt` filed on `day` (searchDayOf): the day's midnight, or -Infinity for day 0, which
 * also files earlier and invalid times.
 */
export function searchDayStart(day: number): number {
  return day === 0 ? -Infinity : day * DAY_MS
}

/** The order of history everywhere in the cache: time, then key. */
export const byTimeThenKey = (
  a: Pick<HistoryRecord, 'createdAt' | 'key'>,
  b: Pick<HistoryRecord, 'createdAt' | 'key'>,
): number => a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

/**
 * One connection's page grouped as the day rows (digests, tokens) file it: by UTC day, then by key (a
 * key given twice keeps its last record), each record as `valueOf` gives it.
 */
export function byDayAndKey<T>(
  records: readonly HistoryRecord[],
  valueOf: (r: HistoryRecord) => T,
): Map<number, Map<RecordKey, T>> {
  const byDay = new Map<number, Map<RecordKey, T>>()
  for (const r of records) {
    const day = searchDayOf(r.createdAt)
    let values = byDay.get(day)
    if (!values) byDay.set(day, (values = new Map<RecordKey, T>()))
    values.set(r.key, valueOf(r))
  }
  return byDay
}

/** [start, end) of a search day, epoch ms. */
export function searchDayBounds(day: number): [number, number] {
  return [day * DAY_MS, (day + 1) * DAY_MS]
}

/**
 * `${connectionId}\u0001${day}\u0001`: the scope of a record's tokens (searchTokensOf). The day is
 * zero-padded to 6 digits so scoped tokens sort in time order. (Schema v5–v6 indexed the scoped tokens
 * of every record; since v7 the search reads `dayTokens`, which keeps the tokens without their scope.)
 */
export function tokenPrefix(connectionId: string, day: number): string {
  return connectionId + TOKEN_SCOPE_SEPARATOR + String(day).padStart(6, '0') + TOKEN_SCOPE_SEPARATOR
}

const WORD_START = /[\p{L}\p{N}]+/gu

/**
 * The bare search tokens of a value: each whitespace-separated chunk, lower-cased, from each of its
 * word starts to the chunk's end ("ord-2026-0001" gives "ord-2026-0001", "2026-0001", "0001"). A prefix
 * of a token is then any run of text that begins at a word start, so a term finds an id, an e-mail or
 * an order number whole or by any of its word parts, with no token for the text between words.
 */
function valueTokens(value: string, out: Set<string>): void {
  const lower = value.toLowerCase()
  // Printable ASCII without a space (ids, e-mail addresses, order numbers): the whole value is one chunk.
  if (ONE_ASCII_CHUNK.test(lower)) {
    out.add(lower.slice(0, MAX_TOKEN_LENGTH))
    asciiWordStarts(lower, out)
    return
  }
  for (const chunk of lower.split(/\s+/)) {
    if (chunk === '') continue
    // The whole chunk even when it starts with punctuation ("#123", "=SUM(…)"), then each word start.
    out.add(chunk.slice(0, MAX_TOKEN_LENGTH))
    if (isAscii(chunk)) asciiWordStarts(chunk, out)
    else
      for (const word of chunk.matchAll(WORD_START))
        out.add(chunk.slice(word.index, word.index + MAX_TOKEN_LENGTH))
  }
}

/** A non-empty value of printable ASCII but the space: no whitespace splits it. */
const ONE_ASCII_CHUNK = /^[!-~]+$/

/** Whether a string is all printable ASCII (a control character takes the general path). */
const isAscii = (s: string): boolean => !/[^ -~]/.test(s)

/** Is an ASCII character code a letter or a digit (the ASCII part of WORD_START)? */
const isWordCode = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90)

/**
 * The word starts of an ASCII chunk, as WORD_START finds them (in ASCII, \p{L} and \p{N} are exactly the
 * letters and digits), without a match object per word: most of what the API sends is ASCII.
 */
function asciiWordStarts(chunk: string, out: Set<string>): void {
  let inWord = false
  for (let i = 0; i < chunk.length; i++) {
    const word = isWordCode(chunk.charCodeAt(i))
    if (word && !inWord) out.add(chunk.slice(i, i + MAX_TOKEN_LENGTH))
    inWord = word
  }
}

/**
 * What the ledger's search matches, as the API's own `search` does (seed §3), as tokens scoped by
 * connection and UTC day (tokenPrefix): charge and refund ids, cardholder name and e-mail, last four
 * digits when the item carries them, then metadata values; deduplicated and capped at MAX_TOKENS.
 * Derived from `raw` wherever it is needed (the `dayTokens` rows, matchesSearch), never stored.
 */
export function searchTokensOf(connectionId: string, createdAt: number, raw: HistoryItem): string[] {
  const prefix = tokenPrefix(connectionId, searchDayOf(createdAt))
  return bareSearchTokensOf(raw).map((t) => prefix + t)
}

/** searchTokensOf without their scope (the `dayTokens` rows keep them so). */
export function bareSearchTokensOf(raw: HistoryItem): string[] {
  const values: string[] = [raw.resource_id]
  if (raw.charge_id) values.push(raw.charge_id)
  const user = userDataFacts(raw.user_data)
  values.push(user.name, user.email)
  const lastFour = scalarText(raw.user_data?.['last_four'])
  if (lastFour !== null) values.push(lastFour)
  collectValues(raw.metadata, values, 0)
  const tokens = new Set<string>()
  for (const v of values) valueTokens(v, tokens)
  return [...tokens].slice(0, MAX_TOKENS)
}

/**
 * The terms of a search as the index compares them: lower-cased, whitespace-separated, cut to
 * MAX_TOKEN_LENGTH, without duplicates and without a term that is a prefix of another (it adds nothing).
 */
export function searchTermsOf(search: string): string[] {
  const terms = [...new Set(search.toLowerCase().split(/\s+/).filter(Boolean))].map((t) =>
    t.slice(0, MAX_TOKEN_LENGTH),
  )
  return [...new Set(terms)].filter((t) => !terms.some((o) => o !== t && o.startsWith(t)))
}

/**
 * Does a record match a free-text search? Every whitespace-separated term must be a prefix of one of
 * the record's tokens: the rule the `dayTokens` rows answer (tokenTextMatches), so the index and this
 * in-memory test always agree.
 */
export function matchesSearch(
  record: Pick<HistoryRecord, 'connectionId' | 'createdAt' | 'raw'>,
  search: string,
): boolean {
  const tokens = searchTokensOf(record.connectionId, record.createdAt, record.raw)
  const prefix = tokenPrefix(record.connectionId, searchDayOf(record.createdAt))
  return searchTermsOf(search).every((t) => {
    const scoped = prefix + t
    return tokens.some((token) => token.startsWith(scoped))
  })
}

/** The record's fields read straight from its API item (history-row.ts reads them back from `raw`). */
export type ItemField = 'type' | 'chargeId' | 'storeId' | 'currency' | 'status' | 'mode'

export function itemFieldsOf(raw: HistoryItem): Pick<HistoryRecord, ItemField> {
  return {
    type: raw.type,
    chargeId: raw.type === 'charge' ? raw.resource_id : (raw.charge_id ?? raw.resource_id),
    storeId: raw.store_id,
    currency: raw.currency.toUpperCase(),
    status: raw.status,
    mode: raw.mode,
  }
}

export function historyRecordOf(connectionId: string, raw: HistoryItem, syncedAt: number): HistoryRecord {
  const createdAt = Date.parse(raw.created_on)
  const user = userDataFacts(raw.user_data)
  const item = itemFieldsOf(raw)
  return {
    connectionId,
    key: recordKeyOf(raw.type, raw.resource_id),
    resourceId: raw.resource_id,
    type: item.type,
    chargeId: item.chargeId,
    storeId: item.storeId,
    createdAt,
    amount: raw.amount,
    currency: item.currency,
    status: item.status,
    mode: item.mode,
    brand: user.brand,
    cardholderName: user.name,
    cardholderEmail: user.email,
    orderRef: orderRefOf(raw),
    raw,
    syncedAt,
  }
}

/**
 * A stored record without the fields older versions wrote and nothing reads (`searchText`, written until
 * schema v8; `searchTokens`, v4–v8): what a backup exports, whichever version wrote the row.
 */
export function withoutDeadFields(row: HistoryRecord): HistoryRecord {
  const {
    searchText: _text,
    searchTokens: _tokens,
    ...rest
  } = row as HistoryRecord & {
    searchText?: unknown
    searchTokens?: unknown
  }
  return rest
}
