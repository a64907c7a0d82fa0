import { describe, expect, it } from 'vitest'
import { newestAnswer } from '../../../../src/stores/newest-answer'

describe('newest answer', () => {
  it('a slow older read ending after a quick newer one is dropped: the audit log keeps the new entry', async () => {
    const reads = newestAnswer()
    let shown: string[] = []
    const load = async (answer: string[], ms: number) => {
      const newest = reads.ask()
      await new Promise((r) => setTimeout(r, ms))
      if (newest()) shown = answer
    }
    // The month's read (before the mark) is slow; the mark's reload is quick.
    await Promise.all([load([], 30), load(['marked by 経理担当者'], 1)])
    expect(shown).toEqual(['marked by 経理担当者'])
    // In order, each answer lands.
    await load(['a'], 1)
    expect(shown).toEqual(['a'])
  })
})
