/**
 * Moves the team workspace's data between this desktop's cache and the server (through main): sends the
 * outbox in order, each write with its own idempotency key, and pulls the audit rows after the last number
 * held, verifying the chain before anything is applied. A write the server refused is listed with its reason
 * and never retried; a write that did not reach the server stays queued, and later ones wait behind it.
 */
import type { DesktopApi, TeamMark, TeamMerchant } from '../../electron/shared/contract'
import { verifyChain } from '../../electron/shared/team-chain'
import type { TeamRepository } from '../db/team-repository'
import type { TeamStateRow } from '../db/team-rows'

/** The team calls the sync needs (DesktopApi's, or main's TeamService directly in tests). */
export type TeamSyncApi = Pick<DesktopApi['team'], 'pushMarks' | 'pullAudit'>

export const merchantKeyOf = (m: TeamMerchant): string => `${m.merchantId}:${m.mode}`

/** Failures of a send that mean "not answered": the write stays queued for the next attempt. */
const NOT_ANSWERED = new Set(['network', 'timeout', 'cancelled'])

export interface FlushResult {
  sent: number
  refused: number
  /** Set when the server could not be reached: the rest waits in the outbox. */
  stoppedBy: string | null
}

export class TeamSync {
  constructor(
    private readonly repo: TeamRepository,
    private readonly api: TeamSyncApi,
    private readonly user: string,
    private readonly now: () => number = Date.now,
  ) {}

  queueMarks(merchant: TeamMerchant, marks: Omit<TeamMark, 'baseVersion'>[]): Promise<unknown> {
    return this.repo.enqueue(merchantKeyOf(merchant), marks, this.now())
  }

  async flush(merchant: TeamMerchant): Promise<FlushResult> {
    const key = merchantKeyOf(merchant)
    let sent = 0
    let refused = 0
    for (const row of await this.repo.pending(key)) {
      let answer
      try {
        answer = await this.api.pushMarks({ merchant, key: row.key, marks: row.marks })
      } catch (error) {
        const code = typeof error === 'object' && error && 'code' in error ? String(error.code) : 'internal'
        const message = error instanceof Error ? error.message : String(error)
        if (row.id !== undefined) await this.repo.noteFailure(row.id, message)
        // Not answered (unreachable) or answered with an error (refused input, no grant): either way the
        // write stays queued with its note, the ones after it wait, and nothing is resent until asked.
        return { sent, refused, stoppedBy: NOT_ANSWERED.has(code) ? 'unreachable' : message }
      }
      await this.repo.settle(row, answer.outcomes, this.user, this.now())
      sent += 1
      refused += answer.outcomes.filter((o) => o.status === 'refused').length
    }
    return { sent, refused, stoppedBy: null }
  }

  /** Pulls and verifies every audit row after the last one held; stops at a break in the chain. */
  async pull(merchant: TeamMerchant, pageSize = 5000): Promise<TeamStateRow> {
    const key = merchantKeyOf(merchant)
    let state = await this.repo.state(key)
    for (;;) {
      if (state.broken) return state
      const { rows } = await this.api.pullAudit({
        merchant,
        afterSeq: state.verifiedThrough,
        limit: pageSize,
      })
      if (rows.length === 0) return state
      const check = await verifyChain(rows, { seq: state.verifiedThrough, hash: state.headHash })
      state = await this.repo.storeAudit(key, rows, check)
      if (rows.length < pageSize) return state
    }
  }
}
