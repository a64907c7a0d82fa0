import { describe, expect, it } from 'vitest'
import {
  chargeFiltersSchema,
  historyFiltersSchema,
  historyListSchema,
} from '../../../../electron/shared/payment-api'

describe('payment API filter schemas', () => {
  it('requires the whole card group when any of it is given, naming each missing field', () => {
    const result = chargeFiltersSchema.safeParse({ last_four: '4242', name: 'TARO YAMADA' })
    expect(result.success).toBe(false)
    const paths = result.error?.issues.map((i) => i.path.join('.')).sort()
    expect(paths).toEqual(['exp_month', 'exp_year'])
  })

  it('accepts the complete card group', () => {
    expect(
      chargeFiltersSchema.safeParse({ last_four: '4242', name: 'A', exp_month: 12, exp_year: 2030 }).success,
    ).toBe(true)
  })

  it('rejects bad timestamps, unknown type and mode, and bad UUIDs, naming the field', () => {
    const cases: [unknown, string][] = [
      [{ from: '2026-13-45' }, 'from'],
      [{ type: 'payout' }, 'type'],
      [{ mode: 'sandbox' }, 'mode'],
    ]
    for (const [input, field] of cases) {
      const result = historyFiltersSchema.safeParse(input)
      expect(result.success, field).toBe(false)
      expect(result.error?.issues[0]?.path).toEqual([field])
    }
    const token = chargeFiltersSchema.safeParse({ transaction_token_id: 'not-a-uuid' })
    expect(token.error?.issues[0]?.path).toEqual(['transaction_token_id'])
  })

  it('rejects an empty amount range', () => {
    const result = chargeFiltersSchema.safeParse({ amount_from: 500, amount_to: 500 })
    expect(result.error?.issues[0]?.path).toEqual(['amount_to'])
  })

  it('keeps unknown extra fields of a response and copes without total_hits', () => {
    const parsed = historyListSchema.parse({ items: [], has_more: false, next_thing: 1 })
    expect(parsed).toEqual({ items: [], has_more: false, next_thing: 1 })
  })
})
