/** Determinism by seed, growth while running, and the control endpoint. */
import { describe, expect, it } from 'vitest'
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../../electron/sandbox/server'
import { get, listAll } from './support'

async function withSandbox<T>(options: SandboxOptions, run: (sb: RunningSandbox) => Promise<T>): Promise<T> {
  // The seed shape (its paging has total_hits on every page, which listAll checks), whatever DEFAULT_SHAPE is.
  const sb = await startSandbox({ stores: 2, records: 400, rateLimit: false, shape: 'seed', ...options })
  try {
    return await run(sb)
  } finally {
    await sb.close()
  }
}

const snapshot = (sb: RunningSandbox) =>
  listAll(sb, '/transaction_history').then((r) => JSON.stringify(r.items))

describe('generated data', () => {
  it('is the same for the same seed on every start, and differs for another seed', async () => {
    const a = await withSandbox({ seed: 5 }, snapshot)
    const b = await withSandbox({ seed: 5 }, snapshot)
    const c = await withSandbox({ seed: 6 }, snapshot)
    expect(a).toBe(b)
    expect(a).not.toBe(c)
  })

  it('spreads records over --from/--to and makes --stores stores', async () => {
    await withSandbox(
      { seed: 1, stores: 4, from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z' },
      async (sb) => {
        expect(sb.storeIds).toHaveLength(4)
        const { items } = await listAll<{ created_on: string; store_id: string }>(sb, '/charges')
        expect(items.every((c) => c.created_on >= '2026-01-01' && c.created_on < '2026-03-01')).toBe(true)
        expect(new Set(items.map((c) => c.store_id)).size).toBe(4)
      },
    )
  })

  it('refuses bad options naming them', async () => {
    await expect(startSandbox({ stores: 0 })).rejects.toThrow(/^stores:/)
    await expect(startSandbox({ from: '2026-05-01T00:00:00Z', to: '2026-04-01T00:00:00Z' })).rejects.toThrow(
      /^to:/,
    )
    await expect(startSandbox({ secret: 'has.dot' })).rejects.toThrow(/^secret:/)
  })
})

describe('changes while running', () => {
  it('--growth-per-minute adds records that show up newest first', async () => {
    await withSandbox({ seed: 2, growthPerMinute: 6000 }, async (sb) => {
      const before = sb.data.history.length
      await new Promise((r) => setTimeout(r, 400))
      expect(sb.data.history.length).toBeGreaterThan(before)
      const newest = await get<{ items: { created_on: string }[] }>(sb, '/transaction_history', { limit: 1 })
      expect(Date.parse(newest.body.items[0]?.created_on ?? '')).toBeGreaterThan(
        Date.parse('2026-11-01T00:00:00Z'),
      )
    })
  })

  it('the control endpoint adds charges and refunds and changes a status, with its token only', async () => {
    await withSandbox({ seed: 4, control: true }, async (sb) => {
      const call = (path: string, body: unknown, token = sb.controlToken ?? '') =>
        fetch(`${sb.url}/__control/${path}`, {
          method: 'POST',
          headers: { 'X-Control-Token': token, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      expect((await call('charges', { count: 1 }, 'wrong')).status).toBe(403)
      const added = (await (
        await call('charges', { count: 3, storeId: sb.storeIds[1], status: 'pending' })
      ).json()) as {
        charges: { id: string }[]
      }
      expect(added.charges).toHaveLength(3)
      const chargeId = added.charges[2]?.id as string
      const refund = (await (await call('refunds', { chargeId, amount: 1 })).json()) as {
        refund: { id: string }
      }
      expect((await call('status', { id: chargeId, status: 'successful' })).status).toBe(200)
      expect((await call('status', { id: refund.refund.id, status: 'failed' })).status).toBe(200)
      const bad = await call('refunds', { chargeId, amount: 10 ** 9 })
      expect(bad.status).toBe(400)
      expect(((await bad.json()) as { errors: { field: string }[] }).errors[0]?.field).toBe('amount')

      const page = await get<{
        items: { resource_id: string; type: string; status: string; charge_id: string | null }[]
      }>(sb, `/stores/${sb.storeIds[1]}/transaction_history`, { limit: 2 })
      expect(page.body.items.map((i) => [i.resource_id, i.type, i.status])).toEqual([
        [refund.refund.id, 'refund', 'failed'],
        [chargeId, 'charge', 'successful'],
      ])
    })
  })

  it('has no control endpoint unless asked for', async () => {
    await withSandbox({ seed: 4 }, async (sb) => {
      const res = await fetch(`${sb.url}/__control/charges`, {
        method: 'POST',
        headers: { 'X-Control-Token': '' },
        body: '{}',
      })
      expect(res.status).toBe(403)
      expect(sb.controlToken).toBeUndefined()
    })
  })
})
