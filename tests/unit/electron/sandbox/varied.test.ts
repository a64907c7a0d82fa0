/**
 * The varied shape (electron/sandbox/README.md, "Shapes"): every documented form appears, the seed shape is
 * unchanged, late changes to old records happen deterministically as the clock advances, and the 429/403
 * faults answer as the real service does.
 */
import { createHash } from 'node:crypto'
import SDK from 'univapay-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { optionsFromArgs } from '../../../../electron/sandbox/cli'
import { PAYMENT_TYPES, usFromIso } from '../../../../electron/sandbox/model'
import {
  DEFAULT_SHAPE,
  startSandbox,
  type RunningSandbox,
  type SandboxOptions,
} from '../../../../electron/sandbox/server'
import { authOf, get, useSandbox } from './support'

type Row = Record<string, unknown> & {
  resource_id: string
  charge_id: string | null
  type: 'charge' | 'refund'
  status: string
  amount: number
  created_on: string
  payment_type: string
  user_data: Record<string, unknown>
}
type Charge = Record<string, unknown> & { id: string; status: string; created_on: string }
interface Page<T> {
  items: T[]
  has_more: boolean
  total_hits?: number
  next_cursor?: string
}

async function withSandbox<T>(
  options: SandboxOptions,
  run: (sb: RunningSandbox) => T | Promise<T>,
): Promise<T> {
  const sb = await startSandbox({ stores: 2, records: 400, rateLimit: false, ...options })
  try {
    return await run(sb)
  } finally {
    await sb.close()
  }
}

/** Every item of a list, following `next_cursor` where given (else the last id), newest first. */
async function listVaried<T extends Record<string, unknown>>(
  sb: RunningSandbox,
  path: string,
  idField: 'id' | 'resource_id',
): Promise<{ items: T[]; pages: Page<T>[] }> {
  const items: T[] = []
  const pages: Page<T>[] = []
  let cursor: string | undefined
  for (let i = 0; i < 1000; i++) {
    const page = await get<Page<T>>(sb, path, { limit: 100, ...(cursor ? { cursor } : {}) })
    expect(page.status).toBe(200)
    pages.push(page.body)
    items.push(...page.body.items)
    if (!page.body.has_more) return { items, pages }
    cursor = page.body.next_cursor ?? String(page.body.items[page.body.items.length - 1]?.[idField])
  }
  throw new Error('paging did not end')
}

const keys = (o: Record<string, unknown>) => new Set(Object.keys(o))

/** user_data keys a charge row of each payment type may have (java SDK fixtures, README "Shapes"). */
const CHARGE_USER_DATA_KEYS: Record<string, string[]> = {
  card: [
    'type',
    'cardholder_name',
    'cardholder_email_address',
    'brand',
    'card_brand',
    'gateway',
    'service_provider',
    'refunds',
  ],
  apple_pay: [
    'type',
    'cardholder_name',
    'cardholder_email_address',
    'brand',
    'card_brand',
    'gateway',
    'refunds',
  ],
  google_pay: [
    'type',
    'cardholder_name',
    'cardholder_email_address',
    'brand',
    'card_brand',
    'gateway',
    'refunds',
  ],
  konbini: ['type', 'customer_name', 'brand', 'convenience_store', 'refunds'],
  paidy: ['type', 'cardholder_email_address', 'cardholder_phone_number', 'brand', 'refunds'],
  online: ['type', 'cardholder_email_address', 'brand', 'refunds'],
  qr_scan: ['type', 'cardholder_email_address', 'brand', 'refunds'],
  qr_merchant: ['type', 'cardholder_email_address', 'brand', 'refunds'],
  bank_transfer: ['type', 'cardholder_email_address', 'brand', 'refunds'],
}

