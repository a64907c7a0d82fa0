// Two desktops (separate Dexie databases, each with main's team service) on one real PostgreSQL started
// for this file: what one marks reaches the other's local marks after a pull, and a late mark of a desktop
// that was offline during the sign-off is refused, listed, and rolled back to the server's state.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TeamService } from '../../../electron/services/team/team-service'
import { InMemorySecretStore } from '../../../electron/services/vault/secret-store'
import { ClosebookDb } from '../../../src/db/database'
import { historyRecordOf } from '../../../src/db/history-record'
import { LocksRepository } from '../../../src/db/locks-repository'
import { MarkingService, type MarkSnapshot } from '../../../src/db/marking-service'
import { MarksRepository } from '../../../src/db/marks-repository'
import { teamMerchantSetting, TeamRepository } from '../../../src/db/team-repository'
import type { HistoryRecord } from '../../../src/domain/records'
import { planMarks, type MarkAction } from '../../../src/reconcile/marking'
import { TeamSync } from '../../../src/sync/team-sync'
import { postgresUnavailableReason } from '../../unit/electron/services/support/postgres'
import { DEMO, newKey, startTeam, type TeamFixture } from '../../unit/electron/services/support/team-fixture'
import { CONN, HOUR, T0, historyItem, uuid } from '../../support/api-items'

const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`two-desktop team tests skipped: ${unavailable}`)

/** A payout closing as Month-end computes it: two currencies, a paid difference, a repayment read in full. */
const OCTOBER_PAYOUT_CLOSE = {
  closing: { JPY: 12_050, USD: -125 },
  paidDifferences: { '0f6e3c1a-0000-4000-8000-000000000001': 0, '0f6e3c1a-0000-4000-8000-000000000002': 300 },
  readInFull: ['0f6e3c1a-0000-4000-8000-000000000003'],
}

const record = (n: number): HistoryRecord =>
  historyRecordOf(CONN, historyItem(n, { created_on: new Date(T0 + n * 60_000).toISOString() }), 0)

interface Desktop {
  db: ClosebookDb
  sync: TeamSync
  marking: MarkingService
  service: TeamService
  dir: string
}

