/**
 * What a month's close keeps of its payout roll-forward, and how the next month reads it back: the
 * closing per currency (the next opening is compared with it) and each paid transfer's difference
 * between its ledgers and its amount (what a roll-forward that skips those ledgers must add back).
 */
import type { PayoutCloseRecord } from '../../domain/records'
import type { RollForward } from './rollforward'

export function payoutCloseOf(rollForward: RollForward): PayoutCloseRecord {
  const closing: Record<string, number> = {}
  const paidDifferences: Record<string, number> = {}
  for (const c of rollForward.currencies) {
    closing[c.currency] = c.closing
    for (const d of c.paidDifferences) if (d.difference !== 0) paidDifferences[d.transferId] = d.difference
  }
  return { closing, paidDifferences }
}