describe('varied shape: the forms the real service sends', () => {
  const sandbox = useSandbox({
    seed: 7,
    stores: 3,
    records: 3000,
    rateLimit: false,
    shape: 'varied',
    lateChangeEveryMs: 0,
  })
  let rows: Row[]
  let charges: Charge[]
  let historyPages: Page<Row>[]
  let chargePages: Page<Charge>[]

  beforeAll(async () => {
    ;({ items: rows, pages: historyPages } = await listVaried<Row>(
      sandbox(),
      '/transaction_history',
      'resource_id',
    ))
    ;({ items: charges, pages: chargePages } = await listVaried<Charge>(sandbox(), '/charges', 'id'))
  })

  it('serves every payment type, each charge row with its own user_data and no other fields', () => {
    expect(charges).toHaveLength(3000)
    const types = new Set(rows.map((r) => r.payment_type))
    expect([...types].sort()).toEqual([...PAYMENT_TYPES].sort())
    for (const row of rows.filter((r) => r.type === 'charge')) {
      const allowed = new Set(CHARGE_USER_DATA_KEYS[row.payment_type])
      for (const key of keys(row.user_data)) expect(allowed, `${row.payment_type}: ${key}`).toContain(key)
      expect(row.user_data['type']).toBe('charge')
      expect(Array.isArray(row.user_data['refunds'])).toBe(true)
    }
    const byType = (t: string) => rows.filter((r) => r.type === 'charge' && r.payment_type === t)
    expect(byType('konbini').every((r) => typeof r.user_data['customer_name'] === 'string')).toBe(true)
    expect(byType('konbini').some((r) => 'convenience_store' in r.user_data)).toBe(true)
    expect(byType('paidy').every((r) => typeof r.user_data['cardholder_phone_number'] === 'string')).toBe(
      true,
    )
    expect(byType('online').some((r) => r.user_data['brand'] === null)).toBe(true)
    expect(byType('qr_scan').every((r) => r.user_data['cardholder_email_address'] === null)).toBe(true)
    const cards = byType('card')
    expect(cards.some((r) => 'card_brand' in r.user_data)).toBe(true)
    expect(cards.some((r) => !('gateway' in r.user_data))).toBe(true)
    expect(cards.some((r) => r.user_data['service_provider'] === null)).toBe(true)
    expect(cards.some((r) => !('cardholder_email_address' in r.user_data))).toBe(true)
    expect(cards.some((r) => r.user_data['cardholder_email_address'] === null)).toBe(true)
    const brands = new Set(cards.map((r) => r.user_data['brand'] ?? r.user_data['card_brand']))
    expect(brands).toEqual(new Set(['visa', 'mastercard', 'jcb', 'american_express', 'diners_club']))
    expect(rows.some((r) => r.currency === 'CNY' && r.amount_formatted === r.amount / 100)).toBe(true)
  })

  it('refund rows carry no card fields and no refunds; charge rows list refunds by refund_id only', () => {
    const refundRows = rows.filter((r) => r.type === 'refund')
    expect(refundRows.length).toBeGreaterThan(50)
    for (const row of refundRows) {
      expect(row.user_data['type']).toBe('refund')
      expect(typeof row.user_data['reason']).toBe('string')
      for (const absent of ['refunds', 'cardholder_name', 'customer_name', 'gateway', 'service_provider'])
        expect(row.user_data).not.toHaveProperty(absent)
      expect(row.charge_id).not.toBeNull()
      expect(row.charge_id).not.toBe(row.resource_id)
    }
    const refundById = new Map(refundRows.map((r) => [r.resource_id, r]))
    const elements = rows.flatMap((r) =>
      ((r.user_data['refunds'] as Record<string, unknown>[] | undefined) ?? []).map((e) => ({ row: r, e })),
    )
    expect(elements.length).toBe(refundRows.length)
    for (const { row, e } of elements) {
      expect(e).not.toHaveProperty('id')
      expect(e).not.toHaveProperty('created_on')
      const refund = refundById.get(String(e['refund_id']))
      expect(refund?.charge_id).toBe(row.resource_id)
      expect(e['amount']).toBe(refund?.amount)
      if ('status' in e) expect(e['status']).toBe(refund?.status)
    }
    expect(elements.some(({ e }) => !('status' in e))).toBe(true)
    expect(elements.some(({ e }) => !('reason' in e))).toBe(true)
  })

  it('charge rows have charge_id null or their own id', () => {
    const chargeRows = rows.filter((r) => r.type === 'charge')
    expect(chargeRows.every((r) => r.charge_id === null || r.charge_id === r.resource_id)).toBe(true)
    expect(chargeRows.some((r) => r.charge_id === null)).toBe(true)
    expect(chargeRows.some((r) => r.charge_id === r.resource_id)).toBe(true)
  })

  it('charged_* are null exactly while a charge is pending or awaiting', () => {
    const open = charges.filter((c) => c.status === 'pending' || c.status === 'awaiting')
    expect(open.length).toBeGreaterThan(30)
    for (const c of charges) {
      const isOpen = c.status === 'pending' || c.status === 'awaiting'
      for (const key of ['charged_amount', 'charged_currency', 'charged_amount_formatted'])
        expect(c[key] === null, `${c.status} ${key}`).toBe(isOpen)
    }
    expect(new Set(charges.map((c) => c.transaction_token_type))).toEqual(
      new Set(['one_time', 'recurring', 'subscription']),
    )
  })

  it('writes created_on with +09:00 on some rows, the list still ordered by instant', () => {
    const offsets = rows.filter((r) => r.created_on.endsWith('+09:00'))
    expect(offsets.length).toBeGreaterThan(rows.length * 0.2)
    expect(rows.some((r) => r.created_on.endsWith('Z'))).toBe(true)
    const instants = rows.map((r) => usFromIso(r.created_on) as number)
    for (let i = 1; i < instants.length; i++)
      expect(instants[i - 1]).toBeGreaterThanOrEqual(instants[i] as number)
  })

  it('leaves out metadata, store_name and the bank-transfer fields on some rows, and adds unknown fields', () => {
    expect(rows.some((r) => !('metadata' in r))).toBe(true)
    const numeric = (o: unknown) => Object.values(o ?? {}).some((v) => typeof v === 'number')
    expect(rows.filter((r) => numeric(r['metadata'])).map((r) => r.payment_type)).toEqual(
      expect.arrayContaining(['qr_scan', 'qr_merchant', 'card']),
    )
    expect(charges.some((c) => numeric(c['metadata']))).toBe(true)
    expect(rows.some((r) => !('store_name' in r))).toBe(true)
    const others = rows.filter((r) => r.payment_type !== 'bank_transfer' || r.type === 'refund')
    expect(others.some((r) => !('bank_transfer_payment_status' in r))).toBe(true)
    expect(others.every((r) => (r['bank_transfer_payment_status'] ?? null) === null)).toBe(true)
    expect(
      rows.some((r) => typeof r['updated_on'] === 'string' && typeof r['merchant_id'] === 'string'),
    ).toBe(true)
    expect(charges.some((c) => !('store_name' in c) && !('merchant_name' in c))).toBe(true)
    expect(charges.some((c) => typeof c['three_ds'] === 'object' && c['type'] === 'normal')).toBe(true)
  })

  it('bank transfers carry their deposit state: unpaid or insufficient while awaiting, exact or exceeded once paid', () => {
    const bank = rows.filter((r) => r.type === 'charge' && r.payment_type === 'bank_transfer')
    const statuses = new Set(bank.map((r) => r['bank_transfer_payment_status']))
    expect(statuses).toEqual(new Set(['unpaid', 'insufficient', 'exact', 'exceeded']))
    for (const r of bank) {
      const deposit = r['bank_transfer_payment_status']
      if (r.status === 'awaiting') expect(['unpaid', 'insufficient']).toContain(deposit)
      if (r.status === 'successful') expect(['exact', 'exceeded']).toContain(deposit)
      expect(r['bank_transfer_latest_deposit_date'] === null).toBe(deposit === 'unpaid')
    }
  })

  it('sends total_hits only without a cursor, and next_cursor on history pages with more', () => {
    expect(historyPages.length).toBeGreaterThan(2)
    for (const pages of [historyPages, chargePages]) {
      expect(pages[0]?.total_hits).toBe(pages === historyPages ? rows.length : charges.length)
      for (const page of pages.slice(1)) expect(page).not.toHaveProperty('total_hits')
    }
    for (const page of historyPages)
      expect(page.next_cursor).toBe(
        page.has_more ? page.items[page.items.length - 1]?.resource_id : undefined,
      )
    for (const page of chargePages) expect(page).not.toHaveProperty('next_cursor')
    expect(new Set(rows.map((r) => r.resource_id)).size).toBe(rows.length)
  })

  it('matches the card filter group only on card payments', async () => {
    const konbini = sandbox().data.charges.find((c) => c.payment?.type === 'konbini')
    const card = sandbox().data.charges.find((c) => c.payment?.type === 'card')
    for (const [c, n] of [
      [konbini, 0],
      [card, 1],
    ] as const) {
      const { card: k } = c as NonNullable<typeof c>
      const page = await get<Page<Charge>>(sandbox(), '/charges', {
        last_four: k.lastFour,
        name: k.name,
        exp_month: k.expMonth,
        exp_year: k.expYear,
        transaction_token_id: (c as NonNullable<typeof c>).transactionTokenId,
      })
      expect(page.body.items).toHaveLength(n)
    }
  })
})

