/**
 * Planning of the accountant's changes (DESIGN §4): mark, unmark, note, reconfirm, undo, close and reopen
 * a period. Pure: each planner returns what to write (puts, deletes, audit entries) and what it refused,
 * and the caller applies it in one transaction. Records in a locked period are refused, never changed.
 */
import type {
  AuditAction,
  AuditEntry,
  HistoryRecord,
  MarkRecord,
  MarkTarget,
  PayoutCloseRecord,
  PeriodLock,
  RecordKey,
} from '../domain/records'
import { fingerprintOf } from '../domain/fingerprint'
import { emptyPlan, type MarkPlan, type Refusal, type RefusalReason } from '../domain/mark-plan'
import { linksTo, withLink, withoutImport, type MatchLink } from './match-links'
import { isValidPeriod, periodOf } from '../domain/periods'

export type MarkAction = 'mark' | 'unmark' | 'note' | 'reconfirm'

/** The plan's types live in the domain model (the marking service in src/db writes them). */
export { emptyPlan, type MarkPlan, type Refusal, type RefusalReason }

/** Closed periods: a set of `YYYY-MM`, or the lock rows by period. */
export type LockedPeriods = ReadonlySet<string> | ReadonlyMap<string, PeriodLock>

/** A record to mark: the record itself, or its MarkTarget (identity, time and fingerprint, from a digest). */
export type MarkSubject = HistoryRecord | MarkTarget

const fingerprintOfSubject = (s: MarkSubject): string =>
  'fingerprint' in s ? s.fingerprint : fingerprintOf(s)

export interface PlanMarksInput {
  action: MarkAction
  records: readonly MarkSubject[]
  marks: ReadonlyMap<RecordKey, MarkRecord>
  locks: LockedPeriods
  /** Required for `note`; an empty (or blank) note clears it. */
  note?: string
  /**
   * For `mark` from an accepted match: the imported row each record was matched to. It becomes the link
   * of its side (sales or cash) on the mark; the other side's link, read with the mark, stays.
   */
  links?: ReadonlyMap<RecordKey, MatchLink>
  actor: string
  now: number
  timeZone: string
}

function isLocked(locks: LockedPeriods, ...periods: (string | undefined)[]): boolean {
  return periods.some((p) => p !== undefined && locks.has(p))
}

function audit(
  connectionId: string,
  action: AuditAction,
  key: RecordKey,
  period: string | null,
  before: MarkRecord | null,
  after: MarkRecord | null,
  actor: string,
  now: number,
  reason?: string,
): AuditEntry {
  const entry: AuditEntry = { connectionId, at: now, actor, action, key, period, before, after }
  if (reason !== undefined) entry.reason = reason
  return entry
}

/** A copy without `matchRef` when it is undefined, so stored rows and audit snapshots stay clean. */
function markOf(fields: MarkRecord): MarkRecord {
  const mark = { ...fields }
  if (mark.matchRef === undefined) delete mark.matchRef
  return mark
}

/** Whether the mark would end as `next` (undefined = no row); updatedAt/updatedBy are not content. */
function sameContent(a: MarkRecord | undefined, b: MarkRecord | undefined): boolean {
  if (!a || !b) return a === b
  return (
    a.state === b.state &&
    a.note === b.note &&
    a.fingerprint === b.fingerprint &&
    a.changedSinceReconciled === b.changedSinceReconciled &&
    a.period === b.period &&
    a.matchRef === b.matchRef
  )
}

function linkedRef(existing: string | undefined, link: MatchLink | undefined): string | undefined {
  return link ? withLink(existing, link) : existing
}

/** The mark after `action`, or undefined for "no row" (unreconciled without a note). */
function nextMark(
  input: PlanMarksInput,
  record: MarkSubject,
  existing: MarkRecord | undefined,
  period: string,
): MarkRecord | undefined {
  const base = {
    connectionId: record.connectionId,
    key: record.key,
    period,
    updatedAt: input.now,
    updatedBy: input.actor,
  }
  const note = existing?.note ?? ''
  switch (input.action) {
    case 'mark':
      return markOf({
        ...base,
        state: 'reconciled',
        // A mark may carry a note ("matched to deposit 0915"); without one the existing note stays.
        note: input.note?.trim() ? input.note.trim() : note,
        fingerprint: fingerprintOfSubject(record),
        changedSinceReconciled: 0,
        matchRef: linkedRef(existing?.matchRef, input.links?.get(record.key)),
      })
    case 'reconfirm':
      // Only a reconciled mark can be reconfirmed: it takes the record's current data as checked.
      if (existing?.state !== 'reconciled') return existing
      return markOf({
        ...existing,
        ...base,
        fingerprint: fingerprintOfSubject(record),
        changedSinceReconciled: 0,
      })
    case 'unmark':
      // The note survives an unmark; the match link belonged to the mark and goes with it.
      if (!existing || existing.state !== 'reconciled') return existing
      if (note === '') return undefined
      return markOf({ ...base, state: 'unreconciled', note, fingerprint: null, changedSinceReconciled: 0 })
    case 'note': {
      const text = (input.note ?? '').trim()
      if (!existing) {
        if (text === '') return undefined
        return markOf({
          ...base,
          state: 'unreconciled',
          note: text,
          fingerprint: null,
          changedSinceReconciled: 0,
        })
      }
      if (text === '' && existing.state === 'unreconciled') return undefined
      return markOf({ ...existing, ...base, note: text })
    }
  }
}

