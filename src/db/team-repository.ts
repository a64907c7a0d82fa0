/**
 * The team workspace's part of the cache: the outbox (writes with their idempotency keys, in the order they
 * were made), the writes the server refused, the audit rows pulled and the verified chain head. Each answer
 * of the server lands in one transaction with the outbox entry it settles, so a crash between the answer and
 * the write leaves the entry in the outbox and the resend, with the same key, gets the same answer.
 */
import type {
  TeamJoinMark,
  TeamJoinOutcome,
  TeamMark,
  TeamMarkOutcome,
} from '../../electron/shared/contract/team'
import { GENESIS_HASH, type ChainCheck, type TeamAuditRow } from '../../electron/shared/team-chain'
import type { ClosebookDb } from './database'
import type { TeamOutboxRow, TeamRefusedRow, TeamServerMark, TeamStateRow } from './team-rows'

export const markKey = (kind: string, id: string): string => `${kind}:${id}`

/** The most marks one write to the server carries (the contract's and the server function's limit). */
export const TEAM_WRITE_MAX = 5000

/** The setting naming a connection's team merchant (`{ merchantId, mode }`); absent: not shared. */
export const teamMerchantSetting = (connectionId: string): string => `team.merchant.${connectionId}`

/** A local mark change as the team sees it: the record, its month, and the mark after the change. */
export interface TeamMarkChange {
  key: string
  period: string
  reconciled: boolean
  note: string
}

/**
 * Inside the marking transaction: when the connection is shared with a team merchant, its changed marks
 * join the outbox in the same transaction as the local write (both land or neither). Otherwise nothing.
 */
export async function queueTeamChanges(
  db: ClosebookDb,
  connectionId: string,
  changes: readonly TeamMarkChange[],
  now: number,
): Promise<void> {
  if (changes.length === 0) return
  const value = (await db.settings.get(teamMerchantSetting(connectionId)))?.value as
    { merchantId?: unknown; mode?: unknown } | undefined
  if (!value || typeof value.merchantId !== 'string' || (value.mode !== 'live' && value.mode !== 'test'))
    return
  const marks = changes.flatMap((c) => {
    const at = c.key.indexOf(':')
    const kind = c.key.slice(0, at)
    if (kind !== 'charge' && kind !== 'refund') return []
    return [
      { kind, id: c.key.slice(at + 1), month: c.period, reconciled: c.reconciled, note: c.note } as const,
    ]
  })
  if (marks.length > 0) await new TeamRepository(db).enqueue(`${value.merchantId}:${value.mode}`, marks, now)
}

function emptyState(merchant: string): TeamStateRow {
  return { merchant, verifiedThrough: 0, headHash: GENESIS_HASH, broken: null, marks: {} }
}

export class TeamRepository {
  constructor(private readonly db: ClosebookDb) {}

  async state(merchant: string): Promise<TeamStateRow> {
    return (await this.db.teamState.get(merchant)) ?? emptyState(merchant)
  }

  /**
   * Queues marks as writes with fresh keys, at most TEAM_WRITE_MAX marks each (what the server takes in one
   * call), all in one transaction. Each mark's base version is the server's version as this desktop knows
   * it, counting the writes to the same record still queued before it. Returns the first write.
   */
  async enqueue(
    merchant: string,
    marks: Omit<TeamMark, 'baseVersion'>[],
    now: number,
  ): Promise<TeamOutboxRow> {
    const { db } = this
    return db.transaction('rw', db.teamOutbox, db.teamState, async () => {
      const state = await this.state(merchant)
      const queued = await db.teamOutbox.where('merchant').equals(merchant).toArray()
      const ahead = new Map<string, number>()
      for (const row of queued)
        for (const m of row.marks)
          ahead.set(markKey(m.kind, m.id), (ahead.get(markKey(m.kind, m.id)) ?? 0) + 1)
      const based = marks.map((m) => {
        const k = markKey(m.kind, m.id)
        const baseVersion = (state.marks[k]?.version ?? 0) + (ahead.get(k) ?? 0)
        ahead.set(k, (ahead.get(k) ?? 0) + 1)
        return { ...m, baseVersion }
      })
      const rows: TeamOutboxRow[] = []
      for (let from = 0; from === 0 || from < based.length; from += TEAM_WRITE_MAX) {
        const row: TeamOutboxRow = {
          key: globalThis.crypto.randomUUID(),
          merchant,
          marks: based.slice(from, from + TEAM_WRITE_MAX),
          queuedAt: now,
          attempts: 0,
          lastError: null,
        }
        row.id = await db.teamOutbox.add(row)
        rows.push(row)
      }
      return rows[0] as TeamOutboxRow
    })
  }

  /** Waiting writes, oldest first. */
  pending(merchant: string): Promise<TeamOutboxRow[]> {
    return this.db.teamOutbox.where('merchant').equals(merchant).sortBy('id')
  }

  async noteFailure(id: number, message: string): Promise<void> {
    await this.db.teamOutbox
      .where('id')
      .equals(id)
      .modify((row) => {
        row.attempts += 1
        row.lastError = message
      })
  }

