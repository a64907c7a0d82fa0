/**
 * Conformance of the sandbox's four list operations with seed §2, §4 and §5, and with the paging
 * conventions of electron/sandbox/README.md.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isoFromUs, usFromIso } from '../../../../electron/sandbox/model'
import { chargeItemSchema, historyItemSchema } from '../../../../electron/shared/payment-api'
import { authOf, get, listAll, useSandbox, type ListBody } from './support'

/** The seed's one shape (§2.2, §2.3) with every field present: what `--shape seed` serves. */
interface SeedUserData {
  type: string
  cardholder_name: string
  cardholder_email_address: string
  brand: string
  gateway: string
  service_provider: string
  refunds: Record<string, unknown>[]
}
type History = z.infer<typeof historyItemSchema> & {
  user_data: SeedUserData
  metadata: Record<string, unknown>
}
type Charge = z.infer<typeof chargeItemSchema> & {
  charged_amount: number
  metadata: Record<string, unknown>
  fee_amount: number | null
  transaction_token_id: string
}

// These are the seed shape's conventions (README "Conventions"), whatever DEFAULT_SHAPE is; varied.test.ts covers the other.
const sandbox = useSandbox({ seed: 7, stores: 3, records: 1500, rateLimit: false, shape: 'seed' })
let allHistory: History[]
let allCharges: Charge[]

beforeAll(async () => {
  allHistory = (await listAll<History>(sandbox(), '/transaction_history')).items
  allCharges = (await listAll<Charge>(sandbox(), '/charges')).items
})

const iso = (s: string) => usFromIso(s) as number

describe('items', () => {
  it('has every field of seed §2.2 and §2.3 with the seed types, and the seed nulls', () => {
    expect(allCharges).toHaveLength(1500)
    expect(allHistory.length).toBeGreaterThan(1500)
    for (const item of allHistory) {
      const parsed = historyItemSchema.strict().safeParse(item)
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true)
      expect(item.created_on).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
      expect(item.charge_id === null).toBe(item.type === 'charge')
      expect(item.bank_transfer_payment_status).toBeNull()
      expect(item.user_data.type).toBe(item.type)
    }
    for (const item of allCharges) {
      const parsed = chargeItemSchema.strict().safeParse(item)
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true)
      expect(Number.isInteger(item.charged_amount)).toBe(true)
    }
  })

  it('formats amounts by the currency exponent and lists refunds in the charge record user_data', () => {
    const usd = allHistory.find((h) => h.currency === 'USD')
    const jpy = allHistory.find((h) => h.currency === 'JPY')
    expect(usd?.amount_formatted).toBe((usd?.amount ?? 0) / 100)
    expect(jpy?.amount_formatted).toBe(jpy?.amount)
    const refund = allHistory.find((h) => h.type === 'refund') as History
    const charge = allHistory.find((h) => h.resource_id === refund.charge_id) as History
    expect(charge.user_data.refunds.map((r) => r['id'])).toContain(refund.resource_id)
  })

  it('has the variety an accountant meets (currencies, statuses, brands, refunds, names, modes)', () => {
    const set = <T>(xs: T[]) => new Set(xs)
    expect(set(allCharges.map((c) => c.charged_currency))).toEqual(set(['JPY', 'USD', 'EUR']))
    expect(set(allCharges.map((c) => c.status)).size).toBeGreaterThanOrEqual(5)
    expect(set(allHistory.map((h) => h.user_data.brand))).toEqual(set(['visa', 'master']))
    expect(set(allCharges.map((c) => c.mode))).toEqual(set(['live', 'test']))
    expect(allHistory.some((h) => /[\u3040-\u30ff\u4e00-\u9faf]/.test(h.user_data.cardholder_name))).toBe(
      true,
    )
    expect(allHistory.some((h) => /^[A-Za-z ]+$/.test(h.user_data.cardholder_name))).toBe(true)
    expect(allCharges.some((c) => c.fee_amount !== null && c.fee_amount > 0)).toBe(true)
    expect(allCharges.some((c) => c.merchant_transaction_id?.startsWith('ORD-'))).toBe(true)
    // Partial refunds: a charge whose refunds sum to less than its amount; full ones too.
    const refundsOf = new Map<string, number>()
    for (const h of allHistory)
      if (h.type === 'refund')
        refundsOf.set(h.charge_id as string, (refundsOf.get(h.charge_id as string) ?? 0) + h.amount)
    const byId = new Map(allCharges.map((c) => [c.id, c]))
    const ratios = [...refundsOf].map(([id, sum]) => sum / (byId.get(id)?.charged_amount ?? 1))
    expect(ratios.some((r) => r < 1)).toBe(true)
    expect(ratios.some((r) => r === 1)).toBe(true)
  })

  it('puts records on both sides of month boundaries in UTC and in Asia/Tokyo', () => {
    const near = (boundaryIso: string) =>
      allHistory.filter((h) => Math.abs(Date.parse(h.created_on) - Date.parse(boundaryIso)) < 2 * 3600_000)
    const utc = near('2026-10-01T00:00:00Z')
    const tokyo = near('2026-09-30T15:00:00Z')
    for (const [list, b] of [
      [utc, '2026-10-01T00:00:00Z'],
      [tokyo, '2026-09-30T15:00:00Z'],
    ] as const) {
      expect(list.some((h) => h.created_on < b)).toBe(true)
      expect(list.some((h) => h.created_on >= b)).toBe(true)
    }
  })
})

