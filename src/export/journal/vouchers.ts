/**
 * The month's journal entries (仕訳) from the cache, pure: vouchers per day or month × store (or merged) ×
 * posting currency, each line a debit and a credit of the same positive amount, so every voucher balances
 * by construction and no amount is ever negative (Yayoi refuses negatives). The figures are the month
 * summary's: successful live charges (sales), successful live refunds (returns) and the fees of successful
 * live charges, each dated by its own record in the accounting time zone. Other currencies are posted only
 * at a rate the user gave; otherwise they, test-mode records and fees without a currency are exceptions.
 */
import type { ChargeRecord, HistoryRecord, RecordKey } from '../../domain/records'
import { isSuccessful } from '../../reconcile/cross-check'
import { assertMinorUnits, currencyExponent, normalizeCurrency } from '../../domain/currency'
import { dayOf, periodRange } from '../../domain/periods'
import type { JournalSettings, TaxClassKey } from './settings'

/** The month's lines (sales, refunds, fees) and a payout's deposit lines (deposit, transfer fee). */
export type LineKind = 'sales' | 'refunds' | 'fees' | 'deposit' | 'transferFee'

export interface JournalSide {
  account: string
  subAccount: string
  department: string
  taxClass: TaxClassKey
}

export interface JournalLine {
  kind: LineKind
  debit: JournalSide
  credit: JournalSide
  /** Positive, in minor units of the voucher's currency. */
  amount: number
  /** The figure's sign: -1 when it was negative and the line's sides were swapped to keep `amount` positive. */
  sign: 1 | -1
  /** Records summed into this line (for the trace file). */
  records: TracedRecord[]
}

export interface TracedRecord {
  key: RecordKey | `fee:${string}` | `transfer:${string}`
  resourceId: string
  type: 'charge' | 'refund' | 'fee' | 'transfer'
  createdAt: number
  storeId: string
  /** As the API gave it. */
  amount: number
  currency: string
}

export interface Voucher {
  number: number
  /** YYYY-MM-DD in the accounting zone: the record's day, or the month's last day. */
  date: string
  currency: string
  storeId: string | null
  storeName: string
  lines: JournalLine[]
  /** Set when the voucher's figures were converted from another currency at a user's rate. */
  convertedFrom: { currency: string; rate: string } | null
}

export type ExceptionReason = 'currency_without_rate' | 'test_mode' | 'fee_without_currency'

export interface JournalException {
  reason: ExceptionReason
  currency: string
  count: number
  /** Signed sum in minor units of `currency` (refunds negative); 0 for fees without a currency. */
  sum: number
}

export interface JournalTotals {
  sales: number
  refunds: number
  fees: number
}

export interface JournalBuild {
  period: string
  timeZone: string
  accountingCurrency: string
  vouchers: Voucher[]
  exceptions: JournalException[]
  /** Posted figures per source currency, in that currency's minor units (ties to the month summary). */
  postedBySourceCurrency: Map<string, JournalTotals>
}

/** What the journal reads of a history record: a whole record has it, and so has Month-end's digest of it. */
export type JournalRecord = Pick<
  HistoryRecord,
  'key' | 'type' | 'createdAt' | 'storeId' | 'status' | 'currency' | 'mode' | 'amount'
>

/** What the journal reads of a charge-list record: a whole charge has it, and so has its digest. */
export type JournalCharge = Pick<
  ChargeRecord,
  'id' | 'createdAt' | 'storeId' | 'status' | 'chargedCurrency' | 'feeAmount' | 'feeCurrency' | 'mode'
>

export interface JournalInput {
  period: string
  timeZone: string
  history: readonly JournalRecord[]
  charges: readonly JournalCharge[]
  storeNames: ReadonlyMap<string, string>
  settings: JournalSettings
}

export class JournalError extends Error {
  constructor(
    readonly code: string,
    readonly params: Record<string, string | number> = {},
  ) {
    super(`${code} ${JSON.stringify(params)}`)
    this.name = 'JournalError'
  }
}

/** What one voucher sums: the figures per kind and the records behind each. */
interface BucketFigures {
  sales: number
  refunds: number
  fees: number
  salesRecords: TracedRecord[]
  refundRecords: TracedRecord[]
  feeRecords: TracedRecord[]
}

interface Bucket extends BucketFigures {
  date: string
  currency: string
  storeId: string | null
}

/**
 * Converts a sum in `from`'s minor units to the accounting currency's minor units at `rate` (accounting
 * units per 1 unit of `from`), rounding half away from zero, in exact integer arithmetic.
 */
