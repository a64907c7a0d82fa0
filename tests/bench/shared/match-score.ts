/**
 * match.precision / match.recall: every corpus file read the way the app reads it (built-in layout by its
 * headers, encoding detected, the file's name for dates without a year), matched, and the proposals at or
 * above the threshold compared with the file's truth. Recall counts the lines whose truth rests on exact
 * evidence; `offered` counts true links proposed below the threshold (for a person to accept).
 */
import { applyProfile } from '../../../src/import/profiles'
import { builtInProfileFor, readImportFile } from '../../../src/import/read-file'
import { DEFAULT_THRESHOLD, proposeMatches } from '../../../src/reconcile/matching'
import type { RecordKey } from '../../../src/domain/records'
import { CORPUS_ZONE, type Corpus, type CorpusFile } from './match-corpus'

export interface FileScore {
  name: string
  source: 'orders' | 'bank'
  /** The kind of miss the file holds (order-file corpus), or null. */
  kind: string | null
  layout: string
  lines: number
  refused: number
  accepted: number
  correct: number
  wrong: { line: number; keys: string[] }[]
  exact: number
  found: number
  /** True links proposed below the threshold. */
  offered: number
  precision: number
  recall: number
}

function sameKeys(truth: readonly RecordKey[] | undefined, keys: readonly RecordKey[]): boolean {
  return truth !== undefined && truth.length === keys.length && truth.every((k) => keys.includes(k))
}

export async function scoreCorpus(
  corpus: Corpus & { files: (CorpusFile & { kind?: string })[] },
  threshold = DEFAULT_THRESHOLD,
): Promise<FileScore[]> {
  const scores: FileScore[] = []
  for (const file of corpus.files) {
    const read = await readImportFile(file.name, file.bytes)
    const profile = builtInProfileFor(read.parsed.headers, CORPUS_ZONE)
    if (!profile) throw new Error(`${file.name}: no built-in layout for ${read.parsed.headers.join(',')}`)
    if (profile.source !== file.source) throw new Error(`${file.name}: read as ${profile.source}`)
    const applied = applyProfile(read.parsed, profile, { fileName: file.name })
    const result = proposeMatches({
      rows: applied.rows,
      history: corpus.history,
      charges: corpus.charges,
      timeZone: CORPUS_ZONE,
    })
    const accepted = result.proposals.filter((p) => p.confidence >= threshold)
    let correct = 0
    let found = 0
    const wrong: FileScore['wrong'] = []
    for (const p of accepted) {
      if (sameKeys(file.truth.get(p.rowLine), p.keys)) {
        correct++
        if (file.exact.has(p.rowLine)) found++
      } else wrong.push({ line: p.rowLine, keys: p.keys })
    }
    const offered = result.proposals.filter(
      (p) => p.confidence < threshold && sameKeys(file.truth.get(p.rowLine), p.keys),
    ).length
    scores.push({
      name: file.name,
      source: file.source,
      kind: file.kind ?? null,
      layout: profile.name,
      lines: applied.lineCount,
      refused: new Set([...read.parsed.errors.map((e) => e.line), ...applied.errors.map((e) => e.row)]).size,
      accepted: accepted.length,
      correct,
      wrong,
      exact: file.exact.size,
      found,
      offered,
      precision: accepted.length === 0 ? 1 : correct / accepted.length,
      recall: file.exact.size === 0 ? 1 : found / file.exact.size,
    })
  }
  return scores
}

export interface Totals {
  precision: number
  recall: number
  /** Over order files only. */
  recallOrders: number
  /** Over bank files only: deposits tied to their payouts (the cash side feeds it). */
  recallDeposits: number
}

function ratio(scores: readonly FileScore[], part: 'precision' | 'recall'): number {
  const accepted = scores.reduce((a, s) => a + s.accepted, 0)
  const correct = scores.reduce((a, s) => a + s.correct, 0)
  const exact = scores.reduce((a, s) => a + s.exact, 0)
  const found = scores.reduce((a, s) => a + s.found, 0)
  if (part === 'precision') return accepted === 0 ? 1 : correct / accepted
  return exact === 0 ? 1 : found / exact
}

/** Micro-averaged over files. */
export function totals(scores: readonly FileScore[]): Totals {
  return {
    precision: ratio(scores, 'precision'),
    recall: ratio(scores, 'recall'),
    recallOrders: ratio(
      scores.filter((s) => s.source === 'orders'),
      'recall',
    ),
    recallDeposits: ratio(
      scores.filter((s) => s.source === 'bank'),
      'recall',
    ),
  }
}

/** Precision, recall and offered links per kind of miss (files without a kind are left out). */
export function byKind(
  scores: readonly FileScore[],
): Map<string, { precision: number; recall: number; offered: number; files: number }> {
  const kinds = new Map<string, FileScore[]>()
  for (const s of scores) {
    if (s.kind === null) continue
    const list = kinds.get(s.kind) ?? []
    list.push(s)
    kinds.set(s.kind, list)
  }
  const out = new Map<string, { precision: number; recall: number; offered: number; files: number }>()
  for (const [kind, list] of kinds) {
    out.set(kind, {
      precision: ratio(list, 'precision'),
      recall: ratio(list, 'recall'),
      offered: list.reduce((a, s) => a + s.offered, 0),
      files: list.length,
    })
  }
  return out
}