describe('shapes', () => {
  it('seed shape output is byte for byte what it was before the varied shape existed', async () => {
    // Hash of snapshot() for this seed taken from the sandbox before the varied shape was added.
    await withSandbox({ seed: 7, stores: 3, records: 1000, shape: 'seed' }, (sb) => {
      const hash = createHash('sha256').update(JSON.stringify(sb.snapshot())).digest('hex')
      expect(hash).toBe('d7834020464e8f0baede5aa9fd74959b261d2f14a97ed6bda4e8d0b9c448e7da')
      expect(sb.data.lateChanges).toHaveLength(0)
    })
  })

  it('seed shape growth (new charges, refunds, status changes) is what it was before, too', async () => {
    await withSandbox({ seed: 7, stores: 3, records: 1000, shape: 'seed' }, (sb) => {
      const at = Date.parse('2026-11-02T00:00:00Z') * 1000
      for (let i = 0; i < 400; i++) sb.data.grow(at + i * 1_000_000)
      const hash = createHash('sha256').update(JSON.stringify(sb.snapshot())).digest('hex')
      expect(hash).toBe('28ee809585159420bfe73290a34e54ccfe2de34c93c90fc12b08c47d5b7de7cd')
    })
  })

  it('a sandbox without a shape serves DEFAULT_SHAPE; the varied shape is deterministic by seed', async () => {
    await withSandbox({ seed: 3 }, (sb) => expect(sb.shape).toBe(DEFAULT_SHAPE))
    const snap = (seed: number) =>
      withSandbox({ seed, shape: 'varied', lateChangeEveryMs: 0 }, (sb) => JSON.stringify(sb.snapshot()))
    const a = await snap(5)
    expect(await snap(5)).toBe(a)
    expect(await snap(6)).not.toBe(a)
  })

  it('the CLI takes --shape, --late-change-every-ms and the token faults, and refuses an unknown shape', () => {
    expect(
      optionsFromArgs([
        '--shape',
        'varied',
        '--late-change-every-ms',
        '0',
        '--outdated-app-token',
        '--store-scoped-token',
      ]),
    ).toEqual({ shape: 'varied', lateChangeEveryMs: 0, appTokenState: 'outdated', appTokenScope: 'store' })
    expect(() => optionsFromArgs(['--shape', 'real'])).toThrow(/^--shape: expected seed or varied/)
  })
})

