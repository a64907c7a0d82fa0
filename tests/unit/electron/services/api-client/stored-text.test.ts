/**
 * What of an item's text is stored: free text cut at the documented limit with the cut fields named in
 * the item, a core field too long quarantined rather than cut, a forged marker dropped.
 */
import { describe, expect, it } from 'vitest'
import { validatePage } from '../../../../../electron/services/api-client/page-validation'
import {
  capItemText,
  CUT_FIELDS_KEY,
  cutFieldsOf,
  MAX_STORED_ITEM,
  MAX_STORED_TEXT,
} from '../../../../../electron/shared/stored-text'
import { historyItem, uuid } from '../../../../support/api-items'

const SOURCE = { request: 'GET /transaction_history?limit=100' }
const TEN_MB = 10 * 1024 * 1024

describe('stored text', () => {
  it('cuts a 10 MB free-text field to the limit, marks it, and stores the item', () => {
    const big = historyItem(1, {
      metadata: { order_id: 'ORD-1', blob: 'y'.repeat(TEN_MB) },
      store_name: 'S'.repeat(MAX_STORED_TEXT + 1),
    })
    const result = validatePage('transaction_history', { items: [big], has_more: false }, SOURCE)
    if (!result.ok) throw new Error('refused')
    const [stored] = result.page.items
    expect(result.page.quarantined).toEqual([])
    expect(stored?.metadata?.['blob']).toBe(`${'y'.repeat(MAX_STORED_TEXT)}…`)
    expect(stored?.store_name).toHaveLength(MAX_STORED_TEXT + 1)
    expect(stored?.metadata?.['order_id']).toBe('ORD-1')
    expect(cutFieldsOf(stored)).toEqual(['metadata.blob', 'store_name'])
    expect(JSON.stringify(stored).length).toBeLessThan(3 * MAX_STORED_TEXT)
  })

  it('leaves an item within the limits as it came (the same object, no marker)', () => {
    const item = historyItem(2)
    const capped = capItemText(item, new Set(['status']))
    expect(capped.item).toBe(item)
    expect(capped.cut).toEqual([])
  })

  it('drops a marker the service sent itself', () => {
    const forged = { ...historyItem(3), [CUT_FIELDS_KEY]: ['amount'] }
    const result = validatePage('transaction_history', { items: [forged], has_more: false }, SOURCE)
    expect(result.ok && cutFieldsOf(result.page.items[0])).toEqual([])
  })

  it('quarantines an item whose core field is too long, naming it, instead of cutting it', () => {
    const item = historyItem(4, { status: 's'.repeat(TEN_MB) })
    const result = validatePage('transaction_history', { items: [item], has_more: false }, SOURCE)
    if (!result.ok) throw new Error('refused')
    expect(result.page.items).toEqual([])
    expect(result.page.quarantined[0]?.itemId).toBe(uuid(4))
    expect(result.page.quarantined[0]?.reason).toBe(
      `status: ${TEN_MB} characters, more than the ${MAX_STORED_TEXT} kept`,
    )
    // The payload is kept as its size only.
    expect(JSON.stringify(result.page.quarantined[0]?.raw).length).toBeLessThan(200)
  })

  it('quarantines an item still too large once cut (a metadata of many fields)', () => {
    const metadata = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'v'.repeat(4000)]))
    const item = historyItem(5, { metadata })
    const result = validatePage('transaction_history', { items: [item], has_more: false }, SOURCE)
    expect(result.ok && result.page.quarantined[0]?.reason).toMatch(
      new RegExp(
        `^\\(item\\): about \\d+ characters once its text is cut, more than the ${MAX_STORED_ITEM} kept$`,
      ),
    )
  })

  it('cuts keys and text in arrays too, without splitting a surrogate pair', () => {
    const key = 'k'.repeat(MAX_STORED_TEXT + 10)
    const emoji = `${'a'.repeat(MAX_STORED_TEXT - 1)}😀`
    const capped = capItemText({ list: [emoji], meta: { [key]: 1 } }, new Set())
    const out = capped.item as { list: string[]; meta: Record<string, number> }
    expect(out.list[0]).toBe(`${'a'.repeat(MAX_STORED_TEXT - 1)}…`)
    expect(Object.keys(out.meta)[0]).toHaveLength(MAX_STORED_TEXT + 1)
    expect(capped.cut).toEqual(['list[0]', expect.stringMatching(/^meta\.\(key k+…\)$/) as string])
  })
})
