// Two and three desktops on one team workspace: each its own Dexie cache (fake-indexeddb) and its own main
// (TeamService with its own data directory and keychain), all against one real PostgreSQL started here.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TeamService } from '../../../electron/services/team/team-service'
import { InMemorySecretStore } from '../../../electron/services/vault/secret-store'
import { ClosebookDb } from '../../../src/db/database'
import { TeamRepository } from '../../../src/db/team-repository'
import { TeamSync } from '../../../src/sync/team-sync'
import { postgresUnavailableReason } from '../../unit/electron/services/support/postgres'
import { DEMO, newKey, startTeam, type TeamFixture } from '../../unit/electron/services/support/team-fixture'

const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`team desktop tests skipped: ${unavailable}`)

interface Desktop {
  db: ClosebookDb
  repo: TeamRepository
  main: TeamService
  sync: TeamSync
  dir: string
}

const mark = (id: string, note: string, month = '2026-10') => ({
  kind: 'charge' as const,
  id,
  month,
  reconciled: true,
  note,
})

describe.skipIf(unavailable)('desktops sharing a team workspace', () => {
  let team: TeamFixture
  const desktops: Desktop[] = []

  async function desktop(login: string): Promise<Desktop> {
    const dir = mkdtempSync(join(tmpdir(), `closebook-desk-${login}-`))
    const db = new ClosebookDb(`desk-${login}-${desktops.length}`, {
      indexedDB: new IDBFactory(),
      IDBKeyRange,
    })
    await db.open()
    const main = new TeamService(dir, new InMemorySecretStore())
    const { host, port, database } = team.config(login)
    await main.configure({ config: { host, port, database, user: login }, password: team.password(login) })
    const repo = new TeamRepository(db)
    const d = { db, repo, main, sync: new TeamSync(repo, main, login), dir }
    desktops.push(d)
    return d
  }

  beforeAll(async () => {
    team = await startTeam([
      ['ana', DEMO, 'preparer'],
      ['ben', DEMO, 'preparer'],
      ['cho', DEMO, 'preparer'],
      ['rei', DEMO, 'reviewer'],
    ])
  }, 60_000)
  afterAll(async () => {
    for (const d of desktops) {
      await d.main.dispose()
      d.db.close()
      rmSync(d.dir, { recursive: true, force: true })
    }
    await team?.stop()
  })

  it('three desktops mark the same month at once: no lost update, the stale ones are listed, all converge', async () => {
    const [a, b, c] = [await desktop('ana'), await desktop('ben'), await desktop('cho')]
    const ids = Array.from({ length: 30 }, (_, i) => `ch_m_${i}`)
    await Promise.all(
      [a, b, c].map((d, n) =>
        d.sync.queueMarks(
          DEMO,
          ids.map((id) => mark(id, `desk ${n}`)),
        ),
      ),
    )
    const flushed = await Promise.all([a, b, c].map((d) => d.sync.flush(DEMO)))
    expect(flushed.map((f) => f.stoppedBy)).toEqual([null, null, null])
    expect(flushed.reduce((n, f) => n + f.refused, 0)).toBe(60)
    const refused = (await Promise.all([a, b, c].map((d) => d.repo.refused('mer_demo:test')))).flat()
    expect(refused).toHaveLength(60)
    for (const r of refused) expect(r).toMatchObject({ reason: 'stale', current: { version: 1 } })
    for (const d of [a, b, c]) expect(await d.repo.pending('mer_demo:test')).toEqual([])
    const states = await Promise.all([a, b, c].map((d) => d.sync.pull(DEMO)))
    for (const s of states) {
      expect(s.broken).toBeNull()
      expect(s.verifiedThrough).toBe(30)
    }
    // Every desktop holds, for every record, the one write the server kept, and that write is one of the three.
    for (const id of ids) {
      const seen = states.map((s) => s.marks[`charge:${id}`])
      expect(new Set(seen.map((m) => JSON.stringify(m))).size, id).toBe(1)
      expect(seen[0]?.version).toBe(1)
    }
    // The refused writes are exactly the ones the server did not keep: nothing lost silently.
    for (const r of refused) {
      expect(states[0]?.marks[`charge:${r.mark.id}`]?.note).not.toBe(r.mark.note)
    }
  })

  it('a mark on one desktop shows on the other after its pull, and a second edit builds on the first', async () => {
    const [a, b] = [desktops[0]!, desktops[1]!]
    const started = performance.now()
    await a.sync.queueMarks(DEMO, [mark('ch_seen', 'from ana')])
    await a.sync.flush(DEMO)
    const seen = await b.sync.pull(DEMO)
    const visibleMs = performance.now() - started
    expect(seen.marks['charge:ch_seen']).toMatchObject({ note: 'from ana', by: 'ana', version: 1 })
    console.log(`team: a mark visible on the other desktop after ${visibleMs.toFixed(0)} ms (push + pull)`)
    await b.sync.queueMarks(DEMO, [mark('ch_seen', 'ben adds a receipt')])
    expect((await b.sync.flush(DEMO)).refused).toBe(0)
    expect((await a.sync.pull(DEMO)).marks['charge:ch_seen']).toMatchObject({
      note: 'ben adds a receipt',
      version: 2,
    })
  })

  it('a desktop offline through the sign-off keeps its marks queued, then sees each refused and listed', async () => {
    const [a, b] = [desktops[0]!, desktops[1]!]
    const month = '2026-06'
    const reviewer = await desktop('rei')
    await a.sync.queueMarks(DEMO, [mark('ch_jun_1', 'done', month)])
    await a.sync.flush(DEMO)
    // Ben's desktop loses the server: its main points at a closed port.
    const { host, database } = team.config('ben')
    await b.main.configure({ config: { host, port: 1, database, user: 'ben' } })
    await b.sync.queueMarks(DEMO, [mark('ch_jun_1', 'late edit', month), mark('ch_jun_2', 'late new', month)])
    const offline = await b.sync.flush(DEMO)
    expect(offline).toMatchObject({ sent: 0, stoppedBy: 'unreachable' })
    expect((await b.repo.pending('mer_demo:test'))[0]).toMatchObject({ attempts: 1 })
    const submitted = await a.main.changeMonth({
      merchant: DEMO,
      key: newKey(),
      month,
      action: 'submit',
      baseVersion: null,
      note: '',
    })
    const signed = await reviewer.main.changeMonth({
      merchant: DEMO,
      key: newKey(),
      month,
      action: 'sign_off',
      baseVersion: submitted.month.version,
      note: '',
    })
    expect(signed.month).toMatchObject({ state: 'signed_off', signedOffBy: 'rei', submittedBy: 'ana' })
    await b.main.configure({ config: team.config('ben') })
    const back = await b.sync.flush(DEMO)
    expect(back).toMatchObject({ sent: 1, refused: 2, stoppedBy: null })
    const listed = (await b.repo.refused('mer_demo:test')).filter((r) => r.mark.month === month)
    expect(listed.map((r) => [r.mark.id, r.reason, r.monthState])).toEqual([
      ['ch_jun_1', 'month_closed', 'signed_off'],
      ['ch_jun_2', 'month_closed', 'signed_off'],
    ])
    expect(listed[0]?.current).toMatchObject({ note: 'done', updatedBy: 'ana' })
    const state = await b.sync.pull(DEMO)
    expect(state.marks['charge:ch_jun_1']).toMatchObject({ note: 'done' })
    expect(state.marks['charge:ch_jun_2']).toBeUndefined()
    expect(state.broken).toBeNull()
  })

  it('a row changed on the server behind the trigger stops the pull at that row and names it', async () => {
    const fresh = await desktop('cho')
    const head = await team.admin.query<{ seq: string }>(
      "SELECT max(seq) AS seq FROM closebook.audit a JOIN closebook.merchants m ON m.id = a.merchant_id WHERE m.service_merchant_id = 'mer_demo'",
    )
    const target = Number(head.rows[0]?.seq) - 1
    await team.admin.query('BEGIN')
    await team.admin.query('SET LOCAL session_replication_role = replica')
    await team.admin.query(
      `UPDATE closebook.audit SET actor = 'mallory' WHERE seq = $1
         AND merchant_id = (SELECT id FROM closebook.merchants WHERE service_merchant_id = 'mer_demo')`,
      [target],
    )
    await team.admin.query('COMMIT')
    const state = await fresh.sync.pull(DEMO)
    expect(state.broken).toEqual({ at: target, reason: 'hash' })
    expect(state.verifiedThrough).toBe(target - 1)
  })
})
