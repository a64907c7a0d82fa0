/** Hand-made transfers, ledgers and status changes for the payout rules' tests (Tokyo time). */
import type {
  LedgerItem,
  PayoutReadings,
  Transfer,
  TransferStatusChange,
} from '../../../../../src/domain/payouts'
import type { RecordKey } from '../../../../../src/domain/records'
import type { BankLine } from '../../../../../src/reconcile/payouts/business-days'
import type { RecordAmount } from '../../../../../src/reconcile/payouts/ledger-figures'

export const TZ = 'Asia/Tokyo'
export const CONN = 'conn-1'
export const FEES = { JPY: 440 }
export const NET_INSIDE: PayoutReadings = { ledgerAmounts: 'net', transferFee: 'manual_ledger' }
export const GROSS_BANK: PayoutReadings = { ledgerAmounts: 'gross', transferFee: 'bank_deducted' }

/** An instant given as Tokyo wall-clock time: `tokyo('2026-10-31 23:30')`. */
export function tokyo(wall: string): number {
  return Date.parse(`${wall.replace(' ', 'T')}:00+09:00`)
}

export function transfer(id: string, over: Partial<Transfer> = {}): Transfer {
  return {
    connectionId: CONN,
    id,
    merchantId: 'm-1',
    bankAccountId: 'b-1',
    amount: 0,
    currency: 'JPY',
    status: 'paid',
    errorCode: null,
    errorText: null,
    note: null,
    startedBy: null,
    periodFrom: null,
    periodTo: null,
    createdAt: tokyo('2026-10-01 09:00'),
    raw: {},
    syncedAt: 0,
    ...over,
  }
}

export function ledger(id: string, amount: number, over: Partial<LedgerItem> = {}): LedgerItem {
  return {
    connectionId: CONN,
    id,
    storeId: 's-1',
    transferId: null,
    amount,
    currency: 'JPY',
    percentFee: null,
    flatFee: null,
    flatFeeCurrency: null,
    exchangeRate: 1,
    origin: amount < 0 ? 'refund' : 'charge',
    note: null,
    createdAt: tokyo('2026-10-10 12:00'),
    raw: {},
    syncedAt: 0,
    ...over,
  }
}

let changeId = 0
export function change(
  transferId: string,
  oldStatus: string | null,
  newStatus: string,
  wall: string,
): TransferStatusChange {
  return {
    connectionId: CONN,
    id: `sc-${++changeId}`,
    transferId,
    oldStatus,
    newStatus,
    reason: null,
    createdAt: tokyo(wall),
  }
}

/** created → processing (both at `createdWall`, default the paid time) → paid at `paidWall`. */
export function paidAt(transferId: string, paidWall: string, createdWall = paidWall): TransferStatusChange[] {
  return [
    { ...change(transferId, null, 'created', createdWall), createdAt: tokyo(createdWall) - 120_000 },
    { ...change(transferId, 'created', 'processing', createdWall), createdAt: tokyo(createdWall) - 60_000 },
    change(transferId, 'processing', 'paid', paidWall),
  ]
}

export function bankLine(line: number, day: string, amount: number, currency = 'JPY'): BankLine {
  return { importId: 'imp-1', line, day, amount, currency }
}

/** Links: each ledger id → one record `charge:<id>` or `refund:<id>` of `gross`. */
export function linked(entries: [ledgerId: string, gross: number][]): {
  ledgerRecords: Map<string, RecordKey[]>
  records: Map<RecordKey, RecordAmount>
} {
  const ledgerRecords = new Map<string, RecordKey[]>()
  const records = new Map<RecordKey, RecordAmount>()
  for (const [id, gross] of entries) {
    const type = gross < 0 ? 'refund' : 'charge'
    const key: RecordKey = `${type}:${id}`
    ledgerRecords.set(id, [key])
    records.set(key, { amount: Math.abs(gross), currency: 'JPY', type })
  }
  return { ledgerRecords, records }
}