/**
 * Plans one action over many records. A record whose period (in the accounting zone, or as stored on its
 * mark) is locked is refused. An action that would not change the mark's content is a no-op: nothing is
 * written and nothing is audited (e.g. marking a record already reconciled on the same data).
 */
export function planMarks(input: PlanMarksInput): MarkPlan {
  if (input.action === 'note' && input.note === undefined)
    throw new Error('planMarks: a note action needs a note')
  const plan = emptyPlan()
  const seen = new Set<RecordKey>()
  for (const record of input.records) {
    if (seen.has(record.key)) continue
    seen.add(record.key)
    const existing = input.marks.get(record.key)
    const period = periodOf(record.createdAt, input.timeZone)
    if (isLocked(input.locks, period, existing?.period)) {
      plan.refused.push({ key: record.key, reason: 'period_locked' })
      continue
    }
    const next = nextMark(input, record, existing, period)
    if (sameContent(existing, next)) continue
    if (next) plan.puts.push(next)
    else plan.deletes.push(record.key)
    plan.audit.push(
      audit(
        record.connectionId,
        input.action,
        record.key,
        period,
        existing ?? null,
        next ?? null,
        input.actor,
        input.now,
      ),
    )
  }
  return plan
}

export interface PlanUnlinkInput {
  /** The records whose marks may link to the import. */
  records: readonly MarkSubject[]
  marks: ReadonlyMap<RecordKey, MarkRecord>
  locks: LockedPeriods
  importId: string
  actor: string
  now: number
  timeZone: string
}

/** Audit reason of the changes a removed import makes. */
export const IMPORT_REMOVED = 'import_removed'

/**
 * Removing an import: its links leave the marks. A reconciled mark left with no link was reconciled by
 * that import's match alone, so it is unmarked (its note stays); one still linked to another file keeps
 * its state and fingerprint and loses only the link. Audited with reason `import_removed`.
 */
export function planUnlink(input: PlanUnlinkInput): MarkPlan {
  const plan = emptyPlan()
  const seen = new Set<RecordKey>()
  for (const record of input.records) {
    if (seen.has(record.key)) continue
    seen.add(record.key)
    const existing = input.marks.get(record.key)
    if (!existing || !linksTo(existing.matchRef, input.importId)) continue
    const period = periodOf(record.createdAt, input.timeZone)
    if (isLocked(input.locks, period, existing.period)) {
      plan.refused.push({ key: record.key, reason: 'period_locked' })
      continue
    }
    const rest = withoutImport(existing.matchRef, input.importId)
    const stamp = { updatedAt: input.now, updatedBy: input.actor }
    let next: MarkRecord | undefined
    let action: AuditAction = 'mark'
    if (rest === undefined && existing.state === 'reconciled') {
      action = 'unmark'
      next =
        existing.note === ''
          ? undefined
          : markOf({
              ...existing,
              ...stamp,
              state: 'unreconciled',
              fingerprint: null,
              changedSinceReconciled: 0,
              matchRef: undefined,
            })
    } else {
      next = markOf({ ...existing, ...stamp, matchRef: rest })
    }
    if (next) plan.puts.push(next)
    else plan.deletes.push(record.key)
    plan.audit.push(
      audit(
        record.connectionId,
        action,
        record.key,
        period,
        existing,
        next ?? null,
        input.actor,
        input.now,
        IMPORT_REMOVED,
      ),
    )
  }
  return plan
}

export interface PlanUndoInput {
  /** The audit entries of the action to undo (one batch), in the order they were written. */
  entries: readonly AuditEntry[]
  /** Current marks of the keys involved. */
  marks: ReadonlyMap<RecordKey, MarkRecord>
  locks: LockedPeriods
  actor: string
  now: number
}

const INVERSE: Partial<Record<AuditAction, AuditAction>> = {
  mark: 'unmark',
  unmark: 'mark',
  note: 'note',
  reconfirm: 'reconfirm',
}

function isMarkRecord(value: unknown): value is MarkRecord {
  return value !== null && typeof value === 'object' && 'key' in value && 'state' in value
}

/**
 * Reverses a batch of mark entries: each key goes back to its `before`. Audited as the inverse action with
 * reason `undo`. Refused when the period is locked now, or when the mark no longer equals the entry's
 * `after` (someone changed it since). Period entries cannot be undone here: close or reopen instead.
 */