export function convertMinor(amount: number, from: string, to: string, rate: string): number {
  const [whole = '0', frac = ''] = rate.split('.')
  const scale = 10n ** BigInt(frac.length)
  const rateScaled = BigInt(whole) * scale + BigInt(frac || '0')
  const num = BigInt(amount) * rateScaled * 10n ** BigInt(currencyExponent(to))
  const den = scale * 10n ** BigInt(currencyExponent(from))
  const negative = num < 0n
  const abs = negative ? -num : num
  const q = (abs * 2n + den) / (2n * den)
  const result = Number(negative ? -q : q)
  assertMinorUnits(result, `converted amount from ${from}`)
  return result
}

export function buildJournal(input: JournalInput): JournalBuild {
  const { settings } = input
  const accounting = normalizeCurrency(settings.accountingCurrency)
  const range = periodRange(input.period, input.timeZone)
  const lastDay = dayOf(range.to - 1, input.timeZone)
  const inPeriod = (t: number) => t >= range.from && t < range.to
  const dateOf = (t: number) => (settings.granularity === 'day' ? dayOf(t, input.timeZone) : lastDay)
  const rateOf = (currency: string): string | undefined =>
    currency === accounting ? undefined : settings.rates[currency]
  const posts = (currency: string) => currency === accounting || rateOf(currency) !== undefined

  const exceptions = new Map<string, JournalException>()
  const except = (reason: ExceptionReason, currency: string, signed: number) => {
    const key = `${reason}|${currency}`
    const e = exceptions.get(key) ?? { reason, currency, count: 0, sum: 0 }
    e.count++
    e.sum += signed
    exceptions.set(key, e)
  }

  const buckets = new Map<string, Bucket>()
  const bucketFor = (date: string, currency: string, storeId: string): Bucket => {
    const store = settings.perStore ? storeId : null
    const key = JSON.stringify([date, store, currency])
    let b = buckets.get(key)
    if (!b) {
      b = {
        date,
        currency,
        storeId: store,
        sales: 0,
        refunds: 0,
        fees: 0,
        salesRecords: [],
        refundRecords: [],
        feeRecords: [],
      }
      buckets.set(key, b)
    }
    return b
  }
  const posted = new Map<string, JournalTotals>()
  const postedFor = (currency: string) => {
    let t = posted.get(currency)
    if (!t) posted.set(currency, (t = { sales: 0, refunds: 0, fees: 0 }))
    return t
  }

  for (const r of input.history) {
    if (!inPeriod(r.createdAt) || !isSuccessful(r.status)) continue
    assertMinorUnits(r.amount, `amount of ${r.key}`)
    const currency = normalizeCurrency(r.currency)
    const signed = r.type === 'refund' ? -r.amount : r.amount
    if (r.mode !== 'live') {
      except('test_mode', currency, signed)
      continue
    }
    if (!posts(currency)) {
      except('currency_without_rate', currency, signed)
      continue
    }
    const b = bucketFor(dateOf(r.createdAt), currency, r.storeId)
    const traced: TracedRecord = {
      key: r.key,
      // A key is `type:resourceId`.
      resourceId: r.key.slice(r.type.length + 1),
      type: r.type,
      createdAt: r.createdAt,
      storeId: r.storeId,
      amount: r.amount,
      currency,
    }
    if (r.type === 'refund') {
      b.refunds += r.amount
      b.refundRecords.push(traced)
      postedFor(currency).refunds += r.amount
    } else {
      b.sales += r.amount
      b.salesRecords.push(traced)
      postedFor(currency).sales += r.amount
    }
  }

  for (const c of input.charges) {
    if (!inPeriod(c.createdAt) || !isSuccessful(c.status) || c.feeAmount === null) continue
    assertMinorUnits(c.feeAmount, `fee of ${c.id}`)
    if (c.feeCurrency === null) {
      except('fee_without_currency', normalizeCurrency(c.chargedCurrency), 0)
      continue
    }
    const currency = normalizeCurrency(c.feeCurrency)
    if (c.mode !== 'live') {
      except('test_mode', currency, -c.feeAmount)
      continue
    }
    if (!posts(currency)) {
      except('currency_without_rate', currency, -c.feeAmount)
      continue
    }
    const b = bucketFor(dateOf(c.createdAt), currency, c.storeId)
    b.fees += c.feeAmount
    b.feeRecords.push({
      key: `fee:${c.id}`,
      resourceId: c.id,
      type: 'fee',
      createdAt: c.createdAt,
      storeId: c.storeId,
      amount: c.feeAmount,
      currency,
    })
    postedFor(currency).fees += c.feeAmount
  }

  const ordered = [...buckets.values()].sort(
    (a, b) => cmp(a.date, b.date) || cmp(a.storeId ?? '', b.storeId ?? '') || cmp(a.currency, b.currency),
  )
  const vouchers: Voucher[] = []
  for (const b of ordered) {
    const rate = rateOf(b.currency)
    const toPosting = (minor: number) =>
      rate === undefined ? minor : convertMinor(minor, b.currency, accounting, rate)
    const storeName = b.storeId === null ? '' : (input.storeNames.get(b.storeId) ?? b.storeId)
    const lines = voucherLines(settings, storeName, {
      sales: toPosting(b.sales),
      refunds: toPosting(b.refunds),
      fees: toPosting(b.fees),
      salesRecords: b.salesRecords,
      refundRecords: b.refundRecords,
      feeRecords: b.feeRecords,
    })
    if (lines.length === 0) continue
    vouchers.push({
      number: vouchers.length + 1,
      date: b.date,
      currency: accounting,
      storeId: b.storeId,
      storeName,
      lines,
      convertedFrom: rate === undefined ? null : { currency: b.currency, rate },
    })
  }

  return {
    period: input.period,
    timeZone: input.timeZone,
    accountingCurrency: accounting,
    vouchers,
    exceptions: [...exceptions.values()].sort(
      (a, b) => cmp(a.reason, b.reason) || cmp(a.currency, b.currency),
    ),
    postedBySourceCurrency: posted,
  }
}

