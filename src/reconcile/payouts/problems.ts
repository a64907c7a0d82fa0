/**
 * Bad payout input, each kept with its reason: nothing the service sent is silently dropped or added.
 * `detail` is English (the workbook's language); views word `code` through i18n (`payouts.problems`).
 */

export type PayoutProblemCode =
  /** An amount, fee or rate that is not an integer in minor units (or not a number at all). */
  | 'ledger_not_minor_units'
  /** A ledger in another currency than its transfer: never added across currencies. */
  | 'ledger_other_currency'
  /** An exchange rate other than 1: the amount is not in the transfer's currency as given. */
  | 'ledger_exchange_rate'
  /** A flat fee in another currency than its ledger. */
  | 'ledger_flat_fee_currency'
  /** The same ledger id given twice: counted once. */
  | 'ledger_duplicate'
  /** A charge or refund ledger that no cached record names through `ledger_id`. */
  | 'ledger_without_record'
  /** A ledger whose transfer is not among the transfers. */
  | 'ledger_unknown_transfer'
  /** A transfer whose ledgers could not be read: its composition is not known. */
  | 'transfer_ledgers_unread'
  /** A transfer of a negative amount (the merchant owes): never matched to a deposit. */
  | 'transfer_negative'
  | 'transfer_not_minor_units'
  /** Paid, but no `paid` status change dates it: dated by its creation. */
  | 'transfer_paid_without_date'
  /** A transfer whose metadata or note names as repaid a transfer that is not an earlier unpaid one. */
  | 'transfer_repays_unknown'
  /** A transfer paying more than its ledgers by what two earlier unpaid transfers each owe: not guessed. */
  | 'transfer_repayment_ambiguous'

export interface PayoutProblem {
  code: PayoutProblemCode
  ledgerId: string | null
  transferId: string | null
  currency: string | null
  /** The amount concerned, in minor units of `currency`, where one is known. */
  amount: number | null
  /** Left out of every sum (shown on its own), or counted as given. */
  excluded: boolean
  detail: string
}

export function problem(
  code: PayoutProblemCode,
  detail: string,
  at: Partial<Pick<PayoutProblem, 'ledgerId' | 'transferId' | 'currency' | 'amount' | 'excluded'>> = {},
): PayoutProblem {
  return {
    code,
    ledgerId: at.ledgerId ?? null,
    transferId: at.transferId ?? null,
    currency: at.currency ?? null,
    amount: at.amount ?? null,
    excluded: at.excluded ?? false,
    detail,
  }
}
