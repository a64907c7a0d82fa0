import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import { createCache, type Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { teamMerchantSetting, TeamRepository } from '../../../../src/db/team-repository'
import { historyRecordOf } from '../../../../src/db/history-record'
import { localTargetOf, teamRound, type TeamLoopApi } from '../../../../src/sync/team-loop'
import { CONN, connectionRow, historyItem, openDb, T0 } from '../db/fixtures'

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

describe('the server decisions written into the cache', () => {
  let db: ClosebookDb
  let cache: Cache
  beforeEach(async () => {
    db = openDb()
    cache = createCache(db)
    await cache.connections.put(connectionRow({ id: CONN }))
  })
  afterEach(() => db.close())

  it('tell the views of that connection when a mark or a lock changed, and only then', async () => {
    const record = historyRecordOf(CONN, historyItem(1), T0)
    await db.history.put(record)
    const told: string[] = []
    const local = localTargetOf(cache, CONN, (id) => told.push(id))
    const month = new Date(record.createdAt).toISOString().slice(0, 7)
    const server = {
      key: record.key,
      reconciled: true,
      note: 'rei checked it',
      month,
      by: 'rei',
      at: '2026-11-02T00:00:00Z',
    }
    await local.marks([server])
    expect(told).toEqual([CONN])
    expect((await cache.marks.getMany(CONN, [record]))[0]).toMatchObject({
      state: 'reconciled',
      note: 'rei checked it',
    })
    // The same decision again changes nothing: the views are not told.
    await local.marks([server])
    expect(told).toEqual([CONN])
    await local.months([{ month, locked: true, by: 'rei', at: '2026-11-03T00:00:00Z' }])
    expect(told).toEqual([CONN, CONN])
    await local.months([{ month, locked: true, by: 'rei', at: '2026-11-03T00:00:00Z' }])
    expect(told).toEqual([CONN, CONN])
  })
})
