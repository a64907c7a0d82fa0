/**
 * The Exceptions and Not reconciled sheets: what an accountant should look at before closing (records
 * changed since reconciled or not counted, cross-check differences, fees without a currency, items in
 * quarantine, imported lines without a match), apart from counted records simply not reconciled yet.
 */
import type { ExportRow } from '../../electron/shared/contract/export'
import { normalizeCurrency } from '../domain/currency'
import type { ChargeDigest, MarkRecord, RecordKey } from '../domain/records'
import { crossCheck, isSuccessful, type Difference } from '../reconcile/cross-check'
import type { AmountDigest, MonthSummary, MonthSummaryRow } from '../reconcile/month-summary'
import type { MonthWorkbookMeta, WorkbookPlanSheet } from './month-workbook-input'
import { SHEETS } from './month-record-sheets'
import type { MonthScope } from './month-scope'
import { col, Columns } from './sheet-columns'
import { amountCell, amountText, clipText, dateCell } from './sheet-values'

const EX = new Columns([
  col('kind', 'Exception', 'text', 24),
  col('reason', 'Reason', 'text', 60),
  col('record', 'Record', 'text', 46),
  col('created', 'Created', 'datetime', 20),
  col('storeId', 'Store ID', 'text', 38),
  col('mode', 'Mode', 'text', 7),
  col('currency', 'Currency', 'text', 10),
  col('amount', 'Amount', 'amount', 14),
  col('status', 'Status', 'text', 12),
  col('note', 'Note', 'text', 30),
])

/** A charge's digest as the cross-check reads a history charge (its key is `charge:<resource id>`). */
type CheckedDigest = AmountDigest & { resourceId: string }
type DigestDifference = Difference<CheckedDigest, ChargeDigest>

const checkedDigest = (d: AmountDigest): CheckedDigest => ({
  ...d,
  resourceId: d.key.slice('charge:'.length),
})

const DIFFERENCE_REASONS: Record<Difference['kind'], (d: DigestDifference) => string> = {
  missing_in_charges: () => 'In the transaction history but not in the charge list (sync the charges again).',
  missing_in_history: () => 'In the charge list but not in the transaction history (sync the history again).',
  currency: (d) =>
    `History currency ${d.history?.currency ?? '?'} differs from charged currency ${d.charge?.chargedCurrency ?? '?'}.`,
  amount: (d) =>
    `History amount ${d.history ? amountText(d.history.amount, d.history.currency) : '?'} differs from charged amount ${
      d.charge ? amountText(d.charge.chargedAmount, d.charge.chargedCurrency) : '?'
    }.`,
  status: (d) =>
    `History status "${d.history?.status ?? '?'}" differs from charge status "${d.charge?.status ?? '?'}".`,
}

/** Which of the Exceptions and Not reconciled sheets lists a record (None: neither). */
const enum Listed {
  None,
  NotCounted,
  NotReconciled,
  Changed,
}

/** The digest's fingerprint is its record's: changed since reconciled as hasChangedSinceReconciled says. */
function listedAs(d: AmountDigest, mark: MarkRecord | undefined): Listed {
  if (!isSuccessful(d.status)) return Listed.NotCounted
  if (mark?.state !== 'reconciled') return Listed.NotReconciled
  return mark.fingerprint === null || mark.fingerprint !== d.fingerprint ? Listed.Changed : Listed.None
}

/**
 * Everything an accountant should look at before closing, in two lists: real exceptions (records changed
 * since they were reconciled, records not counted because of their status, cross-check differences between
 * history and charge list, fees the API gave without a currency) and counted records simply not reconciled
 * yet, which would otherwise bury the few real ones under hundreds of routine rows. Both are built from the
 * month's digests (every field their rows show is in a digest), no whole record read. The lists' lengths
 * come from the month's summary; each record is sorted into its list once, a byte a record, when the first
 * of the sheets is written, and the rows are built as the writer takes them, never all at once.
 */
class ExceptionLists {
  #listed: Uint8Array | null = null
  readonly #differences: DigestDifference[]
  readonly exceptionCount: number
  readonly notReconciledCount: number

  /** `summary` is the summary of `history` and `marks`: its counts are the lists' lengths. */
  constructor(
    private readonly history: readonly AmountDigest[],
    private readonly charges: readonly ChargeDigest[],
    private readonly marks: ReadonlyMap<RecordKey, MarkRecord>,
    private readonly tz: string,
    summary: MonthSummary,
  ) {
    this.#differences = crossCheck(history.filter((d) => d.type === 'charge').map(checkedDigest), charges)
    const fees = charges.filter(feeWithoutCurrency).length
    const sum = (f: (r: MonthSummaryRow) => number) => summary.rows.reduce((n, r) => n + f(r), 0)
    this.exceptionCount =
      sum((r) => r.otherStatusCount + r.changedSinceReconciledCount) + this.#differences.length + fees
    this.notReconciledCount = sum((r) => r.unreconciledCount)
  }

