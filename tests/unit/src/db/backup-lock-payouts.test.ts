import { describe, expect, it } from 'vitest'
import { lockSchema } from '../../../../src/db/backup'

const lock = { connectionId: 'c', period: '2026-09', lockedAt: 1, lockedBy: 'Hanako Sato' }

describe('backup: a close keeps its payout closing', () => {
  it('restores the closing and the paid transfers’ differences a close recorded', () => {
    const payoutClose = { closing: { JPY: 10_000, USD: -250 }, paidDifferences: { 't-aug': 100, 't-jul': 0 } }
    expect(lockSchema.parse({ ...lock, payoutClose })).toEqual({ ...lock, payoutClose })
    expect(lockSchema.parse(lock)).toEqual(lock)
  })

  it.each([
    ['a closing that is not minor units', { closing: { JPY: 10.5 }, paidDifferences: {} }],
    ['a difference past a safe integer', { closing: {}, paidDifferences: { t: 2 ** 60 } }],
    ['no paid differences', { closing: { JPY: 1 } }],
  ])('refuses %s', (_, payoutClose) => {
    expect(lockSchema.safeParse({ ...lock, payoutClose }).success).toBe(false)
  })
})