describe('the univapay-node SDK against the varied shape', () => {
  it('pages every charge, open ones with null charged amounts; reads body-less 429s as TOO_MANY_REQUESTS', async () => {
    // rateScale 0.2 (Route burst 6): the walk meets 429s, with and without a body.
    await withSandbox(
      { seed: 10, records: 300, shape: 'varied', rateLimit: true, rateScale: 0.2 },
      async (sb) => {
        const sdk = new SDK({ endpoint: sb.url, jwt: sb.appToken, secret: sb.secret })
        const ids: string[] = []
        let open = 0
        let refused = 0
        let cursor: string | undefined
        for (let i = 0; i < 200; i++) {
          let page
          try {
            page = await sdk.charges.list({ limit: 20, cursor, cursorDirection: 'desc' } as never)
          } catch (error) {
            expect((error as Error).message).toMatch(/Code: TOO_MANY_REQUESTS, HttpCode: 429/)
            refused++
            await new Promise((r) => setTimeout(r, 300))
            continue
          }
          for (const c of page.items) {
            ids.push(c.id)
            if (['pending', 'awaiting'].includes(String(c.status))) {
              open++
              expect(c.chargedAmount).toBeNull()
            }
          }
          if (!page.hasMore) break
          cursor = page.items[page.items.length - 1]?.id
        }
        expect(ids).toEqual(sb.data.charges.map((c) => c.id).reverse())
        expect(open).toBeGreaterThan(0)
        expect(refused).toBeGreaterThan(0)
        expect(sb.stats.bodiless429).toBeGreaterThan(0)
      },
    )
  }, 60_000)
})