describe('authentication and routes', () => {
  it('refuses a missing, malformed or wrong Authorization with 401 and a JSON error body', async () => {
    const sb = sandbox()
    const cases: [Record<string, string>, string][] = [
      [{}, 'AUTH_HEADER_MISSING'],
      [{ Authorization: 'Basic abc' }, 'IMPROPER_AUTH'],
      [{ Authorization: `Bearer ${sb.secret}` }, 'IMPROPER_AUTH'],
      [{ Authorization: `Bearer wrong.${sb.appToken}` }, 'INVALID_CREDENTIALS'],
      [{ Authorization: `Bearer ${sb.secret}.${sb.appToken}x` }, 'INVALID_CREDENTIALS'],
    ]
    for (const [headers, code] of cases) {
      const answer = await get(sb, '/charges', {}, headers)
      expect(answer.status).toBe(401)
      expect(answer.body).toEqual({ status: 'error', code, errors: [] })
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
    }
  })

  it('answers an unknown store with 404, a store id that is not a UUID with 400, an unknown path with 404', async () => {
    const sb = sandbox()
    expect((await get(sb, '/stores/00000000-0000-4000-8000-000000000000/charges')).status).toBe(404)
    const bad = await get(sb, '/stores/not-a-uuid/transaction_history')
    expect(bad.status).toBe(400)
    expect(bad.body['errors']).toEqual([{ field: 'storeId', reason: 'must be a UUID' }])
    expect((await get(sb, '/refunds')).status).toBe(404)
  })

  it('serves each store its own records, and the all-stores list is their union', async () => {
    const sb = sandbox()
    const union: string[] = []
    for (const storeId of sb.storeIds) {
      const { items } = await listAll<Charge>(sb, `/stores/${storeId}/charges`)
      expect(items.every((c) => c.store_id === storeId)).toBe(true)
      union.push(...items.map((c) => c.id))
    }
    expect(union.sort()).toEqual(allCharges.map((c) => c.id).sort())
  })
})

describe('paging', () => {
  it('pages newest first by default with no gap and no duplicate; total_hits counts all', async () => {
    const sb = sandbox()
    const first = await get<ListBody<History>>(sb, '/transaction_history')
    expect(first.body.items).toHaveLength(10) // default limit
    expect(first.body.total_hits).toBe(allHistory.length)
    const ids = allHistory.map((h) => h.resource_id)
    expect(new Set(ids).size).toBe(ids.length)
    const times = allHistory.map((h) => iso(h.created_on))
    expect(times.every((t, i) => i === 0 || (times[i - 1] as number) >= t)).toBe(true)
  })

  it('pages oldest first with cursor_direction=asc, the same set in reverse order', async () => {
    const asc = await listAll<History>(sandbox(), '/transaction_history', {
      cursor_direction: 'asc',
      limit: 37,
    })
    expect(asc.items.map((h) => h.resource_id)).toEqual(allHistory.map((h) => h.resource_id).reverse())
    expect(asc.requests).toBe(Math.ceil(allHistory.length / 37))
  })

  it('a cursor in the middle continues right after that item, in either direction', async () => {
    const sb = sandbox()
    const pivot = allCharges[500] as Charge
    const desc = await get<ListBody<Charge>>(sb, '/charges', { cursor: pivot.id, limit: 3 })
    expect(desc.body.items.map((c) => c.id)).toEqual(allCharges.slice(501, 504).map((c) => c.id))
    const asc = await get<ListBody<Charge>>(sb, '/charges', {
      cursor: pivot.id,
      limit: 3,
      cursor_direction: 'asc',
    })
    expect(asc.body.items.map((c) => c.id)).toEqual(
      allCharges
        .slice(497, 500)
        .map((c) => c.id)
        .reverse(),
    )
  })

  it('refuses limit 0 and 101, a cursor that is not a UUID or not in the list, an unknown direction', async () => {
    const sb = sandbox()
    const field = async (params: Record<string, string | number>, path = '/charges') => {
      const answer = await get(sb, path, params)
      expect(answer.status).toBe(400)
      return (answer.body['errors'] as { field: string }[]).map((e) => e.field)
    }
    expect(await field({ limit: 0 })).toEqual(['limit'])
    expect(await field({ limit: 101 })).toEqual(['limit'])
    expect(await field({ limit: 'ten' })).toEqual(['limit'])
    expect(await field({ cursor: 'abc' })).toEqual(['cursor'])
    expect(await field({ cursor: '00000000-0000-4000-8000-000000000000' })).toEqual(['cursor'])
    expect(await field({ cursor_direction: 'up' }, '/transaction_history')).toEqual(['cursor_direction'])
    const max = await get<ListBody<Charge>>(sb, '/charges', { limit: 100 })
    expect(max.body.items).toHaveLength(100)
  })
})

