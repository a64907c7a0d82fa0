/**
 * Turns the team server's marks into a local MarkPlan: the local mark becomes what the server holds
 * (reconciled or not, the note), audited under the server's login and clock. A record already as the
 * server says is left alone; a record in a locally closed month is left alone (the server refuses writes
 * to closed months, so such a difference is the lock's to explain, not this plan's to overwrite).
 */
import { fingerprintOf } from './fingerprint'
import { emptyPlan, type MarkPlan } from './mark-plan'
import type { AuditEntry, HistoryRecord, MarkRecord, PeriodLock, RecordKey } from './records'

/** A mark as the server holds it, for one record of this connection. */
export interface ServerMarkInput {
  key: RecordKey
  reconciled: boolean
  note: string
  /** The month the server filed it under (the marking desktop's accounting month). */
  month: string
  by: string
  /** ISO time of the server's clock. */
  at: string
}

export interface ServerPlanInput {
  records: readonly HistoryRecord[]
  marks: ReadonlyMap<RecordKey, MarkRecord>
  locks: ReadonlyMap<string, PeriodLock>
  server: readonly ServerMarkInput[]
}

export function planServerMarks(input: ServerPlanInput): MarkPlan {
  const plan = emptyPlan()
  const records = new Map(input.records.map((r) => [r.key, r]))
  for (const s of input.server) {
    const record = records.get(s.key)
    if (!record) continue
    const existing = input.marks.get(s.key)
    const wasReconciled = existing?.state === 'reconciled'
    if (wasReconciled === s.reconciled && (existing?.note ?? '') === s.note) continue
    const period = existing?.period ?? s.month
    if (input.locks.has(period) || input.locks.has(s.month)) continue
    const at = Date.parse(s.at)
    const now = Number.isFinite(at) ? at : Date.now()
    let after: MarkRecord | null = null
    if (!s.reconciled && s.note === '') {
      if (existing) plan.deletes.push(s.key)
    } else {
      after = {
        connectionId: record.connectionId,
        key: s.key,
        state: s.reconciled ? 'reconciled' : 'unreconciled',
        note: s.note,
        fingerprint: s.reconciled ? fingerprintOf(record) : null,
        changedSinceReconciled: 0,
        period: s.month,
        updatedAt: now,
        updatedBy: s.by,
      }
      plan.puts.push(after)
    }
    const entry: AuditEntry = {
      connectionId: record.connectionId,
      at: now,
      actor: s.by,
      action: s.reconciled === wasReconciled ? 'note' : s.reconciled ? 'mark' : 'unmark',
      key: s.key,
      period: s.month,
      before: existing ?? null,
      after,
      reason: 'team_server',
    }
    plan.audit.push(entry)
  }
  return plan
}