  /** The server answered `row`: it leaves the outbox; refusals are listed; applied marks update the versions. */
  async settle(row: TeamOutboxRow, outcomes: TeamMarkOutcome[], user: string, now: number): Promise<void> {
    const { db } = this
    await db.transaction('rw', db.teamOutbox, db.teamRefused, db.teamState, async () => {
      if (row.id === undefined || !(await db.teamOutbox.get(row.id))) return
      const state = await this.state(row.merchant)
      const refused: TeamRefusedRow[] = []
      for (const mark of row.marks) {
        const outcome = outcomes.find((o) => o.kind === mark.kind && o.id === mark.id)
        if (outcome?.status === 'applied' && outcome.version !== undefined) {
          const known = state.marks[markKey(mark.kind, mark.id)]
          if (!known || known.version < outcome.version) {
            state.marks[markKey(mark.kind, mark.id)] = {
              version: outcome.version,
              reconciled: mark.reconciled,
              note: mark.note,
              month: mark.month,
              by: user,
              at: new Date(now).toISOString(),
            }
          }
        } else {
          refused.push({
            merchant: row.merchant,
            key: row.key,
            mark,
            reason: outcome?.reason ?? 'stale',
            monthState: outcome?.monthState ?? null,
            current: outcome?.current ?? null,
            refusedAt: now,
          })
        }
      }
      if (refused.length) await db.teamRefused.bulkAdd(refused)
      await db.teamState.put(state)
      await db.teamOutbox.delete(row.id)
    })
  }

  /**
   * The server answered a join: applied and agreed marks take the server's versions, refused ones are
   * listed with the reason and the server's state, and `joinedSetting` records the join, all or nothing.
   */
  async settleJoin(
    merchant: string,
    key: string,
    marks: readonly TeamJoinMark[],
    outcomes: readonly TeamJoinOutcome[],
    user: string,
    now: number,
    joinedSetting: string,
  ): Promise<void> {
    const { db } = this
    await db.transaction('rw', db.teamRefused, db.teamState, db.settings, async () => {
      const state = await this.state(merchant)
      const refused: TeamRefusedRow[] = []
      for (const mark of marks) {
        const o = outcomes.find((x) => x.kind === mark.kind && x.id === mark.id)
        const k = markKey(mark.kind, mark.id)
        if (o && o.status !== 'refused' && o.version !== undefined) {
          if ((state.marks[k]?.version ?? 0) < o.version) {
            state.marks[k] = { ...mark, version: o.version, by: user, at: new Date(now).toISOString() }
          }
        } else {
          refused.push({
            merchant,
            key,
            mark: { ...mark, baseVersion: 0 },
            reason: o?.reason ?? 'rejected',
            monthState: o?.monthState ?? null,
            current: o?.current ?? null,
            refusedAt: now,
          })
        }
      }
      if (refused.length) await db.teamRefused.bulkAdd(refused)
      await db.teamState.put(state)
      await db.settings.put({ key: joinedSetting, value: merchant })
    })
  }

  /**
   * The server answered `row` with an error (input it refuses, a merchant not granted): the write leaves the
   * outbox and each of its marks is listed as rejected, so the writes behind it are sent. Never resent.
   */
  async reject(row: TeamOutboxRow, now: number): Promise<void> {
    const { db } = this
    await db.transaction('rw', db.teamOutbox, db.teamRefused, async () => {
      if (row.id === undefined || !(await db.teamOutbox.get(row.id))) return
      await db.teamRefused.bulkAdd(
        row.marks.map((mark) => ({
          merchant: row.merchant,
          key: row.key,
          mark,
          reason: 'rejected' as const,
          monthState: null,
          current: null,
          refusedAt: now,
        })),
      )
      await db.teamOutbox.delete(row.id)
    })
  }

  refused(merchant: string): Promise<TeamRefusedRow[]> {
    return this.db.teamRefused.where('merchant').equals(merchant).sortBy('id')
  }

  async dismissRefused(id: number): Promise<void> {
    await this.db.teamRefused.delete(id)
  }

  /**
   * Stores pulled audit rows up to where `check` verified them and applies their marks to the server's view;
   * a break is recorded and nothing after it is applied.
   */
  async storeAudit(merchant: string, rows: TeamAuditRow[], check: ChainCheck): Promise<TeamStateRow> {
    const { db } = this
    return db.transaction('rw', db.teamAudit, db.teamState, async () => {
      const state = await this.state(merchant)
      const good = rows.filter((r) => r.seq <= check.verifiedThrough)
      await db.teamAudit.bulkPut(good.map((r) => ({ ...r, merchant })))
      for (const r of good) {
        if (r.action !== 'mark') continue
        const p = JSON.parse(r.payload) as {
          kind: string
          id: string
          reconciled: boolean
          note: string
          version: number
        }
        const k = markKey(p.kind, p.id)
        const mark: TeamServerMark = {
          version: p.version,
          reconciled: p.reconciled,
          note: p.note,
          month: r.month,
          by: r.actor,
          at: r.at,
        }
        if ((state.marks[k]?.version ?? 0) <= p.version) state.marks[k] = mark
      }
      const last = good[good.length - 1]
      if (last) {
        state.verifiedThrough = last.seq
        state.headHash = last.hash
      }
      state.broken = check.ok ? null : { at: check.brokenAt, reason: check.reason }
      await db.teamState.put(state)
      return state
    })
  }
}
