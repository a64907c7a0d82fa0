/**
 * Moves the team workspace's data between this desktop's cache and the server (through main): sends the
 * outbox in order, each write with its own idempotency key, and pulls the audit rows after the last number
 * held, verifying the chain before anything is applied. A write the server refused is listed with its reason
 * and never retried, as is a write whose input the server refused (it no longer holds up the ones behind);
 * a write that did not reach the server stays queued, and later ones wait behind it.
 * With a `local` hook, what the server decided reaches the local marks: pulled marks (except records with
 * writes of this desktop still queued) and, for a refused write, the server's current mark (a rollback).
 */
import {
  payoutCloseSchema,
  type DesktopApi,
  type TeamMark,
  type TeamMarkOutcome,
  type TeamMerchant,
} from '../../electron/shared/contract'
import { verifyChain } from '../../electron/shared/team-chain'
import type { TeamRepository } from '../db/team-repository'
import type { TeamStateRow } from '../db/team-rows'
import type { ServerMarkInput } from '../domain/team-mark-plan'
import type { PayoutCloseRecord, RecordKey } from '../domain/records'

/** The team calls the sync needs (DesktopApi's, or main's TeamService directly in tests). */
export type TeamSyncApi = Pick<DesktopApi['team'], 'pushMarks' | 'pullAudit'>

export const merchantKeyOf = (m: TeamMerchant): string => `${m.merchantId}:${m.mode}`

/** A month's close as the server decided it: signed off (locked) or open again. */
export interface ServerMonthChange {
  month: string
  locked: boolean
  by: string
  at: string
  /** The payout closing the sign-off carried, when it carried a well-formed one. */
  payoutClose?: PayoutCloseRecord
}

/** Where the server's decisions reach this desktop's cache (the marking service and the locks). */
export interface LocalTarget {
  marks(marks: ServerMarkInput[]): Promise<unknown>
  months(changes: ServerMonthChange[]): Promise<unknown>
}

/** Server month actions that set or lift the local lock. */
const LOCKING: Record<string, boolean> = { sign_off: true, reopen: false }

const recordKey = (kind: 'charge' | 'refund', id: string): RecordKey => `${kind}:${id}`

/**
 * The payout closing a sign-off's audit payload carries (schema 3), or undefined: none (an older sign-off),
 * or one that is not integers of the expected shape, which no lock keeps (the next month then has no
 * closing to check its opening against, rather than a wrong one).
 */
export function payoutCloseIn(payload: string): PayoutCloseRecord | undefined {
  let body: unknown
  try {
    body = JSON.parse(payload)
  } catch {
    return undefined
  }
  if (typeof body !== 'object' || body === null || !('payoutClose' in body)) return undefined
  const parsed = payoutCloseSchema.safeParse(body.payoutClose)
  return parsed.success ? parsed.data : undefined
}

/** Failures of a send that mean "not answered": the write stays queued for the next attempt. */
const NOT_ANSWERED = new Set(['network', 'timeout', 'cancelled'])
/** Failures that are the write's own (its input refused): the write is rejected and the outbox moves on. */
const REJECTED = new Set(['invalid_argument'])

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
    private readonly local: LocalTarget | null = null,
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
        if (!REJECTED.has(code)) {
          // Not answered (unreachable), or a failure of the setup rather than of this write (login, TLS,
          // grant, schema): the write stays queued with its note and the ones after it wait, so order holds.
          if (row.id !== undefined) await this.repo.noteFailure(row.id, message)
          return { sent, refused, stoppedBy: NOT_ANSWERED.has(code) ? 'unreachable' : message }
        }
        // The server refused this write's input: listed as rejected (never resent), the local marks go back
        // to the server's, and the writes behind it are sent.
        await this.repo.reject(row, this.now())
        refused += row.marks.length
        await this.#rollBack(
          row.marks,
          row.marks.map((m) => ({ kind: m.kind, id: m.id, status: 'refused' as const, current: null })),
          await this.repo.state(key),
        )
        continue
      }
      await this.repo.settle(row, answer.outcomes, this.user, this.now())
      sent += 1
      const rollback = answer.outcomes.filter((o) => o.status === 'refused')
      refused += rollback.length
      await this.#rollBack(row.marks, rollback)
    }
    return { sent, refused, stoppedBy: null }
  }

  /**
   * The local marks of refused writes go back to the server's state: the refusal's current mark, else the
   * server's mark as pulled into `known`, else none (unmarked, no note).
   */
  async #rollBack(
    sent: readonly TeamMark[],
    refused: readonly TeamMarkOutcome[],
    known?: TeamStateRow,
  ): Promise<void> {
    if (!this.local || refused.length === 0) return
    const marks = refused.map((o): ServerMarkInput => {
      const mine = sent.find((m) => m.kind === o.kind && m.id === o.id)
      const held = known?.marks[recordKey(o.kind, o.id)]
      const c =
        o.current ??
        (held
          ? {
              reconciled: held.reconciled,
              note: held.note,
              month: held.month ?? undefined,
              updatedBy: held.by,
              updatedAt: held.at,
            }
          : null)
      return {
        key: recordKey(o.kind, o.id),
        reconciled: c?.reconciled ?? false,
        note: c?.note ?? '',
        month: c?.month ?? mine?.month ?? '',
        by: c?.updatedBy ?? this.user,
        at: c?.updatedAt ?? new Date(this.now()).toISOString(),
      }
    })
    await this.local.marks(marks)
  }

  /** Applies the server's marks of `keys` to the local marks, skipping records with writes still queued. */
  async #applyPulled(merchant: string, state: TeamStateRow, keys: ReadonlySet<string>): Promise<void> {
    if (!this.local || keys.size === 0) return
    const queued = new Set<string>()
    for (const row of await this.repo.pending(merchant))
      for (const m of row.marks) queued.add(recordKey(m.kind, m.id))
    const marks: ServerMarkInput[] = []
    for (const k of keys) {
      const s = state.marks[k]
      if (!s || queued.has(k) || s.month === null) continue
      marks.push({
        key: k as RecordKey,
        reconciled: s.reconciled,
        note: s.note,
        month: s.month,
        by: s.by,
        at: s.at,
      })
    }
    if (marks.length > 0) await this.local.marks(marks)
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
      const touched = new Set<string>()
      const months = new Map<string, ServerMonthChange>()
      for (const r of rows) {
        if (r.seq > check.verifiedThrough) break
        if (r.action === 'mark') {
          const p = JSON.parse(r.payload) as { kind: 'charge' | 'refund'; id: string }
          touched.add(recordKey(p.kind, p.id))
        }
        const locked = LOCKING[r.action]
        if (locked !== undefined && r.month) {
          const payoutClose = locked ? payoutCloseIn(r.payload) : undefined
          months.set(r.month, {
            month: r.month,
            locked,
            by: r.actor,
            at: r.at,
            ...(payoutClose ? { payoutClose } : {}),
          })
        }
      }
      await this.#applyPulled(key, state, touched)
      if (this.local && months.size > 0) await this.local.months([...months.values()])
      if (rows.length < pageSize) return state
    }
  }
}
