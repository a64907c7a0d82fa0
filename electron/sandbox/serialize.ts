/** The sandbox's model as the API's items (seed §2.2, §2.3), with every field and the seed's types. */
import {
  formatted,
  isoFromUs,
  type HistoryEntry,
  type SandboxCharge,
  type SandboxMerchant,
  type SandboxRefund,
} from './model'

export interface Names {
  merchant: SandboxMerchant
  storeName(storeId: string): string
}

function userDataRefund(refund: SandboxRefund): Record<string, unknown> {
  return {
    id: refund.id,
    amount: refund.amount,
    currency: refund.currency,
    amount_formatted: formatted(refund.amount, refund.currency),
    status: refund.status,
    reason: refund.reason,
    created_on: isoFromUs(refund.createdUs),
  }
}

export function historyItem(entry: HistoryEntry, names: Names): Record<string, unknown> {
  const { charge } = entry
  const test = charge.mode === 'test'
  const base = {
    store_id: charge.storeId,
    resource_id: entry.id,
    charge_id: entry.kind === 'refund' ? charge.id : null,
    amount: entry.kind === 'refund' ? entry.refund.amount : charge.chargedAmount,
    currency: charge.chargedCurrency,
    amount_formatted: formatted(
      entry.kind === 'refund' ? entry.refund.amount : charge.chargedAmount,
      charge.chargedCurrency,
    ),
    type: entry.kind,
    status: entry.kind === 'refund' ? entry.refund.status : charge.status,
    metadata: entry.kind === 'refund' ? { ...entry.refund.metadata } : { ...charge.metadata },
    created_on: isoFromUs(entry.createdUs),
    mode: charge.mode,
    merchant_name: names.merchant.name,
    store_name: names.storeName(charge.storeId),
    payment_type: 'card',
    user_data: {
      type: entry.kind,
      cardholder_name: charge.card.name,
      cardholder_email_address: charge.card.email,
      brand: charge.card.brand,
      gateway: test ? 'test' : 'card_gateway',
      service_provider: test ? 'test' : 'card_acquirer',
      // On a charge record: every refund of the charge. A refund record stands for itself.
      refunds: entry.kind === 'charge' ? charge.refunds.map(userDataRefund) : [],
    },
    bank_transfer_payment_status: null,
    bank_transfer_latest_deposit_date: null,
  }
  return base
}

export function chargeItem(charge: SandboxCharge, names: Names): Record<string, unknown> {
  return {
    id: charge.id,
    store_id: charge.storeId,
    transaction_token_id: charge.transactionTokenId,
    transaction_token_type: 'one_time',
    subscription_id: charge.subscriptionId,
    merchant_transaction_id: charge.merchantTransactionId,
    requested_amount: charge.requestedAmount,
    requested_currency: charge.requestedCurrency,
    requested_amount_formatted: formatted(charge.requestedAmount, charge.requestedCurrency),
    charged_amount: charge.chargedAmount,
    charged_currency: charge.chargedCurrency,
    charged_amount_formatted: formatted(charge.chargedAmount, charge.chargedCurrency),
    fee_amount: charge.feeAmount,
    fee_currency: charge.feeCurrency,
    fee_amount_formatted:
      charge.feeAmount === null || charge.feeCurrency === null
        ? null
        : formatted(charge.feeAmount, charge.feeCurrency),
    only_direct_currency: false,
    capture_at: charge.captureAtUs === null ? null : isoFromUs(charge.captureAtUs),
    descriptor: charge.descriptor,
    descriptor_phone_number: charge.descriptor ? '03-0000-0000' : null,
    status: charge.status,
    error: charge.error ? { ...charge.error } : null,
    metadata: { ...charge.metadata },
    mode: charge.mode,
    created_on: isoFromUs(charge.createdUs),
    redirect: {},
    merchant_name: names.merchant.name,
    store_name: names.storeName(charge.storeId),
  }
}
