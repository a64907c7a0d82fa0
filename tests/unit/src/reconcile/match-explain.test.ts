import { describe, expect, it } from 'vitest'
import { createI18n } from 'vue-i18n'
import { en } from '../../../../src/i18n/en'
import { ja } from '../../../../src/i18n/ja'
import { proposeMatches, type ExplanationCode } from '../../../../src/reconcile/matching'
import { buildCorpus, CORPUS_ZONE } from '../../../bench/shared/match-corpus'
import { applyProfile } from '../../../../src/import/profiles'
import { builtInProfileFor, readImportFile } from '../../../../src/import/read-file'

const CODES: ExplanationCode[] = [
  'reference_exact',
  'reference_refunds',
  'reference_refund_missing',
  'reference_amount_differs',
  'reference_several',
  'reference_unavailable',
  'amount_date',
  'amount_date_several',
  'payout',
  'payout_several',
  'payout_nearest',
  'contested',
  'no_candidate',
  'withdrawal',
  'method_excluded',
  'no_payout',
]

describe('explanations', () => {
  it('exist in English and in Japanese for every code', () => {
    const i18n = createI18n({ legacy: false, locale: 'en', messages: { en, ja } })
    for (const code of CODES) {
      const key = `match.evidence.explain.${code}`
      expect(i18n.global.te(key, 'en'), code).toBe(true)
      expect(i18n.global.te(key, 'ja'), code).toBe(true)
      expect(i18n.global.t(key, {}, { locale: 'ja' }), code).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/)
    }
  })

  it('cover every line of the corpus: each line is proposed, ambiguous or unmatched with a reason', async () => {
    const corpus = buildCorpus()
    const seen = new Set<string>()
    for (const file of corpus.files) {
      const read = await readImportFile(file.name, file.bytes)
      const profile = builtInProfileFor(read.parsed.headers, CORPUS_ZONE)
      if (!profile) throw new Error(file.name)
      const { rows } = applyProfile(read.parsed, profile)
      const r = proposeMatches({
        rows,
        history: corpus.history,
        charges: corpus.charges,
        timeZone: CORPUS_ZONE,
      })
      for (const p of r.proposals) seen.add(p.explanation.code)
      for (const a of r.ambiguous) seen.add(a.explanation.code)
      for (const line of r.unmatchedRows) {
        const reason = r.unmatchedReasons.get(line)
        expect(reason, `${file.name}:${line}`).toBeDefined()
        seen.add(reason?.code ?? '')
      }
      expect(r.proposals.length + r.ambiguous.length + r.unmatchedRows.length).toBe(rows.length)
    }
    for (const code of seen) expect(CODES).toContain(code)
  })
})
