/**
 * team.push_10k_marks_s: 10,000 marks pushed through main's team service in writes of 5,000 (how the outbox
 * queues a bulk mark). team.pull_100k_audit_s: 100,000 audit rows pulled in pages of 5,000 and their chain verified
 * (what a joining desktop does before storing them). team.visible_on_other_desktop_ms: one desktop pushes a
 * mark, the other pulls when main's LISTEN wakes it (as the renderer's team loop does), until it shows
 * (median of 20).
 * Against a PostgreSQL the bench starts and stops itself.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TeamService } from '../../electron/services/team/team-service'
import { InMemorySecretStore } from '../../electron/services/vault/secret-store'
import { GENESIS_HASH, verifyChain } from '../../electron/shared/team-chain'
import { postgresUnavailableReason } from '../unit/electron/services/support/postgres'
import { DEMO, OTHER, newKey, startTeam } from '../unit/electron/services/support/team-fixture'
import { measured, missing, type MetricMap } from './metrics'

export async function benchTeam({ quick }: { quick: boolean }): Promise<MetricMap> {
  const unavailable = postgresUnavailableReason()
  if (unavailable) {
    return Object.fromEntries(
      ['team.push_10k_marks_s', 'team.pull_100k_audit_s', 'team.visible_on_other_desktop_ms'].map((m) => [
        m,
        missing(m, unavailable),
      ]),
    )
  }
  const team = await startTeam([
    ['ana', DEMO, 'preparer'],
    ['ben', DEMO, 'preparer'],
    ['ana', OTHER, 'preparer'],
  ])
  const dirs: string[] = []
  const desktop = async (login: string): Promise<TeamService> => {
    const dir = mkdtempSync(join(tmpdir(), 'closebook-team-bench-'))
    dirs.push(dir)
    const main = new TeamService(dir, new InMemorySecretStore())
    await main.configure({ config: team.config(login), password: team.password(login) })
    return main
  }
  const [a, b] = [await desktop('ana'), await desktop('ben')]
  try {
    const pushN = quick ? 2_000 : 10_000
    let started = performance.now()
    for (let from = 0; from < pushN; from += 5000) {
      const marks = Array.from({ length: Math.min(5000, pushN - from) }, (_, i) => ({
        kind: 'charge' as const,
        id: `ch_bench_${from + i}`,
        month: '2026-10',
        reconciled: true,
        note: '',
        baseVersion: 0,
      }))
      await a.pushMarks({ merchant: DEMO, key: newKey(), marks })
    }
    const pushS = (performance.now() - started) / 1000

    const pullN = quick ? 20_000 : 100_000
    // The audit rows are appended on the server by its own function, as pushes would, only faster.
    await team.admin.query(
      `DO $$ BEGIN FOR i IN 1..${pullN} LOOP
         PERFORM closebook.append_audit((SELECT id FROM closebook.merchants WHERE service_merchant_id = 'mer_other'),
           'mark', '2026-10', jsonb_build_object('kind', 'charge', 'id', 'ch_' || i, 'reconciled', true, 'note', '', 'version', 1));
       END LOOP; END $$`,
    )
    started = performance.now()
    let from = { seq: 0, hash: GENESIS_HASH }
    for (;;) {
      const { rows } = await a.pullAudit({ merchant: OTHER, afterSeq: from.seq, limit: 5000 })
      if (rows.length === 0) break
      const check = await verifyChain(rows, from)
      if (!check.ok) throw new Error(`chain broke at ${check.brokenAt}`)
      from = { seq: check.verifiedThrough, hash: check.head }
    }
    const pullS = (performance.now() - started) / 1000
    if (from.seq !== pullN) throw new Error(`pulled ${from.seq} of ${pullN} audit rows`)

    const visible: number[] = []
    // The first wait sets up LISTEN on b's session.
    let woken = (await b.waitWake({ after: Number.MAX_SAFE_INTEGER, timeoutMs: 200 })).wakeCount
    let afterSeq = (await b.pullAudit({ merchant: DEMO, afterSeq: pushN - 1 })).rows.at(-1)?.seq ?? pushN
    for (let i = 0; i < 20; i += 1) {
      const t0 = performance.now()
      const mark = {
        kind: 'charge' as const,
        id: `ch_seen_${i}`,
        month: '2026-10',
        reconciled: true,
        note: '',
        baseVersion: 0,
      }
      await a.pushMarks({ merchant: DEMO, key: newKey(), marks: [mark] })
      for (;;) {
        const { rows } = await b.pullAudit({ merchant: DEMO, afterSeq })
        const hit = rows.find((r) => r.payload.includes(`"ch_seen_${i}"`))
        if (hit) {
          afterSeq = hit.seq
          break
        }
        woken = (await b.waitWake({ after: woken, timeoutMs: 3000 })).wakeCount
      }
      visible.push(performance.now() - t0)
    }
    visible.sort((x, y) => x - y)
    const median = visible[Math.floor(visible.length / 2)] ?? NaN
    const size = quick ? ' (quick size)' : ''
    return {
      'team.push_10k_marks_s': measured(
        'team.push_10k_marks_s',
        Math.round(pushS * 100) / 100,
        `${pushN} marks in writes of 5,000${size}`,
      ),
      'team.pull_100k_audit_s': measured(
        'team.pull_100k_audit_s',
        Math.round(pullS * 100) / 100,
        `${pullN} rows, pages of 5,000, chain verified${size}`,
      ),
      'team.visible_on_other_desktop_ms': measured(
        'team.visible_on_other_desktop_ms',
        Math.round(median),
        `median of 20; max ${Math.round(visible.at(-1) ?? NaN)} ms; woken by NOTIFY (poll fallback 3 s)`,
      ),
    }
  } finally {
    await a.dispose()
    await b.dispose()
    await team.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }
}
