import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import { createCache, type Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { teamMerchantSetting, TeamRepository } from '../../../../src/db/team-repository'
import { teamRound, type TeamLoopApi } from '../../../../src/sync/team-loop'
import { connectionRow, openDb } from '../db/fixtures'

const config = { host: '127.0.0.1', port: 5432, database: 'closebook', user: 'ana' }

function fakeApi(configured: boolean, calls: string[]): TeamLoopApi {
  const team: Pick<DesktopApi['team'], 'get' | 'pushMarks' | 'pullAudit' | 'joinMarks'> = {
    get: () =>
      Promise.resolve({ configured, config: configured ? config : null, hasPassword: true, plain: true }),
    pushMarks: (args) => {
      calls.push(`push ${args.merchant.merchantId} ${args.key}`)
      return Promise.resolve({ key: args.key, replayed: false, auditHead: 1, outcomes: [] })
    },
    joinMarks: (args) => {
      calls.push(`join ${args.merchant.merchantId} ${args.marks.length}`)
      return Promise.resolve({ key: args.key, replayed: false, auditHead: 0, outcomes: [] })
    },
    pullAudit: (args) => {
      calls.push(`pull ${args.merchant.merchantId}`)
      return Promise.resolve({ rows: [], wakeCount: 0 })
    },
  }
  return team
}

describe('the app-wide team round', () => {
  let db: ClosebookDb
  let cache: Cache
  beforeEach(async () => {
    db = openDb()
    cache = createCache(db)
    await cache.connections.put(connectionRow({ id: 'shared' }))
    await cache.connections.put(connectionRow({ id: 'alone' }))
  })
  afterEach(() => db.close())

  it('does nothing with no workspace configured', async () => {
    const calls: string[] = []
    await db.settings.put({
      key: teamMerchantSetting('shared'),
      value: { merchantId: 'mer_demo', mode: 'test' },
    })
    expect(await teamRound(cache, fakeApi(false, calls))).toBe(0)
    expect(calls).toEqual([])
  })

  it('sends the outbox and pulls for each shared connection only, wherever the app is', async () => {
    const calls: string[] = []
    await db.settings.put({
      key: teamMerchantSetting('shared'),
      value: { merchantId: 'mer_demo', mode: 'test' },
    })
    const queued = await new TeamRepository(db).enqueue(
      'mer_demo:test',
      [{ kind: 'charge', id: 'ch_1', month: '2026-10', reconciled: true, note: '' }],
      0,
    )
    expect(await teamRound(cache, fakeApi(true, calls))).toBe(1)
    expect(calls).toEqual([`push mer_demo ${queued.key}`, 'pull mer_demo'])
    expect(await db.teamOutbox.count()).toBe(0)
  })
})