describe('transaction history filters (seed §4.1)', () => {
  it('from and to are both inclusive, to the microsecond', async () => {
    const sb = sandbox()
    const a = allHistory[300] as History
    const b = allHistory[200] as History // newer
    const { items } = await listAll<History>(sb, '/transaction_history', {
      from: a.created_on,
      to: b.created_on,
    })
    const expected = allHistory.filter(
      (h) => iso(h.created_on) >= iso(a.created_on) && iso(h.created_on) <= iso(b.created_on),
    )
    expect(items.map((h) => h.resource_id)).toEqual(expected.map((h) => h.resource_id))
    expect(items[0]?.created_on).toBe(b.created_on)
    expect(items[items.length - 1]?.created_on).toBe(a.created_on)
    // One microsecond later leaves out what was created at exactly `from`.
    const later = await listAll<History>(sb, '/transaction_history', {
      from: isoFromUs(iso(a.created_on) + 1),
      to: b.created_on,
    })
    expect(later.items.map((h) => h.resource_id)).toEqual(
      expected.filter((h) => h.created_on !== a.created_on).map((h) => h.resource_id),
    )
    expect(later.items.length).toBeLessThan(items.length)
  })

  it('type, status and mode filter exactly and combine with AND', async () => {
    const sb = sandbox()
    const { items, totalHits } = await listAll<History>(sb, '/transaction_history', {
      type: 'refund',
      status: 'successful',
      mode: 'live',
    })
    const expected = allHistory.filter(
      (h) => h.type === 'refund' && h.status === 'successful' && h.mode === 'live',
    )
    expect(expected.length).toBeGreaterThan(0)
    expect(items.map((h) => h.resource_id)).toEqual(expected.map((h) => h.resource_id))
    expect(totalHits).toBe(expected.length)
  })

  it('search matches charge id, refund id, metadata, cardholder name, e-mail and last four', async () => {
    const sb = sandbox()
    const refund = allHistory.find((h) => h.type === 'refund') as History
    const search = async (q: string) =>
      (await listAll<History>(sb, '/transaction_history', { search: q })).items
    expect((await search(refund.resource_id)).map((h) => h.resource_id)).toEqual([refund.resource_id])
    const byCharge = await search(refund.charge_id as string)
    expect(byCharge.map((h) => h.resource_id)).toContain(refund.resource_id)
    expect(byCharge.map((h) => h.resource_id)).toContain(refund.charge_id)
    const order = String(refund.metadata['order_number'])
    expect((await search(order)).every((h) => h.metadata['order_number'] === order)).toBe(true)
    const name = refund.user_data.cardholder_name
    const byName = await search(name)
    expect(byName.length).toBeGreaterThan(0)
    expect(byName.every((h) => h.user_data.cardholder_name === name)).toBe(true)
    const email = refund.user_data.cardholder_email_address
    expect((await search(email)).every((h) => h.user_data.cardholder_email_address === email)).toBe(true)
    const entry = sb.data.findHistory(refund.resource_id)
    const lastFour = entry?.charge.card.lastFour as string
    expect((await search(lastFour)).map((h) => h.resource_id)).toContain(refund.resource_id)
  })

  it('refuses bad values naming the parameter', async () => {
    const sb = sandbox()
    const answer = await get(sb, '/transaction_history', { from: 'yesterday', type: 'payout', mode: 'prod' })
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' })
    expect((answer.body['errors'] as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'from',
      'mode',
      'type',
    ])
    expect((await get(sb, '/transaction_history', { to: '2026-02-31T00:00:00Z' })).status).toBe(400)
  })
})

