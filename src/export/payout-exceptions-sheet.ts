/**
 * "Payout exceptions" in the month workbook: every bad payout input with its reason (left out of the sums
 * or counted as given) and every deposit that did not tie to a transfer, so nothing the service or the
 * bank sent is dropped without a line. Texts are English, the workbook's language.
 */
import type { ExportRow } from '../../electron/shared/contract/export'
import { normalizeCurrency } from '../domain/currency'
import type { BankLine } from '../reconcile/payouts/business-days'
import type { PayoutProblem } from '../reconcile/payouts/problems'
import type { TieException, TieOut } from '../reconcile/payouts/tie-out'
import { col, Columns } from './sheet-columns'
import { amountCell, amountText } from './sheet-values'

export const PAYOUT_EXCEPTIONS_SHEET = 'Payout exceptions'

export const PX = new Columns([
  col('code', 'Exception', 'text', 26),
  col('reason', 'Reason', 'text', 70),
  col('ledger', 'Ledger', 'text', 38),
  col('transfer', 'Transfer', 'text', 38),
  col('bankLine', 'Bank line', 'text', 30),
  col('currency', 'Currency', 'text', 10),
  col('amount', 'Amount', 'amount', 14),
  col('counted', 'Counted', 'text', 9),
])

const lineRef = (l: BankLine) => `${l.importId} line ${l.line}, ${l.day}`

function money(amount: number | null, currency: string | null) {
  return amount !== null && currency !== null && Number.isSafeInteger(amount)
    ? amountCell(amount, normalizeCurrency(currency))
    : null
}

function problemRow(p: PayoutProblem): ExportRow {
  return PX.row({
    code: p.code,
    reason: p.detail,
    ledger: p.ledgerId,
    transfer: p.transferId,
    currency: p.currency === null ? null : normalizeCurrency(p.currency),
    amount: money(p.amount, p.currency),
    counted: p.excluded ? 'No' : 'Yes',
  })
}

function tieRow(e: TieException): ExportRow {
  switch (e.code) {
    case 'deposit_without_transfer':
      return PX.row({
        code: e.code,
        reason: `A deposit of ${amountText(e.line.amount, e.line.currency)}: no paid transfer of that amount near that day.`,
        bankLine: lineRef(e.line),
        currency: normalizeCurrency(e.line.currency),
        amount: money(e.line.amount, e.line.currency),
      })
    case 'transfer_without_deposit':
      return PX.row({
        code: e.code,
        reason: `Paid on ${e.paidDay}: no deposit of ${amountText(e.expected, e.currency)} on the bank statement.`,
        transfer: e.transferId,
        currency: e.currency,
        amount: money(e.expected, e.currency),
      })
    case 'failed_returned':
      return PX.row({
        code: e.code,
        reason: `Failed: its money came in on ${e.deposit.day} and went back on ${e.returned.day}.`,
        transfer: e.transferId,
        bankLine: `${lineRef(e.deposit)}; ${lineRef(e.returned)}`,
        currency: normalizeCurrency(e.deposit.currency),
        amount: money(e.deposit.amount, e.deposit.currency),
      })
    case 'failed_deposit_kept':
      return PX.row({
        code: e.code,
        reason: `Failed, yet its money came in on ${e.deposit.day} and was not returned.`,
        transfer: e.transferId,
        bankLine: lineRef(e.deposit),
        currency: normalizeCurrency(e.deposit.currency),
        amount: money(e.deposit.amount, e.deposit.currency),
      })
  }
}

/** Problems first (as found), then the tie-out's exceptions and the deposits not yet due. */
export function payoutExceptionRows(problems: readonly PayoutProblem[], tie?: TieOut): ExportRow[] {
  const rows = problems.map(problemRow)
  if (tie) {
    rows.push(...tie.exceptions.map(tieRow))
    for (const transferId of tie.notYetDue)
      rows.push(
        PX.row({
          code: 'deposit_not_yet_due',
          reason: 'Paid near the end of the bank statement: its deposit may still come after it.',
          transfer: transferId,
        }),
      )
  }
  return rows
}
