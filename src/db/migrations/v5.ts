/**
 * Version 5 (frozen): the same indexes as version 4; every record's search tokens are (re)computed and
 * filed by UTC day as well as connection (`${connectionId}\u0001${day}\u0001${token}`), so a search read
 * the days of its period only. Fills them on a v3 cache, re-files v4's. Row shaping below is this step's
 * own copy, as it was at version 5.
 */
import type { Transaction } from 'dexie'
import { forEachPage, type MigrationStep, type ReportMigrationProgress } from './step'

/** The part of a stored record this step reads and writes. */
export interface HistoryRowV5 {
  connectionId: string
  key: string
  createdAt: number
  raw: {
    resource_id: string
    charge_id?: string | null
    metadata?: Record<string, unknown> | null
    user_data?: Record<string, unknown> | null
  }
  searchTokens?: string[]
}

const SEPARATOR = '\u0001'
const MAX_TOKEN_LENGTH = 48
const MAX_TOKENS = 48
const DAY_MS = 86_400_000
const WORD_START = /[\p{L}\p{N}]+/gu

function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim()
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  return null
}

function collectValues(value: unknown, out: string[], depth: number): void {
  const text = scalarText(value)
  if (text !== null) out.push(text)
  else if (depth < 3 && value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) collectValues(v, out, depth + 1)
  }
}

function userText(u: Record<string, unknown>, ...keys: string[]): string {
  for (const k of keys) {
    const v = u[k]
    if (typeof v === 'string') return v
  }
  return ''
}

function valueTokens(value: string, out: Set<string>): void {
  for (const chunk of value.toLowerCase().split(/\s+/)) {
    if (chunk === '') continue
    out.add(chunk.slice(0, MAX_TOKEN_LENGTH))
    for (const word of chunk.matchAll(WORD_START))
      out.add(chunk.slice(word.index, word.index + MAX_TOKEN_LENGTH))
  }
}

/** Version 5's tokens of a record: scoped by connection and zero-padded UTC day. Exported for tests. */
export function searchTokensV5(connectionId: string, createdAt: number, raw: HistoryRowV5['raw']): string[] {
  const values: string[] = [raw.resource_id]
  if (raw.charge_id) values.push(raw.charge_id)
  const user = raw.user_data ?? {}
  values.push(userText(user, 'cardholder_name', 'customer_name'), userText(user, 'cardholder_email_address'))
  const lastFour = scalarText(user['last_four'])
  if (lastFour !== null) values.push(lastFour)
  collectValues(raw.metadata, values, 0)
  const tokens = new Set<string>()
  for (const v of values) valueTokens(v, tokens)
  const day = Number.isFinite(createdAt) ? Math.max(0, Math.floor(createdAt / DAY_MS)) : 0
  const prefix = connectionId + SEPARATOR + String(day).padStart(6, '0') + SEPARATOR
  return [...tokens].slice(0, MAX_TOKENS).map((t) => prefix + t)
}

async function upgrade(tx: Transaction, report: ReportMigrationProgress): Promise<void> {
  await forEachPage<HistoryRowV5>(
    tx,
    'history',
    (r) => [r.connectionId, r.key],
    async (rows) => {
      for (const r of rows) r.searchTokens = searchTokensV5(r.connectionId, r.createdAt, r.raw)
      await tx.table<HistoryRowV5>('history').bulkPut(rows)
    },
    (done, total) => report({ version: 5, done, total }),
  )
}

export const v5: MigrationStep = {
  version: 5,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId], ' +
      '*searchTokens',
    charges: '[connectionId+id], [connectionId+createdAt]',
    marks:
      '[connectionId+key], [connectionId+period], [connectionId+state], [connectionId+changedSinceReconciled]',
    audit: '++seq, [connectionId+at], [connectionId+period], [connectionId+key]',
    checkpoints: '[connectionId+partitionId]',
    locks: '[connectionId+period]',
    settings: 'key',
    imports: '[connectionId+id], [connectionId+hash]',
    importedRows: '[connectionId+importId+line], [connectionId+importId], [connectionId+day]',
  },
  upgrade,
}