describe('charge list filters (seed §4.2)', () => {
  it('from is inclusive and to exclusive ("before")', async () => {
    const sb = sandbox()
    const a = allCharges[400] as Charge
    const b = allCharges[100] as Charge
    const { items } = await listAll<Charge>(sb, '/charges', { from: a.created_on, to: b.created_on })
    expect(items.map((c) => c.id)).toContain(a.id)
    expect(items.map((c) => c.id)).not.toContain(b.id)
    const expected = allCharges.filter(
      (c) => iso(c.created_on) >= iso(a.created_on) && iso(c.created_on) < iso(b.created_on),
    )
    expect(items.map((c) => c.id)).toEqual(expected.map((c) => c.id))
  })

  it('amount_from and amount_to are strict', async () => {
    const sb = sandbox()
    const amount = (allCharges[10] as Charge).charged_amount
    const above = await listAll<Charge>(sb, '/charges', { amount_from: amount })
    expect(above.items.every((c) => c.charged_amount > amount)).toBe(true)
    expect(above.items.length).toBe(allCharges.filter((c) => c.charged_amount > amount).length)
    const below = await listAll<Charge>(sb, '/charges', { amount_to: amount })
    expect(below.items.length).toBe(allCharges.filter((c) => c.charged_amount < amount).length)
  })

  it('currency matches the requested or the charged currency', async () => {
    const { items } = await listAll<Charge>(sandbox(), '/charges', { currency: 'usd' })
    const expected = allCharges.filter((c) => c.requested_currency === 'USD' || c.charged_currency === 'USD')
    expect(expected.some((c) => c.charged_currency === 'JPY')).toBe(true) // requested in USD, charged in JPY
    expect(items.map((c) => c.id)).toEqual(expected.map((c) => c.id))
  })

  it('mode, metadata, transaction_token_id, email and phone filter', async () => {
    const sb = sandbox()
    const c = allCharges.find((x) => x.metadata['order_number']) as Charge
    const card = sb.data.findCharge(c.id)?.card
    const one = async (params: Record<string, string | number>) =>
      (await listAll<Charge>(sb, '/charges', params)).items.map((x) => x.id)
    expect(await one({ transaction_token_id: c.transaction_token_id })).toEqual([c.id])
    expect(await one({ metadata: String(c.metadata['order_number']) })).toEqual([c.id])
    expect(await one({ email: String(card?.email) })).toContain(c.id)
    expect(await one({ phone: String(card?.phone) })).toContain(c.id)
    expect(
      (await listAll<Charge>(sb, '/charges', { mode: 'test' })).items.every((x) => x.mode === 'test'),
    ).toBe(true)
  })

  it('the card group is all-or-none: a partial group is refused naming the missing fields', async () => {
    const sb = sandbox()
    const partial = await get(sb, '/charges', { last_four: '4242', exp_year: 2028 })
    expect(partial.status).toBe(400)
    expect((partial.body['errors'] as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'exp_month',
      'name',
    ])
    const c = allCharges[42] as Charge
    const card = sb.data.findCharge(c.id)?.card
    const full = await listAll<Charge>(sb, '/charges', {
      last_four: String(card?.lastFour),
      name: String(card?.name),
      exp_month: Number(card?.expMonth),
      exp_year: Number(card?.expYear),
    })
    expect(full.items.map((x) => x.id)).toContain(c.id)
  })

  it('refuses bad values naming the parameter', async () => {
    const answer = await get(sandbox(), '/charges', {
      transaction_token_id: 'nope',
      amount_from: '1.5',
      currency: 'JP1',
      phone: 'call me',
    })
    expect(answer.status).toBe(400)
    expect((answer.body['errors'] as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'amount_from',
      'currency',
      'phone',
      'transaction_token_id',
    ])
  })

  it('keeps the Authorization check ahead of the query check', async () => {
    const sb = sandbox()
    expect(
      (await get(sb, '/charges', { limit: 0 }, { Authorization: `Bearer x.${sb.appToken}` })).status,
    ).toBe(401)
    expect(authOf(sb)).toContain(sb.secret)
  })
})
