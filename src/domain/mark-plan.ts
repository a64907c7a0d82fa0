/**
 * What one change of the accountant's marks writes (the one meaning of a mark plan), and the links a mark
 * keeps to imported rows. Types only: the pure planners that make plans live in src/reconcile/marking.ts,
 * the service that writes them in src/db/marking-service.ts (which must not import reconcile's rules, so
 * its callers hand it the planner).
 */
import type { AuditEntry, ImportSource, MarkRecord, RecordKey } from './records'

/**
 * `period_locked`: the record's period is closed. `changed_since`: (undo only) the mark was changed again
 * after the action being undone, so undoing it would overwrite later work.
 */
export type RefusalReason = 'period_locked' | 'changed_since'

export interface Refusal {
  key: RecordKey
  reason: RefusalReason
}

/**
 * The marks to put and delete, their audit entries, and the records refused. Planners make it from the
 * marks and locks read inside the transaction that writes it, never from an earlier read.
 */
export interface MarkPlan {
  puts: MarkRecord[]
  deletes: RecordKey[]
  audit: AuditEntry[]
  refused: Refusal[]
}

export function emptyPlan(): MarkPlan {
  return { puts: [], deletes: [], audit: [], refused: [] }
}

/** One side's link from a mark to an imported row. */
export interface MatchLink {
  source: ImportSource
  importId: string
  /** The file line of the matched row (the first line of a grouped order). */
  line: number
}

/** An imported row as links show it. */
export interface LinkedRow {
  importId: string
  line: number
  source: ImportSource
  fileName: string
  orderNumber: string | null
  at: number
  /** Minor units of `currency`; a deposit is positive. */
  amount: number
  currency: string
  /** Records the row was matched to. */
  matchedKeys: readonly RecordKey[]
}
