/**
 * match.precision / match.recall / match.recall_orders / match.recall_deposits: two corpora read and
 * matched as the app does, proposals at the default threshold (0.9) scored against the truth. The
 * generated corpus (shared/match-corpus.ts: Shopify, BASE, EC-CUBE 4 and every bank layout) and the
 * order-file corpus (tests/fixtures/order-files: the ways shops really write orders, one file per variant,
 * each tagged with its kind of miss). match.recall_deposits scores the bank files' deposits against their
 * payouts; it is the hook the payouts work's transfer tie-out feeds. Per-file and per-kind figures are in
 * the notes. Runs in Node: the rules are pure.
 */
import { measured, type MetricMap } from './metrics'
import { buildCorpus } from './shared/match-corpus'
import { byKind, scoreCorpus, totals, type FileScore } from './shared/match-score'
import { loadOrderFiles } from './shared/order-files'

function fileNote(s: FileScore): string {
  return `${s.name}: P ${s.precision.toFixed(2)} R ${s.recall.toFixed(2)} (${s.correct}/${s.accepted} accepted, ${s.found}/${s.exact} exact, ${s.offered} offered, ${s.refused} refused)`
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000

export async function benchMatchCorpus(): Promise<MetricMap> {
  const scores = [...(await scoreCorpus(buildCorpus())), ...(await scoreCorpus(loadOrderFiles()))]
  const all = totals(scores)
  const files = scores.map(fileNote).join('; ')
  const kinds = [...byKind(scores)]
    .map(
      ([k, v]) =>
        `${k}: P ${v.precision.toFixed(2)} R ${v.recall.toFixed(2)} (${v.files} files, ${v.offered} offered)`,
    )
    .join('; ')
  const metrics: MetricMap = {
    'match.precision': measured('match.precision', round3(all.precision), files),
    'match.recall': measured('match.recall', round3(all.recall), files),
    'match.recall_orders': measured(
      'match.recall_orders',
      round3(all.recallOrders),
      `by kind of miss: ${kinds}`,
    ),
    'match.recall_deposits': measured(
      'match.recall_deposits',
      round3(all.recallDeposits),
      'bank files of the generated corpus; fed by the payouts tie-out as it lands',
    ),
  }
  for (const [kind, v] of byKind(scores)) {
    metrics[`match.recall_orders.${kind}`] = measured(`match.recall_orders.${kind}`, round3(v.recall))
  }
  return metrics
}
