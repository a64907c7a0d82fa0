import { describe, expect, it } from 'vitest'
import { validatePage } from '../../../../electron/services/api-client/page-validation'
import { dispatch } from '../../../../electron/services/dispatcher'
import { listPageResultSchema } from '../../../../electron/shared/contract/api'
import { handlersWith } from '../support/handlers'
import { historyItem } from '../services/support/fixtures'

const page = (items: unknown[]) => ({
  resource: 'transaction_history' as const,
  items,
  hasMore: false,
  fetchedAt: '2026-01-01T00:00:00.000Z',
})

describe("a list page's result check", () => {
  it("takes the list of items main's page validation parsed as it is, without a second parse", () => {
    const validated = validatePage(
      'transaction_history',
      { items: [historyItem()], has_more: false },
      {
        request: 'GET /transaction_history',
      },
    )
    if (!validated.ok) throw new Error('the page should validate')
    const items = validated.page.items
    const checked = listPageResultSchema.parse(page(items))
    expect(checked.items).toBe(items)
    // A list main built some other way, even of the same items, is parsed in full.
    const copied = listPageResultSchema.parse(page([...items]))
    expect(copied.items[0]).not.toBe(items[0])
    expect(copied.items).toEqual(items)
  })

  it('parses in full an item that did not come from page validation, naming the field at fault', () => {
    const result = listPageResultSchema.safeParse(page([{ ...historyItem(), amount: '1200' }]))
    expect(result.success).toBe(false)
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['items.0.amount'])
  })

  it('gives the parse output for an item that did not come from page validation', () => {
    const item = { ...historyItem(), store_name: 42 }
    const checked = listPageResultSchema.parse(page([item]))
    expect(checked.items[0]).not.toBe(item)
    expect(checked.items[0]?.store_name).toBeUndefined()
  })

  it('refuses, through the dispatcher, a page whose item no validation passed', async () => {
    const handlers = handlersWith({
      'api:listPage': () => Promise.resolve(page([{ ...historyItem(), currency: 7 }]) as never),
    })
    const outcome = await dispatch(
      handlers,
      'api:listPage',
      { connectionId: '22222222-2222-4222-8222-222222222222', resource: 'transaction_history' },
      { host: 'web', signal: new AbortController().signal },
    )
    expect(outcome).toMatchObject({ ok: false, error: { code: 'internal' } })
  })
})
