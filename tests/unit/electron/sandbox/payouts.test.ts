/** Payouts served by the sandbox: consistent with its charges, paged like the lists, each reading by flag. */
import { describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../../electron/sandbox/server'
import { TRANSFER_FEE_JPY } from '../../../../electron/sandbox/payouts'
import { get, type ListBody } from './support'

type Item = Record<string, unknown>

async function withSandbox<T>(options: SandboxOptions, run: (sb: RunningSandbox) => Promise<T>): Promise<T> {
  const sb = await startSandbox({
    stores: 2,
    records: 1500,
    rateLimit: false,
    lateChangeEveryMs: 0,
    now: () => Date.parse('2026-11-27T00:00:00Z'),
    ...options,
  })
  try {
    return await run(sb)
  } finally {
    await sb.close()
  }
}

/** Every item of a payout list, page by page; checks there is no gap and no duplicate. */
async function pageAll(sb: RunningSandbox, path: string, params: Record<string, string | number> = {}) {
  const items: Item[] = []
  let cursor: string | undefined
  for (let n = 0; n < 1000; n++) {
    const page = await get<ListBody<Item>>(sb, path, { limit: 7, ...params, ...(cursor ? { cursor } : {}) })
    expect(page.status).toBe(200)
    if (cursor) expect(page.body.total_hits).toBeUndefined()
    items.push(...page.body.items)
    if (!page.body.has_more) break
    cursor = page.body.items[page.body.items.length - 1]?.['id'] as string
  }
  expect(new Set(items.map((i) => i['id'])).size).toBe(items.length)
  return items
}

const sum = (items: Item[]) => items.reduce((s, i) => s + (i['amount'] as number), 0)

describe('sandbox payouts', () => {
  it('books one ledger per successful live charge and refund, and each charge carries its ledger_id', () =>
    withSandbox({}, (sb) => {
      const book = sb.payouts()
      const charges = sb.snapshot().charges
      const live = charges.filter((c) => c['mode'] === 'live' && c['status'] === 'successful')
      expect(live.length).toBeGreaterThan(100)
      for (const c of live) {
        const ledger = book.ledgerById.get(c['ledger_id'] as string)
        expect(ledger?.sourceId).toBe(c['id'])
        // Net reading: the charge less its 3.24 % fee (the charge's own fee_amount) and the flat fee.
        expect(ledger?.amount).toBe(
          (c['charged_amount'] as number) - (c['fee_amount'] as number) - (ledger?.flatFee ?? 0),
        )
      }
      expect(
        charges
          .filter((c) => c['mode'] === 'test')
          .every((c) => c['ledger_id'] === undefined || c['ledger_id'] === null),
      ).toBe(true)
      const refunds = book.ledgers.filter((l) => l.origin === 'refund')
      expect(refunds.length).toBeGreaterThan(0)
      expect(refunds.every((l) => l.amount < 0 && l.percentFee === 0 && l.flatFee === 0)).toBe(true)
      return Promise.resolve()
    }))

  it('serves transfers whose ledgers add up to their amount, except the one that repays an unpaid transfer', () =>
    withSandbox({}, async (sb) => {
      const transfers = await pageAll(sb, '/transfers')
      expect(transfers.length).toBe(sb.payouts().transfers.length)
      const statuses = new Set(transfers.map((t) => t['status']))
      expect(statuses).toEqual(new Set(['paid', 'failed', 'canceled']))
      for (const t of transfers) {
        const ledgers = await pageAll(sb, `/transfers/${t['id'] as string}/ledgers`)
        expect(ledgers.every((l) => l['transfer_id'] === t['id'] && l['currency'] === t['currency'])).toBe(
          true,
        )
        const repays = (t['metadata'] as Record<string, string>)['repays_transfer_id']
        const unpaid = repays ? transfers.find((u) => u['id'] === repays) : undefined
        expect(sum(ledgers) + (unpaid ? (unpaid['amount'] as number) : 0)).toBe(t['amount'])
        if (unpaid) expect(['failed', 'canceled']).toContain(unpaid['status'])
        if (t['currency'] === 'JPY')
          expect(
            ledgers.filter((l) => l['origin'] === 'manual' && l['amount'] === -TRANSFER_FEE_JPY),
          ).toHaveLength(1)
        expect(t['from']).toMatch(/^\d{4}-\d{2}-01$/)
      }
      const failed = transfers.find((t) => t['status'] === 'failed')
      expect(failed?.['error_code']).toBe('BANK_ACCOUNT_CLOSED')
      const changes = await pageAll(sb, `/transfers/${failed?.['id'] as string}/status_changes`)
      expect(changes.map((c) => `${c['old_status'] as string}>${c['new_status'] as string}`).sort()).toEqual([
        'approved>processing',
        'created>approved',
        'processing>failed',
      ])
      expect(changes.find((c) => c['new_status'] === 'failed')?.['reason']).toMatch(/account closed/)
    }))

  it('pages transfers both ways with total_hits only on a first page, and filters them', () =>
    withSandbox({}, async (sb) => {
      const desc = await pageAll(sb, '/transfers')
      const asc = await pageAll(sb, '/transfers', { cursor_direction: 'asc' })
      expect(asc.map((t) => t['id'])).toEqual([...desc].reverse().map((t) => t['id']))
      const first = await get<ListBody<Item>>(sb, '/transfers', { currency: 'JPY', limit: 2 })
      expect(first.body.total_hits).toBe(desc.filter((t) => t['currency'] === 'JPY').length)
      expect(first.body.items.every((t) => t['currency'] === 'JPY')).toBe(true)
      const paid = await pageAll(sb, '/transfers', { status: 'paid' })
      expect(paid.every((t) => t['status'] === 'paid')).toBe(true)
      const bad = await get(sb, '/transfers', { limit: 101, cursor: '00000000-0000-4000-8000-000000000000' })
      expect(bad.status).toBe(400)
      expect((await get(sb, '/transfers/00000000-0000-4000-8000-000000000000')).status).toBe(404)
    }))

  it('filters a transfer’s ledgers by amount, currency and time, and serves one ledger by id', () =>
    withSandbox({}, async (sb) => {
      const t = sb.payouts().transfers.find((x) => x.currency === 'JPY' && x.status === 'paid')
      const path = `/transfers/${t?.id as string}/ledgers`
      const all = await pageAll(sb, path, { limit: 100 })
      const negative = await pageAll(sb, path, { max: -1, limit: 100 })
      expect(negative.length).toBe(all.filter((l) => (l['amount'] as number) <= -1).length)
      const mid = all[Math.floor(all.length / 2)]?.['created_on'] as string
      const later = await pageAll(sb, path, { from: String(Date.parse(mid)), limit: 100 })
      expect(later.length).toBe(all.filter((l) => (l['created_on'] as string) >= mid).length)
      expect((await pageAll(sb, path, { currency: 'USD' })).length).toBe(0)
      expect((await get(sb, path, { min: 'x' })).status).toBe(400)
      const one = await get(sb, `/ledgers/${all[0]?.['id'] as string}`)
      expect(one.body).toEqual(all[0])
      // Both spellings of the flat fee occur, never both on one item.
      expect(all.some((l) => 'flat_fee' in l) && all.some((l) => 'flat_fee_amount' in l)).toBe(true)
      expect(all.every((l) => 'flat_fee' in l !== 'flat_fee_amount' in l)).toBe(true)
    }))

  it('serves the merchant configuration and masked bank accounts', () =>
    withSandbox({}, async (sb) => {
      const me = await get(sb, '/me')
      expect(me.body['min_transfer_payout']).toEqual({ amount: 10_000, currency: 'JPY' })
      expect((me.body['transfer_schedule'] as Item)['period']).toBe('monthly')
      const accounts = await get<ListBody<Item>>(sb, '/bank_accounts')
      expect(accounts.body.items.every((a) => /^X+\d{4}$/.test(a['account_number'] as string))).toBe(true)
      const primary = await get(sb, '/bank_accounts/primary')
      expect(primary.body['primary']).toBe(true)
    }))

  it('refuses payouts to a store-scoped token with 403 INVALID_PERMISSIONS, store lists still answer', () =>
    withSandbox({ appTokenScope: 'store' }, async (sb) => {
      const answer = await get(sb, '/transfers')
      expect(answer.status).toBe(403)
      expect(answer.body['code']).toBe('INVALID_PERMISSIONS')
      expect((await get(sb, `/stores/${sb.storeIds[0] as string}/charges`)).status).toBe(200)
    }))

  it('progresses statuses with the payout clock, with a status change for each step', async () => {
    let clock = Date.parse('2026-11-01T00:00:00Z')
    await withSandbox({ payoutClock: () => clock }, async (sb) => {
      const october = () =>
        sb.payouts().transfers.find((t) => t.currency === 'JPY' && t.from === '2026-10-01')
      expect(october()?.status).toBe('created')
      expect(october()?.changes).toHaveLength(0)
      clock = Date.parse('2026-11-03T00:00:00Z')
      expect(october()?.status).toBe('approved')
      clock = Date.parse('2026-11-15T12:00:00Z')
      expect(october()?.status).toBe('processing')
      clock = Date.parse('2026-11-16T02:00:00Z') // 15 Nov 2026 is a Sunday: paid Monday 10:00 JST
      expect(october()?.status).toBe('paid')
      const served = await get<ListBody<Item>>(sb, `/transfers/${october()?.id as string}/status_changes`)
      expect(served.body.total_hits).toBe(3)
    })
  })

  it('is deterministic per seed', async () => {
    const ids = (sb: RunningSandbox) =>
      Promise.resolve(
        sb
          .payouts()
          .ledgers.map((l) => `${l.id}:${l.transferId}`)
          .join(),
      )
    const a = await withSandbox({ seed: 7 }, ids)
    expect(await withSandbox({ seed: 7 }, ids)).toBe(a)
    expect(await withSandbox({ seed: 8 }, ids)).not.toBe(a)
  })
})

describe('sandbox payout readings', () => {
  it('gross: ledgers carry the charged amount and the transfer pays it less the fees', () =>
    withSandbox({ payouts: { ledgerAmounts: 'gross', transferFee: 'bank_deducted' } }, (sb) => {
      const book = sb.payouts()
      const charges = new Map(sb.snapshot().charges.map((c) => [c['id'], c]))
      for (const l of book.ledgers.filter((x) => x.origin === 'charge'))
        expect(l.amount).toBe(charges.get(l.sourceId)?.['charged_amount'])
      const t = book.transfers.find((x) => x.currency === 'JPY' && x.status === 'paid' && !x.note)
      const ledgers = book.ledgers.filter((l) => l.transferId === t?.id)
      const fees = ledgers.reduce(
        (s, l) => s + (l.origin === 'charge' ? Math.round((l.amount * l.percentFee) / 100) + l.flatFee : 0),
        0,
      )
      // Bank-deducted fee: no fee ledger, the transfer is the ledgers' net.
      expect(ledgers.some((l) => l.origin === 'manual' && l.amount === -TRANSFER_FEE_JPY)).toBe(false)
      expect(t?.amount).toBe(ledgers.reduce((s, l) => s + l.amount, 0) - fees)
      return Promise.resolve()
    }))

  /** A minimum just above the smallest JPY period: that period is carried over, the next one pays it. */
  const carrying = (carryOver: 'no_transfer' | 'blank_transfer' | 'open_ledgers'): SandboxOptions => ({
    records: 200,
    stores: 1,
    seed: 3,
    payouts: { carryOver, minTransferPayout: 600_000, transferFee: 'bank_deducted' },
  })

  it('no_transfer: a period under the minimum has no transfer, the next transfer pays its ledgers', () =>
    withSandbox(carrying('no_transfer'), (sb) => {
      const book = sb.payouts()
      const jpy = book.transfers.filter((t) => t.currency === 'JPY')
      expect(jpy.length).toBeGreaterThan(0)
      expect(jpy.length).toBeLessThan(4)
      expect(book.transfers.some((t) => t.status === 'blank')).toBe(false)
      // A transfer whose ledgers span more than its own month: the carried ones.
      const spanning = jpy.filter((t) =>
        book.ledgers.some(
          (l) => l.transferId === t.id && new Date(l.createdUs / 1000 + 9 * 3600_000).toISOString() < t.from,
        ),
      )
      expect(spanning.length).toBeGreaterThan(0)
      for (const t of jpy)
        expect(book.ledgers.filter((l) => l.transferId === t.id).reduce((s, l) => s + l.amount, 0)).toBe(
          t.amount -
            (t.note
              ? (book.transfers.find((u) => u.id === t.metadata['repays_transfer_id'])?.amount ?? 0)
              : 0),
        )
      return Promise.resolve()
    }))

  it('blank_transfer: a period under the minimum shows as a blank transfer of 0', () =>
    withSandbox(carrying('blank_transfer'), async (sb) => {
      const blank = (await pageAll(sb, '/transfers', { status: 'blank' }))[0]
      expect(blank?.['amount']).toBe(0)
      expect(await pageAll(sb, `/transfers/${blank?.['id'] as string}/ledgers`)).toHaveLength(0)
    }))

  it('open_ledgers: carried ledgers keep no transfer_id even once a later transfer pays them', () =>
    withSandbox(carrying('open_ledgers'), (sb) => {
      const book = sb.payouts()
      const paidLater = book.transfers.filter((t) => {
        const own = book.ledgers.filter((l) => l.transferId === t.id).reduce((s, l) => s + l.amount, 0)
        return !t.note && own !== t.amount
      })
      expect(paidLater.length).toBeGreaterThan(0)
      expect(
        book.ledgers.some((l) => l.transferId === null && l.createdUs < Date.parse('2026-10-01') * 1000),
      ).toBe(true)
      return Promise.resolve()
    }))
})
