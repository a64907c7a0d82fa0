// A desktop joining the team workspace with marks it made alone: they reach the server once; what the
// server already holds the same is agreed, what contradicts it (another mark, a signed-off month) is listed
// and the local mark takes the server's state; a join whose answer was lost is sent again with the same key
// and answered as the first time. Two Dexie caches and main's team service, on a real PostgreSQL.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TeamService } from '../../../electron/services/team/team-service'
import { InMemorySecretStore } from '../../../electron/services/vault/secret-store'
import { createCache, type Cache } from '../../../src/db/cache'
import { ClosebookDb } from '../../../src/db/database'
import { historyRecordOf } from '../../../src/db/history-record'
import { MarkingService, type MarkSnapshot } from '../../../src/db/marking-service'
import { MarksRepository } from '../../../src/db/marks-repository'
import { teamMerchantSetting, TeamRepository } from '../../../src/db/team-repository'
import type { HistoryRecord } from '../../../src/domain/records'
import { planMarks, type MarkAction } from '../../../src/reconcile/marking'
import { joinOnce, teamJoinedSetting, type TeamJoinApi } from '../../../src/sync/team-join'
import { localTargetOf } from '../../../src/sync/team-loop'
import { postgresUnavailableReason } from '../../unit/electron/services/support/postgres'
import { DEMO, newKey, startTeam, type TeamFixture } from '../../unit/electron/services/support/team-fixture'
import { CONN, HOUR, T0, historyItem } from '../../support/api-items'
import { connectionRow } from '../../support/cache'

const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`team join tests skipped: ${unavailable}`)

const record = (n: number): HistoryRecord =>
  historyRecordOf(CONN, historyItem(n, { created_on: new Date(T0 + n * 60_000).toISOString() }), 0)
const idOf = (n: number): string => record(n).key.slice('charge:'.length)

describe.skipIf(unavailable)('a desktop joining with marks of its own', () => {
  let team: TeamFixture
  const dirs: string[] = []
  const services: TeamService[] = []

  async function main(login: string): Promise<TeamService> {
    const dir = mkdtempSync(join(tmpdir(), `closebook-join-${login}-`))
    dirs.push(dir)
    const service = new TeamService(dir, new InMemorySecretStore())
    await service.configure({ config: team.config(login), password: team.password(login) })
    services.push(service)
    return service
  }

  async function desktop(name: string): Promise<Cache> {
    const db = new ClosebookDb(name, { indexedDB: new IDBFactory(), IDBKeyRange })
    const cache = createCache(db)
    await cache.connections.put(connectionRow({ timeZone: 'UTC' }))
    await db.history.bulkPut([1, 2, 3, 4, 5].map(record))
    return cache
  }

  const mark = (cache: Cache, action: MarkAction, n: number, note?: string) =>
    new MarkingService(cache.db).planAndApply(CONN, [record(n)], (current: MarkSnapshot) =>
      planMarks({
        action,
        records: [record(n)],
        marks: current.marks,
        locks: current.locks,
        ...(note !== undefined ? { note } : {}),
        actor: 'ben',
        now: T0 + 99 * HOUR,
        timeZone: 'UTC',
      }),
    )

  beforeAll(async () => {
    team = await startTeam([
      ['ana', DEMO, 'preparer'],
      ['ben', DEMO, 'preparer'],
    ])
  }, 60_000)
  afterAll(async () => {
    for (const s of services) await s.dispose()
    await team?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('uploads once, agrees, refuses and lists what contradicts the server, and a lost answer is asked again with the same key', async () => {
    const ana = await main('ana')
    const ben = await main('ben')
    // The server already holds record 2 as ana marked it, and record 3 the same as ben will.
    await ana.pushMarks({
      merchant: DEMO,
      key: newKey(),
      marks: [
        { kind: 'charge', id: idOf(2), month: '2026-10', reconciled: true, note: 'ana', baseVersion: 0 },
        { kind: 'charge', id: idOf(3), month: '2026-10', reconciled: true, note: '', baseVersion: 0 },
      ],
    })
    const cache = await desktop('join-ben')
    await mark(cache, 'mark', 1)
    await mark(cache, 'note', 2, "ben's receipt")
    await mark(cache, 'mark', 3)
    // Sharing the connection comes after the marks: nothing of them is in the outbox.
    await cache.db.settings.put({ key: teamMerchantSetting(CONN), value: DEMO })
    expect(await cache.db.teamOutbox.count()).toBe(0)

    // The first answer is lost on its way back: the join is not recorded and is tried again.
    const keys: string[] = []
    const losing: TeamJoinApi = {
      joinMarks: async (args) => {
        keys.push(args.key)
        await ben.joinMarks(args)
        throw Object.assign(new Error('The team server does not answer.'), { code: 'network' })
      },
    }
    const local = localTargetOf(cache, CONN)
    await expect(joinOnce(cache, CONN, DEMO, losing, 'ben', local)).rejects.toThrow(/does not answer/)
    expect((await cache.db.settings.get(teamJoinedSetting(CONN)))?.value).toBeUndefined()

    const answering: TeamJoinApi = {
      joinMarks: (args) => {
        keys.push(args.key)
        return ben.joinMarks(args)
      },
    }
    const summary = await joinOnce(cache, CONN, DEMO, answering, 'ben', local)
    expect(summary).toEqual({ uploaded: 3, applied: 1, same: 1, refused: 1 })
    expect(keys[0]).toBe(keys[1])
    const audit = await team.admin.query<{ n: string }>(
      "SELECT count(*) AS n FROM closebook.audit WHERE actor = 'ben'",
    )
    expect(audit.rows[0]?.n).toBe('1')

    const refused = await new TeamRepository(cache.db).refused('mer_demo:test')
    expect(refused.map((r) => [r.mark.id, r.mark.note, r.reason, r.current?.note])).toEqual([
      [idOf(2), "ben's receipt", 'conflict', 'ana'],
    ])
    // The local mark of the contradicting record is now the server's; ben's note stays in the list.
    expect(await new MarksRepository(cache.db).get(CONN, record(2))).toMatchObject({
      state: 'reconciled',
      note: 'ana',
      updatedBy: 'ana',
    })
    expect((await cache.db.settings.get(teamJoinedSetting(CONN)))?.value).toBe('mer_demo:test')
    // Joined: a later round uploads nothing again.
    expect(await joinOnce(cache, CONN, DEMO, answering, 'ben', local)).toBeNull()
    expect(keys).toHaveLength(2)
    cache.db.close()
  })
})
