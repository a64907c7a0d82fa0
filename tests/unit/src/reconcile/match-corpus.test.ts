import { describe, expect, it } from 'vitest'
import { buildCorpus } from '../../../bench/shared/match-corpus'
import { scoreCorpus, totals } from '../../../bench/shared/match-score'

describe('matching corpus (real export layouts, known truth)', () => {
  it('reads every file without a refused line and matches at precision 1.0, recall ≥ 0.95', async () => {
    const scores = await scoreCorpus(buildCorpus())
    console.table(scores.map((s) => ({ ...s, wrong: s.wrong.length })))
    for (const s of scores) {
      expect(s.refused, s.name).toBe(0)
      expect(s.wrong, s.name).toEqual([])
      expect(s.precision, s.name).toBe(1)
      expect(s.recall, s.name).toBeGreaterThanOrEqual(0.95)
    }
    expect(scores.map((s) => s.layout)).toHaveLength(12)
    const all = totals(scores)
    expect(all.precision).toBe(1)
    expect(all.recall).toBeGreaterThanOrEqual(0.95)
  })
})
