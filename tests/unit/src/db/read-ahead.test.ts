import { describe, expect, it } from 'vitest'
import { readAhead } from '../../../../src/db/read-ahead'

/** Pages 1..n, each read logged when it starts and ends; `failAt` fails that page's read. */
function pages(n: number, log: string[], failAt?: number): AsyncGenerator<number> {
  return (async function* () {
    try {
      for (let i = 1; i <= n; i++) {
        log.push(`read ${i}`)
        await new Promise((r) => setTimeout(r, 1))
        if (i === failAt) throw new Error(`page ${i} could not be read`)
        log.push(`read ${i} done`)
        yield i
      }
    } finally {
      log.push('source closed')
    }
  })()
}

describe('readAhead', () => {
  it('reads the next page while the caller works on the last one, in order', async () => {
    const log: string[] = []
    const seen: number[] = []
    for await (const page of readAhead(pages(3, log))) {
      // The caller's work on a page (formatting, the host's write) starts after the next read began.
      log.push(`use ${page}`)
      seen.push(page)
      await new Promise((r) => setTimeout(r, 5))
    }
    expect(seen).toEqual([1, 2, 3])
    expect(log.slice(0, 5)).toEqual(['read 1', 'read 1 done', 'read 2', 'use 1', 'read 2 done'])
    expect(log.filter((l) => l.startsWith('use'))).toEqual(['use 1', 'use 2', 'use 3'])
  })

  it('a caller that stops early leaves no read running and closes the source', async () => {
    const log: string[] = []
    for await (const page of readAhead(pages(5, log))) if (page === 2) break
    expect(log).toEqual([
      'read 1',
      'read 1 done',
      'read 2',
      'read 2 done',
      'read 3',
      'read 3 done',
      'source closed',
    ])
  })

  it('a read ahead that fails is thrown when its page is asked for, not before', async () => {
    const log: string[] = []
    const seen: number[] = []
    await expect(
      (async () => {
        for await (const page of readAhead(pages(5, log, 3))) {
          seen.push(page)
          await new Promise((r) => setTimeout(r, 5))
        }
      })(),
    ).rejects.toThrow('page 3 could not be read')
    expect(seen).toEqual([1, 2])
  })
})
