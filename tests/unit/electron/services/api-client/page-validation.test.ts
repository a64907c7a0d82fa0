import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildListRequest } from '../../../../../electron/services/api-client/list-request'
import { PaymentApiClient } from '../../../../../electron/services/api-client/payment-api-client'
import { validatePage } from '../../../../../electron/services/api-client/page-validation'
import { chargeItemSchema, historyItemSchema } from '../../../../../electron/shared/payment-api'
import { FakeClock } from '../support/fake-clock'
import { CANARY_CREDENTIALS, canaryLeaks, fakeFetch, json, STORE_A } from '../support/fixtures'

interface Shape {
  name: string
  source?: string
  path?: string
  item: Record<string, unknown>
}

const corpus = (file: string): Shape[] =>
  JSON.parse(readFileSync(join(__dirname, '../../../../fixtures/real-service', file), 'utf8')) as Shape[]

const historyShapes = corpus('history-items.json')
const chargeShapes = corpus('charge-items.json')
const historyBad = corpus('history-bad-items.json')
const chargeBad = corpus('charge-bad-items.json')
const SOURCE = { request: 'GET /transaction_history?limit=100' }

describe('every documented item shape validates (tests/fixtures/real-service)', () => {
  it.each(historyShapes.map((s) => [s.name, s] as const))('history: %s', (_name, shape) => {
    const parsed = historyItemSchema.safeParse(shape.item)
    expect(parsed.error?.issues ?? []).toEqual([])
    // Unknown and tolerant fields are kept as they came.
    expect(parsed.data).toEqual(shape.item)
  })

  it.each(chargeShapes.map((s) => [s.name, s] as const))('charges: %s', (_name, shape) => {
    const parsed = chargeItemSchema.safeParse(shape.item)
    expect(parsed.error?.issues ?? []).toEqual([])
    expect(parsed.data).toEqual(shape.item)
  })

  it('covers every payment type the reference lists, refund rows and refund_id elements', () => {
    const types = new Set(historyShapes.map((s) => s.item['payment_type']))
    for (const t of ['card', 'apple_pay', 'konbini', 'paidy', 'online', 'qr_scan', 'bank_transfer'])
      expect(types, t).toContain(t)
    expect(historyShapes.some((s) => s.item['type'] === 'refund')).toBe(true)
    expect(JSON.stringify(historyShapes)).toContain('"refund_id"')
  })

  it('a whole page of the corpus is stored with nothing quarantined', () => {
    const result = validatePage(
      'transaction_history',
      { items: historyShapes.map((s) => s.item), has_more: false },
      SOURCE,
    )
    expect(result.ok && result.page.items.length).toBe(historyShapes.length)
    expect(result.ok && result.page.quarantined).toEqual([])
  })

  it('tolerates a non-core field of an unexpected type: the item is stored without it', () => {
    const item = { ...(historyShapes[0]?.item ?? {}), store_name: 42, metadata: 'x' }
    const parsed = historyItemSchema.safeParse(item)
    expect(parsed.success).toBe(true)
    expect(parsed.data?.store_name).toBeUndefined()
    expect(parsed.data?.amount).toBe(1500)
  })
})

