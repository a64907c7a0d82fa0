/**
 * Payout items as main validated them (electron/shared/payouts-api.ts) mapped to the domain's shapes
 * (src/domain/payouts.ts). Pure. Currencies are upper-cased, times are epoch ms, `raw` keeps the item.
 */
import type {
  BankAccountItem,
  LedgerItemWire,
  MerchantConfigItem,
  StatusChangeItem,
  TransferItem,
} from '../../electron/shared/payouts-api'
import { flatFeeOf, payoutTimeMs } from '../../electron/shared/payouts-api'
import type { BankAccount, MerchantPayoutConfig, TransferStatusChange } from '../domain/payouts'
import { OPEN_TRANSFER_KEY, type LedgerRow, type PayoutConfigRow, type TransferRow } from '../db/payout-rows'

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null)

export function transferRowOf(
  connectionId: string,
  item: TransferItem,
  syncedAt: number,
  before?: TransferRow,
): TransferRow {
  return {
    connectionId,
    id: item.id.toLowerCase(),
    merchantId: text(item.merchant_id),
    bankAccountId: text(item.bank_account_id),
    amount: item.amount,
    currency: item.currency.toUpperCase(),
    status: item.status,
    errorCode: text(item.error_code),
    errorText: text(item.error_text),
    note: text(item.note),
    startedBy: text(item.started_by),
    periodFrom: item.from?.slice(0, 10) ?? null,
    periodTo: item.to?.slice(0, 10) ?? null,
    createdAt: payoutTimeMs(item.created_on),
    raw: item,
    syncedAt,
    // What was read of it stays until a complete read of its details replaces it.
    detailsReadAt: before?.detailsReadAt ?? null,
    ledgerCount: before?.ledgerCount ?? 0,
  }
}

export function ledgerRowOf(connectionId: string, item: LedgerItemWire, syncedAt: number): LedgerRow {
  const transferId = item.transfer_id?.toLowerCase() ?? null
  return {
    connectionId,
    id: item.id.toLowerCase(),
    storeId: text(item.store_id),
    transferId,
    transferKey: transferId ?? OPEN_TRANSFER_KEY,
    amount: item.amount,
    currency: item.currency.toUpperCase(),
    percentFee: item.percent_fee ?? null,
    flatFee: flatFeeOf(item),
    flatFeeCurrency: item.flat_fee_currency?.toUpperCase() ?? null,
    exchangeRate: item.exchange_rate ?? null,
    origin: item.origin,
    note: text(item.note),
    createdAt: payoutTimeMs(item.created_on),
    raw: item,
    syncedAt,
  }
}

export function statusChangeOf(connectionId: string, item: StatusChangeItem): TransferStatusChange {
  return {
    connectionId,
    id: item.id.toLowerCase(),
    transferId: item.transfer_id.toLowerCase(),
    oldStatus: text(item.old_status),
    newStatus: item.new_status,
    reason: text(item.reason),
    createdAt: payoutTimeMs(item.created_on),
  }
}

/** Only the masked number main passed on is kept (main masks whatever the server sent). */
export function bankAccountOf(connectionId: string, item: BankAccountItem): BankAccount {
  return {
    connectionId,
    id: item.id.toLowerCase(),
    holderName: text(item.holder_name),
    bankName: text(item.bank_name),
    branchName: text(item.branch_name),
    country: text(item.country),
    currency: text(item.currency)?.toUpperCase() ?? null,
    accountNumberMasked: text(item.account_number),
    lastFour: text(item.last_four),
    primary: item.primary === true,
    status: text(item.status),
    accountType: text(item.account_type),
  }
}

function scheduleOf(
  raw: Record<string, unknown> | null | undefined,
): MerchantPayoutConfig['transferSchedule'] {
  if (!raw) return null
  const str = (key: string) => text(raw[key])
  const day = raw['day_of_month']
  return {
    waitPeriod: str('wait_period'),
    period: str('period'),
    fullPeriodRequired: typeof raw['full_period_required'] === 'boolean' ? raw['full_period_required'] : null,
    dayOfWeek: str('day_of_week'),
    weekOfMonth: str('week_of_month'),
    dayOfMonth: typeof day === 'number' && Number.isInteger(day) ? day : null,
    weeklyClosingDay: str('weekly_closing_day'),
    weeklyPayoutDay: str('weekly_payout_day'),
  }
}

export function payoutConfigOf(
  connectionId: string,
  item: MerchantConfigItem,
  syncedAt: number,
): PayoutConfigRow {
  const min = item.min_transfer_payout
  return {
    connectionId,
    percentFee: item.percent_fee ?? null,
    minTransferPayout: min ? { amount: min.amount, currency: min.currency.toUpperCase() } : null,
    transferSchedule: scheduleOf(item.transfer_schedule),
    raw: item,
    syncedAt,
  }
}
