/**
 * match.50k_ms: the matching rules over 50k imported rows × 50k cached records in Chromium (the renderer
 * runs them), timed around proposeMatches only; the match rate is in the note.
 */
import { resolve } from 'node:path'
import { measured, type MetricMap } from './metrics'
import { runInChromium } from './support/chromium-runner'

interface MatchRun {
  ms: number
  rows: number
  records: number
  proposals: number
  ambiguous: number
  unmatched: number
}

export async function benchMatch({ quick }: { quick: boolean }): Promise<MetricMap> {
  const n = quick ? 10_000 : 50_000
  const run = await runInChromium<MatchRun>(resolve(__dirname, 'browser/match-entry.ts'), n)
  const note = `${run.rows} rows × ${run.records} records${quick ? ' (quick size)' : ''}: ${run.proposals} proposed (${((run.proposals / run.rows) * 100).toFixed(1)} %), ${run.ambiguous} ambiguous, ${run.unmatched} unmatched`
  return { 'match.50k_ms': measured('match.50k_ms', Math.round(run.ms), note) }
}
