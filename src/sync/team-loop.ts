/**
 * The app-wide team loop: while the app runs (not only while Month-end is open), every few seconds each
 * connection shared with a team merchant uploads its earlier marks once (the join), sends its outbox and
 * pulls what is new, and the server's marks and closes reach the local marks and locks. One round at a
 * time; a failed round is retried next tick. With no workspace configured a round is one cheap call that
 * does nothing.
 */
import type { DesktopApi, TeamMerchant } from '../../electron/shared/contract'
import type { Cache as AppCache } from '../db/cache'
import { LocksRepository } from '../db/locks-repository'
import { MarkingService } from '../db/marking-service'
import { TeamRepository, teamMerchantSetting } from '../db/team-repository'
import { joinOnce, type TeamJoinApi } from './team-join'
import { TeamSync, type LocalTarget, type TeamSyncApi } from './team-sync'

export type TeamLoopApi = TeamSyncApi & TeamJoinApi & Pick<DesktopApi['team'], 'get'>

/** Told the connection whose local marks or locks the server's decisions just changed. */
export type OnApplied = (connectionId: string) => void

/**
 * Where one connection's share of the server's decisions lands: its marks and its locks. `onApplied` is
 * called after a change was written (marks put or removed, or a month's lock set or lifted), so the views
 * showing that connection can re-read it without a reload.
 */
export function localTargetOf(cache: AppCache, connectionId: string, onApplied?: OnApplied): LocalTarget {
  const { db } = cache
  return {
    marks: async (marks) => {
      const result = await new MarkingService(db).applyServerMarks(connectionId, marks)
      if (result.put + result.deleted > 0) onApplied?.(connectionId)
      return result
    },
    months: async (changes) => {
      let changed = false
      for (const c of changes)
        changed = (await new LocksRepository(db).applyServerMonth(connectionId, c)) || changed
      if (changed) onApplied?.(connectionId)
    },
  }
}

function merchantOf(value: unknown): TeamMerchant | null {
  if (typeof value !== 'object' || value === null) return null
  const { merchantId, mode } = value as { merchantId?: unknown; mode?: unknown }
  if (typeof merchantId !== 'string' || merchantId === '' || (mode !== 'live' && mode !== 'test')) return null
  return { merchantId, mode }
}

/** One round: every shared connection joins (once), flushes, then pulls. Returns how many connections took part. */
export async function teamRound(cache: AppCache, api: TeamLoopApi, onApplied?: OnApplied): Promise<number> {
  const summary = await api.get({})
  const user = summary.config?.user
  if (!summary.configured || !user) return 0
  let shared = 0
  for (const connection of await cache.connections.list()) {
    const merchant = merchantOf((await cache.db.settings.get(teamMerchantSetting(connection.id)))?.value)
    if (!merchant) continue
    shared += 1
    const local = localTargetOf(cache, connection.id, onApplied)
    const sync = new TeamSync(new TeamRepository(cache.db), api, user, Date.now, local)
    await joinOnce(cache, connection.id, merchant, api, user, local)
    await sync.flush(merchant)
    await sync.pull(merchant)
  }
  return shared
}

/** The wake-ups main hears from the server (NOTIFY), awaited by the loop to run a round at once. */
export type TeamWakeApi = Pick<DesktopApi['team'], 'waitWake'>

const WAKE_WAIT_MS = 25_000

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Waits on main's wake-ups and calls `onWake` for each new one, until `stopped()`. When no wake can come
 * (nothing configured, LISTEN not possible) or the call fails, it waits `idleMs` before asking again.
 */
export async function followWakes(
  api: () => TeamWakeApi,
  onWake: () => void,
  stopped: () => boolean,
  idleMs: number,
): Promise<void> {
  let seen = 0
  while (!stopped()) {
    try {
      const { wakeCount, listening } = await api().waitWake({ after: seen, timeoutMs: WAKE_WAIT_MS })
      if (stopped()) return
      if (wakeCount > seen) onWake()
      seen = wakeCount
      if (!listening) await sleep(idleMs)
    } catch {
      await sleep(idleMs)
    }
  }
}

/**
 * Runs `teamRound` every `intervalMs`, and at once when main hears the server announce new audit rows,
 * until the returned stop is called. Rounds never overlap: a wake during a round runs one more after it.
 */
export function startTeamLoop(
  cache: () => AppCache,
  api: () => TeamLoopApi & TeamWakeApi,
  intervalMs = 3000,
  onApplied?: OnApplied,
): () => void {
  let running = false
  let again = false
  let stopped = false
  const round = (): void => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = true
    teamRound(cache(), api(), onApplied)
      .catch(() => undefined) // unreachable or not set up: the next tick tries again
      .finally(() => {
        running = false
        if (again) {
          again = false
          round()
        }
      })
  }
  const timer = setInterval(round, intervalMs)
  void followWakes(api, round, () => stopped, intervalMs)
  return () => {
    stopped = true
    clearInterval(timer)
  }
}
