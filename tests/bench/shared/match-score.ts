/**
 * match.precision / match.recall: every corpus file read the way the app reads it (built-in layout by its
 * headers, encoding detected), matched, and the proposals at or above the threshold compared with the
 * file's truth. Recall counts the lines whose truth rests on exact evidence.
 */
import { applyProfile } from '../../../src/import/profiles'
import { builtInProfileFor, readImportFile } from '../../../src/import/read-file'
import { DEFAULT_THRESHOLD, proposeMatches } from '../../../src/reconcile/matching'
import { CORPUS_ZONE, type Corpus } from './match-corpus'

export interface FileScore {
  name: string
  layout: string
  lines: number
  refused: number
  accepted: number
  correct: number
  wrong: { line: number; keys: string[] }[]
  exact: number
  found: number
  precision: number
  recall: number
}

export async function scoreCorpus(corpus: Corpus, threshold = DEFAULT_THRESHOLD): Promise<FileScore[]> {
  const scores: FileScore[] = []
  for (const file of corpus.files) {
    const read = await readImportFile(file.name, file.bytes)
    const profile = builtInProfileFor(read.parsed.headers, CORPUS_ZONE)
    if (!profile) throw new Error(`${file.name}: no built-in layout for ${read.parsed.headers.join(',')}`)
    if (profile.source !== file.source) throw new Error(`${file.name}: read as ${profile.source}`)
    const applied = applyProfile(read.parsed, profile)
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
      const truth = file.truth.get(p.rowLine)
      const ok =
        truth !== undefined && truth.length === p.keys.length && truth.every((k) => p.keys.includes(k))
      if (ok) {
        correct++
        if (file.exact.has(p.rowLine)) found++
      } else wrong.push({ line: p.rowLine, keys: p.keys })
    }
    scores.push({
      name: file.name,
      layout: profile.name,
      lines: applied.lineCount,
      refused: new Set([...read.parsed.errors.map((e) => e.line), ...applied.errors.map((e) => e.row)]).size,
      accepted: accepted.length,
      correct,
      wrong,
      exact: file.exact.size,
      found,
      precision: accepted.length === 0 ? 1 : correct / accepted.length,
      recall: file.exact.size === 0 ? 1 : found / file.exact.size,
    })
  }
  return scores
}

/** Micro-averaged over files. */
export function totals(scores: readonly FileScore[]): { precision: number; recall: number } {
  const accepted = scores.reduce((a, s) => a + s.accepted, 0)
  const correct = scores.reduce((a, s) => a + s.correct, 0)
  const exact = scores.reduce((a, s) => a + s.exact, 0)
  const found = scores.reduce((a, s) => a + s.found, 0)
  return { precision: accepted === 0 ? 1 : correct / accepted, recall: exact === 0 ? 1 : found / exact }
}
