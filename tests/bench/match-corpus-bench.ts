/**
 * match.precision / match.recall: the matching corpus (shared/match-corpus.ts: Shopify, BASE, EC-CUBE 4,
 * MUFG, SMBC, Mizuho, Rakuten Bank, PayPay Bank and Zengin files with known truth) read and matched as
 * the app does, proposals at the default threshold (0.9) scored against the truth. Runs in Node: the
 * rules are pure. Per-file figures are in the note.
 */
import { measured, type MetricMap } from './metrics'
import { buildCorpus } from './shared/match-corpus'
import { scoreCorpus, totals } from './shared/match-score'

export async function benchMatchCorpus(): Promise<MetricMap> {
  const scores = await scoreCorpus(buildCorpus())
  const all = totals(scores)
  const note = scores
    .map(
      (s) =>
        `${s.name}: P ${s.precision.toFixed(2)} R ${s.recall.toFixed(2)} (${s.correct}/${s.accepted} accepted, ${s.found}/${s.exact} exact, ${s.refused} refused)`,
    )
    .join('; ')
  return {
    'match.precision': measured('match.precision', Math.round(all.precision * 1000) / 1000, note),
    'match.recall': measured('match.recall', Math.round(all.recall * 1000) / 1000, note),
  }
}