export function planUndo(input: PlanUndoInput): MarkPlan {
  const plan = emptyPlan()
  const current = new Map(input.marks)
  const planned = new Map<RecordKey, MarkRecord | undefined>()
  const refusedKeys = new Set<RecordKey>()
  for (const entry of [...input.entries].reverse()) {
    const inverse = INVERSE[entry.action]
    if (!inverse || entry.key === null) {
      throw new Error(`planUndo: a ${entry.action} entry cannot be undone as a mark change`)
    }
    const key = entry.key
    if (refusedKeys.has(key)) continue
    const before = isMarkRecord(entry.before) ? entry.before : undefined
    const after = isMarkRecord(entry.after) ? entry.after : undefined
    const now = current.get(key)
    const period = entry.period ?? before?.period ?? after?.period ?? undefined
    if (isLocked(input.locks, period, now?.period, before?.period)) {
      plan.refused.push({ key, reason: 'period_locked' })
      refusedKeys.add(key)
      continue
    }
    if (!sameContent(now, after)) {
      plan.refused.push({ key, reason: 'changed_since' })
      refusedKeys.add(key)
      continue
    }
    const restored = before ? markOf({ ...before, updatedAt: input.now, updatedBy: input.actor }) : undefined
    if (restored) current.set(key, restored)
    else current.delete(key)
    planned.set(key, restored)
    plan.audit.push(
      audit(
        entry.connectionId,
        inverse,
        key,
        period ?? null,
        now ?? null,
        restored ?? null,
        input.actor,
        input.now,
        'undo',
      ),
    )
  }
  for (const [key, mark] of planned) {
    if (refusedKeys.has(key)) continue
    if (mark) plan.puts.push(mark)
    else plan.deletes.push(key)
  }
  plan.audit = plan.audit.filter((e) => e.key === null || !refusedKeys.has(e.key))
  return plan
}

export interface LockPlan {
  puts: PeriodLock[]
  /** Periods to unlock. */
  deletes: string[]
  audit: AuditEntry[]
}

export interface PlanPeriodInput {
  connectionId: string
  period: string
  locks: LockedPeriods
  actor: string
  now: number
}

function assertPeriod(period: string): void {
  if (!isValidPeriod(period)) throw new RangeError(`not a period (YYYY-MM): ${period}`)
}

function lockOf(locks: LockedPeriods, period: string): PeriodLock | { period: string } {
  const found = 'get' in locks ? locks.get(period) : undefined
  return found ?? { period }
}

/** What the Month-end close adds to a lock: the closer's note and the records' state at the close. */
export interface CloseDetails {
  note?: string
  snapshot?: Record<string, string>
  payoutClose?: PayoutCloseRecord
}

/** The lock as the audit log shows it: the snapshot (one hash per record) is summarized by its size. */
function auditedLock(lock: PeriodLock | { period: string }): Record<string, unknown> {
  const { snapshot, ...rest } = lock as PeriodLock
  return snapshot ? { ...rest, records: Object.keys(snapshot).length } : rest
}

/** Closes a period: its marks are frozen until it is reopened. Closing a closed period is a no-op. */
export function planClosePeriod(input: PlanPeriodInput & { details?: CloseDetails }): LockPlan {
  assertPeriod(input.period)
  if (input.locks.has(input.period)) return { puts: [], deletes: [], audit: [] }
  const note = input.details?.note?.trim()
  const lock: PeriodLock = {
    connectionId: input.connectionId,
    period: input.period,
    lockedAt: input.now,
    lockedBy: input.actor,
    ...(note ? { note } : {}),
    ...(input.details?.snapshot ? { snapshot: input.details.snapshot } : {}),
    ...(input.details?.payoutClose ? { payoutClose: input.details.payoutClose } : {}),
  }
  return {
    puts: [lock],
    deletes: [],
    audit: [
      {
        connectionId: input.connectionId,
        at: input.now,
        actor: input.actor,
        action: 'close-period',
        key: null,
        period: input.period,
        before: null,
        after: auditedLock(lock),
      },
    ],
  }
}

/** Reopens a closed period; the reason is required and goes to the audit log. Open period: no-op. */
export function planReopenPeriod(input: PlanPeriodInput & { reason: string }): LockPlan {
  assertPeriod(input.period)
  const reason = typeof input.reason === 'string' ? input.reason.trim() : ''
  if (reason === '') throw new Error('planReopenPeriod: a reason is required to reopen a period')
  if (!input.locks.has(input.period)) return { puts: [], deletes: [], audit: [] }
  return {
    puts: [],
    deletes: [input.period],
    audit: [
      {
        connectionId: input.connectionId,
        at: input.now,
        actor: input.actor,
        action: 'reopen-period',
        key: null,
        period: input.period,
        before: auditedLock(lockOf(input.locks, input.period)),
        after: null,
        reason,
      },
    ],
  }
}
