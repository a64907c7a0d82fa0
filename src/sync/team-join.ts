/**
 * Joining the team workspace: the marks and notes a connection held before it was shared go to the server
 * once, under a join key of this desktop and connection (a retried join, after a lost answer or a crash, is
 * answered with the first outcome and writes nothing twice). What contradicts the server (a closed or
 * submitted month, another mark on the record) is listed with the reason and the server's state, and the
 * local mark takes the server's state; nothing is merged. Records with writes still queued are left to the
 * outbox. The join is recorded only once the server has answered, in the transaction that stores the answer.
 */
import type { DesktopApi, TeamJoinMark, TeamMerchant } from '../../electron/shared/contract'
import type { Cache as AppCache } from '../db/cache'
import { MarksRepository } from '../db/marks-repository'
import { markKey, TeamRepository } from '../db/team-repository'
import type { ServerMarkInput } from '../domain/team-mark-plan'
import type { RecordKey } from '../domain/records'
import { merchantKeyOf, type LocalTarget } from './team-sync'

export type TeamJoinApi = Pick<DesktopApi['team'], 'joinMarks'>

/** The setting recording that a connection has joined a team merchant (`<merchantId>:<mode>`). */
export const teamJoinedSetting = (connectionId: string): string => `team.joined.${connectionId}`
/** This desktop's id, made once; with the connection it names the join key. */
export const TEAM_DESKTOP_SETTING = 'team.desktopId'

export interface JoinSummary {
  uploaded: number
  applied: number
  same: number
  refused: number
}

async function desktopId(cache: AppCache): Promise<string> {
  const held = (await cache.db.settings.get(TEAM_DESKTOP_SETTING))?.value
  if (typeof held === 'string' && held.length > 0) return held
  const made = globalThis.crypto.randomUUID()
  await cache.db.settings.put({ key: TEAM_DESKTOP_SETTING, value: made })
  return made
}

/** The join key of this desktop and connection: the same on every attempt. */
export async function joinKeyOf(cache: AppCache, connectionId: string): Promise<string> {
  return `join:${await desktopId(cache)}:${connectionId}`.slice(0, 200)
}

/** The connection's marks that say something (reconciled, or a note), but for records still queued. */
async function marksToJoin(cache: AppCache, connectionId: string, merchant: string): Promise<TeamJoinMark[]> {
  const queued = new Set<string>()
  for (const row of await new TeamRepository(cache.db).pending(merchant))
    for (const m of row.marks) queued.add(markKey(m.kind, m.id))
  return (await new MarksRepository(cache.db).all(connectionId)).flatMap((m): TeamJoinMark[] => {
    const at = m.key.indexOf(':')
    const kind = m.key.slice(0, at)
    if (kind !== 'charge' && kind !== 'refund') return []
    if (queued.has(m.key) || (m.state !== 'reconciled' && m.note === '')) return []
    return [
      { kind, id: m.key.slice(at + 1), month: m.period, reconciled: m.state === 'reconciled', note: m.note },
    ]
  })
}

/**
 * Joins once: returns null when the connection has joined this merchant already, else what the server
 * decided. A failure (unreachable, refused input) leaves the join to be tried again with the same key.
 */
export async function joinOnce(
  cache: AppCache,
  connectionId: string,
  merchant: TeamMerchant,
  api: TeamJoinApi,
  user: string,
  local: LocalTarget | null,
  now: () => number = Date.now,
): Promise<JoinSummary | null> {
  const key = merchantKeyOf(merchant)
  const setting = teamJoinedSetting(connectionId)
  if ((await cache.db.settings.get(setting))?.value === key) return null
  const marks = await marksToJoin(cache, connectionId, key)
  const summary: JoinSummary = { uploaded: marks.length, applied: 0, same: 0, refused: 0 }
  const repo = new TeamRepository(cache.db)
  if (marks.length === 0) {
    await cache.db.settings.put({ key: setting, value: key })
    return summary
  }
  const joinKey = await joinKeyOf(cache, connectionId)
  const answer = await api.joinMarks({ merchant, key: joinKey, marks })
  await repo.settleJoin(key, joinKey, marks, answer.outcomes, user, now(), setting)
  for (const o of answer.outcomes) summary[o.status] += 1
  const refused = answer.outcomes.filter((o) => o.status === 'refused')
  if (local && refused.length > 0) {
    await local.marks(
      refused.map((o): ServerMarkInput => ({
        key: markKey(o.kind, o.id) as RecordKey,
        reconciled: o.current?.reconciled ?? false,
        note: o.current?.note ?? '',
        month: o.current?.month ?? marks.find((m) => m.kind === o.kind && m.id === o.id)?.month ?? '',
        by: o.current?.updatedBy ?? user,
        at: o.current?.updatedAt ?? new Date(now()).toISOString(),
      })),
    )
  }
  return summary
}
