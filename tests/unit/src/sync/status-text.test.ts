/**
 * The sync panel's words: never a bare "Up to date." while items are set aside, and a partition that
 * stopped for a known reason says it in the display language with its numbers.
 */
import { describe, expect, it } from 'vitest'
import { createAppI18n } from '../../../../src/i18n'
import { stateMessage, stopMessage, type Message } from '../../../../src/sync/status-text'

function render(locale: 'en' | 'ja', m: Message): string {
  const { global } = createAppI18n(locale)
  return m.plural === undefined ? global.t(m.key, m.params) : global.t(m.key, m.params, m.plural)
}

describe('sync status text', () => {
  it('a run that ends with items set aside says how many and what to do, in both languages', () => {
    expect(render('en', stateMessage('done', 2))).toBe('Up to date, 2 items set aside: fetch again.')
    expect(render('en', stateMessage('done', 1))).toBe('Up to date, 1 item set aside: fetch again.')
    expect(render('ja', stateMessage('done', 2))).toBe(
      '最新の状態です。ただし 2 件を保留にしています：再取得してください。',
    )
    expect(render('en', stateMessage('done', 0))).toBe('Up to date.')
    expect(render('en', stateMessage('partial', 3))).toMatch(/^Some parts could not be fetched/)
  })

  it('words a stop reason with its numbers, and leaves unknown reasons to the error code', () => {
    const cycle = stopMessage({
      code: 'malformed_response',
      message: 'x',
      reason: 'cursor_repeated',
      params: { pages: 3 },
    })
    expect(cycle && render('en', cycle)).toMatch(/already sent \(after 3 pages\)/)
    expect(cycle && render('ja', cycle)).toMatch(/3 ページ目/)
    const tooMany = stopMessage({
      code: 'malformed_response',
      message: 'x',
      reason: 'too_many_items',
      params: { received: 30000, asked: 100 },
    })
    expect(tooMany && render('en', tooMany)).toBe(
      'The payment service sent 30000 items in a page of at most 100. The page was refused; nothing of it was stored.',
    )
    expect(stopMessage({ code: 'network', message: 'x', reason: 'ECONNRESET' })).toBeNull()
    expect(stopMessage(null)).toBeNull()
  })
})