describe.skipIf(unavailable)('two desktops closing one month', () => {
  let team: TeamFixture
  const desktops: Desktop[] = []

  async function desktop(login: string): Promise<Desktop> {
    const dir = mkdtempSync(join(tmpdir(), `closebook-desk-${login}-`))
    const service = new TeamService(dir, new InMemorySecretStore())
    const { host, port, database, user } = team.config(login)
    await service.configure({ config: { host, port, database, user }, password: team.password(login) })
    const db = new ClosebookDb(`desk-${login}`, { indexedDB: new IDBFactory(), IDBKeyRange })
    await db.history.bulkPut([1, 2, 3].map(record))
    await db.settings.put({ key: teamMerchantSetting(CONN), value: DEMO })
    const marking = new MarkingService(db)
    const locks = new LocksRepository(db)
    const sync = new TeamSync(new TeamRepository(db), service, login, Date.now, {
      marks: (marks) => marking.applyServerMarks(CONN, marks),
      months: async (changes) => {
        for (const c of changes) await locks.applyServerMonth(CONN, c)
      },
    })
    const d = { db, sync, marking, service, dir }
    desktops.push(d)
    return d
  }

  const mark = (d: Desktop, action: MarkAction, n: number, actor: string, note?: string) =>
    d.marking.planAndApply(CONN, [record(n)], (current: MarkSnapshot) =>
      planMarks({
        action,
        records: [record(n)],
        marks: current.marks,
        locks: current.locks,
        ...(note !== undefined ? { note } : {}),
        actor,
        now: T0 + 99 * HOUR,
        timeZone: 'UTC',
      }),
    )
  const localMark = (d: Desktop, n: number) => new MarksRepository(d.db).get(CONN, record(n))

  beforeAll(async () => {
    team = await startTeam([
      ['ana', DEMO, 'preparer'],
      ['ben', DEMO, 'preparer'],
      ['rei', DEMO, 'reviewer'],
    ])
  }, 60_000)
  afterAll(async () => {
    for (const d of desktops) {
      d.db.close()
      await d.service.dispose()
      rmSync(d.dir, { recursive: true, force: true })
    }
    await team?.stop()
  })

  it("one desktop's mark and note reach the other's local marks after a pull, audited under the server's login", async () => {
    const ana = await desktop('ana')
    const ben = await desktop('ben')
    await mark(ana, 'mark', 1, 'ana')
    await mark(ana, 'note', 1, 'ana', "receipt 'found'")
    expect(await ana.sync.flush(DEMO)).toEqual({ sent: 2, refused: 0, stoppedBy: null })
    expect(await localMark(ben, 1)).toBeUndefined()
    await ben.sync.pull(DEMO)
    expect(await localMark(ben, 1)).toMatchObject({
      state: 'reconciled',
      note: "receipt 'found'",
      period: '2026-10',
      updatedBy: 'ana',
    })
    // Applying the server's marks queues nothing to send back.
    expect(await ben.db.teamOutbox.count()).toBe(0)
    const audit = await ben.db.audit.toArray()
    // One pull applies the server's latest state of the record: one change, under the server's login.
    expect(audit.map((row) => [row.actor, row.action, row.reason])).toEqual([['ana', 'mark', 'team_server']])
    // Ana unmarks: Ben's mark follows (the note stays, as the server holds it).
    await mark(ana, 'unmark', 1, 'ana')
    await ana.sync.flush(DEMO)
    await ben.sync.pull(DEMO)
    expect(await localMark(ben, 1)).toMatchObject({ state: 'unreconciled', note: "receipt 'found'" })
  }, 30_000)

  it('a late mark from a desktop offline during the sign-off is refused, listed and rolled back locally', async () => {
    const ana = desktops[0]!
    const ben = desktops[1]!
    await mark(ana, 'mark', 2, 'ana')
    await ana.sync.flush(DEMO)
    await ben.sync.pull(DEMO)
    // Ben, offline, marks record 3 and notes record 2; meanwhile October is submitted and signed off.
    await mark(ben, 'mark', 3, 'ben')
    await mark(ben, 'note', 2, 'ben', 'late note')
    const rei = new TeamService(mkdtempSync(join(tmpdir(), 'closebook-desk-rei-')), new InMemorySecretStore())
    const { host, port, database, user } = team.config('rei')
    await rei.configure({ config: { host, port, database, user }, password: team.password('rei') })
    const anaApi = ana.service
    const submitted = await anaApi.changeMonth({
      merchant: DEMO,
      key: newKey(),
      month: '2026-10',
      action: 'submit',
      baseVersion: null,
      note: '',
    })
    const signed = await rei.changeMonth({
      merchant: DEMO,
      key: newKey(),
      month: '2026-10',
      action: 'sign_off',
      baseVersion: submitted.month.version,
      note: '',
      payoutClose: OCTOBER_PAYOUT_CLOSE,
    })
    expect(signed.status).toBe('applied')
    await rei.dispose()
    // Ben comes back: both writes are refused, listed, and his local marks go back to the server's.
    expect(await ben.sync.flush(DEMO)).toMatchObject({ sent: 2, refused: 2, stoppedBy: null })
    const listed = await new TeamRepository(ben.db).refused('mer_demo:test')
    expect(listed.map((r) => [r.mark.id, r.reason])).toEqual([
      [uuid(3), 'month_closed'],
      [uuid(2), 'month_closed'],
    ])
    expect(await localMark(ben, 3)).toBeUndefined()
    expect(await localMark(ben, 2)).toMatchObject({ state: 'reconciled', note: '', updatedBy: 'ana' })
  }, 30_000)

  it("the sign-off locks October on both desktops after a pull; a reviewer's reopen lifts both locks", async () => {
    const [ana, ben] = [desktops[0]!, desktops[1]!]
    await Promise.all([ana.sync.pull(DEMO), ben.sync.pull(DEMO)])
    // Both keep the payout closing the reviewer's sign-off carried: November's opening is checked against it.
    for (const d of [ana, ben])
      expect(await new LocksRepository(d.db).get(CONN, '2026-10')).toMatchObject({
        lockedBy: 'rei',
        payoutClose: OCTOBER_PAYOUT_CLOSE,
      })
    // The local lock holds: marking October on a desktop is refused there, before any write.
    await expect(mark(ana, 'mark', 3, 'ana')).resolves.toMatchObject({ result: { put: 0 } })
    const rei = new TeamService(mkdtempSync(join(tmpdir(), 'closebook-desk-rei-')), new InMemorySecretStore())
    const { host, port, database, user } = team.config('rei')
    await rei.configure({ config: { host, port, database, user }, password: team.password('rei') })
    const reopened = await rei.changeMonth({
      merchant: DEMO,
      key: newKey(),
      month: '2026-10',
      action: 'reopen',
      baseVersion: null,
      note: 'bank fee missing',
    })
    expect(reopened.status).toBe('applied')
    await rei.dispose()
    await Promise.all([ana.sync.pull(DEMO), ben.sync.pull(DEMO)])
    for (const d of [ana, ben]) expect(await new LocksRepository(d.db).get(CONN, '2026-10')).toBeUndefined()
    const audit = (await ben.db.audit.toArray()).filter((a) => a.action === 'reopen-period')
    expect(audit.map((a) => [a.actor, a.reason])).toEqual([['rei', 'team_server']])
  }, 30_000)

  it('a write whose input the server refuses is listed as rejected and no longer holds up the writes behind it', async () => {
    const ana = desktops[0]!
    await mark(ana, 'note', 3, 'ana', 'nul \u0000 inside')
    await mark(ana, 'mark', 1, 'ana')
    expect(await ana.sync.flush(DEMO)).toEqual({ sent: 1, refused: 1, stoppedBy: null })
    expect(await ana.db.teamOutbox.count()).toBe(0)
    const listed = await new TeamRepository(ana.db).refused('mer_demo:test')
    expect(listed.map((r) => [r.mark.id, r.reason])).toContainEqual([uuid(3), 'rejected'])
    // The rejected note is gone locally (the server holds none); the mark behind it reached the server.
    expect(await localMark(ana, 3)).toBeUndefined()
    const stored = await team.admin.query<{ reconciled: boolean }>(
      'SELECT reconciled FROM closebook.marks WHERE record_id = $1',
      [uuid(1)],
    )
    expect(stored.rows).toEqual([{ reconciled: true }])
  }, 30_000)
})
