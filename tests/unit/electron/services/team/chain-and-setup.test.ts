// The audit chain as a desktop verifies it, the frozen migrations, the admin's logins, and the connection
// test's specific answers, against a real PostgreSQL started for this file.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addUser } from '../../../../../electron/services/team/admin'
import {
  classify,
  clientConfig,
  testConnection,
  type TeamConfig,
} from '../../../../../electron/services/team/connection'
import {
  checkApplied,
  loadMigrations,
  migrate,
  migrationSql,
} from '../../../../../electron/services/team/migrate'
import { verifyChain } from '../../../../../electron/shared/team-chain'
import { postgresUnavailableReason } from '../support/postgres'
import { DATABASE, DEMO, newKey, OTHER, startTeam, type TeamFixture } from '../support/team-fixture'

const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`team chain tests skipped: ${unavailable}`)

describe('frozen migrations (no server)', () => {
  it('loads 001 onwards in order and prints each inside a transaction with its checksum', () => {
    const migrations = loadMigrations()
    expect(migrations.map((m) => m.version)).toEqual([1, 2, 3])
    const sql = migrationSql(migrations)
    expect(sql).toMatch(/^-- migration 1: team_workspace\nBEGIN;\n/)
    expect(sql).toContain(`VALUES (1, 'team_workspace', '${migrations[0]?.sha256}');\nCOMMIT;`)
    expect(sql).toContain(`VALUES (2, 'join_and_grants', '${migrations[1]?.sha256}');\nCOMMIT;`)
    expect(sql).toContain(`VALUES (3, 'sign_off_payout_close', '${migrations[2]?.sha256}');\nCOMMIT;`)
  })

  it('refuses a database whose migration differs from the frozen file, or that is newer than the app', () => {
    const migrations = loadMigrations()
    expect(() => checkApplied(migrations, [{ version: 1, sha256: 'edited' }])).toThrow(
      /differs from the frozen file/,
    )
    expect(() => checkApplied(migrations, [{ version: 4, sha256: 'x' }])).toThrow(/newer than this Closebook/)
  })
})

