/** 20 seeded convergence runs (quick sizes); `npm run test:soak` runs more and larger. */
import { describe, expect, it } from 'vitest'
import { convergenceRun, tally, type ConvergenceResult } from './convergence'

const RUNS = Number(process.env['CLOSEBOOK_CONVERGENCE_RUNS'] ?? 20)
const RECORDS = Number(process.env['CLOSEBOOK_CONVERGENCE_RECORDS'] ?? 400)

describe('convergence under faults, crashes and growth', () => {
  it(`${RUNS} seeded runs: the cache equals the sandbox and every mark survives`, async () => {
    const results: ConvergenceResult[] = []
    for (let seed = 1; seed <= RUNS; seed++) results.push(await convergenceRun(seed, RECORDS))
    console.log(tally(results))
    for (const r of results) {
      expect(r, `seed ${r.seed} faults ${r.faults}`).toMatchObject({
        converged: true,
        missing: 0,
        extra: 0,
        different: 0,
      })
      expect(r.marksKept, `seed ${r.seed}`).toBe(r.marksBefore)
    }
    // The faults really happened.
    const answers = results.reduce(
      (s, r) => s + (r.http['500'] ?? 0) + (r.http['502'] ?? 0) + (r.http['503'] ?? 0),
      0,
    )
    expect(answers).toBeGreaterThan(0)
    // The crash really cut the first sync short, and every kind was exercised.
    for (const r of results) expect(r.crashedSync, `seed ${r.seed} (${r.crash})`).not.toBe('done')
    expect(new Set(results.map((r) => r.crash))).toEqual(new Set(['renderer', 'write', 'host']))
  }, 600_000)
})