describe('late changes to old records', () => {
  const steps = [0, 2_500, 2_999, 7_000, 60_000]

  /** Applied changes after each clock step, as (kind, id, amounts) lines. */
  async function run(seed: number): Promise<string[][]> {
    let clock = 1_000_000
    const start = clock
    return withSandbox(
      { seed, records: 1500, shape: 'varied', lateChangeEveryMs: 1_000, now: () => clock },
      async (sb) => {
        const out: string[][] = []
        for (const step of steps) {
          clock = start + step
          await get(sb, '/charges', { limit: 1 })
          out.push(
            sb.data.appliedLateChanges.map((c) => `${c.kind}:${c.id}:${c.amountBefore}>${c.amountAfter}`),
          )
        }
        return out
      },
    )
  }

  it('apply one per interval of the clock, in the same order for the same seed', async () => {
    const a = await run(21)
    expect(a.map((x) => x.length)).toEqual([0, 2, 2, 7, 60])
    expect(await run(21)).toEqual(a)
    expect(await run(22)).not.toEqual(a)
  })

  it('change status and amount of records created long before, and show in both lists', async () => {
    let clock = 5_000
    await withSandbox(
      { seed: 8, records: 2000, shape: 'varied', lateChangeEveryMs: 0, control: true, now: () => clock },
      async (sb) => {
        const before = new Map(sb.snapshot().history.map((r) => [r['resource_id'], r]))
        const beforeCharges = new Map(sb.snapshot().charges.map((c) => [c['id'], c]))
        clock = Date.parse('2026-11-20T00:00:00Z')
        const res = await fetch(`${sb.url}/__control/late-changes`, {
          method: 'POST',
          headers: { 'X-Control-Token': sb.controlToken ?? '' },
          body: JSON.stringify({ count: 100_000 }),
        })
        const body = (await res.json()) as { applied: { kind: string; id: string }[]; left: number }
        expect(body.left).toBe(0)
        const applied = sb.data.appliedLateChanges
        expect(new Set(applied.map((c) => c.kind))).toEqual(
          new Set(['capture', 'paid', 'deposit-insufficient', 'refund-succeeded']),
        )
        expect(applied.some((c) => c.kind === 'capture' && c.amountAfter < c.amountBefore)).toBe(true)

        const after = new Map(sb.snapshot().history.map((r) => [r['resource_id'], r]))
        const afterCharges = new Map(sb.snapshot().charges.map((c) => [c['id'], c]))
        const oldest = Date.parse('2026-11-01T00:00:00Z')
        for (const change of applied) {
          const was = before.get(change.id) as Row
          const now = after.get(change.id) as Row
          expect(now.created_on).toBe(was.created_on) // an OLD record changed, not a new one
          expect(Date.parse(now.created_on)).toBeLessThan(oldest)
          if (change.kind === 'deposit-insufficient') continue // followed by its `paid`
          expect(now.status).toBe('successful')
          expect(was.status).not.toBe('successful')
          if (change.kind === 'refund-succeeded') {
            const parent = after.get(now.charge_id) as Row
            const element = (parent.user_data['refunds'] as Record<string, unknown>[]).find(
              (e) => e['refund_id'] === change.id,
            )
            if (element && 'status' in element) expect(element['status']).toBe('successful')
            continue
          }
          expect(now.amount).toBe(change.kind === 'capture' ? (change.captureAmount as number) : was.amount)
          const charge = afterCharges.get(change.id) as Charge
          expect(charge['charged_amount']).toBe(now.amount)
          expect(charge['fee_amount']).toBe(Math.round(now.amount * 0.0324))
          expect(charge['updated_on'] ?? '2026-11-20T00:00:00.000000Z').toBe('2026-11-20T00:00:00.000000Z')
          if ((beforeCharges.get(change.id) as Charge)['charged_amount'] === null)
            expect(charge['charged_amount']).not.toBeNull()
          if (now.payment_type === 'bank_transfer') {
            expect(['exact', 'exceeded']).toContain(now['bank_transfer_payment_status'])
            expect(now['bank_transfer_latest_deposit_date']).toBe('2026-11-20T00:00:00.000000Z')
          }
        }
        const kinds = (id: string) => applied.filter((c) => c.id === id).map((c) => c.kind)
        const short = applied.find((c) => c.kind === 'deposit-insufficient') as { id: string }
        expect(kinds(short.id)).toEqual(['deposit-insufficient', 'paid'])
      },
    )
  })

  it('never happen in the seed shape', async () => {
    let clock = 0
    await withSandbox({ seed: 8, shape: 'seed', lateChangeEveryMs: 10, now: () => clock }, async (sb) => {
      const before = JSON.stringify(sb.snapshot())
      clock = 3_600_000
      await get(sb, '/charges')
      expect(JSON.stringify(sb.snapshot())).toBe(before)
      expect(sb.applyLateChanges(10)).toEqual([])
    })
  })
})

