/** Hand-made transfers, ledgers and status changes for the payout rules' tests (Tokyo time). */
import type { LedgerItem, PayoutReadings, Transfer, TransferStatusChange } from '../../src/domain/payouts'
import type { RecordKey } from '../../src/domain/records'
import type { BankLine } from '../../src/reconcile/payouts/business-days'
import type { RecordAmount } from '../../src/reconcile/payouts/ledger-figures'
import {
  rollForwardOfMonth,
  type RollForward,
  type RollForwardInput,
} from '../../src/reconcile/payouts/rollforward'

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

/**
 * A month with every kind of payout movement, Tokyo time, transfer fee inside the transfers (net ledgers):
 * JPY — T1 (September's sales, paid 5 October), T2 (October's, paid 20 October), T3 (paid 30 September,
 * failed 6 October: its money went back), T4 (processing at the month's end), a sale and a refund in no
 * transfer; USD — TU paid 15 October. JPY opens at 10,000 (A1 and A4, less T3 paid) and closes at 9,560.
 */
export function octoberPayouts(): {
  transfers: Transfer[]
  ledgers: LedgerItem[]
  statusChanges: TransferStatusChange[]
  ledgerRecords: Map<string, RecordKey[]>
  records: Map<RecordKey, RecordAmount>
} {
  const transfers = [
    transfer('T1', { amount: 9_560, createdAt: tokyo('2026-10-01 09:00') }),
    transfer('T2', { amount: 19_840, createdAt: tokyo('2026-10-16 09:00') }),
    transfer('T3', { amount: 8_000, status: 'failed', createdAt: tokyo('2026-09-28 09:00') }),
    transfer('T4', { amount: 4_560, status: 'processing', createdAt: tokyo('2026-10-30 09:00') }),
    transfer('TU', { amount: 12_50, currency: 'USD', createdAt: tokyo('2026-10-10 09:00') }),
  ]
  const ledgers = [
    ledger('A1', 10_000, { transferId: 'T1', createdAt: tokyo('2026-09-20 10:00') }),
    ledger('F1', -440, { transferId: 'T1', origin: 'manual', createdAt: tokyo('2026-10-01 09:00') }),
    ledger('A2', 19_280, { transferId: 'T2', percentFee: 3.6, createdAt: tokyo('2026-10-10 10:00') }),
    ledger('A3', 1_000, { transferId: 'T2', createdAt: tokyo('2026-10-11 10:00') }),
    ledger('F2', -440, { transferId: 'T2', origin: 'manual', createdAt: tokyo('2026-10-16 09:00') }),
    ledger('A4', 8_000, { transferId: 'T3', createdAt: tokyo('2026-09-25 10:00') }),
    ledger('A5', 5_000, { transferId: 'T4', createdAt: tokyo('2026-10-25 10:00') }),
    ledger('F4', -440, { transferId: 'T4', origin: 'manual', createdAt: tokyo('2026-10-30 09:00') }),
    ledger('A6', 3_000, { createdAt: tokyo('2026-10-28 10:00') }),
    ledger('A7', -6_000, { createdAt: tokyo('2026-10-29 10:00') }),
    ledger('U1', 12_50, { transferId: 'TU', currency: 'USD', createdAt: tokyo('2026-10-02 10:00') }),
  ]
  const statusChanges = [
    ...paidAt('T1', '2026-10-05 15:00', '2026-10-01 09:00'),
    ...paidAt('T2', '2026-10-20 15:00', '2026-10-16 09:00'),
    ...paidAt('T3', '2026-09-30 15:00', '2026-09-28 09:00'),
    change('T3', 'paid', 'failed', '2026-10-06 10:00'),
    change('T4', null, 'processing', '2026-10-30 09:00'),
    ...paidAt('TU', '2026-10-15 15:00', '2026-10-10 09:00'),
  ]
  const { ledgerRecords, records } = linked([
    ['A1', 10_000],
    ['A2', 20_000],
    ['A3', 1_000],
    ['A4', 8_000],
    ['A5', 5_000],
    ['A6', 3_000],
    ['A7', -6_000],
  ])
  ledgerRecords.set('U1', ['charge:U1'])
  records.set('charge:U1', { amount: 12_50, currency: 'USD', type: 'charge' })
  return { transfers, ledgers, statusChanges, ledgerRecords, records }
}

/** October's roll-forward of `octoberPayouts()`, net ledgers and the fee inside the transfers. */
export function octoberRollForward(over: Partial<RollForwardInput> = {}): RollForward {
  return rollForwardOfMonth({
    period: '2026-10',
    timeZone: TZ,
    ...octoberPayouts(),
    readings: NET_INSIDE,
    transferFees: FEES,
    ...over,
  })
}