  /** Each record's list, sorted once, when the first of the two sheets is written. */
  #lists(): Uint8Array {
    if (this.#listed) return this.#listed
    const listed = new Uint8Array(this.history.length)
    this.history.forEach((r, i) => (listed[i] = listedAs(r, this.marks.get(r.key))))
    return (this.#listed = listed)
  }

  #recordRow(r: AmountDigest, kind: string, reason: string): ExportRow {
    const note = this.marks.get(r.key)?.note
    return EX.row({
      kind,
      reason,
      record: r.key,
      created: dateCell(r.createdAt, this.tz),
      storeId: r.storeId,
      mode: r.mode,
      currency: normalizeCurrency(r.currency),
      amount: amountCell(r.amount, normalizeCurrency(r.currency)),
      status: r.status,
      note: note ? clipText(note) : null,
    })
  }

  *exceptions(): Generator<ExportRow> {
    const { history, tz } = this
    const lists = this.#lists()
    for (let i = 0; i < history.length; i++) {
      const r = history[i] as AmountDigest
      const listed = lists[i]
      if (listed === Listed.NotCounted)
        yield this.#recordRow(r, 'not counted', `Status "${r.status}": no money moved, so not in the totals.`)
      else if (listed === Listed.Changed)
        yield this.#recordRow(
          r,
          'changed since reconciled',
          `Amount, currency, status or refunds changed after it was reconciled by ${this.marks.get(r.key)?.updatedBy ?? ''}; reconfirm it.`,
        )
    }
    for (const d of this.#differences) {
      const record = d.history
      const charge = d.charge
      const currency = normalizeCurrency(record?.currency ?? charge?.chargedCurrency ?? '')
      const amount = record?.amount ?? charge?.chargedAmount ?? null
      yield EX.row({
        kind: `cross-check: ${d.kind.replace(/_/g, ' ')}`,
        reason: DIFFERENCE_REASONS[d.kind](d),
        record: record?.key ?? `charge:${d.chargeId}`,
        created: dateCell(record?.createdAt ?? charge?.createdAt ?? 0, tz),
        storeId: record?.storeId ?? charge?.storeId ?? null,
        mode: record?.mode ?? charge?.mode ?? null,
        currency: currency || null,
        amount: amount === null || !currency ? null : amountCell(amount, currency),
        status: record?.status ?? charge?.status ?? null,
      })
    }
    for (const c of this.charges) {
      if (!feeWithoutCurrency(c)) continue
      yield EX.row({
        kind: 'fee without currency',
        reason: `The API gave a fee of ${c.feeAmount} without a currency: it is in no row's fees.`,
        record: `charge:${c.id}`,
        created: dateCell(c.createdAt, tz),
        storeId: c.storeId,
        mode: c.mode,
        currency: normalizeCurrency(c.chargedCurrency),
        status: c.status,
      })
    }
  }

  *notReconciled(): Generator<ExportRow> {
    const { history } = this
    const lists = this.#lists()
    for (let i = 0; i < history.length; i++)
      if (lists[i] === Listed.NotReconciled)
        yield this.#recordRow(
          history[i] as AmountDigest,
          'not reconciled yet',
          'Counted in the totals, not reconciled yet.',
        )
  }
}

const feeWithoutCurrency = (c: ChargeDigest): boolean =>
  c.feeAmount !== null && c.feeCurrency === null && isSuccessful(c.status)

/** Exceptions, then Not reconciled (the same columns). */
export function exceptionSheets(
  input: MonthWorkbookMeta,
  scope: MonthScope,
  summary: MonthSummary,
): WorkbookPlanSheet[] {
  const { tz, range } = scope
  const lists = new ExceptionLists(scope.digests, scope.chargeDigests, input.marks, tz, summary)
  const quarantined = (input.quarantined ?? []).map((q) =>
    EX.row({
      kind: 'quarantined',
      reason: `Refused by sync (${q.resource === 'charges' ? 'charge list' : 'transaction history'}): ${q.reason}. Not in any total until it is fetched again.`,
      record: q.itemId,
      created: dateCell(q.seenAt, tz),
    }),
  )
  const unmatched = (input.unmatchedImports ?? [])
    .filter((u) => u.at >= range.from && u.at < range.to)
    .map((u) =>
      EX.row({
        kind: `${u.source === 'bank' ? 'bank line' : 'order'} without a match`,
        reason: `${u.fileName}, line ${u.line}${u.orderNumber ? ` (order ${u.orderNumber})` : ''}: no charge or refund was matched to it.`,
        record: null,
        created: dateCell(u.at, tz),
        currency: normalizeCurrency(u.currency),
        amount: amountCell(u.amount, normalizeCurrency(u.currency)),
      }),
    )
  return [
    {
      spec: { name: SHEETS.exceptions, columns: EX.columns },
      rowCount: lists.exceptionCount + quarantined.length + unmatched.length,
      rows: function* () {
        yield* lists.exceptions()
        yield* quarantined
        yield* unmatched
      },
    },
    {
      spec: { name: SHEETS.notReconciled, columns: EX.columns },
      rowCount: lists.notReconciledCount,
      rows: () => lists.notReconciled(),
    },
  ]
}
