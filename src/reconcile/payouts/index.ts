/**
 * Payout rules, pure: the service's transfers, their ledgers and status changes against the cached
 * records and the bank's lines. Entry points and what they read:
 *
 * - `detectReadings(input)`: which reading the data follows (ledger amounts net or gross, transfer fee
 *   inside as a manual ledger or deducted by the bank), with the evidence; the setting where it cannot tell.
 * - `composeTransfers(input)`: per transfer, its ledgers' sum against its amount, its fees, the deposit
 *   the bank should see, and every bad input with its reason.
 * - `tieDeposits(input)`: bank lines ↔ paid transfers, one to one, and the exceptions;
 *   `settledRecords(tie, book, ledgerRecords)` and `isSettled(key, settled)` say which records are settled.
 * - `findRepayments(compositions)`: what later transfers repay of failed, canceled or blank ones (and of
 *   ledgers carried over without a transfer), with the evidence (metadata, note, or amount).
 * - `rollForwardOfMonth(input)`: the month's roll-forward per currency, its closing explained item by item;
 *   `payoutCloseOf(rollForward)`: what a month's close keeps of it for the next month.
 *
 * Common inputs: `transfers`, `ledgers`, `statusChanges` as synced (src/domain/payouts.ts);
 * `ledgerRecords` (ledger id → the keys of the cached charges and refunds whose `ledger_id` names it);
 * `records` (those records' amounts: a HistoryRecord map will do); `transferFees` (per currency, the fee
 * with tax in minor units, e.g. `{ JPY: 440 }`); `readings` (from `detectReadings`); bank lines as the
 * statement readers give them (an ImportedRowRecord of source `bank` is a BankLine); the accounting time
 * zone. Amounts are integers in minor units, never added across currencies.
 */
export { payoutCloseOf } from './close-record'
export { businessDaysBetween, type BankLine } from './business-days'
export {
  composeTransfers,
  isTransferFeeLedger,
  type CompositionInput,
  type Compositions,
  type TransferComposition,
} from './composition'
export {
  ledgerBook,
  netOfGross,
  type LedgerBook,
  type LedgerFigures,
  type RecordAmount,
} from './ledger-figures'
export { type PayoutProblem, type PayoutProblemCode } from './problems'
export {
  findRepayments,
  UNPAID_STATUSES,
  type Repayment,
  type RepaymentEvidence,
  type Repayments,
} from './repayments'
export { detectReadings, type ReadingEvidence, type ReadingsInput, type ReadingsReport } from './readings'
export {
  OPEN_BUCKETS,
  rollForwardOfMonth,
  type CurrencyRollForward,
  type OpenBucket,
  type OpenItem,
  type PayoutMovement,
  type RollForward,
  type RollForwardInput,
  type SettledTransfer,
} from './rollforward'
export {
  isSettled,
  settledRecords,
  tieDeposits,
  type DepositMatch,
  type TieException,
  type TieInput,
  type TieOut,
} from './tie-out'
export { isPaidAt, transferTimelines, type TransferTimeline } from './timeline'
