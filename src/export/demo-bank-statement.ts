/**
 * The demo's bank statement of its own payouts, in 三井住友銀行's CSV layout (年月日, お引出し, お預入れ,
 * お取り扱い内容, 残高): one deposit per JPY transfer the service paid, of what should reach the bank,
 * dated the day it was paid in the accounting time zone. Imported in Matching, every line ties to its
 * transfer. Plain text; the host writes it in Shift_JIS as the bank does.
 */
import { normalizeCurrency } from '../domain/currency'
import { dayOf } from '../domain/periods'
import type { Transfer, TransferStatusChange } from '../domain/payouts'
import type { Compositions } from '../reconcile/payouts'
import { transferTimelines } from '../reconcile/payouts/timeline'

export interface DemoStatementInput {
  transfers: readonly Transfer[]
  statusChanges: readonly TransferStatusChange[]
  compositions: Compositions
  timeZone: string
}

export const DEMO_STATEMENT_HEADER = ['年月日', 'お引出し', 'お預入れ', 'お取り扱い内容', '残高'] as const
const DESCRIPTION = 'ﾌﾘｺﾐ ｸﾛｰｽﾞﾌﾞﾂｸ ﾃﾞﾓ'
/** What the account holds before the first deposit: a statement's balance column is never empty. */
const OPENING_BALANCE = 1_000_000

/** The statement's lines (header first), oldest deposit first; CRLF as the bank writes them. */
export function demoBankStatement(input: DemoStatementInput): string {
  const deposits: { day: string; amount: number; id: string }[] = []
  for (const [id, tl] of transferTimelines(input.transfers, input.statusChanges).byId) {
    if (tl.paidAt === null || normalizeCurrency(tl.transfer.currency) !== 'JPY') continue
    const amount = input.compositions.byId.get(id)?.expectedDeposit ?? tl.transfer.amount
    if (!Number.isSafeInteger(amount) || amount <= 0) continue
    deposits.push({ day: dayOf(tl.paidAt, input.timeZone), amount, id })
  }
  deposits.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.id < b.id ? -1 : 1))
  let balance = OPENING_BALANCE
  const lines = [DEMO_STATEMENT_HEADER.join(',')]
  for (const d of deposits) {
    balance += d.amount
    lines.push([d.day.replaceAll('-', '/'), '', String(d.amount), DESCRIPTION, String(balance)].join(','))
  }
  return lines.join('\r\n') + '\r\n'
}
