/**
 * How long a backup's text fields may be. Each limit is well above what the app lets anyone type or
 * stores (names 80, notes 500–2,000 characters), so a backup Closebook wrote always passes; a row past
 * one was made elsewhere and is refused, naming the field, before anything is stored.
 */
import type { BackupTableName } from './backup'
import { BackupError } from './backup-format'
import { PAYOUT_FIELD_LIMITS } from './backup-payouts'

const NAME = 200
const NOTE = 2_000
const ID = 500

/** Per table, the fields the app fills with text, and their longest accepted length. */
const FIELD_LIMITS: Readonly<Record<BackupTableName, Readonly<Record<string, number>>>> = {
  connections: { id: ID, label: NAME, baseUrl: 2_000, timeZone: 64 },
  stores: { connectionId: ID, storeId: ID, storeName: NAME, merchantName: NAME },
  locks: { connectionId: ID, lockedBy: NAME, note: NOTE },
  history: { connectionId: ID },
  charges: { connectionId: ID },
  marks: { connectionId: ID, key: ID, note: NOTE, fingerprint: NAME, updatedBy: NAME, matchRef: ID },
  audit: { connectionId: ID, key: ID, actor: NAME, reason: NOTE },
  checkpoints: { connectionId: ID, partitionId: ID, storeId: ID, cursor: 2_000 },
  settings: { key: NAME },
  imports: { connectionId: ID, id: ID, fileName: 500, profileName: NAME, encoding: 32 },
  importedRows: {
    connectionId: ID,
    importId: ID,
    orderNumber: ID,
    currency: 16,
    customer: NOTE,
    description: NOTE,
    paymentMethod: NAME,
  },
  ...PAYOUT_FIELD_LIMITS,
}

/** Fields holding JSON values (an audit entry's before and after, a setting): their JSON text's length. */
const JSON_LIMITS: Partial<Record<BackupTableName, Readonly<Record<string, number>>>> = {
  audit: { before: 8_000, after: 8_000 },
  settings: { value: 256 * 1024 },
}

/** Any other string of a row (an API payload's fields included): the API never sends one this long. */
export const ANY_TEXT_MAX = 100_000

const tooLong = (table: BackupTableName, line: number, field: string, max: number): BackupError =>
  new BackupError('text_too_long', { table, line, field: field.slice(0, 80), max })

/** The first string inside `value` longer than `max`, as its path; null when there is none. */
export function longString(value: unknown, max: number): string | null {
  const stack: { value: unknown; path: string }[] = [{ value, path: '' }]
  while (stack.length > 0) {
    const next = stack.pop()!
    if (typeof next.value === 'string') {
      if (next.value.length > max) return next.path
    } else if (next.value !== null && typeof next.value === 'object') {
      for (const [k, v] of Object.entries(next.value)) {
        if (k.length > max) return `${next.path}${next.path ? '.' : ''}${k.slice(0, 40)}…`
        stack.push({ value: v, path: next.path ? `${next.path}.${k}` : k })
      }
    }
  }
  return null
}

/**
 * Whether any string or key inside `value` is longer than `max`: longString's answer without building a
 * path per field, so a row within bounds (every row Closebook writes) costs no garbage. Order does not
 * matter for a yes or no; longString then names the same field it always did.
 */
export function hasLongString(value: unknown, max: number): boolean {
  // A stack, not recursion: a hostile line may nest deeper than the call stack goes.
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const next = stack.pop()
    if (typeof next === 'string') {
      if (next.length > max) return true
    } else if (Array.isArray(next)) {
      for (const v of next as unknown[]) stack.push(v)
    } else if (next !== null && typeof next === 'object') {
      const row = next as Record<string, unknown>
      for (const k of Object.keys(row)) {
        if (k.length > max) return true
        stack.push(row[k])
      }
    }
  }
  return false
}

/** Throws `text_too_long` for the first field of a file row past its limit. */
export function checkTextBounds(table: BackupTableName, value: unknown, line: number): void {
  if (value === null || typeof value !== 'object') return
  const row = value as Record<string, unknown>
  for (const [field, max] of Object.entries(FIELD_LIMITS[table])) {
    const text = row[field]
    if (typeof text === 'string' && text.length > max) throw tooLong(table, line, field, max)
  }
  for (const [field, max] of Object.entries(JSON_LIMITS[table] ?? {})) {
    const text = row[field] === undefined ? '' : JSON.stringify(row[field])
    if (text.length > max) throw tooLong(table, line, field, max)
  }
  const storeIds = row['storeIds']
  if (table === 'connections' && Array.isArray(storeIds) && storeIds.some((s) => String(s).length > ID))
    throw tooLong(table, line, 'storeIds', ID)
  if (!hasLongString(value, ANY_TEXT_MAX)) return
  const path = longString(value, ANY_TEXT_MAX)
  if (path !== null) throw tooLong(table, line, path, ANY_TEXT_MAX)
}
