/**
 * What a month's close keeps of its payout roll-forward, and how the next month reads it back: the
 * closing per currency (the next opening is compared with it) and, for every transfer paid by the month's
 * end, its ledgers' sum less its amount (0 when they tie), which a later roll-forward that skips the
 * ledgers of those transfers adds back (see `settled` in RollForwardInput).
 */
import type { PayoutCloseRecord } from '../../domain/records'
import type { RollForward } from './rollforward'

/** `paidAtEnd`: the ids of the transfers paid at the month's end. */
export function payoutCloseOf(rollForward: RollForward, paidAtEnd: Iterable<string>): PayoutCloseRecord {
  const closing: Record<string, number> = {}
  const paidDifferences: Record<string, number> = {}
  for (const id of paidAtEnd) paidDifferences[id] = 0
  for (const c of rollForward.currencies) {
    closing[c.currency] = c.closing
    for (const d of c.paidDifferences) paidDifferences[d.transferId] = d.difference
  }
  return rollForward.inRepayment.length > 0
    ? { closing, paidDifferences, readInFull: rollForward.inRepayment }
    : { closing, paidDifferences }
}
