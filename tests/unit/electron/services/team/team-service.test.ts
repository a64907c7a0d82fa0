// Main's team service: inert until configured, password only in the keychain, typed errors, and the same
// calls the renderer makes, against a real PostgreSQL started for this file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEAM_FILE, TeamService } from '../../../../../electron/services/team/team-service'
import { InMemorySecretStore } from '../../../../../electron/services/vault/secret-store'
import { desktopApiContract } from '../../../../../electron/shared/contract'
import { verifyChain } from '../../../../../electron/shared/team-chain'
import { postgresUnavailableReason } from '../support/postgres'
import { DEMO, newKey, startTeam, type TeamFixture } from '../support/team-fixture'

const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`team service tests skipped: ${unavailable}`)

describe('team service with nothing configured', () => {
  it('says so and answers every server call with not_configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'closebook-team-'))
    try {
      const team = new TeamService(dir, new InMemorySecretStore())
      expect(await team.summary()).toEqual({
        configured: false,
        config: null,
        hasPassword: false,
        plain: false,
      })
      expect(await team.test()).toMatchObject({ ok: false, failure: 'not_configured' })
      await expect(team.months({ merchant: DEMO })).rejects.toMatchObject({
        code: 'not_found',
        details: { failure: 'not_configured' },
      })
      // No wake can come: the renderer is told at once to rely on polling, not kept waiting.
      const started = Date.now()
      expect(await team.waitWake({ after: 0, timeoutMs: 5000 })).toEqual({ wakeCount: 0, listening: false })
      expect(Date.now() - started).toBeLessThan(1000)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe.skipIf(unavailable)('team service on PostgreSQL', () => {
  let fixture: TeamFixture
  let dir: string
  beforeAll(async () => {
    fixture = await startTeam([
      ['ana', DEMO, 'preparer'],
      ['rei', DEMO, 'reviewer'],
    ])
    dir = mkdtempSync(join(tmpdir(), 'closebook-team-'))
  }, 60_000)
  afterAll(async () => {
    await fixture?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('keeps the password in the keychain only, and a wrong one fails as auth_failed without echoing it', async () => {
    const secrets = new InMemorySecretStore()
    const team = new TeamService(dir, secrets)
    const { user, host, port, database } = fixture.config('ana')
    const summary = await team.configure({
      config: { host, port, database, user },
      password: 'wrong-password-xyz',
    })
    expect(summary).toEqual({
      configured: true,
      config: { host, port, database, user },
      hasPassword: true,
      plain: true,
    })
    expect(readFileSync(join(dir, TEAM_FILE), 'utf8')).not.toContain('wrong-password-xyz')
    const failed = await team.test()
    expect(failed).toMatchObject({ ok: false, failure: 'auth_failed' })
    expect(JSON.stringify(failed)).not.toContain('wrong-password-xyz')
    const pushed = team.pushMarks({ merchant: DEMO, key: newKey(), marks: [] })
    await expect(pushed).rejects.toMatchObject({ code: 'unauthorized', details: { failure: 'auth_failed' } })
    await team.configure({ config: { host, port, database, user }, password: fixture.password('ana') })
    expect(await team.test()).toMatchObject({ ok: true, login: 'ana' })
    await team.dispose()
  })

  it('pushes, pulls and verifies through the contract schemas, and wakes on NOTIFY', async () => {
    const ana = new TeamService(dir, new InMemorySecretStore())
    const { host, port, database } = fixture.config('ana')
    await ana.configure({ config: { host, port, database, user: 'ana' }, password: fixture.password('ana') })
    const reviewerDir = mkdtempSync(join(tmpdir(), 'closebook-team-'))
    const rei = new TeamService(reviewerDir, new InMemorySecretStore())
    await rei.configure({ config: { host, port, database, user: 'rei' }, password: fixture.password('rei') })
    try {
      const before = await rei.pullAudit({ merchant: DEMO, afterSeq: 0 })
      // LISTEN is set up by the first wait: a short one, so the NOTIFY of the writes below is heard.
      expect(
        desktopApiContract['team:waitWake'].result.parse(
          await rei.waitWake({ after: before.wakeCount, timeoutMs: 10 }),
        ),
      ).toMatchObject({ listening: true })
      const woken = rei.waitWake({ after: before.wakeCount, timeoutMs: 30_000 })
      const marks = [
        {
          kind: 'charge' as const,
          id: 'ch_1',
          month: '2026-10',
          reconciled: true,
          note: 'ok',
          baseVersion: 0,
        },
      ]
      const result = await ana.pushMarks({ merchant: DEMO, key: newKey(), marks })
      expect(desktopApiContract['team:pushMarks'].result.parse(result).outcomes[0]?.status).toBe('applied')
      const month = await ana.changeMonth({
        merchant: DEMO,
        key: newKey(),
        month: '2026-10',
        action: 'submit',
        baseVersion: null,
        note: '',
      })
      expect(desktopApiContract['team:changeMonth'].result.parse(month).month.submittedBy).toBe('ana')
      const months = await rei.months({ merchant: DEMO })
      expect(desktopApiContract['team:months'].result.parse(months)).toMatchObject([
        { month: '2026-10', state: 'submitted', submittedBy: 'ana' },
      ])
      expect((await woken).wakeCount).toBeGreaterThan(before.wakeCount)
      await expect
        .poll(async () => (await rei.pullAudit({ merchant: DEMO, afterSeq: 0 })).wakeCount)
        .toBeGreaterThan(before.wakeCount)
      const pulled = desktopApiContract['team:pullAudit'].result.parse(
        await rei.pullAudit({ merchant: DEMO, afterSeq: 0 }),
      )
      expect(pulled.rows.map((r) => r.action)).toEqual(['mark', 'submit'])
      expect(await verifyChain(pulled.rows)).toMatchObject({ ok: true, verifiedThrough: 2 })
    } finally {
      await ana.dispose()
      await rei.dispose()
      rmSync(reviewerDir, { recursive: true, force: true })
    }
  })

  it('keeps each login’s password apart: two workspaces on one keychain never use the other’s', async () => {
    const secrets = new InMemorySecretStore()
    const dirs = [
      mkdtempSync(join(tmpdir(), 'closebook-team-a-')),
      mkdtempSync(join(tmpdir(), 'closebook-team-b-')),
    ]
    const [ana, rei] = dirs.map((d) => new TeamService(d, secrets))
    try {
      for (const [team, login] of [
        [ana, 'ana'],
        [rei, 'rei'],
      ] as const) {
        const { user, host, port, database } = fixture.config(login)
        await team?.configure({ config: { host, port, database, user }, password: fixture.password(login) })
      }
      expect(await ana?.test()).toMatchObject({ ok: true, login: 'ana' })
      expect(await rei?.test()).toMatchObject({ ok: true, login: 'rei' })
      // Saved again without a password (the port written differently): the saved one stays.
      const { user, host, port, database } = fixture.config('ana')
      await ana?.configure({ config: { host: 'localhost', port, database, user } })
      expect(await ana?.test()).toMatchObject({ ok: true, login: 'ana' })
      // Leaving on one desktop leaves the other's password in place.
      await ana?.forget()
      expect(await rei?.test()).toMatchObject({ ok: true, login: 'rei' })
      expect(JSON.stringify(await ana?.summary())).not.toContain(host)
    } finally {
      await ana?.dispose()
      await rei?.dispose()
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    }
  })
})
