/**
 * Payouts as the app reasons about them (DESIGN §4, "Payouts are the service's own"): the service's
 * transfers, the ledger items each settles, their status changes, the merchant's bank accounts (masked)
 * and its payout configuration. The wire shapes (snake_case, both flat-fee spellings, dates or epoch ms)
 * are validated in main and mapped to these by sync; `raw` keeps the item as it came, unknown fields
 * included. Amounts are integers in minor units; times are epoch milliseconds (UTC); a transfer's
 * settlement period is the service's `from`/`to` dates as given (`YYYY-MM-DD`).
 */

/** Statuses the service documents; any other string is kept as is and treated as not final. */
export type TransferStatus =
  'created' | 'approved' | 'canceled' | 'processing' | 'paid' | 'failed' | 'blank' | (string & {})

/** A transfer in one of these statuses no longer changes; the others are re-read by every sync. */
export const FINAL_TRANSFER_STATUSES: ReadonlySet<string> = new Set(['paid', 'failed', 'canceled', 'blank'])

export type LedgerOrigin = 'charge' | 'refund' | 'manual' | 'cancel' | (string & {})

export interface Transfer {
  connectionId: string
  id: string
  merchantId: string | null
  bankAccountId: string | null
  /** Signed minor units: what the service transfers (negative when the merchant owes). */
  amount: number
  currency: string
  status: TransferStatus
  errorCode: string | null
  errorText: string | null
  note: string | null
  startedBy: string | null
  /** Settlement period as the service gives it (`YYYY-MM-DD`); consecutive periods share a boundary. */
  periodFrom: string | null
  periodTo: string | null
  createdAt: number
  raw: Record<string, unknown>
  syncedAt: number
}

export interface TransferStatusChange {
  connectionId: string
  id: string
  transferId: string
  oldStatus: string | null
  newStatus: string
  reason: string | null
  createdAt: number
}

export interface LedgerItem {
  connectionId: string
  id: string
  storeId: string | null
  /** Absent while the item waits for a transfer (carry-over, or not yet closed). */
  transferId: string | null
  /** Signed minor units as the service gives it; whether gross or net of fees is a reading (below). */
  amount: number
  currency: string
  /** Percent units: 5 means 5 %. */
  percentFee: number | null
  /** `flat_fee_amount` or `flat_fee` on the wire, in minor units of `flatFeeCurrency`. */
  flatFee: number | null
  flatFeeCurrency: string | null
  exchangeRate: number | null
  origin: LedgerOrigin
  note: string | null
  createdAt: number
  raw: Record<string, unknown>
  syncedAt: number
}

export interface BankAccount {
  connectionId: string
  id: string
  holderName: string | null
  bankName: string | null
  branchName: string | null
  country: string | null
  currency: string | null
  /** Masked as the service gives it (`XXXXXXX890`); a full number is never stored. */
  accountNumberMasked: string | null
  lastFour: string | null
  primary: boolean
  status: string | null
  accountType: string | null
}

export type PayoutPeriod = 'weekly' | 'biweekly' | 'semimonthly' | 'monthly' | 'bimonthly' | (string & {})

export interface MerchantPayoutConfig {
  connectionId: string
  percentFee: number | null
  minTransferPayout: { amount: number; currency: string } | null
  transferSchedule: {
    waitPeriod: string | null
    period: PayoutPeriod | null
    fullPeriodRequired: boolean | null
    dayOfWeek: string | null
    weekOfMonth: string | null
    dayOfMonth: number | null
    weeklyClosingDay: string | null
    weeklyPayoutDay: string | null
  } | null
  raw: Record<string, unknown>
}

/**
 * The readings the public sources leave open. The app detects each from the data where it can and says
 * which one it follows; where the data cannot tell, the connection's setting decides.
 * - `ledgerAmounts`: `net` — a ledger's amount is what the merchant receives (gross × (1 − percent/100) −
 *   flat fee); `gross` — the sale's amount, fees to be deducted.
 * - `transferFee`: `manual_ledger` — the fee is a negative manual ledger inside the transfer (the
 *   transfer's amount is what reaches the bank); `bank_deducted` — the transfer's amount is before the
 *   fee, and the bank deposit is the amount less the fee.
 */
export interface PayoutReadings {
  ledgerAmounts: 'net' | 'gross'
  transferFee: 'manual_ledger' | 'bank_deducted'
}

/** Why payouts could not be read for a connection (the rest of the sync holds). */
export type PayoutAccess = { code: 'ok' } | { code: 'forbidden'; serviceCode: string } | { code: 'unknown' }
