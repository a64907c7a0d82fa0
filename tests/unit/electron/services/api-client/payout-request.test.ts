/** Payout requests: URLs under the base only, Route per path template, items checked one by one. */
import { describe, expect, it } from 'vitest'
import {
  buildPayoutRequest,
  validatePayoutPage,
} from '../../../../../electron/services/api-client/payout-request'
import { flatFeeOf, ledgerItemSchema, payoutTimeMs } from '../../../../../electron/shared/payouts-api'

const BASE = 'https://api.example.test/v1'
const T = '0b8e6a2c-1d3f-4a5b-8c7d-9e0f1a2b3c4d'
const L = '1c9f7b3d-2e4a-4b6c-9d8e-0f1a2b3c4d5e'

const ledger = (extra: Record<string, unknown> = {}) => ({
  id: L,
  transfer_id: T,
  amount: 74735,
  currency: 'EUR',
  percent_fee: 5,
  flat_fee_amount: 30,
  exchange_rate: 1,
  origin: 'charge',
  created_on: '2026-10-02T03:04:05.123456Z',
  ...extra,
})

describe('buildPayoutRequest', () => {
  it('puts filters and paging in a fixed order and counts Route per path template', () => {
    const built = buildPayoutRequest(BASE, {
      kind: 'transfer_ledgers',
      transferId: T.toUpperCase(),
      filters: { min: -5, currency: 'JPY' },
      paging: { limit: 100, cursor: L },
    })
    expect(built.url).toBe(`${BASE}/transfers/${T}/ledgers?currency=JPY&cursor=${L}&limit=100&min=-5`)
    expect(built.route).toBe('GET /v1/transfers/{id}/ledgers')
    expect(built.exact).toBe(`GET /v1/transfers/${T}/ledgers?currency=JPY&cursor=${L}&limit=100&min=-5`)
    expect(buildPayoutRequest(BASE, { kind: 'me' }).url).toBe(`${BASE}/me`)
  })

  it('refuses an id that is not a UUID, naming the field, so no path can be smuggled in', () => {
    expect(() => buildPayoutRequest(BASE, { kind: 'transfer', transferId: '../charges' })).toThrow(
      /transferId/,
    )
    expect(() => buildPayoutRequest(BASE, { kind: 'transfers', filters: { bogus: 1 } })).toThrow(/bogus/)
  })
})

describe('validatePayoutPage', () => {
  const request = { kind: 'transfer_ledgers' as const, display: `GET /transfers/${T}/ledgers` }

  it('keeps good items and unknown fields, quarantines a bad one with its reason, and pages past it', () => {
    const bad = ledger({ id: '2d0a8c4e-3f5b-4c7d-8e9f-1a2b3c4d5e6f', amount: '12.5' })
    const result = validatePayoutPage(request, {
      items: [ledger({ extra_field: 'kept' }), bad],
      has_more: true,
    })
    if (!result.ok) throw new Error('the envelope is valid')
    expect(result.value.items).toHaveLength(1)
    expect(result.value.items[0]?.['extra_field']).toBe('kept')
    expect(result.value.quarantined[0]).toMatchObject({
      itemId: bad.id,
      reason: expect.stringMatching(/^amount:/) as string,
    })
    expect(result.value.cursorAfter).toBe(bad.id)
  })

  it('refuses a broken envelope whole', () => {
    expect(validatePayoutPage(request, { items: 'nope' }).ok).toBe(false)
  })

  it('reads both flat-fee spellings and epoch-ms times, and refuses two different flat fees', () => {
    expect(flatFeeOf(ledgerItemSchema.parse(ledger()))).toBe(30)
    const node = ledgerItemSchema.parse(
      ledger({ flat_fee_amount: undefined, flat_fee: 25, created_on: 1_760_000_000_000 }),
    )
    expect(flatFeeOf(node)).toBe(25)
    expect(payoutTimeMs(node.created_on)).toBe(1_760_000_000_000)
    expect(ledgerItemSchema.safeParse(ledger({ flat_fee: 31 })).success).toBe(false)
  })

  it('masks a bank account number that came unmasked, in good and in quarantined items', () => {
    const account = { id: T, account_number: '1234567890', last_four: '7890' }
    const result = validatePayoutPage(
      { kind: 'bank_accounts', display: 'GET /bank_accounts' },
      { items: [account, { ...account, id: 42 }], has_more: false },
    )
    if (!result.ok) throw new Error('the envelope is valid')
    expect(result.value.items[0]?.['account_number']).toBe('XXXXXX7890')
    expect(JSON.stringify(result.value)).not.toContain('1234567890')
  })

  it('validates a single item as a page of one', () => {
    const result = validatePayoutPage({ kind: 'ledger', display: `GET /ledgers/${L}` }, ledger())
    expect(result.ok && result.value.items).toHaveLength(1)
  })
})
