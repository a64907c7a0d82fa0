/**
 * Version 6 (frozen): marks grouped by their record's UTC day (`markDays`, replacing `marks`, which is
 * dropped), the audit log one row per action with multi-entry tag indexes, and `dayDigests` (per day,
 * what whole-filter work needs of each record). The upgrade reads history once, a page at a time: the
 * records never all sit in memory, only their digests and the marked ones' days. A mark whose record is
 * not cached is kept under day -1. Row shaping below is this step's own copy, as it was at version 6.
 */
import type { Transaction } from 'dexie'
import { forEachPage, type MigrationStep, type ReportMigrationProgress } from './step'

interface HistoryRowV6 {
  connectionId: string
  key: string
  createdAt: number
  storeId: string
  type: string
  status: string
  currency: string
  mode: string
  brand: string
  amount: number
  raw: { user_data?: { refunds?: unknown } | null }
}

interface MarkRowV6 {
  connectionId: string
  key: string
  state: string
  changedSinceReconciled: number
}

interface DigestV6 {
  key: string
  createdAt: number
  storeId: string
  type: string
  status: string
  currency: string
  mode: string
  brand: string
  fingerprint: string
}

interface AuditEntryV5 {
  seq?: number
  connectionId: string
  at: number
  actor: string
  action: string
  key: string | null
  period: string | null
  before: unknown
  after: unknown
  reason?: string
}

interface AuditRowV6 {
  seq?: number
  connectionId: string
  at: number
  actor: string
  action: string
  reason?: string
  changes: { key: string | null; period: string | null; before: unknown; after: unknown }[]
  keyTags: string[]
  periodTags: string[]
}

const DAY_MS = 86_400_000
const ORPHAN_MARK_DAY = -1

function dayOf(createdAt: number): number {
  return Number.isFinite(createdAt) ? Math.max(0, Math.floor(createdAt / DAY_MS)) : 0
}

const byTimeThenKey = (a: DigestV6, b: DigestV6): number =>
  a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

function scalar(value: unknown): string | number | null {
  if (typeof value === 'string' || typeof value === 'number') return value
  if (typeof value === 'boolean') return String(value)
  return null
}

function refundTuple(refund: unknown): (string | number | null)[] {
  const r = refund !== null && typeof refund === 'object' ? (refund as Record<string, unknown>) : {}
  const currency = scalar(r['currency'])
  return [
    scalar(r['refund_id'] ?? r['id']),
    scalar(r['amount']),
    typeof currency === 'string' ? currency.trim().toUpperCase() : currency,
    scalar(r['status']),
  ]
}

function fingerprintV6(r: HistoryRowV6): string {
  const refunds: unknown = r.raw?.user_data?.refunds
  const tuples = Array.isArray(refunds) ? refunds.map((x) => JSON.stringify(refundTuple(x))) : []
  tuples.sort()
  return JSON.stringify(['fp1', r.amount, r.currency.trim().toUpperCase(), r.status, tuples])
}

function digestOf(r: HistoryRowV6): DigestV6 {
  return {
    key: r.key,
    createdAt: r.createdAt,
    storeId: r.storeId,
    type: r.type,
    status: r.status,
    currency: r.currency,
    mode: r.mode,
    brand: r.brand,
    fingerprint: fingerprintV6(r),
  }
}

function auditTag(connectionId: string, keyOrPeriod: string): string {
  return `${connectionId}\u0001${keyOrPeriod}`
}

/** One old audit entry as a row of one change, with its tags. */
function auditRowOf(e: AuditEntryV5): AuditRowV6 {
  const row: AuditRowV6 = {
    connectionId: e.connectionId,
    at: e.at,
    actor: e.actor,
    action: e.action,
    changes: [{ key: e.key, period: e.period, before: e.before, after: e.after }],
    keyTags: e.key === null ? [] : [auditTag(e.connectionId, e.key)],
    periodTags: e.period === null ? [] : [auditTag(e.connectionId, e.period)],
  }
  if (e.reason !== undefined) row.reason = e.reason
  return e.seq === undefined ? row : { ...row, seq: e.seq }
}

async function upgrade(tx: Transaction, report: ReportMigrationProgress): Promise<void> {
  const marks = await tx.table<MarkRowV6>('marks').toArray()
  const recordId = (r: { connectionId: string; key: string }): string => `${r.connectionId}\u0001${r.key}`
  const markById = new Map(marks.map((m) => [recordId(m), m]))
  // One pass over history gives both the digests and the day of every marked record.
  const markDay = new Map<MarkRowV6, number>()
  const digestRows = new Map<string, { connectionId: string; day: number; records: DigestV6[] }>()
  await forEachPage<HistoryRowV6>(
    tx,
    'history',
    (r) => [r.connectionId, r.key],
    (rows) => {
      for (const r of rows) {
        const day = dayOf(r.createdAt)
        const id = `${r.connectionId}\u0001${day}`
        let row = digestRows.get(id)
        if (!row) digestRows.set(id, (row = { connectionId: r.connectionId, day, records: [] }))
        row.records.push(digestOf(r))
        const mark = markById.get(recordId(r))
        if (mark) markDay.set(mark, day)
      }
    },
    (done, total) => report({ version: 6, done, total }),
  )
  for (const row of digestRows.values()) row.records.sort(byTimeThenKey)
  await tx.table('dayDigests').bulkAdd([...digestRows.values()])

  const markRows = new Map<
    string,
    { connectionId: string; day: number; marks: MarkRowV6[]; changed: 0 | 1 }
  >()
  for (const m of marks) {
    const day = markDay.get(m) ?? ORPHAN_MARK_DAY
    const id = `${m.connectionId}\u0001${day}`
    let row = markRows.get(id)
    if (!row) markRows.set(id, (row = { connectionId: m.connectionId, day, marks: [], changed: 0 }))
    row.marks.push(m)
  }
  for (const row of markRows.values())
    row.changed = row.marks.some((m) => m.state === 'reconciled' && m.changedSinceReconciled === 1) ? 1 : 0
  await tx.table('markDays').bulkAdd([...markRows.values()])

  await tx
    .table<AuditRowV6 | AuditEntryV5>('audit')
    .toCollection()
    .modify((old: AuditRowV6 | AuditEntryV5, ref: { value: AuditRowV6 | AuditEntryV5 }) => {
      if ('changes' in old) return
      ref.value = auditRowOf(old)
    })
}

export const v6: MigrationStep = {
  version: 6,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId], ' +
      '*searchTokens',
    charges: '[connectionId+id], [connectionId+createdAt]',
    // Dropped after the upgrade has moved its rows into `markDays`.
    marks: null,
    markDays: '[connectionId+day], [connectionId+changed]',
    dayDigests: '[connectionId+day]',
    audit: '++seq, [connectionId+at], *keyTags, *periodTags',
    checkpoints: '[connectionId+partitionId]',
    locks: '[connectionId+period]',
    settings: 'key',
    imports: '[connectionId+id], [connectionId+hash]',
    importedRows: '[connectionId+importId+line], [connectionId+importId], [connectionId+day]',
  },
  upgrade,
}