describe('index lag', () => {
  it('lists a record added while running only once its lag has passed, with its original created_on', async () => {
    let clock = Date.parse('2026-11-10T00:00:00Z')
    await withSandbox({ seed: 4, shape: 'varied', indexLagMs: 20_000, now: () => clock }, async (sb) => {
      const added = Array.from({ length: 20 }, () => sb.data.addCharge(clock * 1000))
      const listed = async () =>
        new Set(
          (
            await get<Page<Charge>>(sb, '/charges', { limit: 100, from: '2026-11-09T00:00:00Z' })
          ).body.items.map((c) => c.id),
        )
      const before = await listed()
      expect(added.filter((c) => before.has(c.id))).toHaveLength(0)
      clock += 10_000
      const half = await listed()
      const seen = added.filter((c) => half.has(c.id)).length
      expect(seen).toBeGreaterThan(0)
      expect(seen).toBeLessThan(20)
      expect(sb.data.unindexedCount).toBe(20 - seen)
      clock += 10_001
      const all = await listed()
      expect(added.every((c) => all.has(c.id))).toBe(true)
      const page = await get<Page<Charge>>(sb, '/charges', {
        limit: 1,
        cursor_direction: 'asc',
        from: '2026-11-09T00:00:00Z',
      })
      expect(page.body.items[0]?.created_on).toBe('2026-11-10T00:00:00.000000Z')
    })
  })

  it('is off by default: an added record is listed at once', async () => {
    await withSandbox({ seed: 4, shape: 'varied' }, async (sb) => {
      const c = sb.data.addCharge(Date.now() * 1000)
      expect((await get<Page<Charge>>(sb, '/charges', { limit: 1 })).body.items[0]?.id).toBe(c.id)
    })
  })
})