/**
 * Gross: Dr receivable / Cr sales (charged); Dr returns (or sales) / Cr receivable (refunded);
 * Dr fees / Cr receivable (fee). Net: the sales line carries charged − fee and there is no fee line.
 * A line whose amount would be negative swaps its sides instead; a zero line is left out.
 */
function voucherLines(settings: JournalSettings, storeName: string, f: BucketFigures): JournalLine[] {
  const department = settings.perStore ? storeName.slice(0, 24) : settings.department
  const side = (account: string, taxClass: TaxClassKey, subAccount = ''): JournalSide => ({
    account,
    subAccount,
    department,
    taxClass,
  })
  const a = settings.accounts
  const receivable = side(a.receivable, 'outOfScope', settings.receivableSubAccount)
  const salesSide = side(a.sales, `sales.${settings.salesTaxClass}`)
  const refundSide =
    settings.refundBooking === 'reverseSales' ? salesSide : side(a.refunds, `sales.${settings.salesTaxClass}`)
  const lines: JournalLine[] = []
  const push = (
    kind: LineKind,
    debit: JournalSide,
    credit: JournalSide,
    amount: number,
    records: TracedRecord[],
  ) => {
    if (amount === 0) return
    if (amount < 0) lines.push({ kind, debit: credit, credit: debit, amount: -amount, sign: -1, records })
    else lines.push({ kind, debit, credit, amount, sign: 1, records })
  }
  if (settings.booking === 'net') {
    push('sales', receivable, salesSide, f.sales - f.fees, [...f.salesRecords, ...f.feeRecords])
    push('refunds', refundSide, receivable, f.refunds, f.refundRecords)
  } else {
    push('sales', receivable, salesSide, f.sales, f.salesRecords)
    push('refunds', refundSide, receivable, f.refunds, f.refundRecords)
    push('fees', side(a.fees, `fee.${settings.feeTaxClass}`), receivable, f.fees, f.feeRecords)
  }
  return lines
}

/** Debits equal credits, per voucher: true by construction, checked before any file is written. */
export function assertBalanced(vouchers: readonly Voucher[]): void {
  for (const v of vouchers) {
    let debit = 0
    let credit = 0
    for (const l of v.lines) {
      if (!Number.isSafeInteger(l.amount) || l.amount <= 0)
        throw new JournalError('journal_line_amount', { voucher: v.number, amount: l.amount })
      debit += l.amount
      credit += l.amount
    }
    if (debit !== credit) throw new JournalError('journal_unbalanced', { voucher: v.number })
  }
}

/** Signed posted total per kind (accounting currency): what the month summary's sales/refunds/fees give. */
export function voucherTotals(vouchers: readonly Voucher[]): JournalTotals {
  const t = { sales: 0, refunds: 0, fees: 0 }
  for (const v of vouchers)
    for (const l of v.lines)
      if (l.kind === 'sales' || l.kind === 'refunds' || l.kind === 'fees') t[l.kind] += l.sign * l.amount
  return t
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
