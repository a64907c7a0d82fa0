/**
 * The team workspace's rows in the cache (schema v12). `merchant` is `<service merchant id>:<mode>`, the
 * server's identity of a merchant, never a desktop's connection id.
 */
import type { TeamAuditRow } from '../../electron/shared/team-chain'
import type { TeamMark, TeamMarkOutcome } from '../../electron/shared/contract/team'

/** One write waiting for the server: sent again with the same key until the server answers it. */
export interface TeamOutboxRow {
  id?: number
  key: string
  merchant: string
  marks: TeamMark[]
  queuedAt: number
  attempts: number
  /** Why the last send did not reach the server (unreachable, …), for the outbox display. */
  lastError: string | null
}

/** A mark the server refused: listed for the user with the reason and the server's state, never resent. */
export interface TeamRefusedRow {
  id?: number
  merchant: string
  key: string
  mark: TeamMark
  /**
   * The server's refusal of this mark (`conflict`: a joining desktop's mark differs from the server's), or
   * `rejected`: the server answered the whole write with an error.
   */
  reason: NonNullable<TeamMarkOutcome['reason']> | 'conflict' | 'rejected'
  monthState: string | null
  current: TeamMarkOutcome['current'] | null
  refusedAt: number
}

export interface TeamAuditStored extends TeamAuditRow {
  merchant: string
}

/** The server's view of one mark as the pulled audit rows tell it. */
export interface TeamServerMark {
  version: number
  reconciled: boolean
  note: string
  month: string | null
  by: string
  at: string
}

export interface TeamStateRow {
  merchant: string
  /** The last audit number held and verified, and its hash (the chain continues from there). */
  verifiedThrough: number
  headHash: string
  /** Where the chain broke, when it did: nothing after it is applied. */
  broken: { at: number; reason: 'gap' | 'link' | 'hash' } | null
  /** `kind:id` → the mark as the server holds it. */
  marks: Record<string, TeamServerMark>
}
