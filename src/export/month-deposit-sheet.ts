/** The Deposits sheet: each bank deposit line of the period, the records it pays (of any period), and the difference. */
import type { ExportRow } from '../../electron/shared/contract/export'
import { normalizeCurrency } from '../domain/currency'
import type { ChargeRecord, HistoryRecord, RecordKey } from '../domain/records'
import { depositFigures, type DepositExplanation } from '../reconcile/deposits'
import type { MonthWorkbookMeta, WorkbookPlanSheet } from './month-workbook-input'
import { SHEETS } from './month-record-sheets'
import type { MonthScope } from './month-scope'
import { col, Columns } from './sheet-columns'
import { amountCell, amountText, clipText, dateCell } from './sheet-values'

/** One bank deposit line and the records it pays. */
const DP = new Columns([
  col('date', 'Deposit date', 'datetime', 20),
  col('file', 'File', 'text', 24),
  col('line', 'Line', 'integer', 7),
  col('currency', 'Currency', 'text', 10),
  col('deposit', 'Deposit', 'amount', 14),
  col('records', 'Records paid', 'integer', 10),
  col('charged', 'Charges', 'amount', 14),
  col('refunded', 'Refunds', 'amount', 14),
  col('fees', 'Fees', 'amount', 12),
  col('net', 'Expected (net of fees)', 'amount', 16),
  col('difference', 'Difference', 'amount', 14),
  col('explanation', 'Explanation', 'text', 48),
  col('keys', 'Record IDs', 'text', 60),
])

function explanationText(e: DepositExplanation, currency: string): string {
  switch (e.code) {
    case 'unmatched':
      return 'Not matched to any records yet'
    case 'exact':
      return 'Equal to the records it pays'
    case 'transfer_fee':
      return `Transfer fee ${amountText(e.fee, currency)} deducted by the payment service`
    case 'unexplained':
      return `Unexplained difference of ${amountText(e.difference, currency)}: check the payout`
  }
}

/**
 * The records the deposits name (the month's or linked ones) and the charges of those records: only
 * those are read, so that a month without deposits, or with a few, reads none or a few of its records.
 */
async function paidBy(
  input: MonthWorkbookMeta,
  scope: MonthScope,
  deposits: readonly { matchedKeys: readonly string[] }[],
): Promise<{ depositRecords: Map<RecordKey, HistoryRecord>; depositCharges: Map<string, ChargeRecord> }> {
  const named = new Set(deposits.flatMap((d) => d.matchedKeys as RecordKey[]))
  const depositRecords = new Map<RecordKey, HistoryRecord>()
  for (const list of [await scope.source.historyByKeys([...named]), input.linkedHistory ?? []])
    for (const r of list) if (named.has(r.key)) depositRecords.set(r.key, r)
  const chargeIds = new Set([...depositRecords.values()].map((r) => r.chargeId))
  const depositCharges = new Map<string, ChargeRecord>()
  for (const list of [await scope.source.chargesByIds([...chargeIds]), input.linkedCharges ?? []])
    for (const c of list) if (chargeIds.has(c.id)) depositCharges.set(c.id, c)
  return { depositRecords, depositCharges }
}

export function depositSheet(input: MonthWorkbookMeta, scope: MonthScope): WorkbookPlanSheet {
  const { tz, inPeriod } = scope
  // Deposits of the period: each bank line, the records it pays (of any period), and the difference.
  const deposits = (input.importedRows ?? [])
    .filter((r) => r.source === 'bank' && r.amount > 0 && inPeriod(r.at))
    .sort(
      (a, b) => a.at - b.at || (a.importId < b.importId ? -1 : a.importId > b.importId ? 1 : a.line - b.line),
    )
  const depositRows = async function* (): AsyncGenerator<ExportRow> {
    if (deposits.length === 0) return
    const { depositRecords, depositCharges } = await paidBy(input, scope, deposits)
    for (const d of deposits) {
      const currency = normalizeCurrency(d.currency)
      const f = depositFigures(
        { amount: d.amount, currency: d.currency, keys: d.matchedKeys },
        depositRecords,
        depositCharges,
        input.transferFee ?? 0,
      )
      const matched = d.matchedKeys.length > 0
      yield DP.row({
        date: dateCell(d.at, tz),
        file: d.fileName,
        line: d.line,
        currency,
        deposit: amountCell(d.amount, currency),
        records: d.matchedKeys.length,
        charged: matched ? amountCell(f.charged, currency) : null,
        refunded: matched ? amountCell(f.refunded, currency) : null,
        fees: matched ? amountCell(f.fees, currency) : null,
        net: matched ? amountCell(f.net, currency) : null,
        difference: matched ? amountCell(f.difference, currency) : null,
        explanation: clipText(
          explanationText(f.explanation, currency) +
            (f.notCounted.length > 0
              ? `; ${f.notCounted.length} linked record(s) not counted (not cached, other currency or not successful)`
              : ''),
        ),
        keys: matched ? clipText(d.matchedKeys.join(' ')) : null,
      })
    }
  }
  return {
    spec: { name: SHEETS.deposits, columns: DP.columns },
    rowCount: deposits.length,
    rows: depositRows,
  }
}