describe.skipIf(unavailable)('team audit chain and setup on PostgreSQL', () => {
  let team: TeamFixture
  beforeAll(async () => {
    team = await startTeam([
      ['ana', DEMO, 'preparer'],
      ['rei', DEMO, 'reviewer'],
      ['ana', OTHER, 'preparer'],
    ])
  }, 60_000)
  afterAll(async () => team?.stop())

  it('a desktop verifies the chain it pulled, also from where it stopped last time', async () => {
    const ana = team.session('ana')
    for (let i = 0; i < 5; i += 1) {
      await ana.applyMarks(DEMO, newKey(), [
        { kind: 'refund', id: `re_${i}`, month: '2026-10', reconciled: true, note: `n${i}`, baseVersion: 0 },
      ])
    }
    await ana.submitMonth(DEMO, newKey(), '2026-10', null)
    const rows = await team.session('rei').pullAudit(DEMO, 0)
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6])
    const all = await verifyChain(rows)
    expect(all).toMatchObject({ ok: true, verifiedThrough: 6 })
    const first = await verifyChain(rows.slice(0, 3))
    if (!first.ok) throw new Error('first part did not verify')
    const rest = await verifyChain(await ana.pullAudit(DEMO, 3), { seq: 3, hash: first.head })
    expect(rest).toEqual(all)
  })

  it('names the row a superuser changed behind the trigger, and a missing row', async () => {
    const ana = team.session('ana')
    for (let i = 0; i < 5; i += 1) {
      const note = `n${i}`
      await ana.applyMarks(OTHER, newKey(), [
        { kind: 'charge', id: `ch_${i}`, month: '2026-10', reconciled: true, note, baseVersion: 0 },
      ])
    }
    await team.admin.query('BEGIN')
    await team.admin.query('SET LOCAL session_replication_role = replica')
    await team.admin.query(
      `UPDATE closebook.audit SET payload = replace(payload, '"n3"', '"edited"')
        WHERE merchant_id = (SELECT id FROM closebook.merchants WHERE service_merchant_id = 'mer_other') AND seq = 4`,
    )
    await team.admin.query('COMMIT')
    const rows = await ana.pullAudit(OTHER, 0)
    expect(await verifyChain(rows)).toEqual({ ok: false, verifiedThrough: 3, brokenAt: 4, reason: 'hash' })
    expect(await verifyChain(rows.filter((r) => r.seq !== 2))).toEqual({
      ok: false,
      verifiedThrough: 1,
      brokenAt: 2,
      reason: 'gap',
    })
    const relinked = rows.map((r) => (r.seq === 5 ? { ...r, prevHash: 'f'.repeat(64) } : r))
    expect(await verifyChain(relinked.slice(4), { seq: 4, hash: rows[3]?.hash ?? '' })).toMatchObject({
      ok: false,
      brokenAt: 5,
      reason: 'link',
    })
  })

  it('migrate twice applies nothing the second time', async () => {
    expect(await migrate(team.admin)).toEqual([])
  })

  it('the connection test answers specifically: ok, auth failed, unreachable, no database, not a member', async () => {
    const ok = await testConnection(team.config('ana'), team.password('ana'))
    expect(ok).toMatchObject({
      schemaVersion: 3,
      login: 'ana',
      plain: true,
      merchants: [
        { merchantId: 'mer_demo', mode: 'test', role: 'preparer' },
        { merchantId: 'mer_other', mode: 'test', role: 'preparer' },
      ],
    })
    const wrong = testConnection(team.config('ana'), 'not-the-password')
    await expect(wrong).rejects.toMatchObject({ failure: 'auth_failed' })
    await expect(wrong).rejects.not.toThrow(/not-the-password/)
    const closed: TeamConfig = { ...team.config('ana'), port: 1 }
    await expect(testConnection(closed, 'x')).rejects.toMatchObject({ failure: 'unreachable' })
    await expect(
      testConnection({ ...team.config('ana'), database: 'nope' }, team.password('ana')),
    ).rejects.toMatchObject({ failure: 'no_database' })
    await team.admin.query("CREATE ROLE outsider LOGIN PASSWORD 'outsider-password-1'")
    await expect(testConnection(team.config('outsider'), 'outsider-password-1')).rejects.toMatchObject({
      failure: 'missing_role',
    })
  })

  it('verifies TLS for every host but loopback, and names a server that cannot do TLS', async () => {
    for (const host of ['db.example.com', '192.0.2.10', '10.0.0.5', '::ffff:127.0.0.1']) {
      expect(clientConfig({ ...team.config('ana'), host }, 'pw').ssl, host).toMatchObject({
        rejectUnauthorized: true,
        servername: host,
      })
    }
    for (const host of ['127.0.0.1', '127.5.0.1', 'localhost', '::1', '[::1]']) {
      expect(clientConfig({ ...team.config('ana'), host }, 'pw').ssl, host).toBe(false)
    }
    const forced = new pg.Client({
      ...clientConfig(team.config('ana'), 'pw'),
      ssl: { rejectUnauthorized: true },
    })
    const failure = await forced.connect().then(
      () => null,
      (error: unknown) => classify(error, team.config('ana')),
    )
    await forced.end().catch(() => undefined)
    expect(failure).toMatchObject({ failure: 'tls' })
  })

  it('schema too old or too new is named', async () => {
    const expectFailure = async (failure: string): Promise<void> => {
      await expect(testConnection(team.config('ana'), team.password('ana'))).rejects.toMatchObject({
        failure,
      })
    }
    await team.admin.query(
      "INSERT INTO closebook.schema_migrations (version, name, sha256) VALUES (4, 'future', 'x')",
    )
    try {
      await expectFailure('schema_too_new')
    } finally {
      await team.admin.query('DELETE FROM closebook.schema_migrations WHERE version = 4')
    }
    await team.admin.query('UPDATE closebook.schema_migrations SET version = 0 WHERE version = 3')
    try {
      await expectFailure('schema_too_old')
    } finally {
      await team.admin.query('UPDATE closebook.schema_migrations SET version = 3 WHERE version = 0')
    }
  })

  it('add-user stores a verifier, not the password, and the login works', async () => {
    await addUser(team.admin, 'newbie', 'a-long-enough-password')
    const stored = await team.admin.query<{ p: string }>(
      "SELECT rolpassword AS p FROM pg_authid WHERE rolname = 'newbie'",
    )
    expect(stored.rows[0]?.p).toMatch(/^SCRAM-SHA-256\$4096:/)
    const c = new pg.Client({ ...team.config('newbie'), password: 'a-long-enough-password' })
    await c.connect()
    await c.end()
    await expect(addUser(team.admin, 'Robert"); DROP', 'a-long-enough-password')).rejects.toThrow(
      /must start with/,
    )
    await expect(addUser(team.admin, 'short', 'short')).rejects.toThrow(/at least 12/)
    expect(DATABASE).toBe('closebook_team')
  })
})
