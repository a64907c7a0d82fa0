// Resending is safe: a push whose answer was lost (the server killed mid-push) is sent again with the same
// key and applies once; a desktop that was offline during the sign-off replays its marks and gets each one
// refused with the reason and the server's state. Against a real PostgreSQL started for this file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MarkWrite } from '../../../../../electron/services/team/session'
import { postgresUnavailableReason } from '../support/postgres'
import { DEMO, markWrite, newKey, startTeam, type TeamFixture } from '../support/team-fixture'

const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`team resend tests skipped: ${unavailable}`)

const marks = (prefix: string, n: number, month = '2026-10'): MarkWrite[] =>
  Array.from({ length: n }, (_, i) => markWrite(`${prefix}_${i}`, 0, { month, note: `n${i}` }))

describe.skipIf(unavailable)('resending team writes', () => {
  let team: TeamFixture
  beforeAll(async () => {
    team = await startTeam([
      ['ana', DEMO, 'preparer'],
      ['ben', DEMO, 'preparer'],
      ['rei', DEMO, 'reviewer'],
    ])
  }, 60_000)
  afterAll(async () => team?.stop())

  it('the server killed in the middle of a push: the same key sent again applies each mark exactly once', async () => {
    const ana = team.session('ana')
    const key = newKey()
    const batch = marks('ch_kill', 3000)
    const push = ana.applyMarks(DEMO, key, batch).then(
      () => 'answered',
      (error: unknown) => (error as { failure?: string }).failure ?? 'failed',
    )
    // Kill once the batch is being applied (the audit head is locked by the push's transaction).
    await expect
      .poll(
        async () => {
          const locks = await team.admin.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE '%apply_marks%' AND usename = 'ana' AND state = 'active'",
          )
          return Number(locks.rows[0]?.n)
        },
        { interval: 5, timeout: 10_000 },
      )
      .toBeGreaterThan(0)
    await team.admin.end()
    team.cluster.kill()
    expect(await push).toBe('unreachable')
    team.cluster.restart()
    await reconnectAdmin(team)
    const resent = await ana.applyMarks(DEMO, key, batch)
    const again = await ana.applyMarks(DEMO, key, batch)
    expect(again.replayed).toBe(true)
    expect(resent.outcomes.filter((o) => o.status === 'applied')).toHaveLength(3000)
    const stored = await team.admin.query<{ n: string; v: number }>(
      "SELECT count(*) AS n, max(version) AS v FROM closebook.marks WHERE record_id LIKE 'ch_kill_%'",
    )
    expect(stored.rows[0]).toEqual({ n: '3000', v: 1 })
    const audit = await team.admin.query<{ n: string; gaps: string }>(
      `SELECT count(*) AS n, max(seq) - count(*) AS gaps FROM closebook.audit a
        JOIN closebook.merchants m ON m.id = a.merchant_id WHERE m.service_merchant_id = 'mer_demo'`,
    )
    expect(audit.rows[0]).toEqual({ n: '3000', gaps: '0' })
  }, 60_000)

  it('a desktop offline during the sign-off replays its marks: each is refused as month_closed, none applied', async () => {
    const ana = team.session('ana')
    const offlineBen = team.session('ben')
    const month = '2026-07'
    await ana.applyMarks(DEMO, newKey(), marks('ch_jul_a', 2, month))
    const submitted = await ana.submitMonth(DEMO, newKey(), month, null)
    await team.session('rei').signOff(DEMO, newKey(), month, submitted.month.version)
    const late = await offlineBen.applyMarks(DEMO, newKey(), [
      ...marks('ch_jul_a', 1, month).map((m) => ({ ...m, baseVersion: 1, note: 'late' })),
      ...marks('ch_jul_b', 2, month),
    ])
    expect(late.outcomes.map((o) => [o.id, o.status, o.reason, o.monthState])).toEqual([
      ['ch_jul_a_0', 'refused', 'month_closed', 'signed_off'],
      ['ch_jul_b_0', 'refused', 'month_closed', 'signed_off'],
      ['ch_jul_b_1', 'refused', 'month_closed', 'signed_off'],
    ])
    expect(late.outcomes[0]?.current).toMatchObject({ note: 'n0', updatedBy: 'ana', version: 1 })
    const notes = await team.admin.query(
      "SELECT note FROM closebook.marks WHERE record_id LIKE 'ch_jul_%' ORDER BY 1",
    )
    expect(notes.rows).toEqual([{ note: 'n0' }, { note: 'n1' }])
  })
})

async function reconnectAdmin(team: TeamFixture): Promise<void> {
  const { default: pg } = await import('pg')
  const admin = new pg.Client({
    host: team.cluster.host,
    port: team.cluster.port,
    user: team.cluster.superuser,
    password: team.cluster.superPassword,
    database: 'closebook_team',
  })
  admin.on('error', () => undefined)
  await admin.connect()
  team.admin = admin
}