describe('a bad item is quarantined, the good ones stored', () => {
  it.each(historyBad.map((s) => [s.name, s] as const))('history: %s', (_name, shape) => {
    const good = historyShapes.slice(0, 3).map((s) => s.item)
    const items = [good[0], shape.item, good[1], good[2]]
    const result = validatePage('transaction_history', { items, has_more: true }, SOURCE)
    if (!result.ok) throw new Error('the page was refused whole')
    expect(result.page.items.map((i) => i.resource_id)).toEqual(good.map((g) => g['resource_id']))
    expect(result.page.quarantined).toHaveLength(1)
    const q = result.page.quarantined[0]
    expect(q?.kind).toBe('invalid')
    expect(q?.issues.map((i) => i.path)).toContain(shape.path)
    expect(q?.reason).toContain(`${shape.path}: `)
    expect(q?.raw).toEqual(shape.item)
    expect(q?.request).toBe(SOURCE.request)
    // The cursor moves on past the last item, whatever became of the items.
    expect(result.page.cursorAfter).toBe(good[2]?.['resource_id'])
  })

  it.each(chargeBad.map((s) => [s.name, s] as const))('charges: %s', (_name, shape) => {
    const good = chargeShapes.slice(0, 2).map((s) => s.item)
    const result = validatePage('charges', { items: [...good, shape.item], has_more: false }, SOURCE)
    if (!result.ok) throw new Error('the page was refused whole')
    expect(result.page.items.map((i) => i.id)).toEqual(good.map((g) => g['id']))
    expect(result.page.quarantined[0]?.issues.map((i) => i.path)).toContain(shape.path)
    expect(result.page.quarantined[0]?.itemId).toBe(shape.item['id'])
    // A quarantined last item still moves the cursor.
    expect(result.page.cursorAfter).toBe(shape.item['id'])
  })

  it('refuses only a broken envelope, naming where', () => {
    for (const [body, path] of [
      [{ items: 'nope', has_more: false }, 'items'],
      [{ items: [] }, 'has_more'],
      [[], '(root)'],
    ] as const) {
      const result = validatePage('charges', body, SOURCE)
      expect(result.ok, path).toBe(false)
      if (!result.ok) expect(result.error.issues[0]?.path.join('.') || '(root)').toBe(path)
    }
  })

  it('reads a total_hits that cannot be a count as absent, and keeps the page', () => {
    for (const total of [-1, 2.5, 1e12, '12', null]) {
      const result = validatePage('charges', { items: [], has_more: false, total_hits: total }, SOURCE)
      expect(result.ok && result.page.totalHits, String(total)).toBeUndefined()
    }
    const fine = validatePage('charges', { items: [], has_more: false, total_hits: 2_000 }, SOURCE)
    expect(fine.ok && fine.page.totalHits).toBe(2_000)
  })

  it('quarantines items dated outside the requested window (history to inclusive, charges to exclusive)', () => {
    const at = (created_on: string) => ({
      ...(historyShapes[0]?.item ?? {}),
      resource_id: crypto.randomUUID(),
      created_on,
    })
    const window = {
      from: Date.parse('2026-10-01T00:00:00Z'),
      to: Date.parse('2026-11-01T00:00:00Z'),
      toInclusive: true,
    }
    const items = [
      at('2026-09-30T23:59:59.999Z'),
      at('2026-10-01T00:00:00.000000Z'),
      at('2026-11-01T00:00:00.000000Z'),
      at('2026-11-01T00:00:00.001Z'),
      at('2026-11-01T08:59:59.500+09:00'),
    ]
    const result = validatePage('transaction_history', { items, has_more: false }, { ...SOURCE, window })
    if (!result.ok) throw new Error('refused')
    expect(result.page.items.map((i) => i.created_on)).toEqual([
      '2026-10-01T00:00:00.000000Z',
      '2026-11-01T00:00:00.000000Z',
      '2026-11-01T08:59:59.500+09:00',
    ])
    expect(result.page.quarantined.map((q) => [q.kind, q.issues[0]?.path])).toEqual([
      ['outside_window', 'created_on'],
      ['outside_window', 'created_on'],
    ])
    expect(result.page.quarantined[0]?.requestedFrom).toBe('2026-10-01T00:00:00.000Z')
    const charges = validatePage(
      'charges',
      { items: [{ ...(chargeShapes[0]?.item ?? {}), created_on: '2026-11-01T00:00:00Z' }], has_more: false },
      { ...SOURCE, window: { ...window, toInclusive: false } },
    )
    expect(charges.ok && charges.page.quarantined.length).toBe(1)
  })

  it('continues from next_cursor when the service sends one, else from the last item id', () => {
    const items = historyShapes.slice(0, 2).map((s) => s.item)
    const next = '99999999-9999-4999-8999-999999999999'
    const withNext = validatePage('transaction_history', { items, has_more: true, next_cursor: next }, SOURCE)
    expect(withNext.ok && withNext.page.cursorAfter).toBe(next)
    const noNext = validatePage('transaction_history', { items, has_more: true, next_cursor: null }, SOURCE)
    expect(noNext.ok && noNext.page.cursorAfter).toBe(items[1]?.['resource_id'])
    const junk = validatePage('transaction_history', { items, has_more: true, next_cursor: 'page-2' }, SOURCE)
    expect(junk.ok && junk.page.cursorAfter).toBe(items[1]?.['resource_id'])
  })
})

describe('through the client: the request is named, credentials never travel with a quarantined item', () => {
  it('names the path and query of the source request and scrubs an echoed credential', async () => {
    const good = historyShapes[0]?.item ?? {}
    const echoed = { ...good, resource_id: 'x', metadata: { note: `token ${CANARY_CREDENTIALS.appToken}` } }
    const { fetch } = fakeFetch(() => json({ items: [good, echoed], has_more: false }))
    const api = new PaymentApiClient({ clock: new FakeClock(), fetch })
    const request = buildListRequest('https://api.example.test/v1', {
      resource: 'transaction_history',
      storeId: STORE_A,
      filters: { from: '2026-10-01T00:00:00Z' },
      paging: { limit: 100, cursor_direction: 'asc' },
    })
    const result = await api.list(request, CANARY_CREDENTIALS, new AbortController().signal)
    if (!result.ok) throw new Error(result.error.message)
    expect(result.value.items).toHaveLength(1)
    const q = result.value.quarantined[0]
    expect(q?.request).toBe(
      `GET /v1/stores/${STORE_A}/transaction_history?cursor_direction=asc&from=2026-10-01T00%3A00%3A00Z&limit=100`,
    )
    expect(q?.issues.map((i) => i.path)).toEqual(['resource_id'])
    expect(canaryLeaks(JSON.stringify(result.value))).toEqual([])
  })
})