describe('varied faults', () => {
  it('401 INVALID_APP_TOKEN for the right secret with another app token; other failures as in the seed shape', async () => {
    await withSandbox({ shape: 'varied' }, async (sb) => {
      const [h, p] = sb.appToken.split('.')
      const otherToken = `${h}.${p}.c2lnbmF0dXJl`
      const code = async (auth: string) =>
        (await get(sb, '/charges', {}, { Authorization: auth })).body['code']
      expect(await code(`Bearer ${sb.secret}.${otherToken}`)).toBe('INVALID_APP_TOKEN')
      expect(await code(`Bearer other.${sb.appToken}`)).toBe('INVALID_CREDENTIALS')
      expect(await code(`Bearer ${sb.secret}`)).toBe('IMPROPER_AUTH')
    })
  })

  it('rate-limit 429s carry no Retry-After, some no body at all; the rate headers stay', async () => {
    await withSandbox({ seed: 9, shape: 'varied', rateLimit: true }, async (sb) => {
      const answers: { status: number; text: string; retryAfter: string | null; remaining: string | null }[] =
        []
      for (let i = 0; i < 24; i++) {
        const res = await fetch(`${sb.url}/charges?limit=1`, { headers: { Authorization: authOf(sb) } })
        answers.push({
          status: res.status,
          text: await res.text(),
          retryAfter: res.headers.get('Retry-After'),
          remaining: res.headers.get('X-Remaining-Requests-Exact'),
        })
      }
      const refused = answers.filter((a) => a.status === 429)
      expect(refused.length).toBeGreaterThan(10)
      expect(refused.every((a) => a.retryAfter === null && a.remaining !== null)).toBe(true)
      expect(refused.some((a) => a.text === '')).toBe(true)
      expect(
        refused.some(
          (a) => a.text !== '' && (JSON.parse(a.text) as { code?: string }).code === 'TOO_MANY_REQUESTS',
        ),
      ).toBe(true)
    })
  })

  it('a storm in the varied shape answers 429 without Retry-After', async () => {
    let clock = 0
    await withSandbox(
      { shape: 'varied', now: () => clock, faults: { storm: { periodMs: 10_000, durationMs: 2_000 } } },
      async (sb) => {
        clock = 8_500
        const storm = await fetch(`${sb.url}/charges`, { headers: { Authorization: authOf(sb) } })
        expect(storm.status).toBe(429)
        expect(storm.headers.get('Retry-After')).toBeNull()
      },
    )
  })

  it('403 OUTDATED_APP_TOKEN to every authenticated request until the token is valid again', async () => {
    await withSandbox({ appTokenState: 'outdated', control: true }, async (sb) => {
      const denied = await get(sb, `/stores/${sb.storeIds[0]}/transaction_history`)
      expect(denied.status).toBe(403)
      expect(denied.body).toEqual({ status: 'error', code: 'OUTDATED_APP_TOKEN', errors: [] })
      // Wrong credentials are still a 401: the token check comes after authentication.
      expect((await get(sb, '/charges', {}, { Authorization: `Bearer x.${sb.appToken}` })).status).toBe(401)
      await fetch(`${sb.url}/__control/app-token`, {
        method: 'POST',
        headers: { 'X-Control-Token': sb.controlToken ?? '' },
        body: JSON.stringify({ state: 'valid' }),
      })
      expect((await get(sb, '/charges')).status).toBe(200)
      sb.setAppToken({ state: 'outdated' })
      expect((await get(sb, '/charges')).body['code']).toBe('OUTDATED_APP_TOKEN')
    })
  })

  it('a store-scoped token gets 403 INVALID_PERMISSIONS on the all-stores paths only', async () => {
    await withSandbox({ appTokenScope: 'store' }, async (sb) => {
      for (const path of ['/charges', '/transaction_history']) {
        const denied = await get(sb, path)
        expect(denied.status).toBe(403)
        expect(denied.body['code']).toBe('INVALID_PERMISSIONS')
      }
      expect((await get(sb, `/stores/${sb.storeIds[1]}/charges`)).status).toBe(200)
      expect((await get(sb, `/stores/${sb.storeIds[1]}/transaction_history`)).status).toBe(200)
    })
  })
})
