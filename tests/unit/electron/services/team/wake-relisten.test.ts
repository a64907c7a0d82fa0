// Main's LISTEN survives a server restart: the lost listening connection releases the waiting renderer
// (it falls back to polling at once) and the next wait listens again, so wake-ups resume. Real PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TeamService } from '../../../../../electron/services/team/team-service'
import { InMemorySecretStore } from '../../../../../electron/services/vault/secret-store'
import { postgresUnavailableReason } from '../support/postgres'
import { DEMO, markWrite, newKey, startTeam, type TeamFixture } from '../support/team-fixture'

const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`team re-listen tests skipped: ${unavailable}`)

describe.skipIf(unavailable)('wake-ups across a server restart', () => {
  let team: TeamFixture
  let dir: string
  beforeAll(async () => {
    team = await startTeam([['ana', DEMO, 'preparer']])
    dir = mkdtempSync(join(tmpdir(), 'closebook-relisten-'))
  }, 60_000)
  afterAll(async () => {
    await team?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('a lost LISTEN releases the waiter, and the next wait listens again and is woken', async () => {
    const main = new TeamService(dir, new InMemorySecretStore())
    await main.configure({ config: team.config('ana'), password: team.password('ana') })
    const writer = team.session('ana')
    try {
      const first = await main.waitWake({ after: Number.MAX_SAFE_INTEGER, timeoutMs: 200 })
      expect(first.listening).toBe(true)
      const waiting = main.waitWake({ after: first.wakeCount, timeoutMs: 30_000 })
      const started = Date.now()
      await team.admin.end()
      team.cluster.kill()
      expect((await waiting).wakeCount).toBe(first.wakeCount)
      expect(Date.now() - started).toBeLessThan(10_000)
      team.cluster.restart()
      await expect
        .poll(
          async () => (await main.waitWake({ after: Number.MAX_SAFE_INTEGER, timeoutMs: 50 })).listening,
          {
            timeout: 15_000,
            interval: 200,
          },
        )
        .toBe(true)
      const before = (await main.waitWake({ after: Number.MAX_SAFE_INTEGER, timeoutMs: 10 })).wakeCount
      const woken = main.waitWake({ after: before, timeoutMs: 10_000 })
      await writer.applyMarks(DEMO, newKey(), [markWrite('ch_after_restart', 0)])
      expect((await woken).wakeCount).toBeGreaterThan(before)
    } finally {
      await main.dispose()
    }
  }, 60_000)
})
